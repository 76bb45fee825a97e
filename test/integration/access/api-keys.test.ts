import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import type { HttpResponse } from '../../helpers/http-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

const API_KEY_FIELDS = ['active', 'createdAt', 'environmentId', 'expiresAt', 'id', 'inboxId', 'lastUsedAt', 'name', 'prefix', 'scopes'];

function expectError(response: HttpResponse, statusCode: number, code: string, field?: string): void {
  expect(response.status, response.text).toBe(statusCode);
  expect(response.json()).toMatchObject({ statusCode, code, ...(field === undefined ? {} : { field }) });
  expect(response.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

describe.each(TEST_DIALECTS)('API key management, spec 4.1 and 5 (%s)', (dialect) => {
  let t: TestApp;

  const createKey = async (body: Record<string, unknown>, apiKey = t.tenant.apiKey) => {
    const response = await t.http.post('/api/v1/api-keys', body, { apiKey });
    expect(response.status, response.text).toBe(201);
    return response.json<{ id: string; key: string; prefix: string; active: boolean; environmentId: string | null; expiresAt: string | null }>();
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.stop());

  it('lists tenant-level keys as spec 2.2 objects in the pagination envelope, never the key itself', async () => {
    const response = await t.http.get('/api/v1/api-keys');
    expect(response.status, response.text).toBe(200);
    const page = response.json();
    expect(page).toMatchObject({ currentPage: 1, perPage: 20, hasNextPage: false });
    expect(page.totalItems).toBe(page.data.length);
    const mine = page.data.find((k: { prefix: string }) => k.prefix === t.tenant.apiKey.slice(0, 8));
    expect(Object.keys(mine).sort()).toEqual(API_KEY_FIELDS);
    expect(mine).toMatchObject({ active: true, environmentId: null, expiresAt: null, inboxId: null });
    expect(response.text).not.toContain(t.tenant.apiKey);
  });

  it('creates a key (201): the full key once, mr_ and 256 random bits; usable at once; listed by prefix only', async () => {
    const created = await createKey({ name: 'CI' });
    expect(created.key).toMatch(/^mr_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.key.slice(0, 8));
    expect(created).toMatchObject({ name: 'CI', active: true, environmentId: null, expiresAt: null, lastUsedAt: null });
    expect((await t.http.get('/api/v1/emails', { apiKey: created.key })).status).toBe(200);
    const list = await t.http.get('/api/v1/api-keys?perPage=100');
    expect(list.text).not.toContain(created.key);
    expect(list.json().data.map((k: { id: string }) => k.id)).toContain(created.id);
  });

  it('paginates the list', async () => {
    await createKey({ name: 'page 1' });
    await createKey({ name: 'page 2' });
    const page = (await t.http.get('/api/v1/api-keys?perPage=1&page=2')).json();
    expect(page).toMatchObject({ currentPage: 2, perPage: 1, hasNextPage: true });
    expect(page.data).toHaveLength(1);
    expectError(await t.http.get('/api/v1/api-keys?perPage=101'), 400, 'VALIDATION_ERROR', 'perPage');
  });

  it('refuses bad input with 400 naming the field', async () => {
    expectError(await t.http.post('/api/v1/api-keys', {}), 400, 'VALIDATION_ERROR', 'name');
    expectError(await t.http.post('/api/v1/api-keys', { name: '   ' }), 400, 'INVALID_NAME', 'name');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x', expiresAt: new Date(Date.now() - 1000).toISOString() }), 400, 'INVALID_EXPIRY', 'expiresAt');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x', expiresAt: 'tomorrow' }), 400, 'VALIDATION_ERROR', 'expiresAt');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x', environmentId: 'nope' }), 400, 'INVALID_ENVIRONMENT', 'environmentId');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x', scopes: ['imap'] }), 400, 'VALIDATION_ERROR');
  });

  it('deactivated: 401 at once; reactivated: works again; bodies are the key object', async () => {
    const created = await createKey({ name: 'toggle' });
    const off = await t.http.post(`/api/v1/api-keys/${created.id}/deactivate`);
    expect(off.status, off.text).toBe(200);
    expect(off.json()).toMatchObject({ id: created.id, active: false });
    expectError(await t.http.get('/api/v1/emails', { apiKey: created.key }), 401, 'API_KEY_INACTIVE');
    const on = await t.http.post(`/api/v1/api-keys/${created.id}/activate`);
    expect(on.json()).toMatchObject({ id: created.id, active: true });
    expect((await t.http.get('/api/v1/emails', { apiKey: created.key })).status).toBe(200);
  });

  it('deleted: 204, then 401 at once, and 404 for the id', async () => {
    const created = await createKey({ name: 'doomed' });
    const deleted = await t.http.delete(`/api/v1/api-keys/${created.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectError(await t.http.get('/api/v1/emails', { apiKey: created.key }), 401, 'API_KEY_INVALID');
    expectError(await t.http.delete(`/api/v1/api-keys/${created.id}`), 404, 'API_KEY_NOT_FOUND');
    expectError(await t.http.post(`/api/v1/api-keys/${created.id}/activate`), 404, 'API_KEY_NOT_FOUND');
  });

  it('expired: 401 once expiresAt passes', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await createKey({ name: 'short-lived', expiresAt });
    expect(created.expiresAt).toBe(expiresAt);
    expect((await t.http.get('/api/v1/emails', { apiKey: created.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
    expectError(await t.http.get('/api/v1/emails', { apiKey: created.key }), 401, 'API_KEY_EXPIRED');
  });

  it('missing and wrong keys: 401 on the key routes too', async () => {
    expectError(await t.http.get('/api/v1/api-keys', { apiKey: null }), 401, 'API_KEY_MISSING');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x' }, { apiKey: 'mr_wrong' }), 401, 'API_KEY_INVALID');
    expectError(await t.http.delete(`/api/v1/api-keys/whatever`, { apiKey: `${t.tenant.apiKey}x` }), 401, 'API_KEY_INVALID');
  });

  it("another tenant's key is 404 for every operation and absent from the list", async () => {
    const other = await t.createTenant('Other');
    const theirs = await createKey({ name: 'theirs' }, other.apiKey);
    for (const action of ['activate', 'deactivate']) expectError(await t.http.post(`/api/v1/api-keys/${theirs.id}/${action}`), 404, 'API_KEY_NOT_FOUND');
    expectError(await t.http.delete(`/api/v1/api-keys/${theirs.id}`), 404, 'API_KEY_NOT_FOUND');
    expect((await t.http.get('/api/v1/api-keys?perPage=100')).text).not.toContain(theirs.id);
    expect((await t.http.get('/api/v1/emails', { apiKey: theirs.key })).status).toBe(200);
  });

  it("the tenant's last active key cannot deactivate or delete itself (400); with another active key it can", async () => {
    const lone = await t.createTenant('Lone');
    const [own] = (await t.http.get('/api/v1/api-keys', { apiKey: lone.apiKey })).json().data;
    expectError(await t.http.post(`/api/v1/api-keys/${own.id}/deactivate`, undefined, { apiKey: lone.apiKey }), 400, 'LAST_ACTIVE_KEY');
    expectError(await t.http.delete(`/api/v1/api-keys/${own.id}`, { apiKey: lone.apiKey }), 400, 'LAST_ACTIVE_KEY');
    expect((await t.http.get('/api/v1/emails', { apiKey: lone.apiKey })).status).toBe(200);

    const second = await createKey({ name: 'second' }, lone.apiKey);
    expect((await t.http.post(`/api/v1/api-keys/${own.id}/deactivate`, undefined, { apiKey: lone.apiKey })).status).toBe(200);
    expectError(await t.http.get('/api/v1/emails', { apiKey: lone.apiKey }), 401, 'API_KEY_INACTIVE');
    // The second key, now the last active one, can still manage the first.
    expect((await t.http.post(`/api/v1/api-keys/${own.id}/activate`, undefined, { apiKey: second.key })).status).toBe(200);
  });

  it('the last all-environment key cannot switch itself off while only environment-scoped keys remain', async () => {
    const tenant = await t.createTenant('Scoped only');
    const [own] = (await t.http.get('/api/v1/api-keys', { apiKey: tenant.apiKey })).json().data;
    const scoped = await createKey({ name: 'prod only', environmentId: tenant.environmentId }, tenant.apiKey);
    expectError(await t.http.delete(`/api/v1/api-keys/${own.id}`, { apiKey: tenant.apiKey }), 400, 'LAST_ACTIVE_KEY');
    // The environment-scoped key may switch itself off: the all-environment key still reaches its environment.
    expect((await t.http.post(`/api/v1/api-keys/${scoped.id}/deactivate`, undefined, { apiKey: scoped.key })).status).toBe(200);
  });

  it('inbox-scoped keys cannot manage keys (403) and are not listed here', async () => {
    const inbox = (await t.http.post('/api/v1/inboxes', {})).json<{ id: string }>();
    const inboxKey = (await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, {})).json<{ id: string; key: string }>();
    expectError(await t.http.get('/api/v1/api-keys', { apiKey: inboxKey.key }), 403, 'INBOX_KEY_FORBIDDEN');
    expectError(await t.http.post('/api/v1/api-keys', { name: 'x' }, { apiKey: inboxKey.key }), 403, 'INBOX_KEY_FORBIDDEN');
    expect((await t.http.get('/api/v1/api-keys?perPage=100')).text).not.toContain(inboxKey.id);
    expectError(await t.http.post(`/api/v1/api-keys/${inboxKey.id}/deactivate`), 404, 'API_KEY_NOT_FOUND');
  });

  it('lastUsedAt is set after the key is used', async () => {
    const created = await createKey({ name: 'used' });
    await t.http.get('/api/v1/emails', { apiKey: created.key });
    const listed = async () => (await t.http.get('/api/v1/api-keys?perPage=100')).json().data.find((k: { id: string }) => k.id === created.id);
    // The touch is written in the background after the request; the next requests observe it.
    for (let i = 0; i < 50 && (await listed()).lastUsedAt === null; i += 1) await new Promise((r) => setTimeout(r, 20));
    expect(Date.parse((await listed()).lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe.skipIf(!TEST_DIALECTS.includes('postgres'))('key changes apply at once on every node (two apps, one PostgreSQL database)', () => {
  let nodeA: TestApp;
  let nodeB: TestApp;

  beforeAll(async () => {
    nodeA = await startTestApp({ dialect: 'postgres' });
    const shared = nodeA.app.ctx.config.db;
    if (shared.dialect !== 'postgres') throw new Error('expected PostgreSQL');
    nodeB = await startTestApp({ dialect: 'postgres', databaseUrl: shared.url });
  });
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
  });

  it('a key deactivated, reactivated or deleted on node A is refused or accepted on node B by the next request', async () => {
    const created = (await nodeA.http.post('/api/v1/api-keys', { name: 'multi-node' })).json<{ id: string; key: string }>();
    const onB = nodeB.client(created.key);
    expect((await onB.get('/api/v1/emails')).status).toBe(200);
    await nodeA.http.post(`/api/v1/api-keys/${created.id}/deactivate`);
    expect((await onB.get('/api/v1/emails')).json()).toMatchObject({ statusCode: 401, code: 'API_KEY_INACTIVE' });
    await nodeA.http.post(`/api/v1/api-keys/${created.id}/activate`);
    expect((await onB.get('/api/v1/emails')).status).toBe(200);
    expect((await nodeA.http.delete(`/api/v1/api-keys/${created.id}`)).status).toBe(204);
    expect((await onB.get('/api/v1/emails')).json()).toMatchObject({ statusCode: 401, code: 'API_KEY_INVALID' });
  });
});
