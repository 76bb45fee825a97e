import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.js';
import { sendMail } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DKIM = { domainName: 'pool.test', keySelector: 'mail', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };

/**
 * The same pipeline as smtp-to-api.test.ts, with parsing, authentication and extraction on worker
 * threads (MAILROOM_INGEST_WORKERS=2; the other tests run them inline): the workers reach the DNS
 * server from the configuration alone, and attachment bytes survive the transfer between threads.
 */
describe.each(TEST_DIALECTS)('ingest on a worker-thread pool (%s)', (dialect) => {
  let dns: TestDnsServer;
  let t: TestApp;
  let address: string;

  beforeAll(async () => {
    dns = await startDnsServer({
      'pool.test': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] },
      'mail._domainkey.pool.test': { TXT: [`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`] },
      '_dmarc.pool.test': { TXT: ['v=DMARC1; p=reject'] },
    });
    t = await startTestApp({ dialect, env: { MAILROOM_INGEST_WORKERS: '2', MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DNS_TIMEOUT_MS: '500' } });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'pool' })).json().address;
  });
  afterAll(async () => {
    await t?.stop();
    await dns?.close();
  });

  it('parses, authenticates and extracts on the pool: results, bodies and attachment bytes intact', async () => {
    const binary = randomBytes(300_000);
    const sent = await sendMail(t.smtpPort, {
      from: 'Alice <alice@pool.test>',
      to: address,
      subject: 'Your code',
      text: 'Your verification code is 482913.',
      html: '<p>Your verification code is <b>482913</b>.</p><img src="cid:logo@pool.test">',
      attachments: [
        { filename: 'data.bin', content: binary, contentType: 'application/octet-stream' },
        { filename: 'notes.txt', content: 'short notes' },
        { filename: 'logo.png', content: Buffer.from('89504e470d0a1a0a', 'hex'), cid: 'logo@pool.test' },
      ],
      dkim: DKIM,
    });

    const email = (await t.http.get(`/api/v1/emails/${sent.id}`)).json();
    expect(email).toMatchObject({ spfResult: 'pass', dkimResult: 'pass', dmarcResult: 'pass', subject: 'Your code', hasAttachments: true });
    expect(email.authDiagnostics.dkim).toEqual([expect.objectContaining({ domain: 'pool.test', selector: 'mail', result: 'pass' })]);
    const content = (await t.http.get(`/api/v1/emails/${sent.id}/content`)).json();
    expect(content.text).toContain('482913');

    const byName = new Map<string, { id: string; size: number }>(email.attachments.map((a: { filename: string; id: string; size: number }) => [a.filename, a]));
    expect(byName.get('data.bin')?.size).toBe(binary.length);
    const downloaded = await t.http.get(`/api/v1/emails/${sent.id}/attachments/${byName.get('data.bin')?.id}`);
    expect(Buffer.compare(downloaded.body, binary)).toBe(0);
    expect((await t.http.get(`/api/v1/emails/${sent.id}/attachments/${byName.get('notes.txt')?.id}`)).text).toBe('short notes');

    const logs = (await t.http.get(`/api/v1/logs/email/${sent.id}`)).json();
    expect(logs.data.find((entry: { type: string }) => entry.type === 'SPAM_CHECK')?.message).toBe('SPF: pass, DKIM: pass, DMARC: pass');
  });

  it('spreads concurrent messages over the workers and stores every one', async () => {
    const sent = await Promise.all(
      Array.from({ length: 12 }, (_, i) => sendMail(t.smtpPort, { from: 'alice@pool.test', to: address, subject: `parallel ${i}`, text: `message ${i}` })),
    );
    expect(new Set(sent.map((s) => s.id)).size).toBe(12);
    for (const [i, { id }] of sent.entries()) {
      expect((await t.http.get(`/api/v1/emails/${id}`)).json()).toMatchObject({ subject: `parallel ${i}`, spfResult: 'pass' });
    }
  });
});
