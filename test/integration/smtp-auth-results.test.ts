import { generateKeyPairSync } from 'node:crypto';
import nodemailer from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { startDnsServer, startSilentDnsServer, type TestDnsServer, type Zone } from '../helpers/dns-server.js';
import { sendMail, sendRaw } from '../helpers/smtp-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DKIM_PRIVATE_KEY = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const DKIM_RECORD = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
const DKIM = { domainName: 'good.test', keySelector: 'mail', privateKey: DKIM_PRIVATE_KEY };
/** A 768-bit RSA key: below mailauth's 1024-bit minimum, so its signatures get `policy`. */
const weak = generateKeyPairSync('rsa', { modulusLength: 768 });
const WEAK_DKIM = { domainName: 'good.test', keySelector: 'weak', privateKey: weak.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
const DNS_TIMEOUT_MS = 300;

/** Sender domains, one per SPF outcome; the client is always 127.0.0.1. */
const ZONE: Zone = {
  'good.test': { TXT: ['v=spf1 ip4:127.0.0.1 -all'], A: ['127.0.0.1'] },
  'mail._domainkey.good.test': { TXT: [DKIM_RECORD] },
  'weak._domainkey.good.test': { TXT: [`v=DKIM1; k=rsa; p=${weak.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`] },
  '_dmarc.good.test': { TXT: ['v=DMARC1; p=reject; adkim=r; aspf=r'] },
  'forged.test': { TXT: ['v=spf1 ip4:192.0.2.10 -all'] },
  '_dmarc.forged.test': { TXT: ['v=DMARC1; p=quarantine'] },
  'soft.test': { TXT: ['v=spf1 ip4:192.0.2.10 ~all'] },
  'neutral.test': { TXT: ['v=spf1 ?all'] },
  'nospf.test': { A: ['192.0.2.1'] },
  'broken.test': { TXT: ['v=spf1 ip4:127.0.0.1 bogus-mechanism:x -all'] },
  'slow.test': { silent: true },
  'bounces.test': { TXT: ['v=spf1 ip4:127.0.0.1 -all'] },
};

interface EmailAuth {
  spfResult: string;
  dkimResult: string;
  dmarcResult: string;
  authSummary: string;
  authDiagnostics: {
    spf: { clientIp: string | null; domain: string | null; record: string | null; explanation: string | null };
    dkim: Array<{ domain: string | null; selector: string | null; result: string; aligned: boolean; explanation: string | null }>;
    dmarc: { domain: string | null; policy: string | null; spfAligned: boolean; dkimAligned: boolean; explanation: string | null };
  };
}

/** The message exactly as nodemailer would send it, DKIM-signed with the key published in ZONE. */
async function signedRaw(message: Mail.Options): Promise<Buffer> {
  const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: DKIM });
  const info = await composer.sendMail(message);
  return info.message as Buffer;
}

