import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Fewer index entries per received email (docs/decisions.md D40). `inbox_messages_inbox`
 * (inbox_id, created_at) served no query that `inbox_messages_inbox_uid` (inbox_id, uid) does not:
 * every read of an inbox's messages filters by inbox and orders by uid. `activity_logs_target`
 * is read only for one webhook's or chat app's deliveries, so it now holds only the entries that
 * name a target; the two reception entries of every email name none.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('inbox_messages_inbox').ifExists().execute();
  await db.schema.dropIndex('activity_logs_target').ifExists().execute();
  await db.schema
    .createIndex('activity_logs_target')
    .on('activity_logs')
    .columns(['tenant_id', 'target_id', 'seq'])
    .where(sql.ref('target_id'), 'is not', null)
    .execute();
}
