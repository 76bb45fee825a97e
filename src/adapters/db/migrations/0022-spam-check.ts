import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The spam filter's verdict on each email (docs/spam.md): the state of the check, the score, the
 * threshold, the action and the matched rules (JSON). spam_recheck_at is when the recheck worker next
 * asks the filter about mail it could not check before the 250 (null: nothing to do), with the
 * number of tries so far for the back-off. Existing mail was not checked: `off`.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('emails').addColumn('spam_check', 'text', (c) => c.notNull().defaultTo('off')).execute();
  await db.schema.alterTable('emails').addColumn('spam_score', 'double precision').execute();
  await db.schema.alterTable('emails').addColumn('spam_threshold', 'double precision').execute();
  await db.schema.alterTable('emails').addColumn('is_spam', 'integer').execute();
  await db.schema.alterTable('emails').addColumn('spam_action', 'text').execute();
  await db.schema.alterTable('emails').addColumn('spam_rules_json', 'text', (c) => c.notNull().defaultTo('[]')).execute();
  await db.schema.alterTable('emails').addColumn('spam_recheck_at', 'text').execute();
  await db.schema.alterTable('emails').addColumn('spam_recheck_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Only mail waiting for a recheck is indexed: the worker's query touches nothing else.
  await sql`create index emails_spam_recheck on emails (spam_recheck_at) where spam_recheck_at is not null`.execute(db);
}
