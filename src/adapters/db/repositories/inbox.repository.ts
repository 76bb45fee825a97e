import { CompiledQuery, PostgresAdapter, sql, type Kysely, type SqlBool } from 'kysely';
import type { Extraction } from '../../../core/extract.js';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import { reusableInsert, reusableQuery, runOrCollect } from '../reusable-query.js';
import type { Database, InboxMessagesTable } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

/** Six values a row: 1,000 rows stay far below SQLite's and PostgreSQL's parameter limits. */
const INBOX_MESSAGE_ROWS_PER_INSERT = 1000;
const insertInboxMessages = reusableInsert('inbox_messages');

type InboxMessageRow = Omit<InboxMessagesTable, 'uid'>;
const INBOX_MESSAGE_COLUMNS = ['id', 'inbox_id', 'email_id', 'tenant_id', 'extracted_json', 'created_at'] as const satisfies ReadonlyArray<keyof InboxMessageRow>;

/**
 * PostgreSQL: an insert of inbox messages that first locks their inboxes, in id order so that
 * concurrent ingests cannot deadlock, until its transaction ends. UIDs come from a sequence as each
 * row is inserted; without the lock two ingests into one inbox could commit in the opposite order to
 * their UIDs, and an IMAP client that has seen the higher UID would never see the lower one. The lock
 * is the insert's own one-time filter, which PostgreSQL evaluates before the first row, so it holds
 * when the insert is one part of a collected statement, whose parts run in no set order (D86). The
 * text has no `*`, so that the connection can keep it prepared (pg-named-statements.ts).
 */
function lockedInsert(rows: InboxMessageRow[]): CompiledQuery {
  const parameters: unknown[] = [];
  const placeholder = (value: unknown) => {
    parameters.push(value);
    return `$${parameters.length}`;
  };
  const columns = INBOX_MESSAGE_COLUMNS.map((column) => `"${column}"`).join(', ');
  const values = rows.map((row) => `(${INBOX_MESSAGE_COLUMNS.map((column) => placeholder(row[column])).join(', ')})`).join(', ');
  const inboxes = [...new Set(rows.map((row) => row.inbox_id))].sort().map(placeholder).join(', ');
  const locked = `select "id" from "inboxes" where "id" in (${inboxes}) order by "id" for update`;
  return CompiledQuery.raw(
    `insert into "inbox_messages" (${columns}) select ${columns} from (values ${values}) as "v" (${columns}) where (select count("l"."id") from (${locked}) as "l") >= 0`,
    parameters,
  );
}

export interface InboxRecord {
  id: string;
  tenantId: string;
  environmentId: string;
  domainId: string | null;
  domain: string;
  addressPrefix: string;
  address: string;
  name: string | null;
  /** Extra addresses of this inbox, on its domain (lower-cased, full addresses). */
  aliases: string[];
  tags: string[];
  expiresAt: string | null;
  active: boolean;
  createdAt: string;
}

export interface InboxFilter {
  environmentId?: string;
  domainId?: string;
  /** Inboxes carrying every one of these tags. */
  tags?: string[];
  /** Only this inbox (inbox-scoped keys). */
  inboxId?: string;
  /** Without includeExpired, inboxes whose expiresAt is at or before this instant are left out. */
  includeExpired: boolean;
  now: string;
}

export interface InboxStats {
  messageCount: number;
  unreadCount: number;
  lastMessageAt: string | null;
  sizeBytes: number;
}

/** What PATCH /inboxes/:id may change. */
export interface InboxChanges {
  aliases?: string[];
  tags?: string[];
  active?: boolean;
}

/** What deleting an inbox removed: the emails no other inbox referenced, and their blob keys. */
export interface RemovedInbox {
  emailIds: string[];
  blobKeys: string[];
}

type Row = Database['inboxes'];

/**
 * Tags are stored as a JSON array; `"tag"` (JSON-quoted, LIKE-escaped) occurs in it exactly when the
 * tag does. Compared lower-cased, because SQLite's LIKE ignores ASCII case and PostgreSQL's does not.
 */
