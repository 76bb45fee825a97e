import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Plans and quotas (docs/access.md): a per-tenant, per-month counter of received emails (one row
 * per month, incremented in the ingest transaction, never decremented), and operator overrides of a
 * tenant's plan limits (null: the plan's value).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('usage_counters')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('emails', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_counters_pk', ['tenant_id', 'month'])
    .execute();
  await db.schema.alterTable('tenants').addColumn('requests_per_minute_override', 'integer').execute();
  await db.schema.alterTable('tenants').addColumn('monthly_emails_override', 'integer').execute();
  await db.schema.createIndex('api_keys_environment').on('api_keys').columns(['environment_id']).execute();
}
