import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { existingAccountMail, resetPasswordMail, verifySignupMail } from '../core/account-mail.js';
import { ConflictError, InvalidInputError } from '../core/errors.js';
import { hashPassword } from '../core/password.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { AccountTokenPurpose } from '../adapters/db/repositories/account-token.repository.js';
import type { FailureCounter } from '../ports/failure-counter.js';
import type { OutboundMail, OutboundMessage } from '../ports/outbound-mail.js';
import { checkPasswordRules, normaliseEmail, type AccountService, type Credentials, type Session } from './account.service.js';

export interface AccountLinkSettings {
  /** Base URL of the dashboard; the links point at its /verify-email and /reset-password pages. */
  publicUrl: string;
  verifyLinkMs: number;
  resetLinkMs: number;
  /** Mails to one address per counter window (the rest are dropped): nobody can flood a mailbox through us. */
  mailsPerAddress: number;
}

export const DEFAULT_ACCOUNT_LINK_SETTINGS: Omit<AccountLinkSettings, 'publicUrl'> = {
  verifyLinkMs: 24 * 3_600_000,
  resetLinkMs: 3_600_000,
  mailsPerAddress: 5,
};

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * docs/dashboard.md: what needs an emailed link (MAILROOM_SMTP_RELAY_URL set). Sign-up answers the
 * same whether or not the address has an account: a new address gets a link that creates the account,
 * a known one a notice. Password reset answers the same too. The address is looked up, the link stored
 * and the mail sent after the answer, so its timing does not tell either.
 */
export class AccountLinkService {
  constructor(
    private readonly repos: Repositories,
    private readonly accounts: AccountService,
    private readonly mail: OutboundMail,
    private readonly settings: AccountLinkSettings,
    private readonly mailCounter: FailureCounter,
    private readonly onMailError: (error: unknown) => void,
    private readonly now: () => number = Date.now,
  ) {}

  async requestSignup(input: Credentials): Promise<void> {
    this.accounts.assertSignupOpen();
    const email = normaliseEmail(input.email);
    checkPasswordRules(input.password);
    // Hashed for known addresses too, so both answers take as long.
    const passwordHash = await hashPassword(input.password);
    this.afterAnswer(async () => {
      if ((await this.repos.users.getByEmail(email)) !== undefined) {
        await this.send(existingAccountMail(email, this.url('/signin'), this.url('/forgot-password')));
        return;
      }
      const token = await this.issue('verify-signup', email, { userId: null, passwordHash }, this.settings.verifyLinkMs);
      await this.send(verifySignupMail(email, this.url(`/verify-email#token=${token}`), this.settings.verifyLinkMs / 3_600_000));
    });
  }

  /** Follows a sign-up link: the account is made now, and signed in. */
  async verifySignup(token: string): Promise<Session> {
    this.accounts.assertSignupOpen();
    const row = await this.take(token, 'verify-signup');
    if (row.passwordHash === null) throw this.linkInvalid();
    if ((await this.repos.users.getByEmail(row.email)) !== undefined) {
      throw new ConflictError('EMAIL_TAKEN', 'This address has an account already; sign in instead', { field: 'email' });
    }
    const { user } = await this.accounts.createUserWithHash({ email: row.email, passwordHash: row.passwordHash });
    return this.accounts.sessionFor(user.id);
  }

  async requestPasswordReset(rawEmail: string): Promise<void> {
    const email = normaliseEmail(rawEmail);
    this.afterAnswer(async () => {
      const user = await this.repos.users.getByEmail(email);
      if (user === undefined) return;
      const token = await this.issue('reset-password', email, { userId: user.id, passwordHash: null }, this.settings.resetLinkMs);
      await this.send(resetPasswordMail(email, this.url(`/reset-password#token=${token}`), this.settings.resetLinkMs / 60_000));
    });
  }

  /** Follows a reset link: the new password replaces the old one, every session ends, and this one starts. */
  async resetPassword(token: string, password: string): Promise<Session> {
    // Checked before the link is used up: a refused password leaves the link working.
    checkPasswordRules(password);
    const row = await this.take(token, 'reset-password');
    if (row.userId === null) throw this.linkInvalid();
    await this.accounts.replacePassword(row.userId, await hashPassword(password));
    return this.accounts.sessionFor(row.userId);
  }

  private async issue(purpose: AccountTokenPurpose, email: string, fields: { userId: string | null; passwordHash: string | null }, lifetimeMs: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    // Only the newest link of a kind works: an older one in a forwarded or leaked mail stops working.
    await this.repos.accountTokens.deleteFor(email, purpose);
    await this.repos.accountTokens.insert({
      id: randomUUID(),
      purpose,
      tokenHash: hashToken(token),
      email,
      ...fields,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + lifetimeMs).toISOString(),
    });
    return token;
  }

  private async take(token: string, purpose: AccountTokenPurpose) {
    const row = await this.repos.accountTokens.take(hashToken(token), purpose);
    if (row === undefined || Date.parse(row.expiresAt) <= this.now()) throw this.linkInvalid();
    return row;
  }

  /** Work whose duration would tell whether an address has an account: it runs after the 202 is sent. */
  private afterAnswer(work: () => Promise<void>): void {
    void work().catch(this.onMailError);
  }

  private async send(message: OutboundMessage): Promise<void> {
    const key = `account-mail:${message.to}`;
    if ((await this.mailCounter.count(key)) >= this.settings.mailsPerAddress) return;
    await this.mailCounter.fail(key);
    await this.mail.send(message);
  }

  private url(path: string): string {
    return `${this.settings.publicUrl}${path}`;
  }

  private linkInvalid(): InvalidInputError {
    return new InvalidInputError('LINK_INVALID', 'This link is not valid: it was used already, has expired, or was replaced by a newer one; ask for a new one', { field: 'token' });
  }
}
