import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import type { HttpClient, HttpResponse } from '../helpers/http-client.js';
import { linkToken, startSmtpRelay, type SmtpRelay } from '../helpers/smtp-relay.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { MemoryFailureCounter } from '../../src/adapters/events/memory.failure-counter.js';
import { SmtpRelayOutboundMail } from '../../src/adapters/mail/smtp-relay.outbound-mail.js';
import { AccountLinkService, DEFAULT_ACCOUNT_LINK_SETTINGS } from '../../src/services/account-link.service.js';

warnIfPostgresSkipped();

const PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'staple tortoise lantern';
let counter = 0;
const uniqueEmail = () => `mail-user${++counter}-${Date.now()}@example.com`;
const anonymous = { apiKey: null };
const bearer = (token: string) => ({ apiKey: null, headers: { authorization: `Bearer ${token}` } });
const cookieOf = (response: HttpResponse): string => String(response.headers['set-cookie']).split(';')[0] as string;

describe.each(TEST_DIALECTS)('sign-up verification and password reset by email (%s)', (dialect) => {
  let relay: SmtpRelay;
  let t: TestApp;
  let client: HttpClient;

  beforeAll(async () => {
    relay = await startSmtpRelay();
    t = await startTestApp({ dialect, env: { MAILROOM_SMTP_RELAY_URL: relay.url, MAILROOM_MAIL_FROM: 'Mailroom Test <accounts@mailroom.test>', MAILROOM_PUBLIC_URL: 'https://dashboard.example' } });
    client = t.client();
  });
  afterAll(async () => {
    await t?.stop();
    await relay?.close();
  });

  /** Signs up through the emailed link; returns the session response. */
  async function verifiedAccount(email = uniqueEmail()) {
    expect((await client.post('/api/v1/auth/signup', { email, password: PASSWORD }, anonymous)).status).toBe(202);
    const mail = await relay.waitFor(email, 'Confirm your Mailroom account');
    const verified = await client.post('/api/v1/auth/verify-email', { token: linkToken(mail.text, 'verify-email') }, anonymous);
    expect(verified.status, verified.text).toBe(201);
    return { email, session: verified };
  }

  it('says in /auth/config that sign-up and reset go by email', async () => {
    expect((await client.get('/api/v1/auth/config', anonymous)).json()).toEqual({ signup: 'open', emailVerification: true, passwordReset: true });
  });

  it('mails a new address a link through the relay; the account exists only once the link is followed, and the link works once', async () => {
    const email = uniqueEmail();
    const accepted = await client.post('/api/v1/auth/signup', { email, password: PASSWORD }, anonymous);
    expect(accepted.status).toBe(202);
    expect(accepted.json()).toMatchObject({ status: 'check-email' });
    expect(accepted.headers['set-cookie']).toBeUndefined();

    const mail = await relay.waitFor(email, 'Confirm your Mailroom account');
    expect(mail).toMatchObject({ from: 'accounts@mailroom.test', user: 'relay-user' });
    expect(mail.text).toContain('https://dashboard.example/verify-email#token=');
    const before = await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, anonymous);
    expect(before.json()).toMatchObject({ statusCode: 401, code: 'INVALID_CREDENTIALS' });

    const token = linkToken(mail.text, 'verify-email');
    const verified = await client.post('/api/v1/auth/verify-email', { token }, anonymous);
    expect(verified.status).toBe(201);
    expect(verified.json()).toMatchObject({ tokenType: 'Bearer', user: { email } });
    expect(cookieOf(verified)).toMatch(/^mailroom_refresh=/);
    expect((await client.get('/api/v1/auth/me', bearer(verified.json().accessToken))).json()).toMatchObject({ user: { email }, tenant: { plan: 'free' } });
    expect((await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, anonymous)).status).toBe(200);

    const again = await client.post('/api/v1/auth/verify-email', { token }, anonymous);
    expect(again.json()).toMatchObject({ statusCode: 400, code: 'LINK_INVALID', field: 'token' });
    const forged = await client.post('/api/v1/auth/verify-email', { token: 'x'.repeat(43) }, anonymous);
    expect(forged.json()).toMatchObject({ statusCode: 400, code: 'LINK_INVALID' });
  });

  it('answers a sign-up with a registered address exactly as a new one, mails its owner a notice, and changes nothing', async () => {
    const { email } = await verifiedAccount();
    const fresh = await client.post('/api/v1/auth/signup', { email: uniqueEmail(), password: PASSWORD }, anonymous);
    const taken = await client.post('/api/v1/auth/signup', { email: email.toUpperCase(), password: 'another secret phrase' }, anonymous);
    expect(taken.status).toBe(fresh.status);
    expect(taken.json()).toEqual(fresh.json());
    expect(Object.keys(taken.headers).sort()).toEqual(Object.keys(fresh.headers).sort());

    const notice = await relay.waitFor(email, 'Sign-up attempt');
    expect(notice.text).toContain('https://dashboard.example/forgot-password');
    expect(notice.text).not.toMatch(/#token=/);
    expect((await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, anonymous)).status).toBe(200);
    expect((await client.post('/api/v1/auth/signin', { email, password: 'another secret phrase' }, anonymous)).status).toBe(401);
  });

  it('still checks the address and the password rules before answering 202', async () => {
    expect((await client.post('/api/v1/auth/signup', { email: 'nope', password: PASSWORD }, anonymous)).json()).toMatchObject({ statusCode: 400, code: 'INVALID_EMAIL' });
    expect((await client.post('/api/v1/auth/signup', { email: uniqueEmail(), password: 'password1' }, anonymous)).json()).toMatchObject({ statusCode: 400, code: 'PASSWORD_TOO_COMMON' });
  });

  it('resets a forgotten password by emailed link: same answer for unknown addresses, sessions end, the link works once', async () => {
    const { email, session } = await verifiedAccount();
    const oldCookie = cookieOf(session);
    const unknownEmail = uniqueEmail();
    const unknown = await client.post('/api/v1/auth/password-reset', { email: unknownEmail }, anonymous);
    const known = await client.post('/api/v1/auth/password-reset', { email }, anonymous);
    expect(known.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.json()).toEqual(known.json());

    const mail = await relay.waitFor(email, 'Reset your Mailroom password');
    const token = linkToken(mail.text, 'reset-password');
    const weak = await client.post('/api/v1/auth/password-reset/confirm', { token, password: 'short' }, anonymous);
    expect(weak.json()).toMatchObject({ statusCode: 400, code: 'INVALID_PASSWORD', field: 'password' });

    const reset = await client.post('/api/v1/auth/password-reset/confirm', { token, password: NEW_PASSWORD }, anonymous);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json()).toMatchObject({ user: { email } });
    expect((await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: oldCookie } })).status).toBe(401);
    expect((await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: cookieOf(reset) } })).status).toBe(200);
    expect((await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, anonymous)).status).toBe(401);
    expect((await client.post('/api/v1/auth/signin', { email, password: NEW_PASSWORD }, anonymous)).status).toBe(200);
    const reused = await client.post('/api/v1/auth/password-reset/confirm', { token, password: 'yet another phrase' }, anonymous);
    expect(reused.json()).toMatchObject({ statusCode: 400, code: 'LINK_INVALID' });
    expect(relay.mails.some((m) => m.to === unknownEmail)).toBe(false);
  });

  it('only the newest reset link works', async () => {
    const { email } = await verifiedAccount();
    await client.post('/api/v1/auth/password-reset', { email }, anonymous);
    const first = linkToken((await relay.waitFor(email, 'Reset your')).text, 'reset-password');
    await client.post('/api/v1/auth/password-reset', { email }, anonymous);
    const second = await eventuallySecondReset(email);
    expect((await client.post('/api/v1/auth/password-reset/confirm', { token: first, password: NEW_PASSWORD }, anonymous)).json()).toMatchObject({ code: 'LINK_INVALID' });
    expect((await client.post('/api/v1/auth/password-reset/confirm', { token: second, password: NEW_PASSWORD }, anonymous)).status).toBe(200);
  });

  async function eventuallySecondReset(email: string): Promise<string> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const resets = relay.mails.filter((m) => m.to === email && m.subject.startsWith('Reset your'));
      if (resets.length >= 2) return linkToken((resets[1] as { text: string }).text, 'reset-password');
      if (Date.now() > deadline) throw new Error('no second reset mail');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('refuses links once they expire (24 h for sign-up, 1 h for reset)', async () => {
    let now = Date.now();
    const mail = new SmtpRelayOutboundMail(relay.url, 'accounts@mailroom.test');
    const failures: unknown[] = [];
    const { repos, services } = t.app.ctx;
    const links = new AccountLinkService(repos, services.accounts, mail, { ...DEFAULT_ACCOUNT_LINK_SETTINGS, publicUrl: 'https://dashboard.example' }, new MemoryFailureCounter(60_000), (error) => failures.push(error), () => now);
    try {
      const email = uniqueEmail();
      await links.requestSignup({ email, password: PASSWORD });
      const signupToken = linkToken((await relay.waitFor(email, 'Confirm your')).text, 'verify-email');
      now += 24 * 3_600_000 + 1;
      await expect(links.verifySignup(signupToken)).rejects.toMatchObject({ code: 'LINK_INVALID' });

      const { email: owner } = await verifiedAccount();
      await links.requestPasswordReset(owner);
      const resetToken = linkToken((await relay.waitFor(owner, 'Reset your')).text, 'reset-password');
      now += 3_600_000 + 1;
      await expect(links.resetPassword(resetToken, NEW_PASSWORD)).rejects.toMatchObject({ code: 'LINK_INVALID' });
      expect(failures).toEqual([]);
    } finally {
      mail.close();
    }
  });

  it('changes the password of the signed-in user: the current one is checked, the rules apply, other sessions end', async () => {
    const { email, session } = await verifiedAccount();
    const token = session.json().accessToken as string;
    const other = await client.post('/api/v1/auth/signin', { email, password: PASSWORD }, anonymous);

    const wrong = await client.post('/api/v1/auth/password', { currentPassword: 'not my password', newPassword: NEW_PASSWORD }, bearer(token));
    expect(wrong.json()).toMatchObject({ statusCode: 400, code: 'WRONG_PASSWORD', field: 'currentPassword' });
    const common = await client.post('/api/v1/auth/password', { currentPassword: PASSWORD, newPassword: 'qwertyuiop' }, bearer(token));
    expect(common.json()).toMatchObject({ statusCode: 400, code: 'PASSWORD_TOO_COMMON', field: 'newPassword' });
    const unknownField = await client.post('/api/v1/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD, extra: 1 }, bearer(token));
    expect(unknownField.status).toBe(400);

    const changed = await client.post('/api/v1/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, bearer(token));
    expect(changed.status, changed.text).toBe(204);
    expect((await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: cookieOf(other) } })).status).toBe(401);
    expect((await client.post('/api/v1/auth/refresh', {}, { apiKey: null, headers: { cookie: cookieOf(session) } })).status).toBe(200);
    expect((await client.post('/api/v1/auth/signin', { email, password: NEW_PASSWORD }, anonymous)).status).toBe(200);

    const withKey = await t.http.post('/api/v1/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD });
    expect(withKey.json()).toMatchObject({ statusCode: 403, code: 'SESSION_REQUIRED' });
  });
});

describe('without a mail relay', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.stop());

  it('signs up at once (201), refuses reset links with 403 ACCOUNT_MAIL_OFF, and still changes passwords', async () => {
    const client = t.client();
    expect((await client.get('/api/v1/auth/config', anonymous)).json()).toEqual({ signup: 'open', emailVerification: false, passwordReset: false });
    const email = uniqueEmail();
    const signedUp = await client.post('/api/v1/auth/signup', { email, password: PASSWORD }, anonymous);
    expect(signedUp.status).toBe(201);
    expect((await client.post('/api/v1/auth/password-reset', { email }, anonymous)).json()).toMatchObject({ statusCode: 403, code: 'ACCOUNT_MAIL_OFF' });
    expect((await client.post('/api/v1/auth/verify-email', { token: 'abc' }, anonymous)).json()).toMatchObject({ statusCode: 403, code: 'ACCOUNT_MAIL_OFF' });
    const changed = await client.post('/api/v1/auth/password', { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }, bearer(signedUp.json().accessToken));
    expect(changed.status).toBe(204);
  });
});
