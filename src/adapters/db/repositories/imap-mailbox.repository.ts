import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromFlag, parseJson } from '../sql.js';

/** One message of an inbox as IMAP sees it: the inbox_messages uid with the email's state. */
export interface MailboxMessageRow {
  uid: number;
  emailId: string;
  read: boolean;
  size: number;
  receivedAt: string;
  emlKey: string;
}

/** What SEARCH matches against (decoded columns; the raw EML is not re-read). */
export interface SearchableRow {
  emailId: string;
  from: string;
  subject: string;
  date: string;
  to: string[];
  cc: string[];
  bcc: string[];
  headers: Record<string, string>;
  text: string;
}

export class ImapMailboxRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The inbox's messages with uid > afterUid, in uid order. */
  async listMessages(tenantId: string, inboxId: string, afterUid = 0): Promise<MailboxMessageRow[]> {
    const rows = await this.db
      .selectFrom('inbox_messages')
      .innerJoin('emails', 'emails.id', 'inbox_messages.email_id')
      .select(['inbox_messages.uid', 'inbox_messages.email_id', 'emails.read', 'emails.size', 'emails.created_at', 'emails.eml_key'])
      .where('inbox_messages.inbox_id', '=', inboxId)
      .where('inbox_messages.tenant_id', '=', tenantId)
      .where('inbox_messages.uid', '>', afterUid)
      .orderBy('inbox_messages.uid')
      .execute();
    return rows.map((r) => ({
      uid: Number(r.uid),
      emailId: r.email_id,
      read: fromFlag(r.read),
      size: r.size,
      receivedAt: r.created_at,
      emlKey: r.eml_key,
    }));
  }

  async searchable(tenantId: string, emailIds: string[]): Promise<SearchableRow[]> {
    if (emailIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('emails')
      .select(['id', 'from_address', 'subject', 'date', 'to_json', 'cc_json', 'bcc_json', 'headers_json', 'text_body', 'html_body'])
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', emailIds)
      .execute();
    return rows.map((r) => ({
      emailId: r.id,
      from: r.from_address,
      subject: r.subject,
      date: r.date,
      to: parseJson<string[]>(r.to_json),
      cc: parseJson<string[]>(r.cc_json),
      bcc: parseJson<string[]>(r.bcc_json),
      headers: parseJson<Record<string, string>>(r.headers_json),
      text: [r.text_body ?? '', r.html_body ?? ''].join('\n'),
    }));
  }
}
