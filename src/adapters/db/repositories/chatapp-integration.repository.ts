import type { Kysely } from 'kysely';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import type { ChatappIntegrationKind } from '../../../core/vocab.js';
import type { Database } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

export interface ChatappIntegrationRecord {
  id: string;
  tenantId: string;
  kind: ChatappIntegrationKind;
  name: string;
  /** Incoming-webhook URL (kind `webhook`). */
  url: string | null;
  /** Bot token, sealed (core/sealed-secrets.ts), and where the bot posts (kind `bot`). */
  botToken: string | null;
  channelId: string | null;
  guildId: string | null;
  /** Inboxes whose emails it announces; empty means every email of the tenant. */
  inboxIds: string[];
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

export type ChatappIntegrationChanges = Partial<Pick<ChatappIntegrationRecord, 'name' | 'url' | 'botToken' | 'channelId' | 'guildId' | 'inboxIds' | 'active'>>;

type Row = Database['chatapp_integrations'];

const toRecord = (row: Row): ChatappIntegrationRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  kind: row.kind as ChatappIntegrationKind,
  name: row.name,
  url: row.url,
  botToken: row.bot_token,
  channelId: row.channel_id,
  guildId: row.guild_id,
  inboxIds: parseJson<string[]>(row.inbox_ids_json),
  active: fromFlag(row.active),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

function changedColumns(changes: ChatappIntegrationChanges): Partial<Row> {
  const columns: Partial<Row> = {};
  if (changes.name !== undefined) columns.name = changes.name;
  if (changes.url !== undefined) columns.url = changes.url;
  if (changes.botToken !== undefined) columns.bot_token = changes.botToken;
  if (changes.channelId !== undefined) columns.channel_id = changes.channelId;
  if (changes.guildId !== undefined) columns.guild_id = changes.guildId;
  if (changes.inboxIds !== undefined) columns.inbox_ids_json = JSON.stringify(changes.inboxIds);
  if (changes.active !== undefined) columns.active = toFlag(changes.active);
  return columns;
}

export class ChatappIntegrationRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(record: ChatappIntegrationRecord): Promise<void> {
    await this.db
      .insertInto('chatapp_integrations')
      .values({
        id: record.id,
        tenant_id: record.tenantId,
        kind: record.kind,
        name: record.name,
        url: record.url,
        bot_token: record.botToken,
        channel_id: record.channelId,
        guild_id: record.guildId,
        inbox_ids_json: JSON.stringify(record.inboxIds),
        active: toFlag(record.active),
        created_at: record.createdAt,
        updated_at: record.updatedAt,
      })
      .execute();
  }

  async get(tenantId: string, id: string): Promise<ChatappIntegrationRecord | undefined> {
    const row = await this.db.selectFrom('chatapp_integrations').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  async list(tenantId: string, request: PageRequest): Promise<Page<ChatappIntegrationRecord>> {
    const base = this.db.selectFrom('chatapp_integrations').where('tenant_id', '=', tenantId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(request.perPage).offset(offsetOf(request)).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return makePage(rows.map(toRecord), Number(count.n), request);
  }

  async update(tenantId: string, id: string, changes: ChatappIntegrationChanges, updatedAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable('chatapp_integrations')
      .set({ ...changedColumns(changes), updated_at: updatedAt })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('chatapp_integrations').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
