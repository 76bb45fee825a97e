import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNodeDnsResolver } from '../../src/adapters/dns/node.dns-resolver.js';
import { MailauthAuthenticator } from '../../src/adapters/mail/mailauth.authenticator.js';
import type { AuthResults } from '../../src/core/email.js';
import { startDnsServer, type TestDnsServer, type Zone } from '../helpers/dns-server.js';

/**
 * Interop with a second DKIM implementation: messages signed by python3-dkim (dkimpy) verify through
 * Mailroom's authenticator (mailauth behind our resolver, against a DNS server on loopback) as pass,
 * and tampered copies as fail. Also the RFC 8463 example message dkimpy ships (Ed25519 and RSA).
 */
const DKIMSIGN = '/usr/bin/dkimsign';
const DKNEWKEY = '/usr/bin/dknewkey';
const DKIMPY_DATA = '/usr/lib/python3/dist-packages/dkim/tests/data';
const DOMAIN = 'dkimpy.test';

const toolsPresent = existsSync(DKIMSIGN) && existsSync(DKNEWKEY);
if (!toolsPresent) console.warn('SKIPPED: DKIM interop with dkimpy (dkimsign/dknewkey missing; apt-get install python3-dkim)');

const MESSAGE = [
  `From: Sender <sender@${DOMAIN}>`,
  'To: someone@mailroom.localhost',
  'Subject: Your sign-in code',
  'Date: Sat, 21 Nov 2026 06:00:00 +0000',
  `Message-ID: <interop-1@${DOMAIN}>`,
  'Content-Type: text/plain; charset=utf-8',
  '',
  'Your code is 482913.',
  '',
  'It expires in 10 minutes.',
  '',
].join('\r\n');

const CASES = [
  { name: 'RSA-SHA256, relaxed/simple', selector: 'rsa', key: 'rsa.key', args: [] },
  { name: 'RSA-SHA256, relaxed/relaxed', selector: 'rsa', key: 'rsa.key', args: ['--bcanon', 'relaxed'] },
  { name: 'RSA-SHA256, simple/simple', selector: 'rsa', key: 'rsa.key', args: ['--hcanon', 'simple'] },
  { name: 'Ed25519-SHA256, relaxed/simple', selector: 'ed', key: 'ed.key', args: ['--signalg', 'ed25519-sha256'] },
  { name: 'Ed25519-SHA256, relaxed/relaxed', selector: 'ed', key: 'ed.key', args: ['--signalg', 'ed25519-sha256', '--bcanon', 'relaxed'] },
];

/** dkimsign reads the message on stdin and prints it signed. */
function dkimsign(args: string[], message: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(DKIMSIGN, args, (error, stdout) => (error ? reject(error) : resolve(stdout)));
    child.stdin?.end(message);
  });
}

describe.skipIf(!toolsPresent)('DKIM signatures from python3-dkim verified by our authenticator', () => {
  let dir: string;
  let dns: TestDnsServer;
  let authenticator: MailauthAuthenticator;
  const zone: Zone = {};

  /** Each case's message as dkimsign signed it, keyed by case name (signed once, in parallel). */
  const signed = new Map<string, string>();
  const check = (raw: Buffer | string): Promise<AuthResults> =>
    authenticator.authenticate({ raw: Buffer.from(raw), clientIp: '127.0.0.1', helo: 'sender.test', mailFrom: `sender@${DOMAIN}` });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-dkimpy-'));
    execFileSync(DKNEWKEY, [join(dir, 'rsa')], { cwd: dir, stdio: 'ignore' });
    execFileSync(DKNEWKEY, ['--ktype', 'ed25519', join(dir, 'ed')], { cwd: dir, stdio: 'ignore' });
    zone[`rsa._domainkey.${DOMAIN}`] = { TXT: [(await readFile(join(dir, 'rsa.dns'), 'utf8')).trim()] };
    zone[`ed._domainkey.${DOMAIN}`] = { TXT: [(await readFile(join(dir, 'ed.dns'), 'utf8')).trim()] };
    dns = await startDnsServer(zone);
    await Promise.all(CASES.map(async (c) => signed.set(c.name, await dkimsign([...c.args, c.selector, DOMAIN, join(dir, c.key)], MESSAGE))));
    authenticator = new MailauthAuthenticator(createNodeDnsResolver([dns.address], 1_000), 'mx.test', 3_000);
  });
  afterAll(async () => {
    await dns?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });


  it.each(CASES)('$name: the signed message passes', async ({ name, selector }) => {
    const result = await check(signed.get(name) as string);
    expect(result.dkimResult).toBe('pass');
    expect(result.authDiagnostics.dkim).toEqual([{ domain: DOMAIN, selector, result: 'pass', aligned: true, explanation: null }]);
  });

  it.each(CASES)('$name: a tampered body fails', async ({ name, selector }) => {
    const result = await check((signed.get(name) as string).replace('482913', '000000'));
    expect(result.dkimResult).toBe('fail');
    expect(result.authDiagnostics.dkim[0]).toMatchObject({ domain: DOMAIN, selector, result: 'fail', explanation: 'body hash did not verify' });
  });

  it.each(CASES)('$name: a tampered signed header fails', async ({ name }) => {
    const result = await check((signed.get(name) as string).replace('Subject: Your sign-in code', 'Subject: Your password reset'));
    expect(result.dkimResult).toBe('fail');
    expect(result.authDiagnostics.dkim[0]).toMatchObject({ result: 'fail', explanation: 'bad signature' });
  });

  it.skipIf(!existsSync(join(DKIMPY_DATA, 'rfc6376.signed.msg')))('the RFC 8463 example message (Ed25519 and RSA signatures) passes', async () => {
    zone['brisbane._domainkey.football.example.com'] = { TXT: ['v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo='] };
    zone['test._domainkey.football.example.com'] = { TXT: [readFileSync(join(DKIMPY_DATA, 'test.txt'), 'utf8').trim()] };
    const raw = readFileSync(join(DKIMPY_DATA, 'rfc6376.signed.msg'));
    const result = await authenticator.authenticate({ raw, clientIp: '127.0.0.1', helo: 'football.example.com', mailFrom: 'joe@football.example.com' });
    expect(result.dkimResult).toBe('pass');
    expect(result.authDiagnostics.dkim.map((d) => [d.selector, d.result])).toEqual([
      ['brisbane', 'pass'],
      ['test', 'pass'],
    ]);
  });
});
