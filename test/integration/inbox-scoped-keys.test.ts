import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import type { HttpClient } from '../helpers/http-client.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const SOME_ID = '00000000-0000-4000-8000-000000000000';

/** Spec 5.4, one HTTP request per rule. */
describe.each(TEST_DIALECTS)('inbox-scoped keys (%s)', (dialect) => {
  let t: TestApp;
  let bound: { id: string; address: string };
  let other: { id: string; address: string };
  let boundEmailId: string;
  let otherEmailId: string;
  let boundMessageId: string;
  let otherMessageId: string;
  let key: string;
  let scoped: HttpClient;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    bound = (await t.http.post('/api/v1/inboxes', { prefix: 'bound', tags: ['qa'] })).json();
    other = (await t.http.post('/api/v1/inboxes', { prefix: 'other', tags: ['qa'] })).json();
    boundEmailId = (await sendMail(t.smtpPort, { from: 'a@example.com', to: bound.address, subject: 'for bound', text: 'Your code is 1357' })).id;
    otherEmailId = (await sendMail(t.smtpPort, { from: 'a@example.com', to: other.address, subject: 'for other', text: 'x' })).id;
    boundMessageId = (await t.http.get(`/api/v1/inboxes/${bound.id}/messages`)).json().data[0].id;
    otherMessageId = (await t.http.get(`/api/v1/inboxes/${other.id}/messages`)).json().data[0].id;
    const created = await t.http.post(`/api/v1/inboxes/${bound.id}/api-keys`, { name: 'CI runner', scopes: ['api', 'imap'] });
    expect(created.status).toBe(201);
    key = created.json().key;
    scoped = t.client(key);
  });
  afterAll(() => t?.stop());

  it('creation returns the full key once; the list shows only its prefix', async () => {
    const created = (await t.http.post(`/api/v1/inboxes/${bound.id}/api-keys`, { name: 'temp' })).json();
    expect(created).toMatchObject({ name: 'temp', scopes: ['api'], inboxId: bound.id, active: true, expiresAt: null, lastUsedAt: null });
    expect(created.key).toMatch(/^mr_/);
    expect(created.prefix).toBe(created.key.slice(0, 8));
    const list = await t.http.get(`/api/v1/inboxes/${bound.id}/api-keys`);
    expect(list.status).toBe(200);
    const listed = list.json().data.find((k: { id: string }) => k.id === created.id);
    expect(listed).toMatchObject({ prefix: created.prefix, name: 'temp' });
    expect(listed).not.toHaveProperty('key');
    expect(list.text).not.toContain(created.key);
    expect(list.json().data.map((k: { name: string }) => k.name)).toEqual(expect.arrayContaining(['CI runner', 'temp']));
    expect((await t.http.delete(`/api/v1/inboxes/${bound.id}/api-keys/${created.id}`)).status).toBe(204);
    expect((await t.client(created.key).get(`/api/v1/inboxes/${bound.id}`)).status).toBe(401);
    expect((await t.http.delete(`/api/v1/inboxes/${other.id}/api-keys/${created.id}`)).status).toBe(404);
  });

  it.each([
    [{ scopes: ['smtp'] }, 'scopes.0'],
    [{ scopes: [] }, 'scopes'],
    [{ name: '' }, 'name'],
    [{ expiresAt: '2000-01-01T00:00:00.000Z' }, 'expiresAt'],
  ])('refuses key body %j with 400 naming %s', async (body, field) => {
    const response = await t.http.post(`/api/v1/inboxes/${bound.id}/api-keys`, body);
    expect(response.status).toBe(400);
    expect(response.json().field).toBe(field);
  });

  it('reads its own inbox: metadata, messages, one message and wait', async () => {
    expect((await scoped.get(`/api/v1/inboxes/${bound.id}`)).json()).toMatchObject({ id: bound.id, stats: { messageCount: 1 } });
    expect((await scoped.get(`/api/v1/inboxes/${bound.id}/messages`)).json().data.map((m: { id: string }) => m.id)).toEqual([boundMessageId]);
    expect((await scoped.get(`/api/v1/inboxes/${bound.id}/messages/${boundMessageId}`)).json().extracted.otp).toBe('1357');
    expect((await scoped.get(`/api/v1/inboxes/${bound.id}/messages/wait?timeout=0`)).json().id).toBe(boundMessageId);
  });

  it('any other inbox is 403, even one that does not exist', async () => {
    for (const path of [`/inboxes/${other.id}`, `/inboxes/${other.id}/messages`, `/inboxes/${other.id}/messages/${otherMessageId}`, `/inboxes/${other.id}/messages/wait?timeout=0`, `/inboxes/${SOME_ID}`]) {
      const response = await scoped.get(`/api/v1${path}`);
      expect(response.status, path).toBe(403);
      expect(response.json().code).toBe('INBOX_KEY_FORBIDDEN');
    }
  });

  it('GET /inboxes lists only the bound inbox, whatever the filters', async () => {
    const list = (await scoped.get('/api/v1/inboxes?tags=qa')).json();
    expect(list).toMatchObject({ totalItems: 1, data: [{ id: bound.id }] });
  });

  it('/emails shows only the bound inbox emails; others are 404 (docs/decisions.md D7)', async () => {
    const list = (await scoped.get('/api/v1/emails')).json();
    expect(list.data.map((e: { id: string }) => e.id)).toEqual([boundEmailId]);
    expect((await scoped.get(`/api/v1/emails/${boundEmailId}`)).status).toBe(200);
    expect((await scoped.get(`/api/v1/emails/${otherEmailId}`)).status).toBe(404);
    expect((await scoped.get(`/api/v1/emails/${otherEmailId}/eml`)).status).toBe(404);
  });

  it('management routes are 403: create and delete inboxes, manage keys, delete emails', async () => {
    const attempts: Array<[string, string, unknown?]> = [
      ['POST', '/inboxes', {}],
      ['DELETE', `/inboxes/${bound.id}`],
      ['DELETE', `/inboxes/${other.id}`],
      ['POST', `/inboxes/${bound.id}/api-keys`, { name: 'escalate' }],
      ['GET', `/inboxes/${bound.id}/api-keys`],
      ['DELETE', `/inboxes/${bound.id}/api-keys/${SOME_ID}`],
      ['DELETE', `/emails/${boundEmailId}`],
    ];
    for (const [method, path, body] of attempts) {
      const response = await scoped.request(method, `/api/v1${path}`, { body });
      expect(response.status, `${method} ${path}`).toBe(403);
    }
    expect((await t.http.get(`/api/v1/inboxes/${bound.id}`)).status).toBe(200);
  });

  it('every tenant-level route of the API (hooks, webhooks, domains, keys as they exist) is 403', async () => {
    const routes = t.app.http.routeTable.filter((route) => route.url.startsWith('/api/v1/') && !route.url.startsWith('/api/v1/docs'));
    const tenantOnly = routes.filter((route) => (route.config?.access ?? 'tenant') === 'tenant');
    expect(tenantOnly.length).toBeGreaterThan(5);
    for (const route of tenantOnly) {
      for (const method of [route.method].flat().filter((m) => m !== 'HEAD')) {
        const path = route.url.replace(/:[A-Za-z]+/g, (param) => (param === ':inboxId' ? bound.id : SOME_ID));
        const response = await scoped.request(method, path, { body: ['POST', 'PUT', 'PATCH'].includes(method) ? {} : undefined });
        expect(response.status, `${method} ${route.url}`).toBe(403);
      }
    }
  });

  it('a key with only the imap scope cannot use the HTTP API', async () => {
    const imapOnly = (await t.http.post(`/api/v1/inboxes/${bound.id}/api-keys`, { name: 'imap', scopes: ['imap'] })).json();
    expect(imapOnly.scopes).toEqual(['imap']);
    expect((await t.client(imapOnly.key).get(`/api/v1/inboxes/${bound.id}`)).status).toBe(403);
  });

  it("another tenant cannot create keys for this inbox (404)", async () => {
    const stranger = t.client((await t.createTenant('Stranger')).apiKey);
    expect((await stranger.post(`/api/v1/inboxes/${bound.id}/api-keys`, { name: 'x' })).status).toBe(404);
  });
});
