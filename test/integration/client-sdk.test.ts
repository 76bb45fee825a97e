import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { MailroomApiError, MailroomClient, type RealtimeEvent } from '../../src/client/index.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { httpsFetch } from '../helpers/https-fetch.js';
import { sendMail } from '../helpers/smtp-client.js';
import { EventCollector } from '../helpers/sse-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('client SDK against a real app (%s)', (dialect) => {
  let t: TestApp;
  let trustingFetch: ReturnType<typeof httpsFetch>;
  let mailroom: MailroomClient;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    trustingFetch = httpsFetch(t.ca);
    mailroom = new MailroomClient({ baseUrl: t.baseUrl, apiKey: t.tenant.apiKey, fetch: trustingFetch });
  });
  afterAll(async () => {
    trustingFetch?.close();
    await t?.stop();
  });

  it('calls REST resources with typed results and throws MailroomApiError with the error body', async () => {
    const inbox = await mailroom.inboxes.create({ prefix: 'sdk', tags: ['sdk'] });
    expect(inbox.address).toMatch(/^sdk/);
    const listed = await mailroom.inboxes.list({ tags: ['sdk'] });
    expect(listed.data.map((i) => i.id)).toEqual([inbox.id]);
    const key = await mailroom.inboxes.apiKeys.create(inbox.id, { name: 'ci', scopes: ['api'] });
    expect(key.key).toMatch(/^mr_/);
    expect(Array.isArray(await mailroom.domains.list())).toBe(true);
    expect((await mailroom.webhooks.list()).data).toEqual([]);

    const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'SDK mail', text: 'hello' });
    const email = await mailroom.emails.get(sent.id);
    expect(email).toMatchObject({ id: sent.id, subject: 'SDK mail', read: false });
    expect(await mailroom.emails.markRead(sent.id)).toMatchObject({ id: sent.id, read: true });
    const eml = await mailroom.emails.eml(sent.id);
    expect(await (eml as Blob).text()).toContain('Subject: SDK mail');
    expect((await mailroom.logs.forEmail(sent.id)).data.length).toBeGreaterThan(0);
    await mailroom.emails.delete(sent.id);

    const missing = await mailroom.emails.get(sent.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(MailroomApiError);
    expect(missing).toMatchObject({ status: 404, code: 'EMAIL_NOT_FOUND' });
  });

  it('waitForMessage returns the first matching message, or null on timeout', async () => {
    const inbox = await mailroom.inboxes.create({});
    const waiting = mailroom.waitForMessage(inbox.id, { subject: 'welcome', timeout: 10_000 });
    await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'Welcome!', text: 'hi' });
    expect(await waiting).toMatchObject({ inboxId: inbox.id, subject: 'Welcome!' });
    expect(await mailroom.waitForMessage(inbox.id, { subject: 'never', timeout: 200 })).toBeNull();
  });

  it('subscribe() delivers typed events and reconnects with Last-Event-ID after the stream drops', async () => {
    const collector = new EventCollector();
    const errors: unknown[] = [];
    const subscription = mailroom.subscribe({
      reconnectDelayMs: 50,
      onEvent: (event: RealtimeEvent) => collector.push(event),
      onError: (error) => errors.push(error),
    });
    try {
      await collector.next((e) => e.type === 'connected');
      const inbox = await mailroom.inboxes.create({});
      const first = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'before drop', text: 'x' });
      await collector.next((e) => e.type === 'email.received' && e.data.id === first.id);

      t.app.ctx.services.realtime.closeAll('shutdown');
      await collector.next((e) => e.type === 'disconnect');
      const missed = await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'while away', text: 'x' });
      await collector.next((e) => e.type === 'email.received' && e.data.id === missed.id);
      expect(collector.ofType('connected')).toHaveLength(2);
      expect(collector.ofType('email.received').filter((e) => e.data.id === missed.id)).toHaveLength(1);
      expect(subscription.lastEventId).toMatch(/^\d+-\d+$/);
    } finally {
      subscription.close();
    }
  });

  it('subscribe() stops on a 4xx and reports it', async () => {
    const bad = new MailroomClient({ baseUrl: t.baseUrl, apiKey: 'mr_not-a-key', fetch: trustingFetch });
    const failure = new Promise<unknown>((resolve) => bad.subscribe({ reconnectDelayMs: 10, onEvent: () => undefined, onError: resolve }));
    expect(await failure).toMatchObject({ status: 401 });
  });
});

