import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDatabase, TEST_DIALECTS, warnIfPostgresSkipped, type TestDialect } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

const ENV = {
  // Nodes share one key: webhook secrets are sealed with it.
  MAILROOM_STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1',
  MAILROOM_WEBHOOK_POLL_INTERVAL_MS: '20',
  MAILROOM_WEBHOOK_TIMEOUT_MS: '2000',
};

/** Storage two app instances share: a data dir (SQLite file, blobs) and, on PostgreSQL, one database. */
async function sharedStorage(dialect: TestDialect) {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-durability-'));
  const database = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
  return {
    options: { dialect, dataDir, keepDataDir: true, ...(database ? { databaseUrl: database.url } : {}) },
    async remove() {
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const successes = async (app: TestApp, apiKey: string, emailIds: string[]) =>
  eventually(async () => {
    const page = (await app.client(apiKey).get('/api/v1/logs?type=WEBHOOK&status=SUCCESS&perPage=100')).json();
    const delivered = new Set(page.data.map((e: { emailId: string }) => e.emailId));
    return emailIds.every((id) => delivered.has(id)) ? page.data : undefined;
  }, 'a SUCCESS entry for every email');

describe.each(TEST_DIALECTS)('webhook delivery durability (%s)', (dialect) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function receiver(): Promise<WebhookReceiver> {
    const started = await startWebhookReceiver();
    cleanups.push(() => started.close());
    return started;
  }

  it('loses nothing across a restart with deliveries pending', async () => {
    const storage = await sharedStorage(dialect);
    cleanups.push(() => storage.remove());
    const endpoint = await receiver();
    endpoint.respondWith(() => 503);
    // Retries every second, many times: however long the restart takes, the deliveries are still queued.
    const env = { ...ENV, MAILROOM_WEBHOOK_RETRY_SCHEDULE: Array(20).fill('1000').join(',') };

    const first = await startTestApp({ ...storage.options, env });
    const inbox = (await first.http.post('/api/v1/inboxes', { prefix: 'durable' })).json();
    await first.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${endpoint.origin}/durable` });
    const sent = await Promise.all(Array.from({ length: 5 }, (_, i) => sendMail(first.smtpPort, { from: 'a@example.com', to: inbox.address, subject: `n${i}`, text: 'x' })));
    await endpoint.waitFor(5);
    await first.stop();

    endpoint.respondWith(() => 200);
    const second = await startTestApp({ ...storage.options, env });
    cleanups.push(() => second.stop());
    const ids = sent.map((s) => s.id);
    const entries = await successes(second, first.tenant.apiKey, ids);
    const delivered = entries.filter((e: { emailId: string }) => ids.includes(e.emailId));
    expect(delivered).toHaveLength(5);
    expect(delivered.every((e: { metadata: { attemptsMade: number } }) => e.metadata.attemptsMade >= 2)).toBe(true);
    const failed = (await second.client(first.tenant.apiKey).get('/api/v1/logs?type=WEBHOOK&status=FAILED')).json();
    expect(failed.totalItems).toBe(0);
    expect(await second.app.ctx.repos.deliveries.countQueued()).toBe(0);
  });

  it('retries the claims of a crashed worker once their lease runs out', async () => {
    const endpoint = await receiver();
    const t = await startTestApp({ dialect, env: ENV });
    cleanups.push(() => t.stop());
    const webhook = (await t.http.post('/api/v1/webhooks', { url: `${endpoint.origin}/crash`, active: false })).json();
    const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: (await t.http.post('/api/v1/inboxes', {})).json().address, text: 'x' });
    await t.http.put(`/api/v1/webhooks/${webhook.id}`, { active: true });

    // A worker that claimed this job and died: its claim holds for 200 ms more, then the job is due again.
    const deliveryId = randomUUID();
    await t.app.ctx.repos.deliveries.enqueue(
      [{ id: randomUUID(), deliveryId, tenantId: t.tenant.id, environmentId: t.tenant.environmentId, emailId: sent.id, targetKind: 'WEBHOOK', targetId: webhook.id, attemptsMade: 0, maxAttempts: null }],
      Date.now() + 200,
      'crashed-worker',
    );
    const started = Date.now();
    const [request] = await endpoint.waitFor(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(request?.headers['x-webhook-delivery-id']).toBe(deliveryId);
    expect(request?.headers['x-email-id']).toBe(sent.id);
  });

  it.runIf(dialect === 'postgres')('two nodes on one database deliver each attempt exactly once', async () => {
    const storage = await sharedStorage(dialect);
    cleanups.push(() => storage.remove());
    const endpoint = await receiver();
    // Every first attempt fails, so the retries (due 30 ms later) are claimed by whichever node polls first.
    const seen = new Set<string>();
    endpoint.respondWith(async (r) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const emailId = String(r.headers['x-email-id']);
      if (seen.has(emailId)) return 200;
      seen.add(emailId);
      return 500;
    });
    const env = { ...ENV, MAILROOM_WEBHOOK_RETRY_SCHEDULE: '30', MAILROOM_WEBHOOK_CONCURRENCY: '4' };
    const nodeA = await startTestApp({ ...storage.options, env });
    cleanups.push(() => nodeA.stop());
    const nodeB = await startTestApp({ dialect, databaseUrl: storage.options.databaseUrl, env });
    cleanups.push(() => nodeB.stop());
    const inbox = (await nodeA.http.post('/api/v1/inboxes', { prefix: 'shared' })).json();
    await nodeA.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${endpoint.origin}/shared` });

    const count = 30;
    const sent = await Promise.all(
      Array.from({ length: count }, (_, i) => sendMail((i % 2 === 0 ? nodeA : nodeB).smtpPort, { from: 'a@example.com', to: inbox.address, subject: `m${i}`, text: 'x' })),
    );
    const requests = await endpoint.waitFor(count * 2);
    await successes(nodeA, nodeA.tenant.apiKey, sent.map((s) => s.id));
    const attempts = requests.map((r) => `${r.headers['x-email-id']}#${r.headers['x-webhook-attempt']}`);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect(attempts).toHaveLength(count * 2);
    const logs = (await nodeA.http.get('/api/v1/logs?type=WEBHOOK&perPage=100')).json();
    expect(logs.totalItems).toBe(count * 2);
  });
});
