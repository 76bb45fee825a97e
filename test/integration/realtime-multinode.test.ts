import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, REDIS_URL } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { RawSseReader, until, type ReceivedEvent } from '../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const POSTGRES_URL = process.env.MAILROOM_TEST_DATABASE_URL;
const runnable = REDIS_URL !== undefined && POSTGRES_URL !== undefined;
if (!runnable) console.warn('SKIPPED: multi-node realtime tests (set MAILROOM_TEST_REDIS_URL and MAILROOM_TEST_DATABASE_URL to run them)');

const STREAM = '/api/v1/realtime/events';
const received = (reader: RawSseReader) => reader.collector.events.filter((e) => e.type === 'email.received');

/** Two Mailroom nodes in this process, sharing one PostgreSQL database and one Redis key prefix. */
describe.runIf(runnable)('realtime across two nodes (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: TestApp;
  let dropDatabase: () => Promise<void>;
  const readers: RawSseReader[] = [];
  const open = async (node: TestApp, query = '', headers: Record<string, string> = {}) => {
    const reader = await RawSseReader.open(node, `${STREAM}${query}`, { 'x-api-key': a.tenant.apiKey, ...headers });
    readers.push(reader);
    await reader.collector.next((e) => e.type === 'connected');
    return reader;
  };
  const publishFrom = (node: TestApp, subject: string) =>
    node.app.ctx.events.publish({
      type: 'email.received',
      tenantId: a.tenant.id,
      environmentId: a.tenant.environmentId,
      timestamp: new Date().toISOString(),
      data: { id: subject, subject },
    });

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    dropDatabase = database.drop;
    const env = {
      MAILROOM_REDIS_URL: REDIS_URL as string,
      MAILROOM_REDIS_PREFIX: `mailroom-test-${randomBytes(6).toString('hex')}:`,
      MAILROOM_SSE_HEARTBEAT_MS: '600',
    };
    a = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env });
    b = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env });
  });
  afterAll(async () => {
    for (const reader of readers) reader.close();
    await Promise.all([a?.stop(), b?.stop()]);
    await dropDatabase?.();
  });

  it('delivers mail received on node A to an SSE client on node B, and B’s updates to a client on A', async () => {
    const inbox = (await a.http.post('/api/v1/inboxes', { prefix: 'multinode' })).json();
    const onB = await open(b);
    const onA = await open(a);
    const sent = await sendMail(a.smtpPort, { from: 'alice@example.com', to: inbox.address, subject: 'Across nodes', text: 'code 123456' });
    const event = await onB.collector.next((e) => e.type === 'email.received' && e.data.id === sent.id);
    expect(event.data).toMatchObject({ subject: 'Across nodes', to: [inbox.address] });
    await onB.collector.next((e) => e.type === 'inbox.message' && e.data.emailId === sent.id);

    expect((await b.client(a.tenant.apiKey).patch(`/api/v1/emails/${sent.id}/read`)).status).toBe(200);
    expect((await onA.collector.next((e) => e.type === 'email.updated')).data).toEqual({ id: sent.id, changes: { read: true } });
  });

  it('resumes on node B after Last-Event-ID seen on node A, from the shared replay buffer', async () => {
    const onA = await open(a);
    await publishFrom(a, 'seen-on-a');
    const seen = await onA.collector.next((e) => e.data.subject === 'seen-on-a');
    onA.close();
    await publishFrom(a, 'missed-a');
    await publishFrom(b, 'missed-b');
    const onB = await open(b, '', { 'last-event-id': seen.id });
    await until([onB.collector], () => received(onB).length >= 2);
    expect(received(onB).map((e) => e.data.subject)).toEqual(['missed-a', 'missed-b']);
  });

  it('in distributed mode spreads 300 events over three connections on both nodes, each exactly once', async () => {
    const members = [await open(a, '?mode=distributed'), await open(a, '?mode=distributed'), await open(b, '?mode=distributed')];
    const subjects = Array.from({ length: 300 }, (_, i) => `spread-${i}`);
    await Promise.all(subjects.map((subject, i) => publishFrom(i % 2 === 0 ? a : b, subject)));
    const total = () => members.reduce((sum, m) => sum + received(m).length, 0);
    await until(
      members.map((m) => m.collector),
      () => total() >= subjects.length,
    );
    // A heartbeat on each node after routing settled: anything delivered twice would show up before it.
    const seenSoFar = members.map((m) => m.collector.events.length);
    a.app.ctx.services.realtime.heartbeat();
    b.app.ctx.services.realtime.heartbeat();
    await Promise.all(members.map((m, i) => m.collector.next((e: ReceivedEvent) => e.type === 'heartbeat' && m.collector.events.indexOf(e) >= (seenSoFar[i] ?? 0))));
    const got = members.map((m) => received(m).map((e) => e.data.subject as string));
    expect(got.flat().sort()).toEqual([...subjects].sort());
    for (const share of got) expect(share.length).toBeGreaterThan(0);

    // A member that leaves gets nothing more; its share goes to the others.
    const openOnB = b.app.ctx.services.realtime.connectionCount;
    members[2]?.close();
    await eventually(async () => (b.app.ctx.services.realtime.connectionCount === openOnB - 1 ? true : undefined), 'node B to notice the closed stream');
    const stayed = members.slice(0, 2);
    const before = stayed.map((m) => received(m).length);
    const more = Array.from({ length: 30 }, (_, i) => `after-leave-${i}`);
    for (const subject of more) await publishFrom(b, subject);
    await until(
      stayed.map((m) => m.collector),
      () => stayed.reduce((sum, m, i) => sum + received(m).length - (before[i] ?? 0), 0) >= more.length,
    );
    const after = stayed.flatMap((m, i) => received(m).slice(before[i]).map((e) => e.data.subject as string));
    expect(after.sort()).toEqual([...more].sort());
  });
});
