import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Virtual inboxes: messages are listed newest first and waited for "after a message" by `uid`
 * (the global ascending sequence), and inbox-scoped keys are listed and removed by inbox.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.createIndex('inbox_messages_inbox_uid').on('inbox_messages').columns(['inbox_id', 'uid']).execute();
  await db.schema.createIndex('api_keys_inbox').on('api_keys').columns(['inbox_id']).execute();
}
