import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryJob } from '../../src/adapters/db/repositories/delivery.repository.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

const PER_TENANT = 4;

/** Accepts every request and never answers: each delivery to it holds its slot for the whole timeout. */
async function startBlackHole(): Promise<{ server: Server; origin: string; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((request) => void requests.push(request));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

describe.each(TEST_DIALECTS)('fair delivery across tenants (%s)', (dialect) => {
  let t: TestApp;
  let hole: Awaited<ReturnType<typeof startBlackHole>>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    hole = await startBlackHole();
    receiver = await startWebhookReceiver();
    t = await startTestApp({
      dialect,
      env: {
        MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1',
        MAILROOM_WEBHOOK_CONCURRENCY: '16',
        MAILROOM_WEBHOOK_CONCURRENCY_PER_TENANT: String(PER_TENANT),
        MAILROOM_WEBHOOK_TIMEOUT_MS: '10000',
      },
    });
  });
  // The black hole goes first, so the attempts still waiting on it end now and stop() need not wait for them.
  afterAll(async () => {
    hole?.server.closeAllConnections();
    hole?.server.close();
    await t?.stop();
    await receiver?.close();
  });

  it("delivers tenant B's webhook within 1 s while tenant A's 20 webhooks hang", async () => {
    const a = t.client((await t.createTenant('Tenant A')).apiKey);
    const b = t.client((await t.createTenant('Tenant B')).apiKey);
    for (let i = 0; i < 20; i++) expect((await a.post('/api/v1/webhooks', { url: `${hole.origin}/a${i}` })).status).toBe(201);
    const inboxA = (await a.post('/api/v1/inboxes', {})).json();
    await sendMail(t.smtpPort, { from: 'x@example.com', to: inboxA.address, subject: 'a1', text: 'a' });
    await sendMail(t.smtpPort, { from: 'x@example.com', to: inboxA.address, subject: 'a2', text: 'a' });
    await eventually(async () => (hole.requests.length >= PER_TENANT ? true : undefined), 'tenant A attempts in flight');

    await b.post('/api/v1/webhooks', { url: `${receiver.origin}/b` });
    const inboxB = (await b.post('/api/v1/inboxes', {})).json();
    const sent = await sendMail(t.smtpPort, { from: 'x@example.com', to: inboxB.address, subject: 'b', text: 'b' });
    const accepted = performance.now();
    const [delivered] = await receiver.waitFor(1, (r) => r.path === '/b', 5000);
    expect(performance.now() - accepted).toBeLessThan(1000);
    expect(delivered?.headers['x-email-id']).toBe(sent.id);
    // Tenant A never held more than its share, although 40 of its deliveries were due.
    expect(hole.requests.length).toBe(PER_TENANT);
  });
});

describe.each(TEST_DIALECTS)('round-robin claiming (%s)', (dialect) => {
  let t: TestApp;

  // Only the http role: no worker claims the jobs this test claims by hand.
  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_ROLES: 'http' } });
  });
  afterAll(() => t?.stop());

  const jobOf = (tenantId: string): DeliveryJob => ({
    id: randomUUID(),
    deliveryId: randomUUID(),
    tenantId,
    environmentId: null,
    emailId: randomUUID(),
    targetKind: 'WEBHOOK',
    targetId: randomUUID(),
    attemptsMade: 0,
    maxAttempts: null,
  });

  it("claims every tenant's oldest job first and never more than the per-tenant share, counting other claims", async () => {
    const deliveries = t.app.ctx.repos.deliveries;
    const [a, b, c] = await Promise.all(['A', 'B', 'C'].map(async (name) => (await t.createTenant(name)).id));
    const now = Date.now();
    const older = Array.from({ length: 10 }, () => jobOf(a as string));
    await deliveries.enqueue(older, now - 60_000);
    await deliveries.enqueue([jobOf(b as string)], now - 1000);
    await deliveries.enqueue([jobOf(c as string), jobOf(c as string)], now - 500);
    // Another node already holds one of C's jobs.
    await deliveries.enqueue([jobOf(c as string)], now + 60_000, 'other-node');

    const first = await deliveries.claim('node-1', 4, now, 30_000, 2);
    // B's and C's jobs are claimed although A has ten older ones; C's share counts the other node's claim.
    expect(first.map((j) => j.tenantId).sort()).toEqual([a, a, b, c].sort());
    const second = await deliveries.claim('node-2', 16, now, 30_000, 2);
    expect(second).toEqual([]);
  });
});

