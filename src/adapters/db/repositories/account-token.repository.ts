import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

export type AccountTokenPurpose = 'verify-signup' | 'reset-password';

export interface AccountToken {
  id: string;
  purpose: AccountTokenPurpose;
  tokenHash: string;
  email: string;
  /** The user a reset link is for; null for a pending sign-up (no user exists yet). */
  userId: string | null;
  /** A pending sign-up's password hash, set once the link is followed. */
  passwordHash: string | null;
  createdAt: string;
  expiresAt: string;
}

const toToken = (row: Database['account_tokens']): AccountToken => ({
  id: row.id,
  purpose: row.purpose as AccountTokenPurpose,
  tokenHash: row.token_hash,
  email: row.email,
  userId: row.user_id,
  passwordHash: row.password_hash,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** Single-use emailed links (migration 0023). */
export class AccountTokenRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(token: AccountToken): Promise<void> {
    await this.db
      .insertInto('account_tokens')
      .values({
        id: token.id,
        purpose: token.purpose,
        token_hash: token.tokenHash,
        email: token.email,
        user_id: token.userId,
        password_hash: token.passwordHash,
        created_at: token.createdAt,
        expires_at: token.expiresAt,
      })
      .execute();
  }

  /** Deletes and returns the link's row: of two requests with one link, only one gets it. */
  async take(tokenHash: string, purpose: AccountTokenPurpose): Promise<AccountToken | undefined> {
    const row = await this.db.deleteFrom('account_tokens').where('token_hash', '=', tokenHash).where('purpose', '=', purpose).returningAll().executeTakeFirst();
    return row && toToken(row);
  }

  /** A newer link replaces the older ones for the same address and purpose. */
  async deleteFor(email: string, purpose: AccountTokenPurpose): Promise<void> {
    await this.db.deleteFrom('account_tokens').where('email', '=', email).where('purpose', '=', purpose).execute();
  }

  async deleteExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('account_tokens').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
