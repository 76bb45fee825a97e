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

/** Domain → wire: the fields of spec 2.3 plus documented extras; tenantId and the remote address stay inside. */
export function toEmailView(email: Email) {
  const { tenantId: _tenantId, remoteAddress: _remoteAddress, ...view } = email;
  return view;
}