describe.each(TEST_DIALECTS)('SPF, DKIM and DMARC through a DNS server on loopback (%s)', (dialect) => {
  let dns: TestDnsServer;
  let t: TestApp;
  let address: string;

  const authOf = async (id: string): Promise<EmailAuth> => {
    const response = await t.http.get(`/api/v1/emails/${id}`);
    expect(response.status, response.text).toBe(200);
    return response.json<EmailAuth>();
  };

  beforeAll(async () => {
    dns = await startDnsServer(ZONE);
    t = await startTestApp({ dialect, env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) } });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'auth' })).json().address;
  });
  afterAll(async () => {
    await t?.stop();
    await dns?.close();
  });

  it('passes SPF, DKIM (nodemailer dkim option) and DMARC for an aligned, signed message and explains why', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'alice@good.test', to: address, subject: 'signed', text: 'hello', dkim: DKIM });
    const email = await authOf(sent.id);
    expect(email).toMatchObject({ spfResult: 'pass', dkimResult: 'pass', dmarcResult: 'pass', authSummary: 'SPF: pass, DKIM: pass, DMARC: pass' });
    expect(email.authDiagnostics.spf).toMatchObject({ clientIp: '127.0.0.1', domain: 'good.test', record: 'v=spf1 ip4:127.0.0.1 -all' });
    expect(email.authDiagnostics.spf.explanation).toContain('designates 127.0.0.1 as permitted sender');
    expect(email.authDiagnostics.dkim).toEqual([{ domain: 'good.test', selector: 'mail', result: 'pass', aligned: true, explanation: null }]);
    expect(email.authDiagnostics.dmarc).toMatchObject({ domain: 'good.test', policy: 'reject', spfAligned: true, dkimAligned: true });

    const logs = (await t.http.get(`/api/v1/logs/email/${sent.id}`)).json().data;
    expect(logs.find((entry: { type: string }) => entry.type === 'SPAM_CHECK').metadata).toEqual({
      spfResult: 'pass',
      dkimResult: 'pass',
      dmarcResult: 'pass',
      authSummary: 'SPF: pass, DKIM: pass, DMARC: pass',
    });
  });

  it('fails SPF and DMARC for a sender whose record leaves our IP out (-all), with the policy shown', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'mallory@forged.test', to: address, subject: 'forged', text: 'x' });
    const email = await authOf(sent.id);
    expect(email).toMatchObject({ spfResult: 'fail', dkimResult: 'none', dmarcResult: 'fail', authSummary: 'SPF: fail, DKIM: none, DMARC: fail' });
    expect(email.authDiagnostics.spf).toMatchObject({ clientIp: '127.0.0.1', domain: 'forged.test', record: 'v=spf1 ip4:192.0.2.10 -all' });
    expect(email.authDiagnostics.spf.explanation).toContain('does not designate 127.0.0.1');
    expect(email.authDiagnostics.dkim).toEqual([]);
    expect(email.authDiagnostics.dmarc).toMatchObject({ domain: 'forged.test', policy: 'quarantine', spfAligned: false, dkimAligned: false });
  });

  it('fails DKIM for a signed message whose body was changed after signing, and DMARC with it', async () => {
    const raw = await signedRaw({ from: 'alice@good.test', to: address, subject: 'tampered', text: 'pay 10 EUR' });
    const tampered = Buffer.from(raw.toString('utf8').replace('pay 10 EUR', 'pay 9999 EUR'));
    // An envelope sender of another domain, so SPF cannot rescue DMARC.
    const sent = await sendRaw(t.smtpPort, { from: 'bounce@bounces.test', to: [address] }, tampered);
    const email = await authOf(sent.id);
    expect(email).toMatchObject({ spfResult: 'pass', dkimResult: 'fail', dmarcResult: 'fail' });
    expect(email.authDiagnostics.dkim).toEqual([
      { domain: 'good.test', selector: 'mail', result: 'fail', aligned: true, explanation: 'body hash did not verify' },
    ]);
    expect(email.authDiagnostics.dmarc).toMatchObject({ domain: 'good.test', policy: 'reject', spfAligned: false, dkimAligned: false });

    const intact = await sendRaw(t.smtpPort, { from: 'bounce@bounces.test', to: [address] }, raw);
    expect(await authOf(intact.id)).toMatchObject({ dkimResult: 'pass', dmarcResult: 'pass' });
  });

  it('gives DKIM policy for a signature made with a key under 1024 bits (DMARC still passes on aligned SPF)', async () => {
    const sent = await sendMail(t.smtpPort, { from: 'alice@good.test', to: address, subject: 'weak key', text: 'x', dkim: WEAK_DKIM });
    const email = await authOf(sent.id);
    expect(email).toMatchObject({ spfResult: 'pass', dkimResult: 'policy', dmarcResult: 'pass' });
    expect(email.authDiagnostics.dkim).toEqual([expect.objectContaining({ domain: 'good.test', selector: 'weak', result: 'policy' })]);
    expect(email.authDiagnostics.dmarc).toMatchObject({ spfAligned: true, dkimAligned: false });
  });

  it.each([
    ['soft.test', 'softfail'],
    ['neutral.test', 'neutral'],
    ['nospf.test', 'none'],
    ['broken.test', 'permerror'],
    ['slow.test', 'temperror'],
  ])('maps the SPF result for %s to %s', async (domain, expected) => {
    const sent = await sendMail(t.smtpPort, { from: `someone@${domain}`, to: address, subject: domain, text: 'x' });
    const email = await authOf(sent.id);
    expect(email.spfResult).toBe(expected);
    expect(email.authSummary).toMatch(new RegExp(`^SPF: ${expected}, DKIM: none, DMARC: \\w+$`));
    expect(email.authDiagnostics.spf).toMatchObject({ clientIp: '127.0.0.1', domain });
  });
});

