import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export interface User {
  id: string;
  tenantId: string;
  email: string;
  passwordHash: string;
  createdAt: string;
  lastSignInAt: string | null;
}

export interface UserSession {
  id: string;
  userId: string;
  tokenHash: string;
  createdAt: string;
  expiresAt: string;
}

const toUser = (row: Database['users']): User => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
  lastSignInAt: row.last_sign_in_at,
});

const toSession = (row: Database['user_sessions']): UserSession => ({
  id: row.id,
  userId: row.user_id,
  tokenHash: row.token_hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** Dashboard users and their refresh sessions (migration 0011). */
export class UserRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(user: User): Promise<void> {
    await this.db
      .insertInto('users')
      .values({ id: user.id, tenant_id: user.tenantId, email: user.email, password_hash: user.passwordHash, created_at: user.createdAt, last_sign_in_at: user.lastSignInAt })
      .execute();
  }

  async get(id: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
  }

  async getByEmail(email: string): Promise<User | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row && toUser(row);
  }

  async touchSignIn(id: string, at: string): Promise<void> {
    await this.db.updateTable('users').set({ last_sign_in_at: at }).where('id', '=', id).execute();
  }

  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await this.db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
  }

  /** Ends every refresh session of a user but `keepSessionId` (the one that changed the password). */
  async deleteSessionsOfUser(userId: string, keepSessionId?: string): Promise<number> {
    let query = this.db.deleteFrom('user_sessions').where('user_id', '=', userId);
    if (keepSessionId !== undefined) query = query.where('id', '!=', keepSessionId);
    const result = await query.executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async insertSession(session: UserSession): Promise<void> {
    await this.db
      .insertInto('user_sessions')
      .values({ id: session.id, user_id: session.userId, token_hash: session.tokenHash, created_at: session.createdAt, expires_at: session.expiresAt })
      .execute();
  }

  async getSession(tokenHash: string): Promise<UserSession | undefined> {
    const row = await this.db.selectFrom('user_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
    return row && toSession(row);
  }

  async getSessionById(id: string): Promise<UserSession | undefined> {
    const row = await this.db.selectFrom('user_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toSession(row);
  }

  /** Shortens a session's life to `at` at most (a refreshed session lingers briefly for other tabs). */
  async expireSessionBy(id: string, at: string): Promise<void> {
    await this.db.updateTable('user_sessions').set({ expires_at: at }).where('id', '=', id).where('expires_at', '>', at).execute();
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db.deleteFrom('user_sessions').where('token_hash', '=', tokenHash).execute();
  }

  async deleteExpiredSessions(now: string): Promise<number> {
    const result = await this.db.deleteFrom('user_sessions').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