function hasTag(tag: string) {
  const pattern = `%${JSON.stringify(tag.toLowerCase()).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<SqlBool>`lower(${sql.ref('inboxes.tags')}) like ${pattern} escape '\\'`;
}

export const toInboxRecord = (row: Row): InboxRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  environmentId: row.environment_id,
  domainId: row.domain_id,
  domain: row.domain,
  addressPrefix: row.address_prefix,
  address: row.address,
  name: row.name,
  aliases: parseJson<string[]>(row.aliases),
  tags: parseJson<string[]>(row.tags),
  expiresAt: row.expires_at,
  active: fromFlag(row.active),
  createdAt: row.created_at,
});

/** Every RCPT TO asks this (reusable-query.ts). */
const inboxByAddress = reusableQuery((db, address: string) => db.selectFrom('inboxes').selectAll().where('address', '=', address));

export class InboxRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts the inbox with its alias rows; run it inside a unit of work. */
  async insert(inbox: InboxRecord): Promise<void> {
    await this.db
      .insertInto('inboxes')
      .values({
        id: inbox.id,
        tenant_id: inbox.tenantId,
        environment_id: inbox.environmentId,
        domain_id: inbox.domainId,
        domain: inbox.domain,
        address_prefix: inbox.addressPrefix,
        address: inbox.address,
        name: inbox.name,
        aliases: JSON.stringify(inbox.aliases),
        tags: JSON.stringify(inbox.tags),
        expires_at: inbox.expiresAt,
        active: toFlag(inbox.active),
        created_at: inbox.createdAt,
      })
      .execute();
    await this.insertAliases(inbox.tenantId, inbox.id, inbox.aliases);
  }

  /** Applies the changes (aliases replace the old list); run it inside a unit of work. */
  async update(tenantId: string, inboxId: string, changes: InboxChanges): Promise<void> {
    const columns = {
      ...(changes.aliases === undefined ? {} : { aliases: JSON.stringify(changes.aliases) }),
      ...(changes.tags === undefined ? {} : { tags: JSON.stringify(changes.tags) }),
      ...(changes.active === undefined ? {} : { active: toFlag(changes.active) }),
    };
    if (Object.keys(columns).length > 0) {
      await this.db.updateTable('inboxes').set(columns).where('tenant_id', '=', tenantId).where('id', '=', inboxId).execute();
    }
    if (changes.aliases !== undefined) {
      await this.db.deleteFrom('inbox_aliases').where('inbox_id', '=', inboxId).execute();
      await this.insertAliases(tenantId, inboxId, changes.aliases);
    }
  }

  private async insertAliases(tenantId: string, inboxId: string, aliases: string[]): Promise<void> {
    if (aliases.length === 0) return;
    await this.db
      .insertInto('inbox_aliases')
      .values(aliases.map((address) => ({ address, inbox_id: inboxId, tenant_id: tenantId })))
      .execute();
  }

  async get(tenantId: string, id: string): Promise<InboxRecord | undefined> {
    const row = await this.db.selectFrom('inboxes').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row && toInboxRecord(row);
  }

  /** The inbox whose address this is, else the one whose alias it is. */
  async getByAddress(address: string): Promise<InboxRecord | undefined> {
    const wanted = address.toLowerCase();
    const row =
      (await inboxByAddress(this.db, wanted))[0] ??
      (await this.db
        .selectFrom('inboxes')
        .selectAll()
        .where('id', '=', (eb) => eb.selectFrom('inbox_aliases').select('inbox_id').where('address', '=', wanted))
        .executeTakeFirst());
    return row && toInboxRecord(row);
  }

  /** The id of the inbox that has this address or alias, if any. */
  async ownerOfAddress(address: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('inboxes')
      .select('id')
      .where('address', '=', address)
      .unionAll(this.db.selectFrom('inbox_aliases').select('inbox_id as id').where('address', '=', address))
      .executeTakeFirst();
    return row?.id;
  }

  /**
   * A skipped extraction is stored as `{ skipped }` in the same column (no migration; read back by
   * InboxMessageRepository). On PostgreSQL the rows go in under their inboxes' lock (`lockedInsert`);
   * SQLite has a single writer, so nothing to lock there.
   */
  async insertMessages(messages: Array<{ id: string; inboxId: string; emailId: string; tenantId: string; extraction: Extraction; createdAt: string }>): Promise<void> {
    const rows: InboxMessageRow[] = messages.map((message) => ({
      id: message.id,
      inbox_id: message.inboxId,
      email_id: message.emailId,
      tenant_id: message.tenantId,
      extracted_json: JSON.stringify(message.extraction.extracted ?? { skipped: message.extraction.extractionSkipped }),
      created_at: message.createdAt,
    }));
    const postgres = this.db.getExecutor().adapter instanceof PostgresAdapter;
    for (let start = 0; start < rows.length; start += INBOX_MESSAGE_ROWS_PER_INSERT) {
      const chunk = rows.slice(start, start + INBOX_MESSAGE_ROWS_PER_INSERT);
      if (postgres) await runOrCollect(this.db, lockedInsert(chunk));
      else await insertInboxMessages(this.db, chunk);
    }
  }

  /** Removes one inbox's copy (its link to the email); false when the inbox did not hold it. */
  async removeMessageOf(inboxId: string, emailId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('inbox_messages').where('inbox_id', '=', inboxId).where('email_id', '=', emailId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async hasEmail(inboxId: string, emailId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('inbox_messages')
      .select('id')
      .where('inbox_id', '=', inboxId)
      .where('email_id', '=', emailId)
      .executeTakeFirst();
    return row !== undefined;
  }

  async list(tenantId: string, filter: InboxFilter, request: PageRequest): Promise<Page<InboxRecord>> {
    let query = this.db.selectFrom('inboxes').where('tenant_id', '=', tenantId);
    if (filter.environmentId !== undefined) query = query.where('environment_id', '=', filter.environmentId);
    if (filter.domainId !== undefined) query = query.where('domain_id', '=', filter.domainId);
    if (filter.inboxId !== undefined) query = query.where('id', '=', filter.inboxId);
    for (const tag of filter.tags ?? []) query = query.where(hasTag(tag));
    if (!filter.includeExpired) query = query.where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', filter.now)]));
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(request.perPage).offset(offsetOf(request)).execute(),
      query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return makePage(rows.map(toInboxRecord), Number(count.n), request);
  }

  /** Message counts for a page of inboxes in one query; inboxes without messages are absent (0). */
  async countMessagesOf(inboxIds: string[]): Promise<Map<string, number>> {
    if (inboxIds.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('inbox_messages')
      .select(['inbox_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('inbox_id', 'in', inboxIds)
      .groupBy('inbox_id')
      .execute();
    return new Map(rows.map((row) => [row.inbox_id, Number(row.n)]));
  }

  async stats(inboxId: string): Promise<InboxStats> {
    const row = await this.db
      .selectFrom('inbox_messages')
      .innerJoin('emails', 'emails.id', 'inbox_messages.email_id')
      .select((eb) => [
        eb.fn.countAll<number>().as('messages'),
        eb.fn.sum<number>(eb.case().when('emails.read', '=', 0).then(1).else(0).end()).as('unread'),
        eb.fn.max('inbox_messages.created_at').as('last'),
        eb.fn.sum<number>('emails.size').as('size'),
      ])
      .where('inbox_messages.inbox_id', '=', inboxId)
      .executeTakeFirstOrThrow();
    return {
      messageCount: Number(row.messages),
      unreadCount: Number(row.unread ?? 0),
      lastMessageAt: row.last ?? null,
      sizeBytes: Number(row.size ?? 0),
    };
  }

  /** Inboxes whose TTL has run out, oldest expiry first. */
  async listExpired(now: string, limit: number): Promise<InboxRecord[]> {
    const rows = await this.db
      .selectFrom('inboxes')
      .selectAll()
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
    return rows.map(toInboxRecord);
  }

  /**
   * Deletes the inbox, its messages, its inbox-scoped keys and every email that no other inbox
   * references (attachments cascade). Returns what was removed so the caller can delete the blobs
   * once this has committed. Run it inside a unit of work.
   */
  async remove(tenantId: string, inboxId: string): Promise<RemovedInbox | undefined> {
    const inbox = await this.get(tenantId, inboxId);
    if (inbox === undefined) return undefined;
    const exclusiveEmailIds = this.db
      .selectFrom('inbox_messages as mine')
      .select('mine.email_id')
      .where('mine.inbox_id', '=', inboxId)
      .where((eb) =>
        eb.not(
          eb.exists(
            eb.selectFrom('inbox_messages as other').select('other.id').whereRef('other.email_id', '=', 'mine.email_id').where('other.inbox_id', '<>', inboxId),
          ),
        ),
      );
    const emails = await this.db.selectFrom('emails').select(['id', 'eml_key']).where('id', 'in', exclusiveEmailIds).execute();
    const attachments = await this.db.selectFrom('attachments').select('blob_key').where('email_id', 'in', exclusiveEmailIds).execute();
    await this.db.deleteFrom('emails').where('tenant_id', '=', tenantId).where('id', 'in', exclusiveEmailIds).execute();
    await this.db.deleteFrom('api_keys').where('tenant_id', '=', tenantId).where('inbox_id', '=', inboxId).execute();
    await this.db.deleteFrom('inboxes').where('tenant_id', '=', tenantId).where('id', '=', inboxId).execute();
    return { emailIds: emails.map((e) => e.id), blobKeys: [...emails.map((e) => e.eml_key), ...attachments.map((a) => a.blob_key)] };
  }
}
