import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../../core/errors.js';
import type { AccountService, Session } from '../../../services/account.service.js';
import type { AccountLinkService } from '../../../services/account-link.service.js';
import type { LoginFreeSessions } from '../../../services/login-free-sessions.js';
import { ErrorBody, IsoDate, Nullable, errorResponses } from '../schemas/common.js';

/** The refresh cookie: HttpOnly (no script reads it), Secure, SameSite=Strict, sent only to /api/v1/auth. */
const REFRESH_COOKIE = 'mailroom_refresh';
const COOKIE_PATH = '/api/v1/auth';

const Credentials = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 254, description: 'Email address (case-insensitive)' }),
    password: Type.String({ minLength: 1, maxLength: 200, description: '8 to 200 characters' }),
  },
  { additionalProperties: false },
);
const CheckEmail = Type.Object(
  { status: Type.Literal('check-email'), message: Type.String() },
  { title: 'CheckEmail', description: 'The same answer whether or not the address has an account; the mail says what to do next' },
);
export const EmptyBody = Type.Object({}, { additionalProperties: false, description: 'Send `{}` with Content-Type: application/json (the CSRF check)' });

export const UserView = Type.Object({ id: Type.String(), email: Type.String(), tenantId: Type.String(), createdAt: IsoDate }, { title: 'User' });
export const SessionView = Type.Object(
  {
    accessToken: Type.String({ description: 'HS256 JWT: send as `Authorization: Bearer <token>` to every /api/v1 route, or as `token` to the realtime stream (broadcast mode)' }),
    tokenType: Type.Literal('Bearer'),
    expiresIn: Type.Integer({ description: 'Seconds until the token expires; refresh before then' }),
    user: UserView,
  },
  { title: 'Session' },
);
const Profile = Type.Object(
  {
    user: Nullable(UserView),
    tenant: Type.Object({ id: Type.String(), name: Type.String(), plan: Type.String(), createdAt: IsoDate }),
  },
  { title: 'Profile', description: 'user is null when the caller is an API key' },
);

export const tags = ['Accounts'];
const conflict = { 409: Type.Ref(ErrorBody, { description: 'EMAIL_TAKEN' }) };

function refreshCookieOf(request: FastifyRequest): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === REFRESH_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

function setRefreshCookie(reply: FastifyReply, value: string, expires: Date): void {
  reply.header('set-cookie', `${REFRESH_COOKIE}=${value}; Path=${COOKIE_PATH}; Expires=${expires.toUTCString()}; HttpOnly; Secure; SameSite=Strict`);
}

/**
 * Cookie-authenticated routes refuse anything but a JSON body: a cross-site form cannot send
 * application/json without a CORS preflight, which this API never grants (SameSite=Strict is the first line).
 */
export async function requireJson(request: FastifyRequest): Promise<void> {
  if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
    throw new ForbiddenError('CSRF_CHECK_FAILED', 'Send this request with Content-Type: application/json');
  }
}

/** Options of a route anyone may call (no key or session) that takes a JSON body: the CSRF check runs first. */
export const publicJsonRoute = { config: { access: 'public' as const }, onRequest: requireJson };

/** The 202 that says a mail is on its way: the same whether or not the address has an account, so it tells nobody which addresses do. */
export function sendCheckEmail(reply: FastifyReply, message: string) {
  return reply.status(202).send({ status: 'check-email', message });
}

export function sendSession(reply: FastifyReply, session: Session, status: 200 | 201) {
  setRefreshCookie(reply, session.refreshToken, session.refreshExpiresAt);
  reply.header('cache-control', 'no-store');
  return reply.status(status).send({ accessToken: session.accessToken, tokenType: 'Bearer', expiresIn: session.expiresIn, user: session.user });
}

/** The cookie's session; without a valid one, a login-free dashboard's session for a browser on this machine. */
async function refreshOrLoginFree(request: FastifyRequest, accounts: AccountService, loginFree: LoginFreeSessions): Promise<Session> {
  try {
    return await accounts.refresh(refreshCookieOf(request));
  } catch (error) {
    const local = await loginFree.forPeer(request.socket.remoteAddress);
    if (local === undefined) throw error;
    return local;
  }
}

