import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Emailed links of dashboard accounts (docs/dashboard.md): sign-up verification and password reset.
 * Only the SHA-256 of a link's random token is stored; a row is deleted when its link is used, so
 * each link works once. A pending sign-up keeps the new password's hash here until it is verified:
 * no user row exists before then.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('account_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('password_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('account_tokens_email').on('account_tokens').columns(['email', 'purpose']).execute();
  await db.schema.createIndex('account_tokens_expires').on('account_tokens').columns(['expires_at']).execute();
}
