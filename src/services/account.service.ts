import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { ConflictError, ForbiddenError, InvalidInputError, NotFoundError, RateLimitedError, UnauthenticatedError } from '../core/errors.js';
import { signJwt, verifyJwt } from '../core/jwt.js';
import { decoyPasswordHash, hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem, verifyPassword } from '../core/password.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { Tenant } from '../adapters/db/repositories/tenant.repository.js';
import type { User } from '../adapters/db/repositories/user.repository.js';
import { MemoryFailureCounter } from '../adapters/events/memory.failure-counter.js';
import type { FailureCounter } from '../ports/failure-counter.js';
import { LoginGuard } from './login-guard.js';
import type { TenantService } from './tenant.service.js';

export interface AccountSettings {
  signup: 'open' | 'closed';
  /** Lifetime of a session JWT (the API credential of the dashboard). */
  accessTokenSeconds: number;
  /** Lifetime of a refresh session (the HttpOnly cookie); each refresh starts a new one. */
  refreshSessionMs: number;
  /**
   * How long a refreshed token still works: tabs that refresh at the same moment (a restored browser
   * session) all get through, instead of all but one being signed out.
   */
  refreshReuseGraceMs: number;
  /** Failed sign-ins per (email address, client IP), and per client IP, in `throttleWindowMs` before further ones are refused. */
  failuresPerEmail: number;
  failuresPerIp: number;
  throttleWindowMs: number;
}

export const DEFAULT_ACCOUNT_SETTINGS: Omit<AccountSettings, 'signup'> = {
  accessTokenSeconds: 15 * 60,
  refreshSessionMs: 30 * 86_400_000,
  refreshReuseGraceMs: 10_000,
  failuresPerEmail: 10,
  failuresPerIp: 50,
  throttleWindowMs: 15 * 60_000,
};

export interface PublicUser {
  id: string;
  email: string;
  tenantId: string;
  createdAt: string;
}

/** What sign-up, sign-in and refresh hand out: the JWT for the API and the refresh token for the cookie. */
export interface Session {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresAt: Date;
  user: PublicUser;
}

export interface Credentials {
  email: string;
  password: string;
}

/** A session caller's keyId is this plus the user id: unique per user, never an API key's id. */
const SESSION_KEY_PREFIX = 'user:';
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL_LENGTH = 254;

const publicUser = (user: User): PublicUser => ({ id: user.id, email: user.email, tenantId: user.tenantId, createdAt: user.createdAt });
const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export function normaliseEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL_LENGTH || !EMAIL.test(email)) throw new InvalidInputError('INVALID_EMAIL', 'email must be an email address such as you@example.com', { field: 'email' });
  return email;
}

export function checkPasswordRules(password: string, field = 'password'): void {
  const problem = passwordProblem(password);
  if (problem === 'length') {
    throw new InvalidInputError('INVALID_PASSWORD', `${field} must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`, { field });
  }
  if (problem === 'common') {
    throw new InvalidInputError('PASSWORD_TOO_COMMON', `${field} is one of the most common passwords (the first to be guessed); choose another`, { field });
  }
}

/**
 * Dashboard accounts (docs/dashboard.md): users with scrypt password hashes, one tenant each;
 * sessions are short-lived HS256 JWTs plus a rotating refresh token kept (hashed) in the database.
 */
export class AccountService {
  private readonly signInGuard: LoginGuard;

  /** `failures`: counts over `settings.throttleWindowMs` (shared in Redis when configured). */
  constructor(
    private readonly repos: Repositories,
    private readonly tenants: TenantService,
    private readonly secret: Buffer,
    readonly settings: AccountSettings,
    private readonly now: () => number = Date.now,
    failures: FailureCounter = new MemoryFailureCounter(settings.throttleWindowMs, now),
  ) {
    this.signInGuard = new LoginGuard(failures, 'signin', { perIdentityAndIp: settings.failuresPerEmail, perIp: settings.failuresPerIp });
  }

  /**
   * Self-service sign-up without email verification (no relay configured): a new tenant on the free
   * plan with its production environment, and its first user. With a relay, AccountLinkService signs up.
   */
  async signUp(input: Credentials): Promise<Session> {
    this.assertSignupOpen();
    const { user } = await this.createUser(input);
    return this.startSession(user);
  }

