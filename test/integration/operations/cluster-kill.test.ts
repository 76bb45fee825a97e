import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, REDIS_URL, TEST_DIALECTS } from '../../helpers/databases.js';
import { HttpClient } from '../../helpers/http-client.js';
import { listenerEnv, nodeCertificate, spawnMailroom, type MailroomProcess } from '../../helpers/mailroom-process.js';
import { startS3rver, type RunningServer } from '../../helpers/object-store-servers.js';
import { RawSseReader, until } from '../../helpers/sse-client.js';
import { startTestApp } from '../../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const runnable = TEST_DIALECTS.includes('postgres') && REDIS_URL !== undefined;
if (!runnable) console.warn('SKIPPED: the three-node kill test (needs MAILROOM_TEST_DATABASE_URL and MAILROOM_TEST_REDIS_URL)');

/** 3,000 as the issue asks; CI runs 600 so the whole suite stays well inside its time budget. */
const MESSAGES = process.env.CI ? 600 : 3_000;
const IN_FLIGHT = 12;
const NODES = 3;
const VICTIM = 2;
const WEBHOOK_CONCURRENCY = 16;
const BUCKET = 'mailroom-cluster';

/**
 * One message on its own connection, pipelining the envelope (smtp-server offers PIPELINING).
 * Resolves with the id from `250 Message accepted <id>`, or undefined when the node refused,
 * hung up or was not there: the sender would retry those, and they are not counted as accepted.
 */
