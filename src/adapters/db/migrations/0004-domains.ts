import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Custom domains: listed per tenant in creation order, and picked by the periodic DNS recheck by
 * the time of their last check.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('domains_tenant_created').on('domains').columns(['tenant_id', 'created_at']).execute();
  await db.schema.createIndex('domains_last_checked').on('domains').columns(['last_checked_at']).execute();
}