const AuthConfig = Type.Object(
  {
    signup: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
    emailVerification: Type.Boolean({ description: 'true: sign-up answers 202 and the account is made when the emailed link is followed (MAILROOM_SMTP_RELAY_URL is set)' }),
    passwordReset: Type.Boolean({ description: 'true: a forgotten password can be reset by emailed link (POST /auth/password-reset)' }),
  },
  { title: 'AuthConfig' },
);

export function registerAuthRoutes(app: FastifyInstance, accounts: AccountService, links: AccountLinkService | undefined, loginFree: LoginFreeSessions): void {
  app.get('/auth/config', {
    config: { access: 'public' },
    schema: {
      tags,
      summary: 'Whether self-service sign-up is open, and whether sign-up and password reset go by email on this server',
      security: [],
      response: { 200: AuthConfig, 429: errorResponses[429] },
    },
    handler: async () => ({ signup: accounts.settings.signup, emailVerification: links !== undefined, passwordReset: links !== undefined }),
  });

  app.post('/auth/signup', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'Create an account: a tenant on the free plan, its production environment and its first user',
      description:
        'With email verification (`emailVerification` in /auth/config): 202 `check-email` for every valid request, whether or not the address has an account; ' +
        'a new address is mailed a link (POST /auth/verify-email makes the account), a known one a notice. ' +
        'Without it: 201 with a session (sets the HttpOnly refresh cookie), or 409 EMAIL_TAKEN. 403 SIGNUP_CLOSED when MAILROOM_SIGNUP=closed.',
      security: [],
      body: Credentials,
      response: { 201: SessionView, 202: CheckEmail, 400: errorResponses[400], 403: errorResponses[403], 429: errorResponses[429], ...conflict },
    },
    handler: async (request, reply) => {
      const body = request.body as Static<typeof Credentials>;
      if (links === undefined) return sendSession(reply, await accounts.signUp(body), 201);
      await links.requestSignup(body);
      return sendCheckEmail(reply, 'If the address can be used, a mail with the next step is on its way; follow its link to finish.');
    },
  });

  app.post('/auth/signin', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'Sign in with email and password',
      description: 'Sets the HttpOnly refresh cookie. Failed attempts are throttled per email and per client IP (429 LOGIN_THROTTLED).',
      security: [],
      body: Credentials,
      response: { 200: SessionView, 400: errorResponses[400], 401: Type.Ref(ErrorBody, { description: 'INVALID_CREDENTIALS' }), 403: errorResponses[403], 429: errorResponses[429] },
    },
    handler: async (request, reply) => sendSession(reply, await accounts.signIn(request.body as Static<typeof Credentials>, request.ip), 200),
  });

  app.post('/auth/refresh', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'A new session token for the refresh cookie (which is rotated)',
      description: 'With MAILROOM_DASHBOARD_LOGIN=off-on-loopback, a request from this machine without a valid cookie gets a session for the local account (docs/local.md).',
      security: [],
      body: EmptyBody,
      response: { 200: SessionView, 400: errorResponses[400], 401: Type.Ref(ErrorBody, { description: 'SESSION_EXPIRED: no, unknown or expired refresh cookie' }), 403: errorResponses[403], 429: errorResponses[429] },
    },
    handler: async (request, reply) => sendSession(reply, await refreshOrLoginFree(request, accounts, loginFree), 200),
  });

  app.post('/auth/signout', {
    ...publicJsonRoute,
    schema: {
      tags,
      summary: 'End the session of the refresh cookie and clear it',
      security: [],
      body: EmptyBody,
      response: { 204: Type.Null({ description: 'Signed out' }), 400: errorResponses[400], 403: errorResponses[403], 429: errorResponses[429] },
    },
    handler: async (request, reply) => {
      await accounts.signOut(refreshCookieOf(request));
      setRefreshCookie(reply, '', new Date(0));
      return reply.status(204).send();
    },
  });

  app.get('/auth/me', {
    schema: { tags, summary: 'The signed-in user and the account (user is null for API keys)', response: { 200: Profile, ...errorResponses } },
    handler: async (request) => {
      const { user, tenant } = await accounts.profile(request.caller);
      return { user, tenant: { id: tenant.id, name: tenant.name, plan: tenant.plan, createdAt: tenant.createdAt } };
    },
  });
}
