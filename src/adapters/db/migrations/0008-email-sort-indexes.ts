import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Listing emails sorted by subject or sender (`sort.field`) orders by `lower(column)` (D9); without
 * an index on that expression every such page sorts the tenant's whole mailbox (about 1.4 s at
 * 100,000 emails, bench/list-emails.bench.ts). Both dialects index expressions.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('emails_tenant_subject').on('emails').expression(sql`tenant_id, lower(subject), id`).execute();
  await db.schema.createIndex('emails_tenant_from').on('emails').expression(sql`tenant_id, lower(from_address), id`).execute();
}