/** Refuses every delivery row for one target: the ingest's write fails after the participant reserved its slots. */
async function refuseDeliveriesTo(t: TestApp, dialect: string, targetId: string): Promise<void> {
  const db = t.app.ctx.db.kysely;
  if (dialect === 'sqlite') {
    await sql`create trigger refuse_deliveries before insert on notification_deliveries when new.target_id = ${sql.lit(targetId)}
      begin select raise(abort, 'delivery refused by the test'); end`.execute(db);
    return;
  }
  await sql`create function refuse_deliveries() returns trigger language plpgsql as $$
    begin if new.target_id = ${sql.lit(targetId)} then raise exception 'delivery refused by the test'; end if; return new; end $$`.execute(db);
  await sql`create trigger refuse_deliveries before insert on notification_deliveries for each row execute function refuse_deliveries()`.execute(db);
}

describe.each(TEST_DIALECTS)('delivery slots of a write that failed (%s)', (dialect) => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // One slot, held for a lease of 21 s if nothing gives it back.
    t = await startTestApp({
      dialect,
      env: { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1', MAILROOM_WEBHOOK_CONCURRENCY: '1', MAILROOM_WEBHOOK_TIMEOUT_MS: '10000' },
    });
  });
  afterAll(async () => {
    await t?.stop();
    await receiver?.close();
  });

  it('are given back at once: the next message is delivered without waiting for their lease', async () => {
    const failing = t.client((await t.createTenant('Failing')).apiKey);
    const refused = (await failing.post('/api/v1/webhooks', { url: `${receiver.origin}/refused` })).json();
    await refuseDeliveriesTo(t, dialect, refused.id);
    const failingInbox = (await failing.post('/api/v1/inboxes', {})).json();
    await expect(sendMail(t.smtpPort, { from: 'x@example.com', to: failingInbox.address, subject: 'f', text: 'f' })).rejects.toMatchObject({ responseCode: 451 });

    await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/next` });
    const inbox = (await t.http.post('/api/v1/inboxes', {})).json();
    const sent = await sendMail(t.smtpPort, { from: 'x@example.com', to: inbox.address, subject: 'n', text: 'n' });
    const accepted = performance.now();
    const [delivered] = await receiver.waitFor(1, (r) => r.path === '/next', 5000);
    expect(performance.now() - accepted).toBeLessThan(1000);
    expect(delivered?.headers['x-email-id']).toBe(sent.id);
  });

  it('are given back when the targets changed since the node read them (on PostgreSQL the write runs again, D87)', async () => {
    const tenant = t.client((await t.createTenant('Changing')).apiKey);
    await tenant.post('/api/v1/webhooks', { url: `${receiver.origin}/first` });
    const inbox = (await tenant.post('/api/v1/inboxes', {})).json();
    await sendMail(t.smtpPort, { from: 'x@example.com', to: inbox.address, subject: '1', text: '1' });
    await receiver.waitFor(1, (r) => r.path === '/first', 5000);

    // The node's known targets are now outdated: on PostgreSQL the next write fails its check and runs again.
    await tenant.post('/api/v1/webhooks', { url: `${receiver.origin}/second` });
    const sent = await sendMail(t.smtpPort, { from: 'x@example.com', to: inbox.address, subject: '2', text: '2' });
    const accepted = performance.now();
    const delivered = await receiver.waitFor(2, (r) => r.headers['x-email-id'] === sent.id, 5000);
    expect(performance.now() - accepted).toBeLessThan(2000);
    expect(delivered.map((r) => r.path).sort()).toEqual(['/first', '/second']);
  });
});