  assertSignupOpen(): void {
    if (this.settings.signup === 'closed') throw new ForbiddenError('SIGNUP_CLOSED', 'Sign-up is closed on this server; ask an operator for an account');
  }

  /**
   * An operator creates a user (CLI), regardless of MAILROOM_SIGNUP: into an existing tenant, or
   * with a new free-plan tenant named after the email.
   */
  async createUser(input: Credentials & { tenantId?: string }): Promise<{ user: User; tenant: Tenant }> {
    const email = normaliseEmail(input.email);
    checkPasswordRules(input.password);
    if ((await this.repos.users.getByEmail(email)) !== undefined) throw this.emailTaken();
    return this.createUserWithHash({ email, passwordHash: await hashPassword(input.password), tenantId: input.tenantId });
  }

  /** A user whose (checked, normalised) email and password hash are known already: a verified sign-up. */
  async createUserWithHash(input: { email: string; passwordHash: string; tenantId?: string }): Promise<{ user: User; tenant: Tenant }> {
    const { email, passwordHash } = input;
    const id = randomUUID();
    const createdAt = new Date(this.now()).toISOString();
    const userOf = (tenant: Tenant): User => ({ id, tenantId: tenant.id, email, passwordHash, createdAt, lastSignInAt: null });
    try {
      if (input.tenantId !== undefined) {
        const tenant = await this.tenants.getOrThrow(input.tenantId);
        await this.repos.users.insert(userOf(tenant));
        return { user: userOf(tenant), tenant };
      }
      const created = await this.tenants.create({ name: email, plan: 'free' }, (repos, tenant) => repos.users.insert(userOf(tenant)));
      return { user: userOf(created.tenant), tenant: created.tenant };
    } catch (error) {
      // Two sign-ups with one address at once: the unique index decides, the loser gets the same 409.
      if ((await this.repos.users.getByEmail(email)) !== undefined) throw this.emailTaken();
      throw error;
    }
  }

