import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Dashboard accounts (docs/dashboard.md): users (email + scrypt password hash, one tenant each) and
 * their refresh sessions (only the SHA-256 of the cookie's random token is stored).
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_sign_in_at', 'text')
    .execute();
  await db.schema.createIndex('users_tenant').on('users').columns(['tenant_id']).execute();
  await db.schema
    .createTable('user_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('user_sessions_user').on('user_sessions').columns(['user_id']).execute();
  await db.schema.createIndex('user_sessions_expires').on('user_sessions').columns(['expires_at']).execute();
}
