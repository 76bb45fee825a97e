import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { sendMail } from '../../helpers/smtp-client.js';
import type { BlobStore } from '../../../src/ports/blob-store.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

const METRICS_TOKEN = 'metrics-token-0123456789';

/** The sample value of a metric line like `name{labels} 3`, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(TEST_DIALECTS)('health, readiness and metrics (%s)', (dialect) => {
  let t: TestApp;
  let address: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_METRICS_TOKEN: METRICS_TOKEN, MAILROOM_RATE_LIMIT_MULTIPLIER: '1' } });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'ops' })).json().address;
  });
  afterAll(() => t?.stop());

  it('answers /healthz and /readyz without an API key, with a request id', async () => {
    const anonymous = t.client();
    const health = await anonymous.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
    expect(health.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const ready = await anonymous.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', blobs: 'ok' } });
  });

  it('is not rate limited (public API routes allow 100 requests per minute per address)', async () => {
    const anonymous = t.client();
    const statuses = await Promise.all(Array.from({ length: 120 }, () => anonymous.get('/healthz').then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });

  it('refuses /metrics without the bearer token', async () => {
    const anonymous = t.client();
    const missing = await anonymous.get('/metrics');
    expect(missing.status).toBe(401);
    expect(missing.json().code).toBe('METRICS_TOKEN_INVALID');
    const wrong = await anonymous.get('/metrics', { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(wrong.status).toBe(401);
  });

  it('counts SMTP sessions, accepted and refused messages, ingest latency by stage, group commits and HTTP requests', async () => {
    await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'counted', text: 'hello' });
    await expect(sendMail(t.smtpPort, { from: 'a@example.com', to: 'nobody@unknown-domain.example', subject: 'x', text: 'x' })).rejects.toThrow();
    await t.http.get('/api/v1/emails');

    const scraped = await t.client().get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers['content-type']).toContain('text/plain');
    const text = scraped.text;
    expect(sample(text, 'mailroom_smtp_sessions_total')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'mailroom_messages_accepted_total')).toBe(1);
    expect(text).toMatch(/^mailroom_messages_refused_total\{reason="5\d\d"\} 1$/m);
    expect(sample(text, 'mailroom_ingest_duration_seconds_count')).toBe(1);
    for (const stage of ['recipient', 'analysis', 'blobs', 'rows']) expect(sample(text, `mailroom_ingest_stage_duration_seconds_count{stage="${stage}"}`)).toBe(1);
    expect(sample(text, 'mailroom_ingest_commit_messages_sum')).toBe(1);
    expect(sample(text, 'mailroom_ingest_commit_duration_seconds_count')).toBe(1);
    expect(sample(text, 'mailroom_http_request_duration_seconds_count{route="/api/v1/emails",method="GET",status="200"}')).toBe(1);
    for (const gauge of ['mailroom_sse_connections', 'mailroom_imap_sessions', 'mailroom_delivery_queue_depth']) {
      expect(sample(text, gauge)).toBe(0);
    }
    expect(text).toContain('mailroom_delivery_attempts_total');
  });
});

/** An object store that cannot be reached (every call fails as a refused connection does). */
const unreachable = (): never => {
  throw new Error('connect ECONNREFUSED 127.0.0.1:9000');
};
const unreachableStore: BlobStore = {
  put: async () => unreachable(),
  putFile: async () => unreachable(),
  getStream: async () => unreachable(),
  getBuffer: async () => unreachable(),
  delete: async () => unreachable(),
  exists: async () => unreachable(),
  list: () => unreachable(),
};

describe('readiness with a failing dependency', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite', overrides: { blobs: unreachableStore } });
  });
  afterAll(() => t?.stop());

  it('answers 503 naming the dependency that failed', async () => {
    const ready = await t.client().get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json()).toEqual({ status: 'unavailable', checks: { database: 'ok', blobs: 'connect ECONNREFUSED 127.0.0.1:9000' } });
  });

  it('answers 503 while the node shuts down', async () => {
    t.app.ctx.readiness.markStopping();
    const ready = await t.client().get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.json().checks.shutdown).toBe('node is shutting down');
  });
});

describe('metrics without a token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite' });
  });
  afterAll(() => t?.stop());

  it('answers 404 as if the route did not exist', async () => {
    const response = await t.client().get('/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(response.status).toBe(404);
    expect(response.json().code).toBe('ROUTE_NOT_FOUND');
  });
});
