import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { HttpClient, type HttpResponse } from '../helpers/http-client.js';
import { httpsFetch } from '../helpers/https-fetch.js';
import { runCli } from '../helpers/cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { AccountService, DEFAULT_ACCOUNT_SETTINGS } from '../../src/services/account.service.js';

warnIfPostgresSkipped();

const PASSWORD = 'correct horse battery';
let counter = 0;
const uniqueEmail = () => `user${++counter}-${Date.now()}@example.com`;

const refreshCookie = (response: HttpResponse): string => {
  const header = response.headers['set-cookie'];
  const cookie = (Array.isArray(header) ? header[0] : header) ?? '';
  return cookie.split(';')[0] as string;
};

async function signUp(client: HttpClient, email = uniqueEmail()) {
  const response = await client.post('/api/v1/auth/signup', { email, password: PASSWORD }, { apiKey: null });
  expect(response.status, response.text).toBe(201);
  return { email, token: response.json().accessToken as string, cookie: refreshCookie(response), body: response.json(), response };
}

/** A client connecting from another loopback address, so the server sees another client IP. */
function fromAddress(t: TestApp, localAddress: string): HttpClient {
  const client = new HttpClient(t.http.baseUrl, t.ca, undefined, localAddress);
  onTestFinished(() => client.close());
  return client;
}

const bearer = (token: string) => ({ apiKey: null, headers: { authorization: `Bearer ${token}` } });

