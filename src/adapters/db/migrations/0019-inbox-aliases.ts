import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Inbox aliases: extra addresses of one inbox. The inbox row keeps its list (JSON, read with the
 * inbox); `inbox_aliases` holds one row per alias address, so an address can be routed at RCPT TO by
 * its primary key and can belong to one inbox only.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('inboxes')
    .addColumn('aliases', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
    .execute();
  await db.schema
    .createTable('inbox_aliases')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('inbox_aliases_inbox').on('inbox_aliases').columns(['inbox_id']).execute();
}