  /** Wrong email and wrong password answer alike, in about the same time (a decoy hash is checked). */
  async signIn(input: Credentials, clientIp: string): Promise<Session> {
    const email = input.email.trim().toLowerCase();
    if (await this.signInGuard.blocked(email, clientIp)) {
      throw new RateLimitedError('LOGIN_THROTTLED', 'Too many failed sign-ins; wait a few minutes and try again');
    }
    const user = await this.repos.users.getByEmail(email);
    const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyPasswordHash()));
    if (user === undefined || !valid) {
      await this.signInGuard.fail(email, clientIp);
      throw new UnauthenticatedError('INVALID_CREDENTIALS', 'Wrong email or password');
    }
    await this.repos.users.touchSignIn(user.id, new Date(this.now()).toISOString());
    return this.startSession(user);
  }

  /** Trades a refresh token for a new JWT and a new refresh token; the old one stops working after a short grace. */
  async refresh(refreshToken: string | undefined): Promise<Session> {
    const now = this.now();
    const session = refreshToken === undefined ? undefined : await this.repos.users.getSession(hashToken(refreshToken));
    if (session === undefined || Date.parse(session.expiresAt) <= now) throw this.sessionEnded();
    const user = await this.repos.users.get(session.userId);
    if (user === undefined) throw this.sessionEnded();
    await this.repos.users.expireSessionBy(session.id, new Date(now + this.settings.refreshReuseGraceMs).toISOString());
    return this.startSession(user);
  }

  /** A session for a user without a password: the login-free dashboard (docs/local.md) decides who may have it. */
  async sessionFor(userId: string): Promise<Session> {
    const user = await this.repos.users.get(userId);
    if (user === undefined) throw this.sessionEnded();
    return this.startSession(user);
  }

  /**
   * A signed-in user changes their password: the current one is checked (failures count against the
   * sign-in throttle, so a stolen session cannot guess it), and every other session is ended.
   */
  async changePassword(caller: Caller, input: { currentPassword: string; newPassword: string }, clientIp: string): Promise<void> {
    const user = await this.sessionUser(caller);
    if (await this.signInGuard.blocked(user.email, clientIp)) {
      throw new RateLimitedError('LOGIN_THROTTLED', 'Too many failed attempts; wait a few minutes and try again');
    }
    if (!(await verifyPassword(input.currentPassword, user.passwordHash))) {
      await this.signInGuard.fail(user.email, clientIp);
      throw new InvalidInputError('WRONG_PASSWORD', 'The current password is not right', { field: 'currentPassword' });
    }
    checkPasswordRules(input.newPassword, 'newPassword');
    await this.repos.users.setPasswordHash(user.id, await hashPassword(input.newPassword));
    await this.repos.users.deleteSessionsOfUser(user.id, caller.session?.id);
  }

  /** An operator sets a user's password (`mailroom user set-password`); their sessions end. */
  async setPassword(rawEmail: string, password: string): Promise<void> {
    const user = await this.repos.users.getByEmail(normaliseEmail(rawEmail));
    if (user === undefined) throw new NotFoundError('USER_NOT_FOUND', 'No user has this email');
    checkPasswordRules(password);
    await this.replacePassword(user.id, await hashPassword(password));
  }

  /** A password reset by emailed link: the new password, and every session ended. */
  async replacePassword(userId: string, passwordHash: string): Promise<void> {
    await this.repos.users.setPasswordHash(userId, passwordHash);
    await this.repos.users.deleteSessionsOfUser(userId);
  }

  async signOut(refreshToken: string | undefined): Promise<void> {
    if (refreshToken !== undefined) await this.repos.users.deleteSession(hashToken(refreshToken));
  }

  /** A valid session JWT is a tenant-level caller for every environment (the dashboard acts for the whole account). */
  authenticate(token: string): Caller {
    const claims = verifyJwt(token, this.secret, Math.floor(this.now() / 1000));
    if (claims === 'expired') throw new UnauthenticatedError('TOKEN_EXPIRED', 'The session token has expired; refresh it (POST /api/v1/auth/refresh) or sign in again');
    if (typeof claims === 'string') throw new UnauthenticatedError('TOKEN_INVALID', 'Invalid session token');
    return {
      tenantId: claims.tid,
      keyId: `${SESSION_KEY_PREFIX}${claims.sub}`,
      environmentId: null,
      inboxId: null,
      scopes: ['api'],
      credential: 'jwt',
      session: { id: claims.sid, expiresAtMs: claims.exp * 1000 },
    };
  }

  /** The signed-in user (null for API-key callers) and the account. */
  async profile(caller: Caller): Promise<{ user: PublicUser | null; tenant: Tenant }> {
    const tenant = await this.tenants.getOrThrow(caller.tenantId);
    if (caller.credential !== 'jwt') return { user: null, tenant };
    return { user: publicUser(await this.sessionUser(caller)), tenant };
  }

  /** The user behind a dashboard session; API keys have none (403). */
  private async sessionUser(caller: Caller): Promise<User> {
    if (caller.credential !== 'jwt') throw new ForbiddenError('SESSION_REQUIRED', 'Only a signed-in dashboard user can do this, not an API key');
    const user = await this.repos.users.get(caller.keyId.slice(SESSION_KEY_PREFIX.length));
    if (user === undefined || user.tenantId !== caller.tenantId) throw new NotFoundError('USER_NOT_FOUND', 'This user no longer exists');
    return user;
  }

  /** Expired refresh sessions and expired emailed links. */
  async sweepExpiredSessions(): Promise<number> {
    const now = new Date(this.now()).toISOString();
    return (await this.repos.users.deleteExpiredSessions(now)) + (await this.repos.accountTokens.deleteExpired(now));
  }

  private async startSession(user: User): Promise<Session> {
    const now = this.now();
    const iat = Math.floor(now / 1000);
    const sessionId = randomUUID();
    const accessToken = signJwt({ sub: user.id, tid: user.tenantId, iat, exp: iat + this.settings.accessTokenSeconds, sid: sessionId }, this.secret);
    const refreshToken = randomBytes(32).toString('base64url');
    const refreshExpiresAt = new Date(now + this.settings.refreshSessionMs);
    await this.repos.users.insertSession({ id: sessionId, userId: user.id, tokenHash: hashToken(refreshToken), createdAt: new Date(now).toISOString(), expiresAt: refreshExpiresAt.toISOString() });
    return { accessToken, expiresIn: this.settings.accessTokenSeconds, refreshToken, refreshExpiresAt, user: publicUser(user) };
  }

  private emailTaken(): ConflictError {
    return new ConflictError('EMAIL_TAKEN', 'An account with this email already exists; sign in instead', { field: 'email' });
  }

  private sessionEnded(): UnauthenticatedError {
    return new UnauthenticatedError('SESSION_EXPIRED', 'Your session has ended; sign in again');
  }
}
