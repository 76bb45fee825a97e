import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { listenerEnv, spawnMailroom } from '../../helpers/mailroom-process.js';
import { RawSmtpClient, type SmtpReplyLine } from '../../helpers/raw-smtp.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { startTestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

const SENDERS = 6;
const CLOSED: SmtpReplyLine = { code: 0, text: 'connection closed' };

/** The server's reply, or CLOSED when it hangs up instead. */
const replyOrClose = (client: RawSmtpClient, line?: string): Promise<SmtpReplyLine> =>
  Promise.race([line === undefined ? client.reply() : client.command(line), client.whenClosed().then(() => CLOSED)]);

const message = (n: number) => `From: load@example.com\r\nSubject: load ${n}\r\n\r\n${'x'.repeat(8_000)}\r\n.\r\n`;

describe.each(TEST_DIALECTS)('graceful shutdown on SIGTERM (%s)', (dialect) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('finishes transactions in DATA, refuses the rest with 421 or a closed connection, and loses no accepted email', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-shutdown-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const pg = dialect === 'postgres' ? await createPostgresDatabase() : undefined;
    if (pg) cleanups.push(() => pg.drop());

    const setup = await startTestApp({ dialect, dataDir, databaseUrl: pg?.url, keepDataDir: true });
    const address = (await setup.http.post('/api/v1/inboxes', { prefix: 'load' })).json().address as string;
    const apiKey = setup.tenant.apiKey;
    await setup.stop();

    const listeners = await listenerEnv();
    const smtpPort = Number(listeners.MAILROOM_SMTP_PORT);
    const node = spawnMailroom({
      ...listeners,
      MAILROOM_DATA_DIR: dataDir,
      ...(pg ? { MAILROOM_DATABASE_URL: pg.url } : {}),
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
      MAILROOM_DNS_TIMEOUT_MS: '200',
    });
    cleanups.push(async () => node.child.kill('SIGKILL'));
    await node.logged('mailroom started');

    const accepted: string[] = [];
    const refusals: number[] = [];
    let signalled = false;
    let acceptedAfterSignal = 0;
    const record = (reply: SmtpReplyLine): boolean => {
      const id = /^Message accepted <([0-9a-f-]{36})>$/.exec(reply.text)?.[1];
      if (reply.code === 250 && id !== undefined) {
        accepted.push(id);
        if (signalled) acceptedAfterSignal += 1;
        return true;
      }
      refusals.push(reply.code);
      return false;
    };

    // Continuous load: each sender runs transactions back to back until the server refuses or hangs up.
    const sender = async (n: number) => {
      const { client } = await RawSmtpClient.connect(smtpPort);
      await client.envelope('load@example.com', [address]);
      for (let i = 0; ; i += 1) {
        if (i > 0) {
          const mail = await replyOrClose(client, 'MAIL FROM:<load@example.com>');
          if (mail.code !== 250) return record(mail);
          if ((await replyOrClose(client, `RCPT TO:<${address}>`)).code !== 250) return;
        }
        const go = await replyOrClose(client, 'DATA');
        if (go.code !== 354) return record(go);
        client.write(message(n * 100_000 + i));
        if (!record(await replyOrClose(client))) return;
      }
    };
    // One transaction is held in DATA across the signal: half the body before SIGTERM, the rest after.
    const { client: slow } = await RawSmtpClient.connect(smtpPort);
    await slow.envelope('slow@example.com', [address]);
    expect((await slow.command('DATA')).code).toBe(354);
    slow.write('From: slow@example.com\r\nSubject: in DATA during SIGTERM\r\n\r\nfirst half\r\n');

    const load = Promise.all(Array.from({ length: SENDERS }, (_, n) => sender(n)));
    while (accepted.length < 20) await new Promise((resolve) => setImmediate(resolve));
    node.child.kill('SIGTERM');
    await node.logged('shutting down');
    signalled = true;
    slow.write('second half\r\n.\r\n');
    expect(record(await replyOrClose(slow))).toBe(true);
    expect((await replyOrClose(slow, 'MAIL FROM:<slow@example.com>')).code).toBe(421);
    await load;
    expect(await node.exited).toBe(0);

    // Nothing but 421 (the server's shutdown reply) or a closed connection ended a sender.
    expect(refusals.every((code) => code === 421 || code === 0), `refusals: ${refusals.join(',')}`).toBe(true);
    expect(acceptedAfterSignal).toBeGreaterThanOrEqual(1);
    // Structured logs: one JSON line per accepted message, carrying its email id.
    const logged = new Set(node.logLines.filter((line) => line.msg === 'message accepted').map((line) => line.emailId));
    expect(accepted.filter((id) => !logged.has(id))).toEqual([]);

    const restarted = await startTestApp({ dialect, dataDir, databaseUrl: pg?.url, keepDataDir: true });
    cleanups.push(() => restarted.stop());
    const client = restarted.client(apiKey);
    const listed = await client.get('/api/v1/emails?perPage=1');
    expect(listed.json().totalItems).toBeGreaterThanOrEqual(accepted.length);
    for (const id of accepted) {
      const eml = await client.get(`/api/v1/emails/${id}/eml`);
      expect(eml.status, id).toBe(200);
    }
  }, 60_000);
});

describe.each(TEST_DIALECTS)('claimed deliveries at shutdown (%s)', (dialect) => {
  it('are handed back, due at once for any node, instead of waiting for their lease to end', async () => {
    const t = await startTestApp({ dialect });
    try {
      const address = (await t.http.post('/api/v1/inboxes', { prefix: 'handback' })).json().address as string;
      const { id: emailId } = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'queued', text: 'x' });
      const { deliveries } = t.app.ctx.services;
      const job = { id: randomUUID(), deliveryId: randomUUID(), tenantId: t.tenant.id, environmentId: t.tenant.environmentId, emailId, targetKind: 'WEBHOOK' as const, targetId: randomUUID(), attemptsMade: 0, maxAttempts: null };
      await t.app.ctx.repos.deliveries.enqueue([job], Date.now() + 60_000, deliveries.workerId);

      expect(await deliveries.releaseClaims()).toBe(1);
      const row = await t.app.ctx.db.kysely.selectFrom('notification_deliveries').selectAll().where('id', '=', job.id).executeTakeFirstOrThrow();
      expect(row.claimed_by).toBeNull();
      expect(Date.parse(row.available_at)).toBeLessThanOrEqual(Date.now());
    } finally {
      await t.stop();
    }
  });
});
