import { Type } from '@sinclair/typebox';
import type { Email } from '../../../core/email.js';
import { AUTH_RESULTS } from '../../../core/vocab.js';
import { IsoDate, Nullable } from './common.js';

const AuthResultSchema = Type.Union(AUTH_RESULTS.map((r) => Type.Literal(r)));

export const AttachmentSchema = Type.Object({
  id: Type.String(),
  filename: Type.String(),
  contentType: Type.String(),
  size: Type.Number(),
  contentId: Nullable(Type.String()),
  disposition: Type.Union([Type.Literal('attachment'), Type.Literal('inline')]),
});

export const AuthDiagnosticsSchema = Type.Object(
  {
    spf: Type.Object({ clientIp: Nullable(Type.String()), domain: Nullable(Type.String()), record: Nullable(Type.String()), explanation: Nullable(Type.String()) }),
    dkim: Type.Array(
      Type.Object({
        domain: Nullable(Type.String()),
        selector: Nullable(Type.String()),
        result: AuthResultSchema,
        aligned: Type.Boolean(),
        explanation: Nullable(Type.String()),
      }),
    ),
    dmarc: Type.Object({
      domain: Nullable(Type.String()),
      policy: Nullable(Type.String()),
      spfAligned: Type.Boolean(),
      dkimAligned: Type.Boolean(),
      explanation: Nullable(Type.String()),
    }),
  },
  { description: 'Why each check came out as it did' },
);

export const EmailSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    from: Type.String(),
    to: Type.Array(Type.String()),
    cc: Type.Array(Type.String()),
    bcc: Type.Array(Type.String()),
    subject: Type.String(),
    date: IsoDate,
    read: Type.Boolean(),
    hasAttachments: Type.Boolean(),
    attachments: Type.Array(AttachmentSchema),
    snippet: Type.String(),
    spfResult: AuthResultSchema,
    dkimResult: AuthResultSchema,
    dmarcResult: AuthResultSchema,
    authSummary: Type.String(),
    authDiagnostics: AuthDiagnosticsSchema,
    environmentId: Type.String(),
    baseEmailId: Type.String({ description: 'The SMTP transaction id; equals id unless one transaction reached several tenants' }),
    messageId: Nullable(Type.String()),
    size: Type.Integer({ description: 'Size of the raw message in bytes' }),
    envelope: Type.Object(
      {
        mailFrom: Nullable(Type.String({ description: "MAIL FROM ('' for the null sender <>)" })),
        helo: Nullable(Type.String({ description: 'The name the client gave in HELO/EHLO' })),
        clientIp: Nullable(Type.String({ description: 'The address the SMTP client connected from' })),
      },
      { description: 'The SMTP envelope; mailFrom and helo are null for mail stored before they were recorded' },
    ),
    createdAt: IsoDate,
    updatedAt: IsoDate,
  },
  { $id: 'Email', title: 'Email' },
);

export const EmailContentSchema = Type.Object(
  {
    id: Type.String(),
    html: Nullable(Type.String()),
    text: Nullable(Type.String()),
    headers: Type.Record(Type.String(), Type.String()),
  },
  { title: 'EmailContent' },
);

export const ReadStateSchema = Type.Object({ id: Type.String(), read: Type.Boolean(), updatedAt: IsoDate }, { title: 'ReadState' });

/** Domain → wire: the fields of spec 2.3 plus documented extras; tenantId stays inside, the client's address goes into envelope. */
export function toEmailView(email: Email) {
  const { tenantId: _tenantId, remoteAddress, envelope, ...view } = email;
  return { ...view, envelope: { ...envelope, clientIp: remoteAddress } };
}
