import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** An optional display name per inbox (POST /inboxes `name`, as the hosted service's MCP server sends it). */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('inboxes').addColumn('name', 'text').execute();
}
