import { PostgresAdapter, sql, type ExpressionBuilder, type Kysely, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { EmailKeyset } from '../../../core/email-cursor.js';
import type { AttachmentMeta, AuthDiagnostics, Email, EmailContent } from '../../../core/email.js';
import type { SpamCheckState, SpamFields, SpamRule } from '../../../core/spam.js';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import type { SearchQuery } from '../../../core/search-query.js';
import type { AuthResult, EmailSortField, SortOrder } from '../../../core/vocab.js';
import { matchesFewInSqlite, searchConditions, wantedExpression, type SqliteSearchPlan } from '../email-search.js';
import type { Database } from '../schema.js';
import { reusableInsert } from '../reusable-query.js';
import { containsIgnoringCase, fromFlag, parseJson, toFlag } from '../sql.js';
import { emailSearchVector } from '../../../core/search-vector.js';
import { recipientsSearchText } from '../../../core/email-recipients.js';

export interface EmailFilter {
  /** Only these emails (bulk actions by id). */
  ids?: string[];
  from?: string;
  to?: string;
  subject?: string;
  read?: boolean;
  environmentId?: string;
  inboxId?: string;
  /**
   * For an inbox-scoped caller: `to` then matches the To and Cc headers and this (its inbox's)
   * address, never another inbox's blind copy.
   */
  ownAddress?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** A parsed `q` (docs/search.md), ANDed with the fields above. */
  search?: SearchQuery;
}

export interface EmailSort {
  field: EmailSortField;
  order: SortOrder;
}

/** What ingest stores for one email: the row, its bodies and its attachments' metadata and blob keys. */
export interface NewEmail {
  email: Email;
  textBody: string | null;
  htmlBody: string | null;
  headers: Record<string, string>;
  emlKey: string;
  attachmentKeys: string[];
  /** When the recheck worker first asks the spam filter again (the filter missed the deadline), else null. */
  spamRecheckAt?: string | null;
  /** PostgreSQL's search tsvector text, when the analysis built it (D57); otherwise insertMany does. */
  searchVector?: string;
}

/** Mail whose spam check the recheck worker is to try again: the email, where its EML is, and the tries so far. */
export interface SpamRecheck {
  email: Email;
  emlKey: string;
  attempts: number;
}

function spamColumns(spam: SpamFields) {
  return {
    spam_check: spam.spamCheck,
    spam_score: spam.spamScore,
    spam_threshold: spam.spamThreshold,
    is_spam: spam.isSpam === null ? null : toFlag(spam.isSpam),
    spam_action: spam.spamAction,
    spam_rules_json: JSON.stringify(spam.spamRules),
  };
}

export interface StoredAttachment extends AttachmentMeta {
  blobKey: string;
}

type EmailRow = Database['emails'];
type AttachmentRow = Database['attachments'];

const SORT_COLUMNS = { createdAt: 'created_at', from: 'from_address', subject: 'subject' } as const;

/** Text columns sort case-insensitively, so both dialects (binary SQLite, collated PostgreSQL) agree. */
function sortKey(field: EmailSortField) {
  const column = sql.ref(`emails.${SORT_COLUMNS[field]}`);
  return field === 'createdAt' ? column : sql`lower(${column})`;
}

/** Rows strictly after the keyset in list order; the value is lower-cased by SQL, exactly as sortKey is. */
/** The emails after a keyset in list order; `through`: those up to and including it instead. */
function keysetCondition(after: EmailKeyset, through: boolean) {
  const value = after.field === 'createdAt' ? sql`${after.value}` : sql`lower(cast(${after.value} as text))`;
  const comparison = sql.raw(after.order === 'desc' ? (through ? '>=' : '<') : through ? '<=' : '>');
  return sql<SqlBool>`(${sortKey(after.field)}, ${sql.ref('emails.id')}) ${comparison} (${value}, ${after.id})`;
}

const afterKeyset = (after: EmailKeyset) => keysetCondition(after, false);
const throughKeyset = (after: EmailKeyset) => keysetCondition(after, true);

type EmailQuery = SelectQueryBuilder<Database, 'emails', object>;

/** A search's count stops here (or at the end of the requested page): `totalItemsIsLowerBound` then says so. */
export const SEARCH_COUNT_CAP = 1000;

/** A page of the list; `totalItemsIsLowerBound`: a search had more matches than it counted. */
export type EmailListPage = Page<Email> & { totalItemsIsLowerBound: boolean };

interface ListCounts {
  total: number;
  /** Keyset mode: the matches after the cursor. */
  remaining?: number;
  lowerBound: boolean;
  /** Page mode with a bounded count: whether anything follows the page. */
  hasMore?: boolean;
}

/** The attachments' metadata of these emails, in message order, by email id (one query). */
export async function attachmentsOf(db: Kysely<Database>, emailIds: string[]): Promise<Map<string, AttachmentMeta[]>> {
  const byEmail = new Map<string, AttachmentMeta[]>();
  if (emailIds.length === 0) return byEmail;
  const rows = await db.selectFrom('attachments').selectAll().where('email_id', 'in', emailIds).orderBy('position').execute();
  for (const row of rows) {
    const { blobKey: _blobKey, ...meta } = toAttachment(row);
    const list = byEmail.get(row.email_id) ?? [];
    list.push(meta);
    byEmail.set(row.email_id, list);
  }
  return byEmail;
}

/** Columns for list and get: everything but the bodies and headers, which can be large. */
const SUMMARY_COLUMNS = [
  'id', 'tenant_id', 'environment_id', 'base_email_id', 'message_id', 'from_address', 'to_json', 'cc_json', 'bcc_json',
  'subject', 'date', 'read', 'has_attachments', 'snippet', 'spf_result', 'dkim_result', 'dmarc_result', 'auth_summary',
  'auth_diagnostics_json', 'size', 'remote_address', 'mail_from', 'helo', 'spam_check', 'spam_score', 'spam_threshold', 'is_spam',
  'spam_action', 'spam_rules_json', 'created_at', 'updated_at',
] as const;
type SummaryRow = Pick<EmailRow, (typeof SUMMARY_COLUMNS)[number]>;

const toAttachment = (row: AttachmentRow): StoredAttachment => ({
  id: row.id,
  filename: row.filename,
  contentType: row.content_type,
  size: row.size,
  contentId: row.content_id,
  disposition: row.disposition === 'inline' ? 'inline' : 'attachment',
  blobKey: row.blob_key,
});

const toEmail = (row: SummaryRow, attachments: AttachmentMeta[]): Email => ({
  id: row.id,
  tenantId: row.tenant_id,
  environmentId: row.environment_id,
  baseEmailId: row.base_email_id,
  messageId: row.message_id,
  from: row.from_address,
  to: parseJson<string[]>(row.to_json),
  cc: parseJson<string[]>(row.cc_json),
  bcc: parseJson<string[]>(row.bcc_json),
  subject: row.subject,
  date: row.date,
  read: fromFlag(row.read),
  hasAttachments: fromFlag(row.has_attachments),
  attachments,
  snippet: row.snippet,
  spfResult: row.spf_result as AuthResult,
  dkimResult: row.dkim_result as AuthResult,
  dmarcResult: row.dmarc_result as AuthResult,
  authSummary: row.auth_summary,
  authDiagnostics: parseJson<AuthDiagnostics>(row.auth_diagnostics_json),
  size: row.size,
  remoteAddress: row.remote_address,
  envelope: { mailFrom: row.mail_from ?? null, helo: row.helo ?? null },
  spamCheck: row.spam_check as SpamCheckState,
  spamScore: row.spam_score,
  spamThreshold: row.spam_threshold,
  isSpam: row.is_spam === null ? null : fromFlag(row.is_spam),
  spamAction: row.spam_action,
  spamRules: parseJson<SpamRule[]>(row.spam_rules_json),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** PostgreSQL's row also carries the search tsvector, which the server no longer computes (D53), mostly built by the analysis (D57). */
function postgresEmailRow(item: NewEmail): EmailRow {
  const row = emailRow(item);
  row.search_vector = item.searchVector ?? emailSearchVector({ ...item.email, textBody: item.textBody });
  return row;
}

function emailRow(item: NewEmail): EmailRow {
  const { email } = item;
  return {
    id: email.id,
    tenant_id: email.tenantId,
    environment_id: email.environmentId,
    base_email_id: email.baseEmailId,
    message_id: email.messageId,
    from_address: email.from,
    to_json: JSON.stringify(email.to),
    cc_json: JSON.stringify(email.cc),
    bcc_json: JSON.stringify(email.bcc),
    recipients_search: recipientsSearchText(email),
    subject: email.subject,
    date: email.date,
    read: toFlag(email.read),
    has_attachments: toFlag(email.hasAttachments),
    snippet: email.snippet,
    text_body: item.textBody,
    html_body: item.htmlBody,
    headers_json: JSON.stringify(item.headers),
    spf_result: email.spfResult,
    dkim_result: email.dkimResult,
    dmarc_result: email.dmarcResult,
    auth_summary: email.authSummary,
    auth_diagnostics_json: JSON.stringify(email.authDiagnostics),
    size: email.size,
    eml_key: item.emlKey,
    remote_address: email.remoteAddress,
    mail_from: email.envelope.mailFrom,
    helo: email.envelope.helo,
    ...spamColumns(email),
    spam_recheck_at: item.spamRecheckAt ?? null,
    spam_recheck_attempts: 0,
    created_at: email.createdAt,
    updated_at: email.updatedAt,
  };
}

/**
 * Ten bound values per attachment row: 500 rows stay far below SQLite's 32,766 variables and
 * PostgreSQL's 65,535 bind parameters, however many attachments a message has.
 */
const ATTACHMENT_ROWS_PER_INSERT = 500;
/** An email row binds about 40 values: 200 rows stay far below SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const EMAIL_ROWS_PER_INSERT = 200;
const insertEmails = reusableInsert('emails');
const insertAttachments = reusableInsert('attachments');

export class EmailRepository {
  private readonly postgres: boolean;

  constructor(private readonly db: Kysely<Database>) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /** Several emails with their attachments in as few statements as the parameter limits allow (group commit). */
  async insertMany(items: NewEmail[]): Promise<void> {
    for (let start = 0; start < items.length; start += EMAIL_ROWS_PER_INSERT) {
      await insertEmails(this.db, items.slice(start, start + EMAIL_ROWS_PER_INSERT).map(this.postgres ? postgresEmailRow : emailRow));
    }
    const rows = items.flatMap((item) =>
      item.email.attachments.map((a, position) => ({
        id: a.id,
        email_id: item.email.id,
        tenant_id: item.email.tenantId,
        position,
        filename: a.filename,
        content_type: a.contentType,
        size: a.size,
        content_id: a.contentId,
        disposition: a.disposition,
        blob_key: item.attachmentKeys[position] ?? '',
      })),
    );
    for (let start = 0; start < rows.length; start += ATTACHMENT_ROWS_PER_INSERT) {
      await insertAttachments(this.db, rows.slice(start, start + ATTACHMENT_ROWS_PER_INSERT));
    }
  }

  /**
   * One page in list order: by page number, or (with `after`) the emails following a keyset, which
   * stays stable while new mail arrives. In keyset mode `currentPage` is the page the first item falls on.
   * A search for words counts at most SEARCH_COUNT_CAP matches past the page (docs/search.md).
   */
  async list(tenantId: string, filter: EmailFilter, sort: EmailSort, request: PageRequest, after?: EmailKeyset): Promise<EmailListPage> {
    const plan = await this.searchPlan(filter);
    const base = this.filtered(tenantId, filter, plan);
    const rest = after === undefined ? base : base.where(afterKeyset(after));
    const rowsQuery = rest
      .select(SUMMARY_COLUMNS.map((c) => `emails.${c}` as const))
      .orderBy(sortKey(sort.field), sort.order)
      .orderBy('emails.id', sort.order)
      .limit(request.perPage)
      .offset(after === undefined ? offsetOf(request) : 0);
    const bounded = filter.search !== undefined && filter.search.terms.length > 0;
    const [rows, counts] = await Promise.all([
      rowsQuery.execute(),
      bounded ? this.boundedCounts(tenantId, filter, plan, request, after) : this.exactCounts(base, rest, after),
    ]);
    const attachments = await this.attachmentsOf(rows.map((r) => r.id));
    const emails = rows.map((row) => toEmail(row, attachments.get(row.id) ?? []));
    if (counts.remaining === undefined) {
      const page = makePage(emails, counts.total, request);
      return { ...page, hasNextPage: counts.hasMore ?? page.hasNextPage, totalItemsIsLowerBound: counts.lowerBound };
    }
    const page = Math.floor((counts.total - counts.remaining) / request.perPage) + 1;
    return { ...makePage(emails, counts.total, { ...request, page }), hasNextPage: counts.remaining > emails.length, totalItemsIsLowerBound: counts.lowerBound };
  }

  private async exactCounts(base: EmailQuery, rest: EmailQuery, after: EmailKeyset | undefined): Promise<ListCounts> {
    const count = (query: EmailQuery) => query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow().then((row) => Number(row.n));
    const [total, remaining] = await Promise.all([count(base), after === undefined ? undefined : count(rest)]);
    return { total, remaining, lowerBound: false };
  }

  /**
   * Counting every match of a word most emails contain costs a second at 100,000 emails; these counts
   * stop at the cap (or the end of the requested page), and say when they did.
   */
  private async boundedCounts(tenantId: string, filter: EmailFilter, plan: SqliteSearchPlan, request: PageRequest, after: EmailKeyset | undefined): Promise<ListCounts> {
    const joinable = !this.postgres && plan === 'walk' && wantedExpression(filter.search?.terms ?? []) !== '';
    const counted = (extra?: RawBuilder<SqlBool>) => (joinable ? this.joinedSearch(tenantId, filter, extra) : this.filtered(tenantId, filter, plan, extra));
    if (after === undefined) {
      const limit = Math.max(SEARCH_COUNT_CAP, offsetOf(request) + request.perPage) + 1;
      const n = await this.countUpTo(counted(), limit);
      return { total: Math.min(n, limit - 1), lowerBound: n === limit, hasMore: n > offsetOf(request) + request.perPage };
    }
    // `before` walks the list from its top to the cursor; `remaining` the matches after it.
    const [before, remaining] = await Promise.all([
      this.countUpTo(this.filtered(tenantId, filter, plan, throughKeyset(after)), SEARCH_COUNT_CAP + 1),
      this.countUpTo(counted(afterKeyset(after)), SEARCH_COUNT_CAP + 1),
    ]);
    const lowerBound = before > SEARCH_COUNT_CAP || remaining > SEARCH_COUNT_CAP;
    const shownRemaining = Math.min(remaining, SEARCH_COUNT_CAP);
    return { total: Math.min(before, SEARCH_COUNT_CAP) + shownRemaining, remaining: shownRemaining, lowerBound };
  }

  private async countUpTo(query: EmailQuery, limit: number): Promise<number> {
    const matches = query.select(sql<number>`1`.as('one')).limit(limit).as('matches');
    const row = await this.db.selectFrom(matches).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /**
   * SQLite, a search most emails match: the matches read from the index in its own order, joined to
   * their rows (CROSS JOIN fixes that order), so a count stops after `limit` matches instead of first
   * collecting all of them. The other conditions apply to the joined row as in `filtered`.
   */
  private joinedSearch(tenantId: string, filter: EmailFilter, extra?: RawBuilder<SqlBool>): EmailQuery {
    const wanted = wantedExpression(filter.search?.terms ?? []);
    const joined = this.db
      .selectFrom(sql`emails_fts`.as('emails_fts'))
      .crossJoin(sql`email_search_keys`.as('k'))
      .crossJoin('emails')
      .where(sql<SqlBool>`k.key = emails_fts.rowid`)
      .where(sql<SqlBool>`emails.id = k.email_id`)
      .where(sql<SqlBool>`emails_fts match ${wanted}`);
    // Only emails.* columns are referenced from here on, which this query has like the plain one.
    return this.withFilter(joined as unknown as EmailQuery, tenantId, filter, 'joined', extra);
  }

  async get(tenantId: string, id: string): Promise<Email | undefined> {
    const row = await this.db
      .selectFrom('emails')
      .select(SUMMARY_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    const attachments = await this.attachmentsOf([id]);
    return toEmail(row, attachments.get(id) ?? []);
  }

  async getContent(tenantId: string, id: string): Promise<EmailContent | undefined> {
    const row = await this.db
      .selectFrom('emails')
      .select(['html_body', 'text_body', 'headers_json'])
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && { html: row.html_body, text: row.text_body, headers: parseJson<Record<string, string>>(row.headers_json) };
  }

  async getEmlKey(tenantId: string, id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('emails')
      .select('eml_key')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.eml_key;
  }

  async getAttachment(tenantId: string, emailId: string, attachmentId: string): Promise<StoredAttachment | undefined> {
    const row = await this.db
      .selectFrom('attachments')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('email_id', '=', emailId)
      .where('id', '=', attachmentId)
      .executeTakeFirst();
    return row && toAttachment(row);
  }

  async setRead(tenantId: string, id: string, read: boolean, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('emails')
      .set({ read: toFlag(read), updated_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Up to `limit` emails due for a spam recheck at `now`, longest waiting first. */
  async dueSpamRechecks(now: string, limit: number): Promise<SpamRecheck[]> {
    const rows = await this.db
      .selectFrom('emails')
      .select([...SUMMARY_COLUMNS, 'eml_key', 'spam_recheck_attempts'])
      .where('spam_recheck_at', 'is not', null)
      .where('spam_recheck_at', '<=', now)
      .orderBy('spam_recheck_at')
      .limit(limit)
      .execute();
    const attachments = await this.attachmentsOf(rows.map((row) => row.id));
    return rows.map((row) => ({ email: toEmail(row, attachments.get(row.id) ?? []), emlKey: row.eml_key, attempts: row.spam_recheck_attempts }));
  }

  /** Records a failed recheck: the next try at `next` (null: given up), after `attempts` tries. */
  async postponeSpamRecheck(id: string, next: string | null, attempts: number): Promise<void> {
    await this.db.updateTable('emails').set({ spam_recheck_at: next, spam_recheck_attempts: attempts }).where('id', '=', id).execute();
  }

  /** Stores the filter's verdict and ends the rechecks; false when the email is gone. */
  async setSpamVerdict(id: string, spam: SpamFields, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('emails')
      .set({ ...spamColumns(spam), spam_recheck_at: null, updated_at: at })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Up to `limit` emails matching the filter (and, when given, in read state `read`), for bulk actions. */
  async matchingBatch(tenantId: string, filter: EmailFilter, limit: number, read?: boolean): Promise<{ id: string; environmentId: string }[]> {
    let query = this.filtered(tenantId, filter, await this.searchPlan(filter));
    if (read !== undefined) query = query.where('emails.read', '=', toFlag(read));
    const rows = await query.select(['emails.id', 'emails.environment_id']).limit(limit).execute();
    return rows.map((row) => ({ id: row.id, environmentId: row.environment_id }));
  }

  async setReadMany(tenantId: string, ids: string[], read: boolean, at: string): Promise<number> {
    if (ids.length === 0) return 0;
    const result = await this.db
      .updateTable('emails')
      .set({ read: toFlag(read), updated_at: at })
      .where('tenant_id', '=', tenantId)
      .where('id', 'in', ids)
      .where('read', '!=', toFlag(read))
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** Deletes the rows (attachments and inbox links cascade); returns the ids deleted and the blob keys to remove afterwards. */
  async deleteMany(tenantId: string, ids: string[]): Promise<{ deleted: string[]; blobKeys: string[] }> {
    if (ids.length === 0) return { deleted: [], blobKeys: [] };
    // Attachment rows cascade with their email, so their keys are read first.
    const attachments = await this.db.selectFrom('attachments').select('blob_key').where('tenant_id', '=', tenantId).where('email_id', 'in', ids).execute();
    const rows = await this.db.deleteFrom('emails').where('tenant_id', '=', tenantId).where('id', 'in', ids).returning(['id', 'eml_key']).execute();
    return { deleted: rows.map((row) => row.id), blobKeys: [...rows.map((row) => row.eml_key), ...attachments.map((a) => a.blob_key)] };
  }

  /**
   * Deletes the row (attachments and inbox links cascade) and returns the blob keys to remove afterwards.
   * `unlinkedOnly`: only when no inbox holds the email any more (the last inbox copy was removed).
   */
  async delete(tenantId: string, id: string, unlinkedOnly = false): Promise<string[] | undefined> {
    const unlinked = (eb: ExpressionBuilder<Database, 'emails'>) =>
      eb.not(eb.exists(eb.selectFrom('inbox_messages').select('inbox_messages.id').whereRef('inbox_messages.email_id', '=', 'emails.id')));
    let select = this.db.selectFrom('emails').select('eml_key').where('tenant_id', '=', tenantId).where('id', '=', id);
    if (unlinkedOnly) select = select.where(unlinked);
    const row = await select.executeTakeFirst();
    if (row === undefined) return undefined;
    const attachments = await this.db.selectFrom('attachments').select('blob_key').where('email_id', '=', id).execute();
    let remove = this.db.deleteFrom('emails').where('tenant_id', '=', tenantId).where('id', '=', id);
    if (unlinkedOnly) remove = remove.where(unlinked);
    const result = await remove.executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) return undefined;
    return [row.eml_key, ...attachments.map((a) => a.blob_key)];
  }

  /** How SQLite reaches a search's words: from the index's matches when they are few (see SqliteSearchPlan). */
  private async searchPlan(filter: EmailFilter): Promise<SqliteSearchPlan> {
    if (this.postgres || filter.search === undefined) return 'walk';
    return (await matchesFewInSqlite(this.db, filter.search)) ? 'drive' : 'walk';
  }

  private filtered(tenantId: string, filter: EmailFilter, plan: SqliteSearchPlan, extra?: RawBuilder<SqlBool>): EmailQuery {
    return this.withFilter(this.db.selectFrom('emails'), tenantId, filter, plan, extra);
  }

  private withFilter(from: EmailQuery, tenantId: string, filter: EmailFilter, plan: SqliteSearchPlan, extra?: RawBuilder<SqlBool>): EmailQuery {
    // A unary + keeps SQLite off the tenant indexes, so it looks the few matches up by id instead.
    let query = from.where(plan !== 'walk' ? sql<SqlBool>`+emails.tenant_id = ${tenantId}` : sql<SqlBool>`emails.tenant_id = ${tenantId}`);
    if (extra !== undefined) query = query.where(extra);
    if (filter.ids !== undefined) query = query.where('emails.id', 'in', filter.ids);
    if (filter.environmentId !== undefined) query = query.where('emails.environment_id', '=', filter.environmentId);
    if (filter.read !== undefined) query = query.where('emails.read', '=', toFlag(filter.read));
    if (filter.createdAfter !== undefined) query = query.where('emails.created_at', '>=', filter.createdAfter);
    if (filter.createdBefore !== undefined) query = query.where('emails.created_at', '<=', filter.createdBefore);
    if (filter.from !== undefined) query = query.where(containsIgnoringCase('emails.from_address', filter.from));
    if (filter.to !== undefined) query = withRecipient(query, filter.to, filter.ownAddress);
    if (filter.subject !== undefined) query = query.where(containsIgnoringCase('emails.subject', filter.subject));
    for (const condition of filter.search === undefined ? [] : searchConditions(filter.search, this.postgres, plan)) query = query.where(condition);
    if (filter.inboxId !== undefined) {
      const inboxId = filter.inboxId;
      query = query.where((eb) =>
        eb.exists(
          eb.selectFrom('inbox_messages').select('inbox_messages.id').whereRef('inbox_messages.email_id', '=', 'emails.id').where('inbox_messages.inbox_id', '=', inboxId),
        ),
      );
    }
    return query;
  }

  private attachmentsOf(emailIds: string[]): Promise<Map<string, AttachmentMeta[]>> {
    return attachmentsOf(this.db, emailIds);
  }
}

/** Every email of an inbox has the inbox's address among its recipients, so a needle it contains matches them all. */
function withRecipient(query: SelectQueryBuilder<Database, 'emails', object>, needle: string, ownAddress: string | undefined): SelectQueryBuilder<Database, 'emails', object> {
  if (ownAddress === undefined) return query.where(containsIgnoringCase('emails.recipients_search', needle));
  if (ownAddress.toLowerCase().includes(needle.toLowerCase())) return query;
  return query.where((eb) => eb.or([containsIgnoringCase('emails.to_json', needle), containsIgnoringCase('emails.cc_json', needle)]));
}