function sendOne(port: number, to: string, n: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let greeted = false;
    let sentBody = false;
    const finish = () => resolve(/^250 Message accepted <([0-9a-f-]{36})>/m.exec(received)?.[1]);
    socket.setEncoding('latin1');
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (!greeted && /^220 /m.test(received)) {
        greeted = true;
        socket.write(`EHLO cluster.test\r\nMAIL FROM:<load@example.com>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
      }
      if (!sentBody && /^354 /m.test(received)) {
        sentBody = true;
        socket.write(`From: load@example.com\r\nTo: ${to}\r\nSubject: cluster ${n}\r\n\r\nmessage ${n}\r\n${'y'.repeat(2_000)}\r\n.\r\nQUIT\r\n`);
      }
      if (/^[45]\d\d /m.test(received) && !sentBody) socket.end('QUIT\r\n');
    });
  });
}

interface Node {
  env: Record<string, string>;
  process: MailroomProcess;
  smtpPort: number;
  http: HttpClient;
}

describe.runIf(runnable)('three nodes on PostgreSQL, Redis and S3; one is SIGKILLed and restarted under load', () => {
  let s3: RunningServer;
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let receiver: WebhookReceiver;
  const dataDirs: string[] = [];
  const nodes: Node[] = [];
  let apiKey: string;
  let address: string;

  const start = async (env: Record<string, string>): Promise<MailroomProcess> => {
    const node = spawnMailroom(env);
    await Promise.race([node.logged('mailroom started'), node.exited.then((code) => Promise.reject(new Error(`node exited with ${code}`)))]);
    return node;
  };

  beforeAll(async () => {
    [s3, database, receiver] = await Promise.all([startS3rver([BUCKET]), createPostgresDatabase(), startWebhookReceiver()]);
    const shared = {
      MAILROOM_DATABASE_URL: database.url,
      MAILROOM_REDIS_URL: REDIS_URL as string,
      MAILROOM_REDIS_PREFIX: `mailroom-cluster-${randomBytes(6).toString('hex')}:`,
      MAILROOM_BLOB_URL: `s3://${BUCKET}/cluster`,
      MAILROOM_S3_ENDPOINT: s3.endpoint,
      MAILROOM_S3_FORCE_PATH_STYLE: '1',
      MAILROOM_S3_ACCESS_KEY_ID: 'S3RVER',
      MAILROOM_S3_SECRET_ACCESS_KEY: 'S3RVER',
      MAILROOM_STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      MAILROOM_JWT_SECRET: randomBytes(32).toString('hex'),
      MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1',
      // A killed node's claimed deliveries come back after 2 × timeout + 1 s.
      MAILROOM_WEBHOOK_TIMEOUT_MS: '2000',
      MAILROOM_WEBHOOK_POLL_INTERVAL_MS: '200',
      MAILROOM_WEBHOOK_CONCURRENCY: String(WEBHOOK_CONCURRENCY),
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
      MAILROOM_DNS_TIMEOUT_MS: '200',
      MAILROOM_INGEST_WORKERS: '0',
      MAILROOM_RATE_LIMIT_MULTIPLIER: '1000',
    };
    const setup = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env: shared });
    apiKey = setup.tenant.apiKey;
    address = (await setup.http.post('/api/v1/inboxes', { prefix: 'cluster' })).json().address;
    expect((await setup.http.post('/api/v1/webhooks', { url: `${receiver.origin}/hook` })).status).toBe(201);
    await setup.stop();

    for (let i = 0; i < NODES; i += 1) {
      const dataDir = await mkdtemp(join(tmpdir(), `mailroom-node${i}-`));
      dataDirs.push(dataDir);
      const listeners = await listenerEnv();
      const env = { ...shared, ...listeners, MAILROOM_DATA_DIR: dataDir };
      const process = await start(env);
      const http = new HttpClient(`https://localhost:${listeners.MAILROOM_HTTP_PORT}`, await nodeCertificate(dataDir), apiKey);
      nodes.push({ env, process, smtpPort: Number(listeners.MAILROOM_SMTP_PORT), http });
    }
  }, 120_000);

  afterAll(async () => {
    for (const node of nodes) node.process.child.kill('SIGKILL');
    await Promise.all(nodes.map((node) => node.process.exited));
    for (const node of nodes) node.http?.close();
    await receiver?.close();
    await database?.drop();
    await s3?.close();
    for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
  });

  it(`loses none of ${MESSAGES} accepted emails: readable everywhere, every webhook delivered, every SSE event seen`, async () => {
    const survivor = nodes[0] as Node;
    const sse = await RawSseReader.open({ baseUrl: survivor.http.baseUrl, ca: await nodeCertificate(dataDirs[0] as string) }, '/api/v1/realtime/events', { 'x-api-key': apiKey });
    expect(sse.response.statusCode).toBe(200);
    const seenBySse = new Set<string>();
    sse.collector.onEvent(() => {
      const last = sse.collector.events[sse.collector.events.length - 1];
      if (last?.type === 'email.received') seenBySse.add(last.data.id as string);
    });

    const accepted: string[] = [];
    let next = 0;
    let killed: Promise<void> | undefined;
    const victim = nodes[VICTIM] as Node;
    const worker = async () => {
      for (let n = next++; n < MESSAGES; n = next++) {
        if (n === Math.floor(MESSAGES / 3)) {
          victim.process.child.kill('SIGKILL');
          killed = victim.process.exited.then(async () => {
            victim.process = await start(victim.env);
          });
        }
        const id = await sendOne((nodes[n % NODES] as Node).smtpPort, address, n);
        if (id !== undefined) accepted.push(id);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    await killed;
    // The restarted node takes mail again (under CI's smaller load the run may end before it is back).
    for (let n = MESSAGES; n < MESSAGES + NODES; n += 1) {
      const id = await sendOne(victim.smtpPort, address, n);
      expect(id, 'the restarted node accepts mail').toBeDefined();
      accepted.push(id as string);
    }
    // Mail sent to the dead node was refused (connection refused), not lost; most got through.
    expect(accepted.length).toBeGreaterThan(MESSAGES * 0.6);

    // Every accepted email is listed by every node and its EML (in S3) is served.
    for (const node of nodes) {
      const listed = new Set<string>();
      for (let page = 1; ; page += 1) {
        const body = (await node.http.get(`/api/v1/emails?perPage=100&page=${page}`)).json();
        for (const email of body.data as Array<{ id: string }>) listed.add(email.id);
        if (page * 100 >= body.totalItems) break;
      }
      expect(accepted.filter((id) => !listed.has(id))).toEqual([]);
    }
    const missing: string[] = [];
    let cursor = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = cursor++; i < accepted.length; i = cursor++) {
          const id = accepted[i] as string;
          const eml = await (nodes[i % NODES] as Node).http.get(`/api/v1/emails/${id}/eml`);
          if (eml.status !== 200 || !eml.text.includes('Subject: cluster')) missing.push(id);
        }
      }),
    );
    expect(missing).toEqual([]);

    // Webhooks: at least once per accepted email; a delivery id repeats only for attempts the kill cut off.
    const deliveredEmails = () => new Set(receiver.received.map((r) => r.headers['x-email-id'] as string));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`webhooks missing for ${accepted.filter((id) => !deliveredEmails().has(id)).length} emails`)), 60_000);
      const check = () => {
        const delivered = deliveredEmails();
        if (!accepted.every((id) => delivered.has(id))) return false;
        clearTimeout(timer);
        resolve();
        return true;
      };
      if (!check()) receiver.respondWith(() => (check(), 200));
    });
    const perDelivery = new Map<string, number>();
    for (const request of receiver.received) {
      const deliveryId = request.headers['x-webhook-delivery-id'] as string;
      perDelivery.set(deliveryId, (perDelivery.get(deliveryId) ?? 0) + 1);
    }
    const repeated = [...perDelivery.values()].filter((count) => count > 1).length;
    expect(repeated).toBeLessThanOrEqual(WEBHOOK_CONCURRENCY);
    console.log(`cluster kill test: ${accepted.length}/${MESSAGES} accepted, ${receiver.received.length} webhook requests, ${repeated} delivery ids repeated`);

    // The SSE client on a surviving node saw an email.received event for every accepted email.
    await until([sse.collector], () => accepted.every((id) => seenBySse.has(id)), 30_000);
    sse.close();
  }, 300_000);
});
