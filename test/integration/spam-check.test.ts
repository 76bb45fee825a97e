import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PublishedEvent } from '../../src/ports/event-bus.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { GTUBE, rspamdAvailable, startRspamd, type Rspamd } from '../helpers/rspamd.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

warnIfPostgresSkipped();
if (!rspamdAvailable()) console.warn('spam-check tests skipped: /usr/bin/rspamd is not installed (apt-get install rspamd)');

/** Generous, so a loaded machine does not turn a verdict into `unavailable`; the short deadline is tested against a hung filter below. */
const TIMEOUT_MS = 5000;
const ZONE = {
  'forged.test': { TXT: ['v=spf1 ip4:192.0.2.10 -all'] },
  '_dmarc.forged.test': { TXT: ['v=DMARC1; p=reject'] },
};

interface SpamRule {
  name: string;
  score: number;
  description: string | null;
  options: string[];
}
interface SpamView {
  spamCheck: string;
  spamScore: number | null;
  spamThreshold: number | null;
  isSpam: boolean | null;
  spamAction: string | null;
  spamRules: SpamRule[];
}
interface LogView {
  type: string;
  status: string;
  message: string;
  metadata: Record<string, unknown>;
}

/** Resolves with the first published event that `match` accepts (no polling). */
function nextEvent(t: TestApp, match: (event: PublishedEvent) => boolean, timeoutMs = 20_000): Promise<PublishedEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error('no matching event'));
    }, timeoutMs);
    const unsubscribe = t.app.ctx.events.subscribe((event) => {
      if (!match(event)) return;
      clearTimeout(timer);
      unsubscribe();
      resolve(event);
    });
  });
}

