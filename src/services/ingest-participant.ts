import type { Email } from '../core/email.js';
import type { Extraction } from '../core/extract.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { Delivery } from './recipient.service.js';

/** One tenant's copy of an ingested message, as committed. */
export interface StoredEmail {
  email: Email;
  deliveries: Delivery[];
  inboxMessages: Array<{ id: string; inboxId: string } & Extraction>;
  headers: Record<string, string>;
  textBody: string | null;
  htmlBody: string | null;
}

/**
 * A capability that takes part in ingest without ingest knowing it (webhooks queue deliveries,
 * quotas count usage, …). `inTransaction` runs inside the ingest's group write, so what it writes
 * commits with the email or not at all; throwing aborts the ingest and the sender gets a 4xx. It
 * reads what was committed before the group, not the group's own rows; on PostgreSQL its writes go
 * out with the group's in one statement when the write ends, so a write's result is read in
 * `afterCommit` (reusable-query.ts `runReturning`), and a write made any other way is refused; a part
 * of that statement may check that what the participant used without reading is still current,
 * and the write then runs again if it was not (D87).
 * `afterCommit` runs once the email is durable; its errors are logged and never reach the sender.
 * A write that fails is run again with the same StoredEmail objects (alone, or after D87's check);
 * `afterFailure` runs once an email's write has failed for good (the sender gets a 4xx), so that what
 * `inTransaction` set aside outside the database for it is let go.
 */
export interface IngestParticipant {
  readonly name: string;
  inTransaction?(repos: Repositories, emails: StoredEmail[]): Promise<void>;
  afterCommit?(emails: StoredEmail[]): void | Promise<void>;
  afterFailure?(emails: StoredEmail[]): void;
}
