import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/core/webhook-signature.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

/** The REST calls the hosted service's MCP server makes, beyond the SDK's (issue 17). */
describe.each(TEST_DIALECTS)('routes the hosted MCP server calls (%s)', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1' } });
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.stop();
  });

  const createInbox = async (body: object = {}) => (await t.http.post('/api/v1/inboxes', body)).json() as { id: string; address: string };
  const inboxKey = async (inboxId: string) => ((await t.http.post(`/api/v1/inboxes/${inboxId}/api-keys`, { name: 'scoped', scopes: ['api'] })).json() as { key: string }).key;
  const ids = (body: { data: Array<{ id: string }> }) => body.data.map((item) => item.id);

  describe('GET /tenant and GET /usage', () => {
    it('GET /tenant answers id, name, plan and limits; an inbox-scoped key gets 403', async () => {
      const response = await t.http.get('/api/v1/tenant');
      expect(response.status).toBe(200);
      expect(response.json()).toEqual({
        id: t.tenant.id,
        name: 'Default test tenant',
        plan: 'pro',
        limits: { requestsPerMinute: expect.any(Number), monthlyEmails: expect.any(Number), customStorage: true, maxResources: { webhooks: 100, chatappIntegrations: 50, inboxes: 10_000 } },
        createdAt: expect.any(String),
      });
      const inbox = await createInbox();
      expect((await t.client(await inboxKey(inbox.id)).get('/api/v1/tenant')).status).toBe(403);
    });

    it("GET /usage counts this month's emails and webhook deliveries, with the period and reset date", async () => {
      const tenant = await t.createTenant('Usage tenant');
      const client = t.client(tenant.apiKey);
      const inbox = (await client.post('/api/v1/inboxes', {})).json() as { id: string; address: string };
      await client.post('/api/v1/webhooks', { url: `${receiver.origin}/usage`, inboxId: inbox.id });
      await sendMail(t.smtpPort, { from: 'a@sender.test', to: inbox.address, subject: 'count me', text: 'x' });
      await receiver.waitFor(1, (request) => request.path === '/usage');
      const usage = await eventually(async () => {
        const body = (await client.get('/api/v1/usage')).json();
        return body.webhooks.succeeded === 1 ? body : undefined;
      }, 'the delivery log entry');
      const month = new Date().toISOString().slice(0, 7);
      expect(usage).toMatchObject({ month, periodStart: `${month}-01T00:00:00.000Z`, emails: { used: 1 }, webhooks: { deliveries: 1, succeeded: 1, failed: 0 } });
      expect(Date.parse(usage.resetsAt)).toBeGreaterThan(Date.now());
    });
  });

  describe('POST /inboxes with name', () => {
    it('keeps the display name and shows it on the inbox', async () => {
      const response = await t.http.post('/api/v1/inboxes', { name: 'Checkout tests' });
      expect(response.status).toBe(201);
      const inbox = response.json();
      expect(inbox).toMatchObject({ name: 'Checkout tests', address: expect.stringContaining('@') });
      expect((await t.http.get(`/api/v1/inboxes/${inbox.id}`)).json().name).toBe('Checkout tests');
      expect((await createInbox() as { name?: unknown }).name).toBeNull();
    });

    it.each([[''], ['x'.repeat(201)]])('refuses name %j with 400 naming the field', async (name) => {
      const response = await t.http.post('/api/v1/inboxes', { name });
      expect(response.status).toBe(400);
      expect(response.json().field).toBe('name');
    });
  });

  describe('GET /emails with inboxId and cursor', () => {
    let inbox: { id: string; address: string };
    const sent: string[] = [];

    beforeAll(async () => {
      inbox = await createInbox();
      for (const subject of ['Echo', 'alpha', 'Delta', 'bravo', 'Charlie']) {
        sent.push((await sendMail(t.smtpPort, { from: 'list@sender.test', to: inbox.address, subject, text: subject })).id);
      }
      await sendMail(t.smtpPort, { from: 'list@sender.test', to: (await createInbox()).address, subject: 'elsewhere', text: 'x' });
    });

    const list = async (query: string) => {
      const response = await t.http.get(`/api/v1/emails?inboxId=${inbox.id}&${query}`);
      expect(response.status).toBe(200);
      return response.json() as { data: Array<{ id: string; subject: string }>; nextCursor: string | null; totalItems: number; currentPage: number; hasNextPage: boolean };
    };

    it('inboxId limits the list to that inbox', async () => {
      const page = await list('perPage=100');
      expect(ids(page).sort()).toEqual([...sent].sort());
    });

    it('pages with limit and nextCursor, newest first, unaffected by mail arriving in between', async () => {
      const first = await list('limit=2');
      expect(first).toMatchObject({ totalItems: 5, currentPage: 1, hasNextPage: true, nextCursor: expect.any(String) });
      const late = await sendMail(t.smtpPort, { from: 'list@sender.test', to: inbox.address, subject: 'late', text: 'x' });
      const second = await list(`limit=2&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
      const third = await list(`limit=2&cursor=${encodeURIComponent(second.nextCursor ?? '')}`);
      expect([...ids(first), ...ids(second), ...ids(third)]).toEqual([...sent].reverse());
      expect(second).toMatchObject({ currentPage: 2, totalItems: 6 });
      expect(third).toMatchObject({ hasNextPage: false, nextCursor: null });
      await t.http.delete(`/api/v1/emails/${late.id}`);
    });

    it('pages by subject (case-insensitive) with cursors, and by page number beside them', async () => {
      const sort = 'sort.field=subject&sort.order=asc';
      const subjects: string[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const page = await list(`${sort}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        subjects.push(...page.data.map((email) => email.subject));
        cursor = page.nextCursor;
      }
      expect(subjects).toEqual(['alpha', 'bravo', 'Charlie', 'Delta', 'Echo']);
      const byNumber = await list(`${sort}&page=2&perPage=2`);
      expect(byNumber.data.map((email) => email.subject)).toEqual(['Charlie', 'Delta']);
      expect(byNumber.nextCursor).toEqual(expect.any(String));
      expect((await list(`${sort}&limit=2&cursor=${encodeURIComponent(byNumber.nextCursor ?? '')}`)).data.map((e) => e.subject)).toEqual(['Echo']);
    });

    it('combines cursor with filter.createdAfter and filter.createdBefore', async () => {
      const all = await list('perPage=100&sort.order=asc');
      const [, second, third] = all.data as unknown as Array<{ createdAt: string }>;
      const window = `filter.createdAfter=${encodeURIComponent(second?.createdAt ?? '')}&filter.createdBefore=${encodeURIComponent(third?.createdAt ?? '')}`;
      const first = await list(`${window}&sort.order=asc&limit=1`);
      const next = await list(`${window}&sort.order=asc&limit=1&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
      expect([...ids(first), ...ids(next)]).toEqual([sent[1], sent[2]]);
      expect(next.nextCursor).toBeNull();
      const brackets = await list(`${window.replaceAll('filter.createdAfter', 'filter%5BcreatedAfter%5D').replaceAll('filter.createdBefore', 'filter[createdBefore]')}&sort.order=asc`);
      expect(ids(brackets)).toEqual([sent[1], sent[2]]);
    });

    it.each([
      ['a cursor that is not one', 'cursor=not-a-cursor', 'cursor', 'INVALID_CURSOR'],
      ['a cursor of another sort', 'sort.field=subject&cursor=CURSOR', 'cursor', 'INVALID_CURSOR'],
      ['page together with cursor', 'page=2&cursor=CURSOR', 'page', 'INVALID_PAGINATION'],
      ['limit together with perPage', 'limit=2&perPage=2', 'limit', 'INVALID_PAGINATION'],
      ['limit over 100', 'limit=101', 'limit', 'VALIDATION_ERROR'],
      ['an unparseable filter.createdAfter', 'filter.createdAfter=yesterday', 'filter.createdAfter', 'VALIDATION_ERROR'],
    ])('answers 400 for %s', async (_case, query, field, code) => {
      const cursor = (await list('limit=1')).nextCursor ?? '';
      const response = await t.http.get(`/api/v1/emails?inboxId=${inbox.id}&${query.replace('CURSOR', encodeURIComponent(cursor))}`);
      expect(response.status).toBe(400);
      expect(response.json()).toMatchObject({ field, code });
    });

    it('an unknown inboxId is 404; an inbox-scoped key naming another inbox is 403', async () => {
      expect((await t.http.get('/api/v1/emails?inboxId=00000000-0000-4000-8000-000000000000')).status).toBe(404);
      const other = await createInbox();
      const scoped = t.client(await inboxKey(other.id));
      expect((await scoped.get(`/api/v1/emails?inboxId=${inbox.id}`)).status).toBe(403);
      expect((await scoped.get(`/api/v1/emails?inboxId=${other.id}`)).json().data).toEqual([]);
    });
  });

  describe('POST /webhooks with inboxId and secret, PATCH /webhooks/:id', () => {
    it('creates and links in one step, and signs deliveries with the given secret', async () => {
      const inbox = await createInbox();
      const secret = 'my-own-signing-secret-0123';
      const response = await t.http.post('/api/v1/webhooks', { inboxId: inbox.id, url: `${receiver.origin}/linked`, secret });
      expect(response.status).toBe(201);
      expect(response.json()).toMatchObject({ inboxIds: [inbox.id], secret, active: true });
      await sendMail(t.smtpPort, { from: 'a@sender.test', to: inbox.address, subject: 'hooked', text: 'x' });
      const [delivery] = await receiver.waitFor(1, (request) => request.path === '/linked');
      expect(delivery?.headers['x-webhook-signature']).toBe(signBody(secret, delivery?.body ?? ''));
      expect((await t.http.get(`/api/v1/inboxes/${inbox.id}/hooks`)).json().data).toEqual([expect.objectContaining({ id: response.json().id })]);
    });

    it('PATCH changes url, secret and enabled; fields left out keep their value', async () => {
      const created = (await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/a`, description: 'kept' })).json();
      const response = await t.http.patch(`/api/v1/webhooks/${created.id}`, { body: { url: `${receiver.origin}/b`, secret: 'another-secret-of-16+', enabled: false } });
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ url: `${receiver.origin}/b`, active: false, description: 'kept', secret: '…-16+' });
      expect((await t.http.patch(`/api/v1/webhooks/${created.id}`, { body: { enabled: true } })).json().active).toBe(true);
    });

    it.each([
      ['POST', { url: 'RECEIVER', secret: 'short' }, 'secret'],
      ['POST', { url: 'RECEIVER', inboxId: '' }, 'inboxId'],
      ['PATCH', { enabled: 'yes' }, 'enabled'],
      ['PATCH', { enabled: true, active: false }, 'enabled'],
      ['PATCH', { colour: 'red' }, 'colour'],
    ])('%s answers 400 for %j', async (method, body, field) => {
      const created = (await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/c` })).json();
      const payload = JSON.parse(JSON.stringify(body).replace('RECEIVER', `${receiver.origin}/d`));
      const response = method === 'POST' ? await t.http.post('/api/v1/webhooks', payload) : await t.http.patch(`/api/v1/webhooks/${created.id}`, { body: payload });
      expect(response.status).toBe(400);
      expect(response.json().field).toBe(field);
    });

    it('an unknown inboxId is 404 and creates nothing', async () => {
      const before = (await t.http.get('/api/v1/webhooks?perPage=100')).json().totalItems;
      const response = await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/e`, inboxId: '00000000-0000-4000-8000-000000000000' });
      expect(response.status).toBe(404);
      expect((await t.http.get('/api/v1/webhooks?perPage=100')).json().totalItems).toBe(before);
    });
  });

  describe('GET /domains/:id/verify', () => {
    it('reads the verification status without checking DNS; 404 for an unknown id', async () => {
      const domain = (await t.http.post('/api/v1/domains', { domain: 'mcp-read.example.com' })).json();
      const response = await t.http.get(`/api/v1/domains/${domain.id}/verify`);
      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ id: domain.id, verified: false, lastCheckedAt: null, records: [expect.objectContaining({ status: 'pending' }), expect.anything()] });
      expect((await t.http.get('/api/v1/domains/00000000-0000-4000-8000-000000000000/verify')).status).toBe(404);
    });
  });
});
