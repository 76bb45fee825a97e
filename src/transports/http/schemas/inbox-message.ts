import { Type } from '@sinclair/typebox';
import { LINK_KINDS } from '../../../core/extract.js';
import type { InboxMessageRecord } from '../../../adapters/db/repositories/inbox-message.repository.js';
import { WAIT_TIMEOUT_MS } from '../../../services/inbox-message.service.js';
import { toExtractedView } from '../../../services/extracted-view.js';
import { IsoDate, Nullable, PageQuery } from './common.js';
import { AttachmentSchema } from './email.js';

export const ExtractedSchema = Type.Object(
  {
    otp: Nullable(Type.String({ description: 'The code a person would type (digits, letters or both), found with a strong cue' })),
    verificationCode: Nullable(Type.String({ description: 'The most likely code of any form (numeric or alphanumeric)' })),
    links: Type.Array(Type.String(), { description: 'The link URLs, in reading order (details of each in linkDetails)' }),
    linkDetails: Type.Array(
      Type.Object({
        url: Type.String(),
        text: Type.String({ description: 'Visible anchor text, or the text next to a bare URL' }),
        kind: Type.Union(LINK_KINDS.map((kind) => Type.Literal(kind))),
      }),
      { description: 'The links of `links`, in the same order, with their anchor text and what each is for' },
    ),
    codes: Type.Array(Type.String(), { description: 'Every code candidate, most confident first' }),
    magicLink: Nullable(Type.String({ description: 'The verification or magic-login link a tester most likely wants to open' })),
  },
  { title: 'Extracted', description: 'Auth artefacts found at ingest; see docs/inboxes.md' },
);

export const InboxMessageSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    inboxId: Type.String({ format: 'uuid' }),
    emailId: Type.String({ format: 'uuid', description: 'The stored email (GET /emails/:id, /eml, attachments)' }),
    from: Type.String(),
    fromName: Type.String({ description: "The sender's display name, '' when the From header has none" }),
    to: Type.Array(Type.String()),
    subject: Type.String(),
    textBody: Type.String({ description: 'Parsed text body (the visible text of the HTML body when there is no text part)' }),
    htmlBody: Nullable(Type.String({ description: 'The HTML body as sent (not sanitised: render it sandboxed), null when there is none' })),
    headers: Type.Record(Type.String(), Type.String(), { description: 'Header name (lower-case) → value; a repeated header is joined with newlines' }),
    attachments: Type.Array(
      Type.Object({
        ...AttachmentSchema.properties,
        downloadUrl: Type.String({ description: 'GET this path (same authentication) for the bytes: /api/v1/emails/{emailId}/attachments/{id}' }),
      }),
    ),
    read: Type.Boolean(),
    extracted: Nullable(ExtractedSchema),
    extractionSkipped: Nullable(
      Type.Union([Type.Literal('time-budget')], {
        description: 'Why `extracted` is null: "time-budget" (extraction ran out of its time budget; the mail is stored all the same). null when extraction ran.',
      }),
    ),
    createdAt: IsoDate,
  },
  { $id: 'InboxMessage', title: 'InboxMessage' },
);

export const MessageListQuery = Type.Object({
  ...PageQuery(20, 100),
  afterId: Type.Optional(
    Type.String({ format: 'uuid', description: 'Only messages received after this message of the inbox, oldest first (as on /messages/wait)' }),
  ),
});
export const MessageParams = Type.Object({ inboxId: Type.String({ minLength: 1, maxLength: 100 }), messageId: Type.String({ minLength: 1, maxLength: 100 }) });

export const WaitQuery = Type.Object({
  timeout: Type.Optional(
    Type.Integer({ minimum: 0, maximum: WAIT_TIMEOUT_MS.max, default: WAIT_TIMEOUT_MS.default, description: `Longest wait in ms (max ${WAIT_TIMEOUT_MS.max})` }),
  ),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Case-insensitive substring of the subject' })),
  from: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Case-insensitive substring of the sender' })),
  afterId: Type.Optional(Type.String({ format: 'uuid', description: 'Only messages stored after this message of the inbox' })),
});

/** Repository record → wire (spec 2.6 plus emailId, read, the bodies, headers and attachments). */
export function toInboxMessageView(message: InboxMessageRecord, apiPrefix: string) {
  const { uid: _uid, textBody, extracted, attachments, ...view } = message;
  return {
    ...view,
    textBody: textBody ?? '',
    extracted: toExtractedView(extracted),
    attachments: attachments.map((attachment) => ({
      ...attachment,
      downloadUrl: `${apiPrefix}/emails/${message.emailId}/attachments/${attachment.id}`,
    })),
  };
}
