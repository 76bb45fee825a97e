import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { sendMail } from '../helpers/smtp-client.js';
import { openEventSource, RawSseReader, type ReceivedEvent } from '../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const STREAM = '/api/v1/realtime/events';

describe.each(TEST_DIALECTS)('realtime SSE on one node (%s)', (dialect) => {
  let t: TestApp;
  let inbox: { id: string; address: string };
  const opened: Array<{ close(): void }> = [];
  const track = <T extends { close(): void }>(client: T): T => (opened.push(client), client);
  const raw = (query = '', headers: Record<string, string> = {}) =>
    RawSseReader.open(t, `${STREAM}${query}`, { 'x-api-key': t.tenant.apiKey, ...headers }).then(track);
  const publishTest = (subject: string) =>
    t.app.ctx.events.publish({
      type: 'email.received',
      tenantId: t.tenant.id,
      environmentId: t.tenant.environmentId,
      timestamp: new Date().toISOString(),
      data: { id: subject, subject },
    });

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_SSE_HEARTBEAT_MS: '150' } });
    inbox = (await t.http.post('/api/v1/inboxes', { prefix: 'sse-signup' })).json();
  });
  afterAll(async () => {
    for (const client of opened) client.close();
    await t?.stop();
  });

  it('streams connected first, then email.received (2.11 + domainId) to EventSource and a raw reader', async () => {
    const es = track(openEventSource(t, { apiKey: t.tenant.apiKey }));
    const reader = await raw(`?token=${encodeURIComponent(t.tenant.apiKey)}`, { 'x-api-key': '' });
    expect(reader.response.statusCode).toBe(200);
    expect(reader.response.headers['content-type']).toMatch(/^text\/event-stream/);

    const connected = await es.collector.next((e) => e.type === 'connected');
    expect(es.collector.events[0]).toBe(connected);
    expect(connected.data).toEqual({ tenantId: t.tenant.id, connectedAt: expect.any(String), mode: 'broadcast', connectionId: expect.any(String) });
    await reader.collector.next((e) => e.type === 'connected');

    const sent = await sendMail(t.smtpPort, { from: 'alice@example.com', to: inbox.address, subject: 'Live one', text: 'hi', attachments: [{ filename: 'a.txt', content: 'a' }] });
    const isOurs = (e: ReceivedEvent) => e.type === 'email.received' && e.data.id === sent.id;
    const [viaEventSource, viaRaw] = await Promise.all([es.collector.next(isOurs), reader.collector.next(isOurs)]);
    expect(viaEventSource).toEqual(viaRaw);
    expect(viaEventSource).toMatchObject({ id: expect.stringMatching(/^\d+-\d+$/), timestamp: expect.any(String) });
    expect(viaEventSource.data).toEqual({
      id: sent.id,
      from: 'alice@example.com',
      to: [inbox.address],
      subject: 'Live one',
      domain: inbox.address.split('@')[1],
      domainId: null, // the shared inbox domain is not a custom domain
      createdAt: expect.any(String),
      hasAttachments: true,
      attachmentCount: 1,
    });
    // Every frame is `id:` + `data:`; never `event:` (EventSource.onmessage must see everything).
    for (const block of reader.text.split('\n\n').filter(Boolean)) expect(block).toMatch(/^id: \d+-\d+\ndata: \{.*\}$/);
  });

  it('sends inbox.message with its extracted object, email.updated on read and email.deleted', async () => {
    const es = track(openEventSource(t, { apiKey: t.tenant.apiKey }));
    await es.collector.next((e) => e.type === 'connected');
    const sent = await sendMail(t.smtpPort, { from: 'no-reply@example.com', to: inbox.address, subject: 'Your code', text: 'Your verification code is 482913' });
    const message = await es.collector.next((e) => e.type === 'inbox.message' && e.data.emailId === sent.id);
    expect(message.data).toMatchObject({ inboxId: inbox.id, messageId: expect.any(String), from: 'no-reply@example.com', subject: 'Your code' });
    expect(message.data.extracted).toMatchObject({ links: expect.any(Array), codes: expect.any(Array) });

    expect((await t.http.patch(`/api/v1/emails/${sent.id}/read`)).status).toBe(200);
    const updated = await es.collector.next((e) => e.type === 'email.updated');
    expect(updated.data).toEqual({ id: sent.id, changes: { read: true } });
    expect((await t.http.delete(`/api/v1/emails/${sent.id}`)).status).toBe(204);
    expect((await es.collector.next((e) => e.type === 'email.deleted')).data).toEqual({ id: sent.id });
  });

  it('sends a heartbeat {timestamp} at the configured interval, with the stream position as id', async () => {
    const reader = await raw();
    const connected = await reader.collector.next((e) => e.type === 'connected');
    const heartbeat = await reader.collector.next((e) => e.type === 'heartbeat');
    expect(heartbeat.data).toEqual({ timestamp: expect.any(String) });
    expect(heartbeat.id).toBe(connected.id);
  });

  it('gives an inbox-scoped key only inbox.message events of its inbox', async () => {
    const other = (await t.http.post('/api/v1/inboxes', { prefix: 'sse-other' })).json();
    const created = await t.http.post(`/api/v1/inboxes/${inbox.id}/api-keys`, { name: 'sse', scopes: ['api'] });
    expect(created.status).toBe(201);
    const scoped = track(openEventSource(t, { apiKey: created.json().key, keyInQuery: true }));
    await scoped.collector.next((e) => e.type === 'connected');
    await sendMail(t.smtpPort, { from: 'a@example.com', to: other.address, subject: 'not yours', text: 'x' });
    const mine = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'yours', text: 'x' });
    await scoped.collector.next((e) => e.type === 'inbox.message' && e.data.emailId === mine.id);
    await scoped.collector.next((e) => e.type === 'heartbeat');
    const types = new Set(scoped.collector.events.map((e) => e.type));
    expect([...types].sort()).toEqual(['connected', 'heartbeat', 'inbox.message']);
    expect(scoped.collector.ofType('inbox.message').every((e) => e.data.inboxId === inbox.id)).toBe(true);
  });

  it('gives an environment-scoped key only its environment, and 403 for another environmentId', async () => {
    const staging = await t.http.post('/api/v1/environments', { name: 'Staging SSE' });
    expect(staging.status).toBe(201);
    const stagingId = staging.json().id as string;
    const key = await t.http.post('/api/v1/api-keys', { name: 'staging stream', environmentId: stagingId });
    expect(key.status).toBe(201);
    const scoped = track(openEventSource(t, { apiKey: key.json().key }));
    await scoped.collector.next((e) => e.type === 'connected');
    const publishIn = (environmentId: string, subject: string) =>
      t.app.ctx.events.publish({ type: 'email.received', tenantId: t.tenant.id, environmentId, timestamp: new Date().toISOString(), data: { id: subject, subject } });
    await publishIn(t.tenant.environmentId, 'production-only');
    await publishIn(stagingId, 'staging-only');
    await scoped.collector.next((e) => e.data.subject === 'staging-only');
    expect(scoped.collector.ofType('email.received').map((e) => e.data.subject)).toEqual(['staging-only']);

    const other = await RawSseReader.open(t, `${STREAM}?environmentId=${t.tenant.environmentId}`, { 'x-api-key': key.json().key });
    expect(other.response.statusCode).toBe(403);
    expect(JSON.parse(await other.body())).toMatchObject({ code: 'ENVIRONMENT_FORBIDDEN' });
    other.close();
  });

  it('ends the stream of a key that is deactivated, with a key_revoked event', async () => {
    const created = (await t.http.post('/api/v1/api-keys', { name: 'short-lived stream' })).json();
    const reader = await RawSseReader.open(t, STREAM, { 'x-api-key': created.key }).then(track);
    await reader.collector.next((e) => e.type === 'connected');
    expect((await t.http.post(`/api/v1/api-keys/${created.id}/deactivate`)).status).toBe(200);
    await reader.ended;
    expect(reader.collector.events.at(-1)).toMatchObject({ type: 'disconnect', data: { reason: 'key_revoked' } });
  });

  it('accepts a dashboard JWT in broadcast mode only: distributed with a JWT is 401', async () => {
    const signup = await t.http.post('/api/v1/auth/signup', { email: `sse-${Date.now()}@example.com`, password: 'correct horse battery' }, { apiKey: null });
    expect(signup.status).toBe(201);
    const jwt = signup.json().accessToken as string;
    const broadcast = await RawSseReader.open(t, `${STREAM}?token=${jwt}`, {}).then(track);
    expect(broadcast.response.statusCode).toBe(200);
    await broadcast.collector.next((e) => e.type === 'connected' && e.data.mode === 'broadcast');
    const distributed = await RawSseReader.open(t, `${STREAM}?mode=distributed`, { authorization: `Bearer ${jwt}` }).then(track);
    expect(distributed.response.statusCode).toBe(401);
    expect(JSON.parse(await distributed.body())).toMatchObject({ code: 'DISTRIBUTED_REQUIRES_API_KEY' });
  });

  it('ends a dashboard stream when its session signs out, and when its token expires (session_ended)', async () => {
    const signup = await t.http.post('/api/v1/auth/signup', { email: `sse-out-${Date.now()}@example.com`, password: 'correct horse battery' }, { apiKey: null });
    const cookie = String(signup.headers['set-cookie']).split(';')[0] as string;
    const stream = await RawSseReader.open(t, `${STREAM}?token=${signup.json().accessToken}`, {}).then(track);
    await stream.collector.next((e) => e.type === 'connected');
    expect((await t.http.post('/api/v1/auth/signout', {}, { apiKey: null, headers: { cookie } })).status).toBe(204);
    await stream.ended;
    expect(stream.collector.events.at(-1)).toMatchObject({ type: 'disconnect', data: { reason: 'session_ended' } });

    const settings = t.app.ctx.services.accounts.settings as { accessTokenSeconds: number };
    const lifetime = settings.accessTokenSeconds;
    // Tokens expire on a whole second (exp = the issuing second + lifetime), so a 1 s lifetime
    // left 0–1 s, sometimes less than opening the stream takes; 3 s leaves at least 2.
    settings.accessTokenSeconds = 3;
    try {
      const signin = await t.http.post('/api/v1/auth/signin', { email: signup.json().user.email, password: 'correct horse battery' }, { apiKey: null });
      const expiring = await RawSseReader.open(t, `${STREAM}?token=${signin.json().accessToken}`, {}).then(track);
      await expiring.collector.next((e) => e.type === 'connected');
      await expiring.ended;
      expect(expiring.collector.events.at(-1)).toMatchObject({ type: 'disconnect', data: { reason: 'session_ended' } });
    } finally {
      settings.accessTokenSeconds = lifetime;
    }
  });

  it('resumes after Last-Event-ID: missed events first, in order, then live ones', async () => {
    const first = await raw();
    await first.collector.next((e) => e.type === 'connected');
    await publishTest('before-drop');
    const seen = await first.collector.next((e) => e.data.subject === 'before-drop');
    first.close();
    await publishTest('missed-1');
    await publishTest('missed-2');
    const resumed = await raw('', { 'last-event-id': seen.id });
    await resumed.collector.next((e) => e.data.subject === 'missed-2');
    await publishTest('live-after');
    await resumed.collector.next((e) => e.data.subject === 'live-after');
    const subjects = resumed.collector.events.filter((e) => e.type === 'email.received').map((e) => e.data.subject);
    expect(resumed.collector.events[0]?.type).toBe('connected');
    expect(subjects).toEqual(['missed-1', 'missed-2', 'live-after']);
  });

  it('in distributed mode gives each event to exactly one connection of the key', async () => {
    const members = await Promise.all([0, 1, 2].map(() => raw('?mode=distributed')));
    await Promise.all(members.map((m) => m.collector.next((e) => e.type === 'connected' && e.data.mode === 'distributed')));
    const broadcast = await raw();
    await broadcast.collector.next((e) => e.type === 'connected');
    const subjects = Array.from({ length: 60 }, (_, i) => `dist-${i}`);
    for (const subject of subjects) await publishTest(subject);
    await broadcast.collector.next((e) => e.data.subject === 'dist-59');
    // Every delivery is written before this heartbeat, so once it arrives nothing more is in flight.
    const seenSoFar = members.map((m) => m.collector.events.length);
    t.app.ctx.services.realtime.heartbeat();
    await Promise.all(members.map((m, i) => m.collector.next((e) => e.type === 'heartbeat' && m.collector.events.indexOf(e) >= (seenSoFar[i] ?? 0))));
    const received = members.map((m) => m.collector.events.filter((e) => e.type === 'email.received').map((e) => e.data.subject as string));
    expect(received.flat().sort()).toEqual([...subjects].sort());
    for (const got of received) expect(got.length).toBeGreaterThan(0);
  });

  it('rejects bad requests with a JSON error before streaming', async () => {
    const cases: Array<[string, Record<string, string>, number, string | undefined]> = [
      ['?mode=roundrobin', {}, 400, 'mode'],
      ['', { 'x-api-key': '' }, 401, undefined],
      ['?token=mr_wrong', { 'x-api-key': '' }, 401, undefined],
      ['?environmentId=00000000-0000-4000-8000-000000000000', {}, 400, 'environmentId'],
      ['', { 'last-event-id': 'yesterday' }, 400, 'Last-Event-ID'],
    ];
    for (const [query, headers, status, field] of cases) {
      const reader = await raw(query, headers);
      expect(reader.response.statusCode, query).toBe(status);
      const body = JSON.parse(await reader.body());
      expect(body).toMatchObject({ statusCode: status, code: expect.any(String) });
      if (field !== undefined) expect(body.field).toBe(field);
    }
    const filtered = await raw(`?environmentId=${t.tenant.environmentId}`);
    expect(filtered.response.statusCode).toBe(200);
  });
});

