import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import type { HttpClient } from '../../helpers/http-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

/** What one dashboard page view asks the API for (the Emails page: profile, list, usage, inboxes). */
const PAGE_VIEW = ['/api/v1/auth/me', '/api/v1/emails?page=1&perPage=100', '/api/v1/usage', '/api/v1/inboxes?page=1&perPage=1'];

describe.each(TEST_DIALECTS)('the dashboard has its own rate budget (%s)', (dialect) => {
  let t: TestApp;
  let client: HttpClient;
  let token: string;
  let apiKey: string;

  beforeAll(async () => {
    // Real limits: the free plan's 100 requests a minute, not the suites' multiplied budget.
    t = await startTestApp({ dialect, env: { MAILROOM_RATE_LIMIT_MULTIPLIER: '1' } });
    client = t.client();
    const signup = await client.post('/api/v1/auth/signup', { email: `budget-${Date.now()}@example.com`, password: 'correct horse battery' }, { apiKey: null });
    token = signup.json().accessToken as string;
    const key = await client.post('/api/v1/api-keys', { name: 'test suite' }, { apiKey: null, headers: { authorization: `Bearer ${token}` } });
    expect(key.status, key.text).toBe(201);
    apiKey = key.json().key as string;
  });
  afterAll(async () => t?.stop());

  it('serves 200 page views in a minute without a 429, even after the API keys spent the account budget', async () => {
    const keyed = t.client(apiKey);
    const statuses: number[] = [];
    for (let i = 0; i < 110; i++) statuses.push((await keyed.get('/api/v1/emails')).status);
    expect(statuses).toContain(429);

    const started = Date.now();
    const seen = new Map<number, number>();
    for (let view = 0; view < 200; view++) {
      const replies = await Promise.all(PAGE_VIEW.map((path) => client.get(path, { apiKey: null, headers: { authorization: `Bearer ${token}` } })));
      for (const reply of replies) seen.set(reply.status, (seen.get(reply.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(seen)).toEqual({ 200: 200 * PAGE_VIEW.length });
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);
});
