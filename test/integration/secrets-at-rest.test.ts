import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, TEST_DIALECTS, warnIfPostgresSkipped, type TestDialect } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { sendMail } from '../helpers/smtp-client.js';
import { filesUnder } from '../helpers/stored-state.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();

const signatureValid = (request: ReceivedRequest, secret: string): boolean => {
  const expected = Buffer.from(createHmac('sha256', secret).update(request.body).digest('hex'));
  const given = Buffer.from(String(request.headers['x-webhook-signature']));
  return given.length === expected.length && timingSafeEqual(given, expected);
};

const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe.each(TEST_DIALECTS)('secrets at rest (%s)', (dialect: TestDialect) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function start(receiver: WebhookReceiver, storage: { dataDir: string; databaseUrl?: string }): Promise<TestApp> {
    const env = { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1', MAILROOM_CHATAPP_API_URL: `${receiver.origin}/chat`, MAILROOM_WEBHOOK_RETRY_SCHEDULE: '30' };
    return startTestApp({ dialect, ...storage, keepDataDir: true, env });
  }

  it('keeps webhook secrets and bot tokens sealed, seals rows written before, and still signs deliveries', async () => {
    const receiver = await startWebhookReceiver();
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-secrets-'));
    const database = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
    cleanups.push(async () => {
      await receiver.close();
      await database?.drop();
      await rm(dataDir, { recursive: true, force: true });
    });
    const storage = { dataDir, ...(database ? { databaseUrl: database.url } : {}) };

    const first = await start(receiver, storage);
    const inbox = (await first.http.post('/api/v1/inboxes', {})).json();
    const webhook = (await first.http.post(`/api/v1/inboxes/${inbox.id}/hooks`, { url: `${receiver.origin}/hook` })).json().webhook;
    const bot = (await first.http.post('/api/v1/integrations', { kind: 'bot', botToken: 'bot-token-secret', channelId: 'c1', inboxIds: [inbox.id] })).json();
    const broken = (await first.http.post('/api/v1/integrations', { kind: 'bot', botToken: 'to-be-broken', channelId: 'c2', inboxIds: [inbox.id] })).json();
    const db = first.app.ctx.db.kysely;
    const storedSecret = (await db.selectFrom('webhooks').select('secret').where('id', '=', webhook.id).executeTakeFirstOrThrow()).secret;
    const storedToken = (await db.selectFrom('chatapp_integrations').select('bot_token').where('id', '=', bot.id).executeTakeFirstOrThrow()).bot_token;
    expect(storedSecret).not.toContain(webhook.secret.slice(6));
    expect(storedToken).not.toContain('bot-token-secret');
    expect((await first.http.get(`/api/v1/webhooks/${webhook.id}`)).json().secret).toBe(`whsec_…${webhook.secret.slice(-4)}`);

    // As an installation before sealing had them: plain text, and migration 0015 not yet run. One token
    // holds CR/LF (accepted before tokens were checked): its delivery must fail once, logged, not hang.
    await db.updateTable('webhooks').set({ secret: webhook.secret }).where('id', '=', webhook.id).execute();
    await db.updateTable('chatapp_integrations').set({ bot_token: 'bot-token-secret' }).where('id', '=', bot.id).execute();
    await db.updateTable('chatapp_integrations').set({ bot_token: 'bad\r\nx-injected: 1' }).where('id', '=', broken.id).execute();
    await db.deleteFrom('kysely_migration' as never).where('name' as never, '=', '0015-sealed-secrets' as never).execute();
    await first.stop();

    const second = await start(receiver, storage);
    cleanups.push(() => second.stop());
    const db2 = second.app.ctx.db.kysely;
    const resealed = (await db2.selectFrom('webhooks').select('secret').where('id', '=', webhook.id).executeTakeFirstOrThrow()).secret;
    expect(resealed).not.toContain(webhook.secret.slice(6));
    const rows = await db2.selectFrom('chatapp_integrations').select('bot_token').execute();
    for (const row of rows) expect(row.bot_token).toMatch(/^v1\./);

    const client = second.client(first.tenant.apiKey);
    const sent = await sendMail(second.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'signed', text: 'x' });
    const [delivery] = await receiver.waitFor(1, (r) => r.path === '/hook');
    expect(signatureValid(delivery as ReceivedRequest, webhook.secret)).toBe(true);
    const [posted] = await receiver.waitFor(1, (r) => r.path === '/chat/channels/c1/messages');
    expect(posted?.headers.authorization).toBe('Bot bot-token-secret');
    const failed = await eventually(async () => {
      const entries = (await client.get(`/api/v1/logs/email/${sent.id}`)).json().data as Array<{ type: string; status: string; message: string; metadata: Record<string, unknown> }>;
      return entries.find((e) => e.metadata.channelConfigId === broken.id && e.status === 'FAILED');
    }, 'a FAILED entry for the broken token');
    expect(failed.message).toMatch(/failed after 1 attempt.*could not be built/);
  });

  it('creates data files 0600 and directories 0700', async () => {
    const t = await startTestApp({ dialect, env: { MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1' } });
    cleanups.push(() => t.stop());
    const inbox = (await t.http.post('/api/v1/inboxes', {})).json();
    await sendMail(t.smtpPort, { from: 'a@example.com', to: inbox.address, subject: 'x', text: 'x', attachments: [{ filename: 'a.txt', content: 'a' }] });
    const files = [join(t.dataDir, 'storage-encryption-key'), join(t.dataDir, 'jwt-secret'), join(t.dataDir, 'tls', 'self-signed.key'), join(t.dataDir, 'tls', 'self-signed.crt')];
    if (dialect === 'sqlite') files.push(join(t.dataDir, 'mailroom.db'), join(t.dataDir, 'mailroom.db-wal'));
    const blobs = await filesUnder(join(t.dataDir, 'blobs'));
    expect(blobs.length).toBeGreaterThan(0);
    for (const file of [...files, ...blobs]) expect([file, await modeOf(file)]).toEqual([file, 0o600]);
    const blobDirs = [...new Set(blobs.map((file) => file.slice(0, file.lastIndexOf('/'))))];
    for (const dir of [join(t.dataDir, 'tls'), join(t.dataDir, 'blobs'), ...blobDirs]) expect([dir, await modeOf(dir)]).toEqual([dir, 0o700]);
  });
});
