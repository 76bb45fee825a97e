import { Type } from '@sinclair/typebox';
import type { Email } from '../../../core/email.js';
import { AUTH_RESULTS } from '../../../core/vocab.js';
import { SPAM_CHECK_STATES } from '../../../core/spam.js';
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

export const SpamRuleSchema = Type.Object(
  {
    name: Type.String({ description: "The filter's rule (rspamd symbol), e.g. GTUBE, R_SPF_FAIL" }),
    score: Type.Number({ description: 'What the rule added to the score (negative: evidence of ham)' }),
    description: Nullable(Type.String()),
    options: Type.Array(Type.String(), { description: 'What the rule matched on, as the filter reports it' }),
  },
  { title: 'SpamRule' },
);

/** docs/spam.md: the spam filter's verdict, on every email. */
const spamProperties = {
  spamCheck: Type.Union(SPAM_CHECK_STATES.map((s) => Type.Literal(s)), {
    description: 'off: no spam filter is configured; done: the filter scored the mail; unavailable: it did not answer in time (a worker tries again and emits email.updated)',
  }),
  spamScore: Nullable(Type.Number({ description: 'The spam score; null unless spamCheck is done' })),
  spamThreshold: Nullable(Type.Number({ description: 'The score from which the filter rejects mail as spam (rspamd required_score)' })),
  isSpam: Nullable(Type.Boolean({ description: 'spamScore reached spamThreshold' })),
  spamAction: Nullable(Type.String({ description: "What the filter would have the MTA do: no action, greylist, add header, rewrite subject, soft reject, reject" })),
  spamRules: Type.Array(SpamRuleSchema, { description: 'The rules the message matched, largest effect first; empty unless spamCheck is done' }),
};

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
    ...spamProperties,
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

/**
 * Domain → wire: the fields of spec 2.3 plus documented extras; tenantId stays inside, the client's
 * address goes into envelope. Assigned to the rest, not `{ ...view, envelope }`: a literal that starts
 * with a spread gets a hidden class of its own per email on Node 20 (D66), and the serializer's reads
 * of a page of them went megamorphic.
 */
export function toEmailView(email: Email) {
  const { tenantId: _tenantId, remoteAddress, envelope, ...view } = email;
  return Object.assign(view, { envelope: { mailFrom: envelope.mailFrom, helo: envelope.helo, clientIp: remoteAddress } });
}
