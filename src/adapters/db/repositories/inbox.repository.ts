import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

export interface InboxRecord {
  id: string;
  tenantId: string;
  environmentId: string;
  domainId: string | null;
  domain: string;
  addressPrefix: string;
  address: string;
  tags: string[];
  expiresAt: string | null;
  active: boolean;
  createdAt: string;
}

type Row = Database['inboxes'];

export const toInboxRecord = (row: Row): InboxRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  environmentId: row.environment_id,
  domainId: row.domain_id,
  domain: row.domain,
  addressPrefix: row.address_prefix,
  address: row.address,
  tags: parseJson<string[]>(row.tags),
  expiresAt: row.expires_at,
  active: fromFlag(row.active),
  createdAt: row.created_at,
});

export class InboxRepository {
  constructor(private readonly db: Kysely<Database>) {}

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
        tags: JSON.stringify(inbox.tags),
        expires_at: inbox.expiresAt,
        active: toFlag(inbox.active),
        created_at: inbox.createdAt,
      })
      .execute();
  }

  async get(tenantId: string, id: string): Promise<InboxRecord | undefined> {
    const row = await this.db.selectFrom('inboxes').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row && toInboxRecord(row);
  }

  async getByAddress(address: string): Promise<InboxRecord | undefined> {
    const row = await this.db.selectFrom('inboxes').selectAll().where('address', '=', address.toLowerCase()).executeTakeFirst();
    return row && toInboxRecord(row);
  }

  async addressTaken(address: string): Promise<boolean> {
    const row = await this.db.selectFrom('inboxes').select('id').where('address', '=', address).executeTakeFirst();
    return row !== undefined;
  }

  async countMessages(inboxId: string): Promise<number> {
    const row = await this.db
      .selectFrom('inbox_messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('inbox_id', '=', inboxId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insertMessage(message: { id: string; inboxId: string; emailId: string; tenantId: string; extracted: unknown; createdAt: string }): Promise<void> {
    await this.db
      .insertInto('inbox_messages')
      .values({
        id: message.id,
        inbox_id: message.inboxId,
        email_id: message.emailId,
        tenant_id: message.tenantId,
        extracted_json: JSON.stringify(message.extracted),
        created_at: message.createdAt,
      })
      .execute();
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
}
