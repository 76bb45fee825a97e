import type { Kysely } from 'kysely';
import { addressParser } from 'postal-mime';
import type { AttachmentMeta } from '../../../core/email.js';
import type { Extracted, Extraction, ExtractionSkipped } from '../../../core/extract.js';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import type { Database } from '../schema.js';
import { containsIgnoringCase, fromFlag, parseJson } from '../sql.js';
import { reusableQuery } from '../reusable-query.js';
import { attachmentsOf } from './email.repository.js';

/** An inbox message (spec 2.6) joined with the stored email it points at. */
export interface InboxMessageRecord {
  id: string;
  uid: number;
  inboxId: string;
  emailId: string;
  from: string;
  /** The sender's display name (decoded), '' when the From header has none. */
  fromName: string;
  to: string[];
  subject: string;
  textBody: string | null;
  htmlBody: string | null;
  /** Header name (lower-case) → value; repeated headers joined with a newline. */
  headers: Record<string, string>;
  attachments: AttachmentMeta[];
  read: boolean;
  extracted: Extracted | null;
  extractionSkipped: ExtractionSkipped | null;
  createdAt: string;
}

export interface MessageMatch {
  subject?: string;
  from?: string;
  /** Only messages stored after the message with this uid. */
  afterUid?: number;
}

/** A page of messages, newest first, or (afterUid) the messages after one, oldest first. */
export interface MessageListRequest extends PageRequest {
  afterUid?: number;
}

const COLUMNS = [
  'inbox_messages.id',
  'inbox_messages.uid',
  'inbox_messages.inbox_id',
  'inbox_messages.email_id',
  'inbox_messages.extracted_json',
  'inbox_messages.created_at',
  'emails.from_address',
  'emails.to_json',
  'emails.subject',
  'emails.text_body',
  'emails.html_body',
  'emails.headers_json',
  'emails.read',
  'emails.has_attachments',
] as const;

type JoinedRow = {
  id: string;
  uid: number;
  inbox_id: string;
  email_id: string;
  extracted_json: string;
  created_at: string;
  from_address: string;
  to_json: string;
  subject: string;
  text_body: string | null;
  html_body: string | null;
  headers_json: string;
  read: number;
  has_attachments: number;
};

function readExtraction(json: string): Extraction {
  const stored = parseJson<Extracted | { skipped: ExtractionSkipped }>(json);
  return 'skipped' in stored ? { extracted: null, extractionSkipped: stored.skipped } : { extracted: stored, extractionSkipped: null };
}

const displayNameOf = (from: string | undefined): string => (from === undefined ? '' : (addressParser(from)[0]?.name ?? ''));

const toRecord = (row: JoinedRow, attachments: Map<string, AttachmentMeta[]>): InboxMessageRecord => {
  const headers = parseJson<Record<string, string>>(row.headers_json);
  return {
    id: row.id,
    uid: Number(row.uid),
    inboxId: row.inbox_id,
    emailId: row.email_id,
    from: row.from_address,
    fromName: displayNameOf(headers.from),
    to: parseJson<string[]>(row.to_json),
    subject: row.subject,
    textBody: row.text_body,
    htmlBody: row.html_body,
    headers,
    attachments: attachments.get(row.email_id) ?? [],
    read: fromFlag(row.read),
    ...readExtraction(row.extracted_json),
    createdAt: row.created_at,
  };
};

/** An inbox's messages joined with their emails: what every read below starts from. */
const joined = (db: Kysely<Database>, inboxId: string) =>
  db.selectFrom('inbox_messages').innerJoin('emails', 'emails.id', 'inbox_messages.email_id').where('inbox_messages.inbox_id', '=', inboxId);

const messageById = reusableQuery((db, inboxId: string, messageId: string) =>
  joined(db, inboxId).where('inbox_messages.id', '=', messageId).select(COLUMNS),
);

/** Reads of an inbox's messages; `uid` (the global ascending sequence) orders them by arrival. */
export class InboxMessageRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Most mail has no attachments: for rows whose email says so, the attachments are not queried. */
  private async toRecords(rows: JoinedRow[]): Promise<InboxMessageRecord[]> {
    const attachments = await attachmentsOf(this.db, rows.filter((row) => fromFlag(row.has_attachments)).map((row) => row.email_id));
    return rows.map((row) => toRecord(row, attachments));
  }

  /** Newest first; with afterUid, only the messages after that one, oldest first (as /wait reads them). */
  async list(inboxId: string, request: MessageListRequest): Promise<Page<InboxMessageRecord>> {
    const after = request.afterUid;
    let rows = joined(this.db, inboxId).select(COLUMNS);
    let count = this.db.selectFrom('inbox_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('inbox_id', '=', inboxId);
    if (after !== undefined) {
      rows = rows.where('inbox_messages.uid', '>', after);
      count = count.where('uid', '>', after);
    }
    const [found, total] = await Promise.all([
      rows.orderBy('inbox_messages.uid', after === undefined ? 'desc' : 'asc').limit(request.perPage).offset(offsetOf(request)).execute(),
      count.executeTakeFirstOrThrow(),
    ]);
    return makePage(await this.toRecords(found), Number(total.n), request);
  }

  /** Compiled once: each long-poll answer (/messages/wait) reads its message here (docs/decisions.md D58). */
  async get(inboxId: string, messageId: string): Promise<InboxMessageRecord | undefined> {
    const [row] = await messageById(this.db, inboxId, messageId);
    return row && (await this.toRecords([row]))[0];
  }

  async getUid(inboxId: string, messageId: string): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('inbox_messages')
      .select('uid')
      .where('inbox_id', '=', inboxId)
      .where('id', '=', messageId)
      .executeTakeFirst();
    return row === undefined ? undefined : Number(row.uid);
  }

  /** The earliest message that matches (case-insensitive substrings of subject and sender). */
  async findFirst(inboxId: string, match: MessageMatch): Promise<InboxMessageRecord | undefined> {
    let query = joined(this.db, inboxId).select(COLUMNS);
    if (match.afterUid !== undefined) query = query.where('inbox_messages.uid', '>', match.afterUid);
    if (match.subject !== undefined) query = query.where(containsIgnoringCase('emails.subject', match.subject));
    if (match.from !== undefined) query = query.where(containsIgnoringCase('emails.from_address', match.from));
    const row = await query.orderBy('inbox_messages.uid', 'asc').limit(1).executeTakeFirst();
    return row && (await this.toRecords([row]))[0];
  }
}
