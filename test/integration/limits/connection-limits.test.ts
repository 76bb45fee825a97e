import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';
import { eventually } from '../../helpers/eventually.js';
import { RawImapClient } from '../../helpers/imap-raw-client.js';
import { RawSseReader } from '../../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

/** An HTTPS connection held open by hand: one request at a time, the raw reply text. */
async function openHttps(port: number): Promise<{ socket: TLSSocket; get(path: string): Promise<string> }> {
  const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false });
  await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  const get = (path: string) =>
    new Promise<string>((resolve) => {
      let text = '';
      const onData = (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const head = text.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
        if (head < 0 || text.length < head + 4 + length) return;
        socket.off('data', onData);
        resolve(text);
      };
      socket.on('data', onData);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    });
  return { socket, get };
}

/** Milliseconds until the server closes a plain TCP connection on which the client never starts TLS. */
function closedAfterSilence(port: number): Promise<number> {
  const started = performance.now();
  const socket = tcpConnect({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  return new Promise((resolve) => socket.once('close', () => resolve(performance.now() - started)));
}

/** Connection limits do not touch the database: one dialect is enough. */
describe('HTTPS and IMAP connection limits, TLS handshake timeout', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      env: {
        MAILROOM_HTTP_MAX_CONNECTIONS: '3',
        MAILROOM_IMAP_MAX_SESSIONS: '3',
        MAILROOM_IMAP_MAX_SESSIONS_PER_IP: '2',
        MAILROOM_TLS_HANDSHAKE_TIMEOUT_MS: '500',
      },
    });
  });
  afterAll(() => t?.stop());

  it('answers requests on connections past the HTTPS limit with 503 TOO_MANY_CONNECTIONS and closes them; open ones keep working', async () => {
    const port = t.addresses.http.port;
    const held = [await openHttps(port), await openHttps(port), await openHttps(port)];
    const extra = await openHttps(port);
    const refused = await extra.get('/healthz');
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toMatch(/connection: close/i);
    expect(refused).toContain('"code":"TOO_MANY_CONNECTIONS"');
    await new Promise((resolve) => extra.socket.once('close', resolve));

    expect(await (held[0] as { get(path: string): Promise<string> }).get('/healthz')).toMatch(/^HTTP\/1\.1 200 /);
    held[0]?.socket.destroy();
    const reply = await eventually(async () => {
      const next = await openHttps(port);
      const text = await next.get('/healthz');
      next.socket.destroy();
      return text.startsWith('HTTP/1.1 200 ') ? text : undefined;
    }, 'a free HTTPS connection slot');
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    for (const h of held) h.socket.destroy();
  });

  it('drops HTTPS and IMAP connections whose TLS handshake does not finish in time', async () => {
    const [https, imap] = await Promise.all([closedAfterSilence(t.addresses.http.port), closedAfterSilence(t.addresses.imap.port)]);
    for (const ms of [https, imap]) {
      expect(ms).toBeGreaterThan(400);
      expect(ms).toBeLessThan(10_000);
    }
  });

  it('says BYE to IMAP connections past the per-IP and total limits; the others keep working', async () => {
    const port = t.addresses.imap.port;
    const a1 = await RawImapClient.connect(port, '127.0.0.1', '127.0.0.1');
    const a2 = await RawImapClient.connect(port, '127.0.0.1', '127.0.0.1');
    const a3 = await RawImapClient.connect(port, '127.0.0.1', '127.0.0.1');
    expect(a1.greeting).toMatch(/^\* OK/);
    expect(a3.greeting).toBe('* BYE Too many connections from your address, try again later\r\n');
    const b1 = await RawImapClient.connect(port, '127.0.0.1', '127.0.0.2');
    const c1 = await RawImapClient.connect(port, '127.0.0.1', '127.0.0.3');
    expect(b1.greeting).toMatch(/^\* OK/);
    expect(c1.greeting).toBe('* BYE Too many connections, try again later\r\n');
    expect((await a2.command('NOOP')).tagged).toMatch(/OK/);

    await a1.logout();
    const again = await eventually(async () => {
      const client = await RawImapClient.connect(port, '127.0.0.1', '127.0.0.3');
      if (client.greeting.startsWith('* OK')) return client;
      client.close();
      return undefined;
    }, 'a free IMAP slot');
    expect((await again.command('CAPABILITY')).tagged).toMatch(/OK/);
    for (const client of [a2, a3, b1, c1, again]) client.close();
  });
});

describe('SSE stream limits and the descriptor warning', () => {
  let t: TestApp;
  const logLines: string[] = [];

  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    t = await startTestApp({
      env: { MAILROOM_SSE_MAX_STREAMS_PER_KEY: '2', MAILROOM_SSE_MAX_STREAMS_PER_TENANT: '3', MAILROOM_SMTP_MAX_SESSIONS: '1000000' },
      overrides: { logger: createLogger('warn', destination) },
    });
  });
  afterAll(() => t?.stop());

  it('warns at start when the open-file limit is below the configured connection limits', () => {
    const warning = logLines.map((line) => JSON.parse(line)).find((entry) => /open-file limit/.test(entry.msg));
    expect(warning).toMatchObject({ level: 40, connectionLimits: expect.any(Number), openFileLimit: expect.any(Number) });
    expect(warning.openFileLimit).toBeLessThan(warning.connectionLimits);
  });

  it('refuses a stream past the per-key and per-account limits with 429 TOO_MANY_STREAMS; a freed slot is usable again', async () => {
    const path = '/api/v1/realtime/events';
    const key = t.tenant.apiKey;
    const open = (apiKey: string) => RawSseReader.open(t, path, { 'x-api-key': apiKey });
    const first = await open(key);
    const second = await open(key);
    expect([first.response.statusCode, second.response.statusCode]).toEqual([200, 200]);
    const thirdOnKey = await open(key);
    expect(thirdOnKey.response.statusCode).toBe(429);
    expect(JSON.parse(await thirdOnKey.body()).code).toBe('TOO_MANY_STREAMS');

    const otherKey = (await t.http.post('/api/v1/api-keys', { name: 'second' })).json().key as string;
    const otherFirst = await open(otherKey);
    expect(otherFirst.response.statusCode).toBe(200);
    const overTenant = await open(otherKey);
    expect(overTenant.response.statusCode).toBe(429);

    first.close();
    const reopened = await eventually(async () => {
      const reader = await open(key);
      if (reader.response.statusCode === 200) return reader;
      reader.close();
      return undefined;
    }, 'a free stream slot');
    for (const reader of [second, otherFirst, reopened]) reader.close();
  });
});
