import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../src/ports/event-bus.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('bulk actions on emails (%s)', (dialect) => {
  let t: TestApp;
  let other: { apiKey: string };
  let inbox: { id: string; address: string };
  let events: PublishedEvent[] = [];

  const send = async (subject: string, text: string, to = inbox.address) => (await sendMail(t.smtpPort, { from: 'app@service.example', to, subject, text })).id;
  const listIds = async (query = '', client = t.http) =>
    (await client.get(`/api/v1/emails?perPage=100&${query}`)).json<{ data: { id: string; read: boolean }[] }>().data;
  const bulkLogs = async () => (await t.http.get('/api/v1/logs?type=BULK_ACTION&perPage=100')).json<{ data: { message: string; metadata: Record<string, unknown> }[] }>().data;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'bulk' })).json();
    other = await t.createTenant('Other tenant');
    t.app.ctx.events.subscribe((event) => events.push(event));
  });
  afterAll(() => t?.stop());
  beforeEach(async () => {
    await t.http.post('/api/v1/emails/delete', { filter: {} });
    events = [];
  });

  it('deletes by ids, skipping and not revealing another tenant\'s ids', async () => {
    const mine = [await send('one', 'first'), await send('two', 'second'), await send('keep', 'third')];
    const theirInbox = (await t.client(other.apiKey).post('/api/v1/inboxes', { prefix: 'theirs' })).json<{ address: string }>();
    const theirs = await send('theirs', 'not yours', theirInbox.address);
    const unknown = Array.from({ length: 996 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const response = await t.http.post('/api/v1/emails/delete', { ids: [mine[0], mine[1], theirs, ...unknown] });
    expect(response.status, response.text).toBe(200);
    expect(response.json()).toEqual({ deleted: 2 });
    expect((await listIds()).map((e) => e.id)).toEqual([mine[2]]);
    expect((await listIds('', t.client(other.apiKey))).map((e) => e.id)).toEqual([theirs]);
    expect(events.filter((e) => e.type === 'email.deleted').map((e) => e.data.id).sort()).toEqual([mine[0], mine[1]].sort());
    expect((await bulkLogs())[0]).toMatchObject({ message: 'Deleted 2 emails', metadata: { action: 'delete', count: 2, selection: 'ids', ids: 999 } });
  });

  it('deletes everything a search matches in one call', async () => {
    await send('Welcome', 'Your code is 111222');
    await send('Welcome again', 'Your code is 333444');
    const kept = await send('Invoice', 'Total due');
    const response = await t.http.post('/api/v1/emails/delete', { q: 'code', filter: { subject: 'welcome' } });
    expect(response.json()).toEqual({ deleted: 2 });
    expect((await listIds()).map((e) => e.id)).toEqual([kept]);
    expect((await bulkLogs())[0]).toMatchObject({ metadata: { action: 'delete', count: 2, selection: 'filter', q: 'code', filter: { subject: 'welcome' } } });
  });

  it('marks read and unread, counting only the emails that changed', async () => {
    const ids = [await send('a', 'alpha'), await send('b', 'beta'), await send('c', 'gamma')];
    await t.http.patch(`/api/v1/emails/${ids[0]}/read`);
    events = [];
    expect((await t.http.post('/api/v1/emails/read', { ids })).json()).toEqual({ updated: 2 });
    expect((await listIds()).every((e) => e.read)).toBe(true);
    expect(events.filter((e) => e.type === 'email.updated').map((e) => e.data)).toHaveLength(2);
    expect((await t.http.post('/api/v1/emails/read', { q: '-gamma', read: false })).json()).toEqual({ updated: 2 });
    expect((await listIds('filter.read=false')).map((e) => e.id).sort()).toEqual([ids[0], ids[1]].sort());
    expect((await bulkLogs()).slice(0, 2).map((l) => l.message)).toEqual(['Marked 2 emails unread', 'Marked 2 emails read']);
  });

  it('empties an inbox, and only that inbox\'s mail', async () => {
    const second = (await t.http.post('/api/v1/inboxes', { prefix: 'bulk-other' })).json<{ id: string; address: string }>();
    await send('x', 'x');
    await send('y', 'y');
    const elsewhere = await send('z', 'z', second.address);
    const response = await t.http.delete(`/api/v1/inboxes/${inbox.id}/messages`);
    expect(response.status, response.text).toBe(200);
    expect(response.json()).toEqual({ deleted: 2 });
    expect((await listIds()).map((e) => e.id)).toEqual([elsewhere]);
    expect((await t.http.get(`/api/v1/inboxes/${inbox.id}/messages`)).json<{ totalItems: number }>().totalItems).toBe(0);
    expect((await bulkLogs())[0]?.message).toBe(`Emptied ${inbox.address}: deleted 2 emails`);
    expect((await t.client(other.apiKey).delete(`/api/v1/inboxes/${inbox.id}/messages`)).status).toBe(404);
  });

  it('empties one inbox without taking a mail that also reached another inbox from it', async () => {
    const second = (await t.http.post('/api/v1/inboxes', { prefix: 'bulk-both' })).json<{ id: string; address: string }>();
    const both = (await sendMail(t.smtpPort, { from: 'app@service.example', to: [inbox.address, second.address], subject: 'both', text: 'both' })).id;
    const response = await t.http.delete(`/api/v1/inboxes/${inbox.id}/messages`);
    expect(response.json()).toEqual({ deleted: 1 });
    expect((await t.http.get(`/api/v1/inboxes/${inbox.id}/messages`)).json<{ totalItems: number }>().totalItems).toBe(0);
    expect((await t.http.get(`/api/v1/inboxes/${second.id}/messages`)).json<{ totalItems: number }>().totalItems).toBe(1);
    expect((await t.http.get(`/api/v1/emails/${both}`)).status).toBe(200);
    expect(events.some((event) => event.type === 'email.deleted')).toBe(false);
  });

  it('keeps an inbox-scoped key to its inbox: read state there only, no bulk delete', async () => {
    const second = (await t.http.post('/api/v1/inboxes', { prefix: 'bulk-scoped' })).json<{ id: string; address: string }>();
    await send('mine', 'in the bound inbox');
    const elsewhere = await send('other', 'elsewhere', second.address);
    const { key } = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { scopes: ['api'] })).json<{ key: string }>();
    const scoped = t.client(key);
    expect((await scoped.post('/api/v1/emails/read', { filter: {} })).json()).toEqual({ updated: 1 });
    expect((await listIds()).find((e) => e.id === elsewhere)?.read).toBe(false);
    expect((await scoped.post('/api/v1/emails/delete', { filter: {} })).status).toBe(403);
    expect((await scoped.delete(`/api/v1/inboxes/${inbox.id}/messages`)).status).toBe(403);
    await t.http.delete(`/api/v1/inboxes/${second.id}`);
  });

  it('answers 400 for a selection it cannot mean', async () => {
    for (const body of [{}, { ids: [] }, { ids: ['a'], q: 'x' }, { ids: Array.from({ length: 1001 }, (_, i) => `id-${i}`) }, { q: '"open' }, { filter: { nope: 1 } }]) {
      const response = await t.http.post('/api/v1/emails/delete', body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.json<{ message: string }>().message.length).toBeGreaterThan(0);
    }
  });
});
