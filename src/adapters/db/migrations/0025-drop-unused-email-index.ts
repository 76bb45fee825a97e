import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * No query looks emails up by base_email_id (it is only read back with the row), yet its index took
 * a page write per email at every group commit, its keys being random (docs/decisions.md D31).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex('emails_base').ifExists().execute();
}
