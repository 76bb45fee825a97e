import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPeriodicTask } from '../../src/workers/periodic-task.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { storedState } from '../helpers/stored-state.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const SIGNUP_TEXT = `Hi there,

Thanks for signing up for Acme Cloud! Use this code to verify your email address:

    748 291

The code expires in 10 minutes. If you did not create an account, you can ignore this email.

Questions? Call us at +1 (415) 555-0132, Mon–Fri.
Acme Inc., 500 Market Street, San Francisco, CA 94105
`;

const SIGNUP_HTML = `<!doctype html><html><head><style>.code{color:#112233;font-size:32px}</style></head><body>
<div style="display:none">Your Acme verification code</div>
<p>Thanks for signing up for Acme Cloud! Use this code to verify your email address:</p>
<p class="code"><strong>748 291</strong></p>
<p>Or <a href="https://app.acme.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB">confirm your email address</a> with one click.</p>
<p style="font-size:11px">© 2026 Acme Inc. · <a href="https://acme.test/unsubscribe?u=8812">Unsubscribe</a></p>
<img src="https://t.acme.test/open.gif?id=9182736455" width="1" height="1" alt="">
</body></html>`;

describe.each(TEST_DIALECTS)('virtual inboxes (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    // The app's own sweeper must not take the lease during the tests; they drive sweepers by hand.
    t = await startTestApp({ dialect, env: { MAILROOM_INBOX_SWEEP_INTERVAL_MS: '3600000' } });
  });
  afterAll(() => t?.stop());

  /** A node's inbox-expiry sweeper as app.ts builds it (same lease name), driven by hand. */
  const expirySweeper = () =>
    createPeriodicTask({ name: 'inbox-expiry', intervalMs: 60_000, leases: t.app.ctx.repos.leases, logger: t.app.ctx.logger, run: () => t.app.ctx.services.inboxes.deleteExpired() });

  const createInbox = async (body: Record<string, unknown> = {}) => {
    const response = await t.http.post('/api/v1/inboxes', body);
    expect(response.status).toBe(201);
    return response.json();
  };

  describe('POST /inboxes', () => {
    it('uses the prefix as given, lower-cased, and appends a suffix only when the address is taken', async () => {
      const first = await createInbox({ prefix: 'Sign.Up+QA' });
      expect(first).toMatchObject({ addressPrefix: 'sign.up+qa', address: `sign.up+qa@${t.app.ctx.config.mailDomain}`, active: true, expiresAt: null, messageCount: 0 });
      expect(first.environment).toMatchObject({ slug: 'production', name: 'Production' });
      expect(first.domain).toEqual({ id: null, domain: t.app.ctx.config.mailDomain });
      const other = await t.createTenant('Other');
      const second = await t.client(other.apiKey).post('/api/v1/inboxes', { prefix: 'sign.up+qa' });
      expect(second.status).toBe(201);
      expect(second.json().addressPrefix).toMatch(/^sign\.up\+qa-[0-9a-z]{4}$/);
    });

    it('generates a short, readable prefix when none is given', async () => {
      const inbox = await createInbox();
      expect(inbox.addressPrefix).toMatch(/^[a-z]{4}-[a-z]{4}-\d{4}$/);
    });

    it('creates an inbox from a POST with no body at all (every field is optional)', async () => {
      const variants: Record<string, string>[] = [{}, { 'content-type': 'application/json' }];
      for (const headers of variants) {
        const response = await t.http.request('POST', '/api/v1/inboxes', { headers });
        expect(response.status).toBe(201);
        expect(response.json().addressPrefix).toMatch(/^[a-z]{4}-[a-z]{4}-\d{4}$/);
      }
    });

    it('sets expiresAt from ttlSeconds', async () => {
      const before = Date.now();
      const inbox = await createInbox({ ttlSeconds: 60, tags: ['signup', 'signup', 'ci'] });
      expect(Date.parse(inbox.expiresAt) - before).toBeGreaterThanOrEqual(59_000);
      expect(Date.parse(inbox.expiresAt) - before).toBeLessThanOrEqual(61_000);
      expect(inbox.tags).toEqual(['signup', 'ci']);
    });

    it.each([
      ['a space', 'has space'],
      ['a leading space', ' lead'],
      ['double quotes', '"quoted"'],
      ['unicode', 'jürgen'],
      ['more than 64 octets', 'a'.repeat(65)],
      ['a reserved name', 'postmaster'],
      ['another reserved name', 'Abuse'],
      ['a leading dot', '.dot'],
      ['an empty string', ''],
    ])('refuses a prefix with %s: 400 naming prefix', async (_label, prefix) => {
      const response = await t.http.post('/api/v1/inboxes', { prefix });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ statusCode: 400, field: 'prefix' });
    });

    it.each([59, 86_401, -1, 0])('refuses ttlSeconds %s: 400 naming ttlSeconds', async (ttlSeconds) => {
      const response = await t.http.post('/api/v1/inboxes', { ttlSeconds });
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ field: 'ttlSeconds' });
    });

    it('refuses a domainId that is not a verified domain of the tenant, and an unknown environmentId', async () => {
      const domain = await t.http.post('/api/v1/inboxes', { domainId: '00000000-0000-4000-8000-000000000000' });
      expect(domain.status).toBe(400);
      expect(domain.json().field).toBe('domainId');
      const environment = await t.http.post('/api/v1/inboxes', { environmentId: '00000000-0000-4000-8000-000000000000' });
      expect(environment.status).toBe(400);
      expect(environment.json().field).toBe('environmentId');
    });
  });

  describe('GET /inboxes', () => {
    it('filters by tags (all given), paginates, and hides expired inboxes unless includeExpired', async () => {
      const tenant = await t.createTenant('Lister');
      const http = t.client(tenant.apiKey);
      const made = [];
      for (const tags of [['alpha'], ['alpha', 'beta'], ['beta'], []]) made.push((await http.post('/api/v1/inboxes', { tags })).json());
      const expired = (await http.post('/api/v1/inboxes', { ttlSeconds: 60, tags: ['alpha'] })).json();
      await t.app.ctx.db.kysely.updateTable('inboxes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', expired.id).execute();

      const all = (await http.get('/api/v1/inboxes')).json();
      expect(all).toMatchObject({ currentPage: 1, perPage: 20, totalItems: 4, totalPages: 1, hasNextPage: false });
      expect(all.data.map((i: { id: string }) => i.id)).toEqual(made.map((i) => i.id).reverse());

      const alpha = (await http.get('/api/v1/inboxes?tags=ALPHA')).json();
      expect(alpha.data.map((i: { id: string }) => i.id).sort()).toEqual([made[0].id, made[1].id].sort());
      const both = (await http.get('/api/v1/inboxes?tags=alpha&tags=beta')).json();
      expect(both.data.map((i: { id: string }) => i.id)).toEqual([made[1].id]);
      expect((await http.get('/api/v1/inboxes?tags=alpha,beta')).json().totalItems).toBe(1);

      const withExpired = (await http.get('/api/v1/inboxes?tags=alpha&includeExpired=true')).json();
      expect(withExpired.totalItems).toBe(3);

      const page = (await http.get('/api/v1/inboxes?page=2&perPage=3')).json();
      expect(page).toMatchObject({ currentPage: 2, perPage: 3, totalItems: 4, totalPages: 2, hasNextPage: false });
      expect(page.data).toHaveLength(1);

      expect((await http.get(`/api/v1/inboxes?environmentId=${tenant.environmentId}`)).json().totalItems).toBe(4);
      expect((await http.get('/api/v1/inboxes?environmentId=00000000-0000-4000-8000-000000000000')).json().totalItems).toBe(0);
      expect((await http.get('/api/v1/inboxes?domainId=00000000-0000-4000-8000-000000000000')).json().totalItems).toBe(0);
      expect((await http.get('/api/v1/inboxes?perPage=101')).status).toBe(400);
    });
  });

  describe('messages, stats and delete', () => {
    it('an inbox with ttlSeconds 60 receives mail, returns the OTP in extracted.otp, and is gone after its TTL', async () => {
      const inbox = await createInbox({ ttlSeconds: 60 });
      const sent = await sendMail(t.smtpPort, {
        from: 'Acme Cloud <no-reply@acme.test>',
        to: inbox.address,
        subject: 'Verify your email for Acme Cloud',
        text: SIGNUP_TEXT,
        html: SIGNUP_HTML,
      });

      const list = await t.http.get(`/api/v1/inboxes/${inbox.id}/messages`);
      expect(list.status).toBe(200);
      expect(list.json()).toMatchObject({ totalItems: 1, currentPage: 1, hasNextPage: false });
      const message = list.json().data[0];
      expect(message).toMatchObject({
        inboxId: inbox.id,
        emailId: sent.id,
        from: 'no-reply@acme.test',
        to: [inbox.address],
        subject: 'Verify your email for Acme Cloud',
        read: false,
        textBody: expect.stringContaining('748 291'),
      });
      expect(message.extracted).toMatchObject({
        otp: '748291',
        verificationCode: '748291',
        codes: ['748291'],
        magicLink: 'https://app.acme.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB',
      });
      expect(message.extracted.links).toEqual(['https://app.acme.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB', 'https://acme.test/unsubscribe?u=8812']);
      expect(message.extracted.linkDetails).toEqual([
        { url: 'https://app.acme.test/verify-email?token=Zk3pQ9wX7vL2mN8rT4yB', text: 'confirm your email address', kind: 'verification' },
        { url: 'https://acme.test/unsubscribe?u=8812', text: 'Unsubscribe', kind: 'unsubscribe' },
      ]);

      const one = await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/${message.id}`);
      expect(one.status).toBe(200);
      expect(one.json()).toEqual(message);

      const detail = (await t.http.get(`/api/v1/inboxes/${inbox.id}`)).json();
      expect(detail).toMatchObject({ id: inbox.id, messageCount: 1, stats: { messageCount: 1, unreadCount: 1, lastMessageAt: message.createdAt } });
      expect(detail.stats.sizeBytes).toBeGreaterThan(1000);
      await t.http.patch(`/api/v1/emails/${sent.id}/read`);
      expect((await t.http.get(`/api/v1/inboxes/${inbox.id}`)).json().stats.unreadCount).toBe(0);

      // The TTL runs out: the sweeper (one node at a time, through its lease) removes inbox, message, email and files.
      const before = await storedState(t);
      await t.app.ctx.db.kysely.updateTable('inboxes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', inbox.id).execute();
      // The write went around InboxService: tell RCPT TO's address cache as InboxService would (D35).
      t.app.ctx.services.recipients.forget();
      await expect(sendMail(t.smtpPort, { from: 'a@acme.test', to: inbox.address, text: 'late' })).rejects.toMatchObject({ responseCode: 550 });
      expect((await t.http.get(`/api/v1/inboxes/${inbox.id}`)).status).toBe(404);

      const sweeper = expirySweeper();
      await sweeper.runOnce();
      await sweeper.stop();
      expect(await t.app.ctx.repos.inboxes.get(t.tenant.id, inbox.id)).toBeUndefined();
      expect((await t.http.get(`/api/v1/emails/${sent.id}`)).status).toBe(404);
      const after = await storedState(t);
      expect(after).toMatchObject({ emails: before.emails - 1, inboxMessages: before.inboxMessages - 1, blobs: before.blobs - 1 });
      expect((await t.http.get('/api/v1/inboxes?includeExpired=true')).json().data.map((i: { id: string }) => i.id)).not.toContain(inbox.id);
    });

    it('sweeps on one node at a time: a second sweeper waits while the first holds the lease', async () => {
      const [nodeA, nodeB] = [expirySweeper(), expirySweeper()];
      const expire = async () => {
        const inbox = await createInbox({ ttlSeconds: 60 });
        await t.app.ctx.db.kysely.updateTable('inboxes').set({ expires_at: new Date(Date.now() - 1000).toISOString() }).where('id', '=', inbox.id).execute();
        return inbox.id as string;
      };
      const first = await expire();
      await nodeA.runOnce();
      expect(await t.app.ctx.repos.inboxes.get(t.tenant.id, first)).toBeUndefined();
      const second = await expire();
      await nodeB.runOnce();
      expect(await t.app.ctx.repos.inboxes.get(t.tenant.id, second)).toBeDefined();
      await nodeA.stop();
      await nodeB.runOnce();
      expect(await t.app.ctx.repos.inboxes.get(t.tenant.id, second)).toBeUndefined();
      await nodeB.stop();
    });

    it('lists messages newest first with pagination; unknown message is 404', async () => {
      const inbox = await createInbox();
      for (const subject of ['one', 'two', 'three']) await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject, text: 'hello' });
      const page1 = (await t.http.get(`/api/v1/inboxes/${inbox.id}/messages?perPage=2`)).json();
      expect(page1).toMatchObject({ totalItems: 3, totalPages: 2, hasNextPage: true });
      expect(page1.data.map((m: { subject: string }) => m.subject)).toEqual(['three', 'two']);
      const page2 = (await t.http.get(`/api/v1/inboxes/${inbox.id}/messages?perPage=2&page=2`)).json();
      expect(page2.data.map((m: { subject: string }) => m.subject)).toEqual(['one']);
      expect((await t.http.get(`/api/v1/inboxes/${inbox.id}/messages/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
    });

    it('DELETE removes the inbox, its messages, the emails only it held and their files (204); shared emails stay', async () => {
      const inbox = await createInbox();
      const neighbour = await createInbox();
      const own = await sendMail(t.smtpPort, {
        from: 'a@example.com',
        to: inbox.address,
        subject: 'own',
        text: 'x',
        attachments: [{ filename: 'a.txt', content: 'attached' }],
      });
      const shared = await sendMail(t.smtpPort, { from: 'a@example.com', to: [inbox.address, neighbour.address], subject: 'shared', text: 'x' });
      const key = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'ci' })).json().key;
      const before = await storedState(t);

      const response = await t.http.delete(`/api/v1/inboxes/${inbox.id}`);
      expect(response.status).toBe(204);
      expect(response.text).toBe('');
      expect((await t.http.get(`/api/v1/inboxes/${inbox.id}`)).status).toBe(404);
      expect((await t.http.get(`/api/v1/emails/${own.id}`)).status).toBe(404);
      expect((await t.http.get(`/api/v1/emails/${shared.id}`)).status).toBe(200);
      expect((await t.http.get(`/api/v1/inboxes/${neighbour.id}/messages`)).json().totalItems).toBe(1);
      expect((await t.client(key).get('/api/v1/inboxes')).status).toBe(401);
      const after = await storedState(t);
      expect(after).toMatchObject({ emails: before.emails - 1, attachments: before.attachments - 1, inboxMessages: before.inboxMessages - 2, blobs: before.blobs - 2 });
      await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, text: 'x' })).rejects.toMatchObject({ responseCode: 550 });

      expect((await t.http.delete(`/api/v1/inboxes/${inbox.id}`)).status).toBe(404);
    });

    it("another tenant's inbox is 404 on every route", async () => {
      const inbox = await createInbox();
      const other = t.client((await t.createTenant('Stranger')).apiKey);
      for (const path of ['', '/messages', '/messages/wait?timeout=0', '/api-keys']) {
        expect((await other.get(`/api/v1/inboxes/${inbox.id}${path}`)).status).toBe(404);
      }
      expect((await other.delete(`/api/v1/inboxes/${inbox.id}`)).status).toBe(404);
      expect((await other.post(`/api/v1/inboxes/${inbox.id}/api-keys`, {})).status).toBe(404);
    });
  });
});