describe.each(TEST_DIALECTS)('a DNS server that never answers (%s)', (dialect) => {
  it('does not stall the session: 250 comes within the lookup deadline and every check is temperror', async () => {
    const silent = await startSilentDnsServer();
    const t = await startTestApp({ dialect, env: { MAILROOM_DNS_SERVERS: silent.address, MAILROOM_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS) } });
    try {
      const address = (await t.http.post('/api/v1/inboxes', { prefix: 'silent' })).json().address;
      const started = performance.now();
      const sent = await sendMail(t.smtpPort, { from: 'someone@unreachable.test', to: address, subject: 'no dns', text: 'x', dkim: DKIM });
      const elapsed = performance.now() - started;
      // The whole check has a deadline of 3 lookup timeouts; far from the 8-11 s stalls seen in the wild.
      expect(elapsed).toBeLessThan(DNS_TIMEOUT_MS * 3 + 1_000);
      expect(silent.received()).toBeGreaterThan(0);
      const email = (await t.http.get(`/api/v1/emails/${sent.id}`)).json<EmailAuth>();
      expect(email).toMatchObject({ spfResult: 'temperror', dkimResult: 'temperror', dmarcResult: 'temperror' });
      expect(email.authSummary).toBe('SPF: temperror, DKIM: temperror, DMARC: temperror');
    } finally {
      await t.stop();
      await silent.close();
    }
  });
});

describe.each(TEST_DIALECTS)('SPF, DKIM and DMARC when analysis runs on worker threads (%s)', (dialect) => {
  it('gives the same results and diagnostics as the inline path', async () => {
    const dns = await startDnsServer(ZONE);
    const t = await startTestApp({ dialect, env: { MAILROOM_DNS_SERVERS: dns.address, MAILROOM_DNS_TIMEOUT_MS: String(DNS_TIMEOUT_MS), MAILROOM_INGEST_WORKERS: '1' } });
    try {
      const address = (await t.http.post('/api/v1/inboxes', { prefix: 'threads' })).json().address;
      const sent = await sendMail(t.smtpPort, { from: 'alice@good.test', to: address, subject: 'signed', text: 'hello', dkim: DKIM });
      const email = (await t.http.get(`/api/v1/emails/${sent.id}`)).json<EmailAuth>();
      expect(email).toMatchObject({ spfResult: 'pass', dkimResult: 'pass', dmarcResult: 'pass' });
      expect(email.authDiagnostics.dkim).toEqual([{ domain: 'good.test', selector: 'mail', result: 'pass', aligned: true, explanation: null }]);
      const tampered = Buffer.from((await signedRaw({ from: 'alice@good.test', to: address, subject: 't', text: 'pay 10 EUR' })).toString().replace('10 EUR', '99 EUR'));
      const bad = await sendRaw(t.smtpPort, { from: 'bounce@bounces.test', to: [address] }, tampered);
      expect((await t.http.get(`/api/v1/emails/${bad.id}`)).json<EmailAuth>()).toMatchObject({ dkimResult: 'fail', dmarcResult: 'fail' });
    } finally {
      await t.stop();
      await dns.close();
    }
  });
});