describe.each(TEST_DIALECTS)('accounts and sessions (%s)', (dialect) => {
  let t: TestApp;
  let client: HttpClient;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    client = t.client();
  });
  afterAll(() => t?.stop());

  it('signs up into a new free-plan account with a production environment, and the JWT works on the API', async () => {
    const { token, response, body, email } = await signUp(client);
    expect(body).toMatchObject({ tokenType: 'Bearer', expiresIn: 900, user: { email, tenantId: expect.any(String) } });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^mailroom_refresh=[A-Za-z0-9_-]{40,}; Path=\/api\/v1\/auth; Expires=.+; HttpOnly; Secure; SameSite=Strict$/);

    const me = await client.get('/api/v1/auth/me', bearer(token));
    expect(me.json()).toMatchObject({ user: { email }, tenant: { id: body.user.tenantId, plan: 'free', name: email } });
    const environments = await client.get('/api/v1/environments', bearer(token));
    expect(environments.json().data.map((e: { slug: string }) => e.slug)).toEqual(['production']);
    const inbox = await client.post('/api/v1/inboxes', {}, bearer(token));
    expect(inbox.status).toBe(201);
  });

  it('refuses a taken email (409), a bad email and a short password (400 with field)', async () => {
    const { email } = await signUp(client);
    const taken = await client.post('/api/v1/auth/signup', { email: email.toUpperCase(), password: PASSWORD }, { apiKey: null });
    expect(taken.status).toBe(409);
    expect(taken.json()).toMatchObject({ code: 'EMAIL_TAKEN', field: 'email' });
    const badEmail = await client.post('/api/v1/auth/signup', { email: 'not-an-email', password: PASSWORD }, { apiKey: null });
    expect(badEmail.json()).toMatchObject({ statusCode: 400, code: 'INVALID_EMAIL', field: 'email' });
    const shortPassword = await client.post('/api/v1/auth/signup', { email: uniqueEmail(), password: 'short' }, { apiKey: null });
    expect(shortPassword.json()).toMatchObject({ statusCode: 400, code: 'INVALID_PASSWORD', field: 'password' });
    const common = await client.post('/api/v1/auth/signup', { email: uniqueEmail(), password: 'Password' }, { apiKey: null });
    expect(common.json()).toMatchObject({ statusCode: 400, code: 'PASSWORD_TOO_COMMON', field: 'password' });
  });

  it('signs in, rotates the refresh cookie on refresh, and signs out', async () => {
    const { email } = await signUp(client);
    const wrong = await client.post('/api/v1/auth/signin', { email, password: 'wrong password' }, { apiKey: null });
    expect(wrong.json()).toMatchObject({ statusCode: 401, code: 'INVALID_CREDENTIALS' });
    const unknown = await client.post('/api/v1/auth/signin', { email: uniqueEmail(), password: PASSWORD }, { apiKey: null });
    expect(unknown.json()).toMatchObject({ statusCode: 401, code: 'INVALID_CREDENTIALS' });

    const signedIn = await client.post('/api/v1/auth/signin', { email: ` ${email.toUpperCase()} `, password: PASSWORD }, { apiKey: null });
    expect(signedIn.status).toBe(200);
    const first = refreshCookie(signedIn);

    const refreshed = await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: first } });
    expect(refreshed.status).toBe(200);
    expect((await client.get('/api/v1/emails', bearer(refreshed.json().accessToken))).status).toBe(200);
    const second = refreshCookie(refreshed);
    expect(second).not.toBe(first);
    // Another tab refreshing with the same cookie at the same moment still gets through (10 s grace).
    const otherTab = await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: first } });
    expect(otherTab.status).toBe(200);

    const signedOut = await client.post('/api/v1/auth/signout', {}, { apiKey: null, headers: { cookie: second } });
    expect(signedOut.status).toBe(204);
    expect(String(signedOut.headers['set-cookie'])).toContain('mailroom_refresh=; Path=/api/v1/auth; Expires=Thu, 01 Jan 1970');
    const afterSignOut = await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: second } });
    expect(afterSignOut.status).toBe(401);
  });

  it('stops accepting a refreshed token once its grace has passed', async () => {
    let now = Date.now();
    const { services, repos } = t.app.ctx;
    const accounts = new AccountService(repos, services.tenants, Buffer.alloc(32, 1), { ...DEFAULT_ACCOUNT_SETTINGS, signup: 'open' }, () => now);
    const first = await accounts.signUp({ email: uniqueEmail(), password: PASSWORD });
    const second = await accounts.refresh(first.refreshToken);
    now += DEFAULT_ACCOUNT_SETTINGS.refreshReuseGraceMs + 1;
    await expect(accounts.refresh(first.refreshToken)).rejects.toMatchObject({ code: 'SESSION_EXPIRED' });
    await expect(accounts.refresh(second.refreshToken)).resolves.toMatchObject({ user: first.user });
    now += DEFAULT_ACCOUNT_SETTINGS.refreshSessionMs;
    expect(await accounts.sweepExpiredSessions()).toBeGreaterThanOrEqual(3);
  });

  it('refuses cookie routes without a JSON body (CSRF check)', async () => {
    const { cookie } = await signUp(client);
    const form = await client.post('/api/v1/auth/refresh', Buffer.from('a=1'), { apiKey: null, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.json()).toMatchObject({ statusCode: 403, code: 'CSRF_CHECK_FAILED' });
    const text = await client.post('/api/v1/auth/signout', Buffer.from('{}'), { apiKey: null, headers: { cookie, 'content-type': 'text/plain' } });
    expect(text.json()).toMatchObject({ statusCode: 403, code: 'CSRF_CHECK_FAILED' });
  });

  it("throttles failed sign-ins per (email address, client IP): the attacker's IP is refused, the user's is not", async () => {
    const { email } = await signUp(client);
    const attacker = fromAddress(t, '127.0.0.2');
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await attacker.post('/api/v1/auth/signin', { email, password: 'wrong password' }, { apiKey: null })).status).toBe(401);
    }
    const throttled = await attacker.post('/api/v1/auth/signin', { email, password: PASSWORD }, { apiKey: null });
    expect(throttled.json()).toMatchObject({ statusCode: 429, code: 'LOGIN_THROTTLED' });
    const user = await fromAddress(t, '127.0.0.3').post('/api/v1/auth/signin', { email, password: PASSWORD }, { apiKey: null });
    expect(user.status, user.text).toBe(200);
  });

  it('keeps tenants apart and refuses forged or tampered tokens', async () => {
    const a = await signUp(client);
    const b = await signUp(client);
    const inbox = (await client.post('/api/v1/inboxes', {}, bearer(a.token))).json();
    expect((await client.get(`/api/v1/inboxes/${inbox.id}`, bearer(b.token))).status).toBe(404);

    const [header, payload, signature] = a.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, tid: b.body.user.tenantId })).toString('base64url')}.${signature}`;
    expect((await client.get('/api/v1/emails', bearer(forged))).json()).toMatchObject({ statusCode: 401, code: 'TOKEN_INVALID' });
    expect((await client.get('/api/v1/emails', bearer('a.b.c'))).json()).toMatchObject({ statusCode: 401, code: 'TOKEN_INVALID' });
  });

  it('accepts the JWT on the realtime stream in broadcast mode only', async () => {
    const { token } = await signUp(client);
    const fetchImpl = httpsFetch(t.ca);
    try {
      const controller = new AbortController();
      const stream = await fetchImpl(`${t.baseUrl}/api/v1/realtime/events?token=${token}`, { signal: controller.signal });
      expect(stream.status).toBe(200);
      const reader = stream.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('"type":"connected"');
      controller.abort();
      await reader.cancel().catch(() => undefined);
      const distributed = await fetchImpl(`${t.baseUrl}/api/v1/realtime/events?mode=distributed`, { headers: { authorization: `Bearer ${token}` } });
      expect(distributed.status).toBe(401);
      expect(await distributed.json()).toMatchObject({ code: 'DISTRIBUTED_REQUIRES_API_KEY' });
    } finally {
      fetchImpl.close();
    }
  });

  it('an operator-created user of an existing tenant signs in to that tenant', async () => {
    const email = uniqueEmail();
    const { user } = await t.app.ctx.services.accounts.createUser({ email, password: PASSWORD, tenantId: t.tenant.id });
    expect(user.tenantId).toBe(t.tenant.id);
    const signedIn = await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, { apiKey: null });
    expect(signedIn.json().user).toMatchObject({ id: user.id, tenantId: t.tenant.id });
    await expect(t.app.ctx.services.accounts.createUser({ email: uniqueEmail(), password: PASSWORD, tenantId: 'no-such-tenant' })).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
  });
});

describe('mailroom user create and set-password', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.stop());

  it('reads the password from stdin and adds a user who can sign in (the CLI on SQLite; the service on both dialects above)', async () => {
    const email = uniqueEmail();
    const created = await runCli(['user', 'create', '--email', email, '--password-stdin', '--json'], { MAILROOM_DATA_DIR: t.dataDir }, `${PASSWORD}\n`);
    expect(created.code, created.stderr).toBe(0);
    const output = JSON.parse(created.stdout);
    expect(output).toMatchObject({ user: { email }, tenant: { name: email, plan: 'free' } });
    const signedIn = await t.client().post('/api/v1/auth/signin', { email, password: PASSWORD }, { apiKey: null });
    expect(signedIn.json().user.tenantId).toBe(output.tenant.id);

    const newPassword = 'operator chosen phrase';
    const set = await runCli(['user', 'set-password', '--email', email.toUpperCase(), '--password-stdin'], { MAILROOM_DATA_DIR: t.dataDir }, `${newPassword}\n`);
    expect(set.code, set.stderr).toBe(0);
    const client = t.client();
    expect((await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: refreshCookie(signedIn) } })).status).toBe(401);
    expect((await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, { apiKey: null })).status).toBe(401);
    expect((await client.post('/api/v1/auth/signin', { email, password: newPassword }, { apiKey: null })).status).toBe(200);
  }, 120_000);
});

describe('closed sign-up', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { MAILROOM_SIGNUP: 'closed' } });
  });
  afterAll(() => t?.stop());

  it('refuses self-service sign-up with 403 and says so in /auth/config', async () => {
    const client = t.client();
    expect((await client.get('/api/v1/auth/config', { apiKey: null })).json()).toEqual({ signup: 'closed', emailVerification: false, passwordReset: false });
    const refused = await client.post('/api/v1/auth/signup', { email: uniqueEmail(), password: PASSWORD }, { apiKey: null });
    expect(refused.json()).toMatchObject({ statusCode: 403, code: 'SIGNUP_CLOSED' });
  });
});

