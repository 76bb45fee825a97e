import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Retention (docs/operations.md): an operator override of the plan's email retention period per
 * tenant (null: the plan's), and an index so the sweeper finds old activity log entries without a scan.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('tenants').addColumn('retention_days_override', 'integer').execute();
  await db.schema.createIndex('activity_logs_created').on('activity_logs').columns(['created_at']).execute();
}
