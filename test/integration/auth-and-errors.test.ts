import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskBlobStore } from '../../src/adapters/blobs/disk.blob-store.js';
import { generateApiKey } from '../../src/core/api-key.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import type { HttpResponse } from '../helpers/http-client.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const ERROR_KEYS = ['code', 'error', 'message', 'statusCode'];

function expectErrorBody(response: HttpResponse, statusCode: number, code: string): void {
  expect(response.status, response.text).toBe(statusCode);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json();
  expect(Object.keys(body).filter((k) => k !== 'field').sort()).toEqual(ERROR_KEYS);
  expect(body).toMatchObject({ statusCode, code, error: expect.any(String), message: expect.any(String) });
  expect(response.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
  expect(response.text).not.toContain('stack');
}

describe.each(TEST_DIALECTS)('authentication and error bodies (%s)', (dialect) => {
  let t: TestApp;

  /** Inserts a tenant-level key for the default tenant straight through the repository. */
  async function insertKey(fields: { active?: boolean; expiresAt?: string | null }) {
    const generated = generateApiKey();
    const id = randomUUID();
    await t.app.ctx.repos.apiKeys.insert({
      id,
      tenantId: t.tenant.id,
      name: 'test key',
      prefix: generated.prefix,
      keyHash: generated.hash,
      active: fields.active ?? true,
      environmentId: null,
      inboxId: null,
      scopes: ['api'],
      lastUsedAt: null,
      expiresAt: fields.expiresAt ?? null,
      createdAt: new Date().toISOString(),
    });
    return { id, key: generated.key };
  }

  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t?.stop());

  it('401 for a missing, empty, unknown or oversized key', async () => {
    expectErrorBody(await t.http.get('/api/v1/emails', { apiKey: null }), 401, 'API_KEY_MISSING');
    expectErrorBody(await t.http.get('/api/v1/emails', { apiKey: '' }), 401, 'API_KEY_MISSING');
    expectErrorBody(await t.http.get('/api/v1/emails', { apiKey: 'mr_not-a-real-key' }), 401, 'API_KEY_INVALID');
    expectErrorBody(await t.http.get('/api/v1/logs', { apiKey: `mr_${'x'.repeat(300)}` }), 401, 'API_KEY_INVALID');
    const response = await t.http.get('/api/v1/emails', { apiKey: null });
    expect(response.json()).toMatchObject({ statusCode: 401, error: 'Unauthorized' });
  });

  it('401 for a key in the query string where only headers are accepted', async () => {
    expectErrorBody(await t.http.get(`/api/v1/emails?token=${t.tenant.apiKey}`, { apiKey: null }), 401, 'API_KEY_MISSING');
  });

  it('401 for a deactivated key, and the key works again once reactivated', async () => {
    const { id, key } = await insertKey({});
    expect((await t.http.get('/api/v1/emails', { apiKey: key })).status).toBe(200);
    await t.app.ctx.repos.apiKeys.setActive(t.tenant.id, id, false);
    expectErrorBody(await t.http.get('/api/v1/emails', { apiKey: key }), 401, 'API_KEY_INACTIVE');
    await t.app.ctx.repos.apiKeys.setActive(t.tenant.id, id, true);
    expect((await t.http.get('/api/v1/emails', { apiKey: key })).status).toBe(200);
  });

  it('401 for an expired key; a key expiring later works', async () => {
    const expired = await insertKey({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    expectErrorBody(await t.http.get('/api/v1/emails', { apiKey: expired.key }), 401, 'API_KEY_EXPIRED');
    const later = await insertKey({ expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    expect((await t.http.get('/api/v1/emails', { apiKey: later.key })).status).toBe(200);
  });

  it('sets lastUsedAt on use without writing it on every request, even in a burst', async () => {
    const { id, key } = await insertKey({});
    expect((await t.app.ctx.repos.apiKeys.get(t.tenant.id, id))?.lastUsedAt).toBeNull();
    const touch = vi.spyOn(t.app.ctx.repos.apiKeys, 'touch');
    try {
      const before = Date.now();
      const burst = await Promise.all(Array.from({ length: 10 }, () => t.http.get('/api/v1/emails', { apiKey: key })));
      expect(burst.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(touch.mock.calls.filter(([keyId]) => keyId === id)).toHaveLength(1);
      await touch.mock.results[touch.mock.calls.findIndex(([keyId]) => keyId === id)]?.value;
      const first = (await t.app.ctx.repos.apiKeys.get(t.tenant.id, id))?.lastUsedAt as string;
      expect(Date.parse(first)).toBeGreaterThanOrEqual(before - 5);
      for (let i = 0; i < 5; i++) expect((await t.http.get('/api/v1/logs', { apiKey: key })).status).toBe(200);
      expect(touch.mock.calls.filter(([keyId]) => keyId === id)).toHaveLength(1);
      expect((await t.app.ctx.repos.apiKeys.get(t.tenant.id, id))?.lastUsedAt).toBe(first);
    } finally {
      touch.mockRestore();
    }
  });

  it('404 with the error body for unknown routes, with or without a key', async () => {
    expectErrorBody(await t.http.get('/api/v1/nothing-here'), 404, 'ROUTE_NOT_FOUND');
    expectErrorBody(await t.http.get('/api/v1/nothing-here', { apiKey: null }), 404, 'ROUTE_NOT_FOUND');
    expectErrorBody(await t.http.request('PUT', '/api/v1/emails'), 404, 'ROUTE_NOT_FOUND');
    expectErrorBody(await t.http.get('/api/v2/emails'), 404, 'ROUTE_NOT_FOUND');
  });

  it('400 with the error body for malformed JSON bodies and unsupported media types', async () => {
    const malformed = await t.http.post('/api/v1/inboxes', Buffer.from('{"prefix": '), { headers: { 'content-type': 'application/json' } });
    expectErrorBody(malformed, 400, 'INVALID_JSON');
    const xml = await t.http.post('/api/v1/inboxes', Buffer.from('<inbox/>'), { headers: { 'content-type': 'application/xml' } });
    expectErrorBody(xml, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const tooLarge = await t.http.post('/api/v1/inboxes', { prefix: 'x'.repeat(2 * 1024 * 1024) });
    expectErrorBody(tooLarge, 413, 'BODY_TOO_LARGE');
  });

  it('treats an empty JSON body as no body, as SDKs that always send Content-Type: application/json expect', async () => {
    const json = { 'content-type': 'application/json' };
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'sdk' })).json().address;
    const { id } = await sendMail(t.smtpPort, { from: 'sdk@example.com', to: address, subject: 'sdk', text: 'x' });
    const read = await t.http.request('PATCH', `/api/v1/emails/${id}/read`, { headers: json });
    expect(read.status, read.text).toBe(200);
    expect((await t.http.request('DELETE', `/api/v1/emails/${id}`, { headers: json })).status).toBe(204);
  });

  it('400 naming the field for invalid body values', async () => {
    const response = await t.http.post('/api/v1/inboxes', { domainId: 'not-a-uuid' });
    expectErrorBody(response, 400, 'VALIDATION_ERROR');
    expect(response.json()).toMatchObject({ field: 'domainId', message: 'domainId must be a valid uuid' });
    const unknown = await t.http.post('/api/v1/inboxes', { bogus: true });
    expect(unknown.json()).toMatchObject({ statusCode: 400, field: 'bogus', message: 'bogus is not a known property' });
  });

  it('400 with the error body for a malformed URL', async () => {
    expectErrorBody(await t.http.get('/api/v1/emails/%E0%A4%A'), 400, 'BAD_URL');
  });

  it('authenticates before it validates', async () => {
    expectErrorBody(await t.http.get('/api/v1/emails?perPage=1000', { apiKey: null }), 401, 'API_KEY_MISSING');
  });
});

/** Blob reads fail with an error whose text must never reach the client. */
class BrokenReadsBlobStore extends DiskBlobStore {
  override async getStream(): Promise<never> {
    throw new Error('EIO: disk on fire at /srv/secret/blobs');
  }
}

describe('unexpected faults', () => {
  let t: TestApp;
  let blobRoot: string;

  beforeAll(async () => {
    blobRoot = await mkdtemp(join(tmpdir(), 'mailroom-broken-blobs-'));
    t = await startTestApp({ overrides: { blobs: new BrokenReadsBlobStore(blobRoot) } });
  });
  afterAll(async () => {
    await t?.stop();
    await rm(blobRoot, { recursive: true, force: true });
  });

  it('answer 500 INTERNAL_ERROR with the request id and no internals', async () => {
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'faults' })).json().address;
    const { id } = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'x', text: 'x' });
    const response = await t.http.get(`/api/v1/emails/${id}/eml`);
    expectErrorBody(response, 500, 'INTERNAL_ERROR');
    expect(response.text).not.toContain('/srv/secret');
    expect(response.text).not.toContain('EIO');
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