describe.skipIf(!rspamdAvailable())('spam check with a real rspamd', () => {
  let dns: TestDnsServer;
  let rspamd: Rspamd;

  beforeAll(async () => {
    dns = await startDnsServer(ZONE);
    rspamd = await startRspamd({ dnsServer: dns.address });
  }, 180_000);
  afterAll(async () => {
    await rspamd?.close();
    await dns?.close();
  });

  describe.each(TEST_DIALECTS)('%s', (dialect) => {
    let t: TestApp;
    let receiver: WebhookReceiver;
    let address: string;

    const emailOf = async (id: string) => (await t.http.get(`/api/v1/emails/${id}`)).json<SpamView & { id: string }>();
    const spamLogsOf = async (id: string) => (await t.http.get(`/api/v1/logs/email/${id}`)).json<{ data: LogView[] }>().data.filter((e) => e.type === 'SPAM_CHECK');

    beforeAll(async () => {
      receiver = await startWebhookReceiver();
      t = await startTestApp({
        dialect,
        env: {
          MAILROOM_SPAM_CHECK: rspamd.url,
          MAILROOM_SPAM_CHECK_TIMEOUT_MS: String(TIMEOUT_MS),
          MAILROOM_SPAM_RECHECK_INTERVAL_MS: '200',
          MAILROOM_DNS_SERVERS: dns.address,
          MAILROOM_ALLOW_PRIVATE_WEBHOOKS: '1',
        },
      });
      address = (await t.http.post('/api/v1/inboxes', { prefix: 'spam' })).json().address;
      expect((await t.http.post('/api/v1/webhooks', { url: `${receiver.origin}/hook` })).status).toBe(201);
    });
    afterAll(async () => {
      await t?.stop();
      await receiver?.close();
    });

    it('scores a plain message low: done, not spam, SUCCESS in the log', async () => {
      const sent = await sendMail(t.smtpPort, { from: 'alice@example.com', to: address, subject: 'Meeting notes', text: 'Hi Bob,\n\nHere are the notes from today.\n\nAlice' });
      const email = await emailOf(sent.id);
      expect(email).toMatchObject({ spamCheck: 'done', isSpam: false });
      expect(email.spamScore).toBeLessThan(5);
      expect(email.spamThreshold).toBeGreaterThan(email.spamScore as number);
      expect(email.spamRules.length).toBeGreaterThan(0);
      const [log] = await spamLogsOf(sent.id);
      expect(log).toMatchObject({ status: 'SUCCESS', metadata: { spamCheck: 'done', isSpam: false, spamScore: email.spamScore } });
    });

    it('scores a GTUBE message as spam, with its rule in the API, the webhook payload and the log entry', async () => {
      const sent = await sendMail(t.smtpPort, { from: 'spammer@example.com', to: address, subject: 'Buy now', text: `Offer inside.\n${GTUBE}\n` });
      const email = await emailOf(sent.id);
      expect(email).toMatchObject({ spamCheck: 'done', isSpam: true, spamAction: 'reject' });
      expect(email.spamScore).toBeGreaterThanOrEqual(email.spamThreshold as number);
      expect(email.spamRules.map((r) => r.name)).toContain('GTUBE');

      const [request] = await receiver.waitFor(1, (r) => r.json().id === sent.id);
      expect(request?.json()).toMatchObject({ spamCheck: 'done', isSpam: true, spamScore: email.spamScore, spamThreshold: email.spamThreshold, spamRules: email.spamRules });

      const [log] = await spamLogsOf(sent.id);
      expect(log?.status).toBe('FAILED');
      expect(log?.message).toContain(`spam score ${email.spamScore}`);
      expect(log?.metadata).toMatchObject({ isSpam: true, spamRules: email.spamRules });
    });

    it('fails the SPAM_CHECK entry of mail that is not spam but fails SPF and DMARC', async () => {
      const sent = await sendMail(t.smtpPort, { from: 'ceo@forged.test', to: address, subject: 'Invoice', text: 'Please see the invoice.' });
      const email = await emailOf(sent.id);
      expect(email).toMatchObject({ spamCheck: 'done', isSpam: false });
      const [log] = await spamLogsOf(sent.id);
      expect(log).toMatchObject({ status: 'FAILED', metadata: { spfResult: 'fail', dmarcResult: 'fail', isSpam: false } });
    });

    it('accepts mail within the deadline while rspamd is stopped, marks it unavailable, and the worker fills the verdict in later', async () => {
      await rspamd.stop();
      let sent: { id: string };
      let updatedEvent: Promise<PublishedEvent> | undefined;
      const sentId = () => (typeof sent === 'undefined' ? '' : sent.id);
      try {
        const started = performance.now();
        sent = await sendMail(t.smtpPort, { from: 'later@example.com', to: address, subject: 'While down', text: `Checked later.\n${GTUBE}\n` });
        expect(performance.now() - started).toBeLessThan(2000);
        expect(await emailOf(sent.id)).toMatchObject({ spamCheck: 'unavailable', spamScore: null, isSpam: null, spamRules: [] });
        const [request] = await receiver.waitFor(1, (r) => r.json().id === sent.id);
        expect(request?.json()).toMatchObject({ spamCheck: 'unavailable', spamScore: null });
        expect(await spamLogsOf(sent.id)).toMatchObject([{ status: 'PENDING', metadata: { spamCheck: 'unavailable' } }]);
      } finally {
        // Listening before the restart: the worker may recheck as soon as rspamd answers. Its back-off
        // keeps doubling while rspamd starts, which takes seconds on a loaded machine.
        updatedEvent = nextEvent(t, (e) => e.type === 'email.updated' && e.data.id === sentId(), 60_000);
        await rspamd.start();
      }
      const updated = await (updatedEvent as Promise<PublishedEvent>);
      expect(updated.data.changes).toMatchObject({ spamCheck: 'done', isSpam: true });
      const email = await emailOf(sent.id);
      expect(email).toMatchObject({ spamCheck: 'done', isSpam: true });
      expect(email.spamRules.map((r) => r.name)).toContain('GTUBE');
      const statuses = (await spamLogsOf(sent.id)).map((e) => e.status).sort();
      expect(statuses).toEqual(['FAILED', 'PENDING']);
    }, 120_000);
  });
});

describe('spam check against a filter that does not answer', () => {
  let hung: Server;
  let t: TestApp;

  beforeAll(async () => {
    hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
    const { port } = hung.address() as AddressInfo;
    t = await startTestApp({ env: { MAILROOM_SPAM_CHECK: `127.0.0.1:${port}`, MAILROOM_SPAM_CHECK_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await t?.stop();
    hung.closeAllConnections();
    await new Promise((resolve) => hung.close(resolve));
  });

  it('answers 250 after the deadline, not after the filter, and marks the mail unavailable', async () => {
    const address = (await t.http.post('/api/v1/inboxes', { prefix: 'slow' })).json().address;
    const started = performance.now();
    const sent = await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject: 'slow filter', text: 'x' });
    expect(performance.now() - started).toBeLessThan(2000);
    expect((await t.http.get(`/api/v1/emails/${sent.id}`)).json()).toMatchObject({ spamCheck: 'unavailable' });
  });

  it('refuses a bad MAILROOM_SPAM_CHECK at startup, naming the variable', async () => {
    await expect(startTestApp({ env: { MAILROOM_SPAM_CHECK: 'ftp://filter' } })).rejects.toThrow('MAILROOM_SPAM_CHECK');
  });
});