it('the SDK has a method for every REST operation of the OpenAPI document', async () => {
  const read = (file: string) => readFile(new URL(`../../src/client/${file}`, import.meta.url), 'utf8');
  const operations = [...(await read('api-types.generated.ts')).matchAll(/^ {2}"([A-Z]+ \/api\/v1\/[^"]*)": \{$/gm)].map((m) => m[1] as string);
  const sdk = (await read('resources.ts')) + (await read('index.ts'));
  // The dashboard's session endpoints (sign-up, sign-in, cookie refresh) are not for API-key clients;
  // /mcp speaks the Model Context Protocol, whose client is the MCP SDK (docs/mcp.md).
  const forSdk = (operation: string) =>
    operation !== 'GET /api/v1/realtime/events' && operation !== 'POST /api/v1/mcp' && (!operation.includes(' /api/v1/auth/') || operation.endsWith('/auth/me'));
  const missing = operations.filter((operation) => forSdk(operation) && !sdk.includes(`'${operation}'`));
  expect(operations.length).toBeGreaterThan(40);
  expect(missing).toEqual([]);
});

it('imports nothing but its own modules, so it runs in browsers (no node:, no packages, no Node globals)', async () => {
  const dir = new URL('../../src/client/', import.meta.url);
  for (const file of ['index.ts', 'http.ts', 'resources.ts', 'realtime.ts', 'api-types.generated.ts']) {
    const source = await readFile(new URL(file, dir), 'utf8');
    const imports = [...source.matchAll(/from '([^']+)'/g)].map((m) => m[1] as string);
    expect(imports.filter((path) => !path.startsWith('./')), file).toEqual([]);
    expect(source, file).not.toMatch(/\b(process|Buffer|require)\b[.(]/);
  }
});

/**
 * The README example (src/client/README.md), kept identical by the check below. It reads
 * MAILROOM_URL and MAILROOM_API_KEY: set them (plus MAILROOM_SMTP_PORT, and NODE_EXTRA_CA_CERTS for a
 * self-signed certificate) to run it against `npm start`; unset, it boots a test app and swaps global
 * fetch for one that trusts the test app's certificate.
 */
describe('client SDK README example', () => {
  const external = process.env.MAILROOM_URL !== undefined;
  let t: TestApp | undefined;
  let smtpPort = Number(process.env.MAILROOM_SMTP_PORT ?? 2525);
  const originalFetch = globalThis.fetch;
  const signUp = async (address: string) => {
    await sendMail(smtpPort, { from: 'no-reply@shop.example', to: address, subject: 'Your sign-up code', text: 'Your one-time code is 639201. It expires in 10 minutes.' });
  };

  beforeAll(async () => {
    if (external) return;
    t = await startTestApp();
    smtpPort = t.smtpPort;
    process.env.MAILROOM_URL = t.baseUrl;
    process.env.MAILROOM_API_KEY = t.tenant.apiKey;
    globalThis.fetch = httpsFetch(t.ca);
  });
  afterAll(async () => {
    if (external) return;
    globalThis.fetch = originalFetch;
    delete process.env.MAILROOM_URL;
    delete process.env.MAILROOM_API_KEY;
    await t?.stop();
  });

  // README example: start
  test('sign-up sends a one-time code', async () => {
    const mailroom = new MailroomClient({ baseUrl: process.env.MAILROOM_URL!, apiKey: process.env.MAILROOM_API_KEY! });
    const inbox = await mailroom.inboxes.create({ ttlSeconds: 600 });
    await signUp(inbox.address); // your application emails the code to this address
    const message = await mailroom.waitForMessage(inbox.id, { subject: 'code', timeout: 30_000 });
    expect(message?.extracted?.otp).toMatch(/^\d{6}$/);
  });
  // README example: end

  it('is the example the README shows', async () => {
    const source = await readFile(new URL(import.meta.url), 'utf8');
    const example = /\/\/ README example: start\n([\s\S]*?)\n\s*\/\/ README example: end/.exec(source)?.[1] ?? '';
    const readme = await readFile(new URL('../../src/client/README.md', import.meta.url), 'utf8');
    const lines = example.split('\n').map((line) => line.trim());
    const readmeLines = readme.split('\n').map((line) => line.trim());
    const start = readmeLines.indexOf(lines[0] as string);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(readmeLines.slice(start, start + lines.length)).toEqual(lines);
  });
});