describe('realtime SSE backpressure and shutdown', () => {
  it('disconnects a client that stops reading with a final slow_consumer event, without slowing others', async () => {
    const t = await startTestApp({ env: { MAILROOM_SSE_MAX_BUFFER_BYTES: '65536' } });
    const stalled = await RawSseReader.open(t, STREAM, { 'x-api-key': t.tenant.apiKey });
    const fast = openEventSource(t, { apiKey: t.tenant.apiKey });
    try {
      await stalled.collector.next((e) => e.type === 'connected');
      await fast.collector.next((e) => e.type === 'connected');
      stalled.response.pause();
      const big = 'x'.repeat(64 * 1024);
      let published = 0;
      // One event at a time, each awaited by the reading client: only the stalled one falls behind.
      while (t.app.ctx.services.realtime.connectionCount === 2 && published < 2_000) {
        await t.app.ctx.events.publish({ type: 'email.received', tenantId: t.tenant.id, environmentId: null, timestamp: new Date().toISOString(), data: { n: published, big } });
        await fast.collector.next((e) => e.data.n === published);
        published += 1;
      }
      expect(t.app.ctx.services.realtime.connectionCount).toBe(1);
      stalled.response.resume();
      await stalled.ended;
      const last = stalled.collector.events.at(-1);
      expect(last).toMatchObject({ type: 'disconnect', data: { reason: 'slow_consumer', message: expect.any(String) } });
    } finally {
      stalled.close();
      fast.close();
      await t.stop();
    }
  });

  it('ends open streams with a shutdown event when the app stops', async () => {
    const t = await startTestApp();
    const reader = await RawSseReader.open(t, STREAM, { 'x-api-key': t.tenant.apiKey });
    await reader.collector.next((e) => e.type === 'connected');
    await t.stop();
    await reader.ended;
    expect(reader.collector.events.at(-1)).toMatchObject({ type: 'disconnect', data: { reason: 'shutdown' } });
    reader.close();
  });
});
