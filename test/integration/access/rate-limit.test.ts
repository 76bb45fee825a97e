import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import type { HttpClient, HttpResponse } from '../../helpers/http-client.js';
import { openEventSource } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();
if (!REDIS_URL) console.warn('SKIPPED: two-node rate limit over Redis (set MAILROOM_TEST_REDIS_URL to run it)');

/** Spec limits as they are: no multiplier. */
const REAL_LIMITS = { MAILROOM_RATE_LIMIT_MULTIPLIER: '1' };

const header = (response: HttpResponse, name: string) => Number(response.headers[name]);

/** X-RateLimit-Reset is the moment the window ends, in Unix epoch seconds, at most a minute ahead. */
function expectResetMoment(response: HttpResponse): void {
  const nowSeconds = Date.now() / 1000;
  const reset = header(response, 'x-ratelimit-reset');
  expect(reset).toBeGreaterThanOrEqual(Math.floor(nowSeconds));
  expect(reset).toBeLessThanOrEqual(Math.ceil(nowSeconds) + 61);
}

async function sequential(count: number, send: (i: number) => Promise<HttpResponse>): Promise<HttpResponse[]> {
  const responses: HttpResponse[] = [];
  for (let i = 0; i < count; i += 1) responses.push(await send(i));
  return responses;
}

describe.each(TEST_DIALECTS)('rate limit per tenant, spec 8 (%s)', (dialect) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: REAL_LIMITS });
  });
  afterAll(() => t?.stop());

  it('101 requests on a free tenant give exactly one 429, the last, with the headers on every response', async () => {
    const free = await t.createTenant('Free', 'free');
    const client = t.client(free.apiKey);
    // Requests with a wrong key are refused by authentication and spend nothing.
    for (let i = 0; i < 5; i += 1) {
      const refused = await client.get('/api/v1/emails', { apiKey: `${free.apiKey}x` });
      expect(refused.status).toBe(401);
      expect(refused.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    const responses = await sequential(101, (i) => client.get(i % 2 === 0 ? '/api/v1/emails' : '/api/v1/emails/not-there'));
    expect(responses.filter((r) => r.status === 429)).toHaveLength(1);
    responses.slice(0, 100).forEach((response, i) => {
      expect(response.status).toBe(i % 2 === 0 ? 200 : 404);
      expect(header(response, 'x-ratelimit-limit')).toBe(100);
      expect(header(response, 'x-ratelimit-remaining')).toBe(99 - i);
      expectResetMoment(response);
    });
    const limited = responses[100] as HttpResponse;
    expect(limited.status).toBe(429);
    expect(limited.json()).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'RATE_LIMITED', message: expect.stringContaining('100 requests per minute') });
    expect(header(limited, 'x-ratelimit-limit')).toBe(100);
    expect(header(limited, 'x-ratelimit-remaining')).toBe(0);
    expectResetMoment(limited);
    const retryAfter = header(limited, 'retry-after');
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    // One window: every response names the same reset moment (within the second it was rounded to).
    const resets = new Set(responses.map((r) => header(r, 'x-ratelimit-reset')));
    expect(Math.max(...resets) - Math.min(...resets)).toBeLessThanOrEqual(1);

    // The budget is the tenant's, whichever key spends it.
    const otherKeyOfFree = await t.app.ctx.services.apiKeys.create({ tenantId: free.id, keyId: 'cli', environmentId: null, inboxId: null, scopes: ['api'] }, { name: 'another key' });
    expect((await client.get('/api/v1/emails', { apiKey: otherKeyOfFree.key })).status).toBe(429);
    // Other tenants are not affected; pro gets 1,000 a minute.
    const pro = await client.get('/api/v1/emails', { apiKey: t.tenant.apiKey });
    expect(pro.status).toBe(200);
    expect(header(pro, 'x-ratelimit-limit')).toBe(1000);
  });

  it('an SSE stream and a wait-for-message call each count once, however long they last', async () => {
    const free = await t.createTenant('Streams', 'free');
    const client: HttpClient = t.client(free.apiKey);
    const stream = openEventSource(t, { apiKey: free.apiKey });
    try {
      await stream.collector.next((e) => e.type === 'connected');
      const inbox = (await client.post('/api/v1/inboxes', {})).json<{ id: string }>();
      const waited = await client.get(`/api/v1/inboxes/${inbox.id}/messages/wait?timeout=300`);
      expect(waited.status).toBe(204);
      expect(header(waited, 'x-ratelimit-remaining')).toBe(97);
      const after = await client.get('/api/v1/emails');
      // stream 1 + inbox 1 + wait 1 + this 1
      expect(header(after, 'x-ratelimit-remaining')).toBe(96);
    } finally {
      stream.close();
    }
  });
});

describe.skipIf(!REDIS_URL)('two nodes sharing Redis enforce one budget per tenant', () => {
  const dialect = TEST_DIALECTS.includes('postgres') ? 'postgres' : 'sqlite';
  const env = { ...REAL_LIMITS, MAILROOM_REDIS_URL: REDIS_URL as string, MAILROOM_REDIS_PREFIX: `mr-test-${randomBytes(4).toString('hex')}:` };
  let nodeA: TestApp;
  let nodeB: TestApp;

  beforeAll(async () => {
    nodeA = await startTestApp({ dialect, env });
    const db = nodeA.app.ctx.config.db;
    const shared = db.dialect === 'postgres' ? { databaseUrl: db.url } : { dataDir: nodeA.dataDir, keepDataDir: true };
    nodeB = await startTestApp({ dialect, env, ...shared });
  });
  afterAll(async () => {
    await nodeB?.stop();
    await nodeA?.stop();
  });

  it('100 requests spread over both nodes use up the budget; the 101st is refused on either node', async () => {
    const free = await nodeA.createTenant('Shared budget', 'free');
    const onA = nodeA.client(free.apiKey);
    const onB = nodeB.client(free.apiKey);
    const responses = await sequential(100, (i) => (i % 2 === 0 ? onA : onB).get('/api/v1/emails'));
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(responses.map((r) => header(r, 'x-ratelimit-remaining'))).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i));
    expect((await onB.get('/api/v1/emails')).status).toBe(429);
    expect((await onA.get('/api/v1/emails')).status).toBe(429);
  });
});
