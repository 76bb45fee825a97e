import type { CustomStorageLocation } from './custom-storage.js';
import type { Email, EmailContent } from './email.js';
import type { SpamFields } from './spam.js';
import type { StorageProvider } from './vocab.js';

/** The body POSTed to a webhook url: spec 2.9, field for field, plus the spam verdict (docs/spam.md). */
export interface WebhookPayload extends SpamFields {
  id: string;
  from: string;
  to: string[];
  subject: string;
  body: string;
  html?: string;
  receivedAt: string;
  headers: Record<string, string>;
  /** storagePath: the attachment's path in the customer's bucket (custom storage only). */
  attachments: Array<{ id: string; filename: string; contentType: string; size: number; storagePath?: string }>;
  spfResult: string;
  dkimResult: string;
  dmarcResult: string;
  authSummary: string;
  /** Whether the email is in the customer's own bucket (docs/storage.md); the two fields below only then. */
  usesCustomStorage: boolean;
  storagePath?: string;
  storageConfig?: { provider: StorageProvider; bucket: string };
}

/** The custom-storage fields of spec 2.9: present only for mail in the customer's bucket. */
function storageFields(location: CustomStorageLocation | undefined): Pick<WebhookPayload, 'usesCustomStorage' | 'storagePath' | 'storageConfig'> {
  if (location === undefined) return { usesCustomStorage: false };
  return { usesCustomStorage: true, storagePath: location.storagePath, storageConfig: { provider: location.provider, bucket: location.bucket } };
}

export function buildWebhookPayload(email: Email, content: EmailContent, storage?: CustomStorageLocation): WebhookPayload {
  return {
    id: email.id,
    from: email.from,
    to: email.to,
    subject: email.subject,
    body: content.text ?? '',
    ...(content.html === null ? {} : { html: content.html }),
    receivedAt: email.createdAt,
    headers: content.headers,
    attachments: email.attachments.map(({ id, filename, contentType, size }) => {
      const storagePath = storage?.attachmentPaths[id];
      return { id, filename, contentType, size, ...(storagePath === undefined ? {} : { storagePath }) };
    }),
    spfResult: email.spfResult,
    dkimResult: email.dkimResult,
    dmarcResult: email.dmarcResult,
    authSummary: email.authSummary,
    spamCheck: email.spamCheck,
    spamScore: email.spamScore,
    spamThreshold: email.spamThreshold,
    isSpam: email.isSpam,
    spamAction: email.spamAction,
    spamRules: email.spamRules,
    ...storageFields(storage),
  };
}
