import { generateKeyPairSync } from 'node:crypto';
import { authenticate, dkimSign, dkimVerify, sealMessage, type ARCSealOptions, type DNSResolver } from 'mailauth';
import { describe, expect, it } from 'vitest';
import { cachingDnsResolver } from '../dns/dns-answer-cache.js';
import { authResultsOf, MailauthAuthenticator, unsignedHeaderBlock, verifyHeaderBlock } from './mailauth.authenticator.js';

const headers = 'Received: from client.example ([192.0.2.1])\r\n\tby mx.example; Wed, 25 Nov 2026 10:00:00 +0000\r\nFrom: Alice <alice@sender.example>\r\nTo: bob@example.com\r\nSubject: hi\r\n';
const body = 'Your code is 482913.\r\n\r\nA second paragraph.\r\n';

const ZONE: Record<string, string[][]> = {
  'sender.example': [['v=spf1 ip4:192.0.2.0/24 -all']],
  '_dmarc.sender.example': [['v=DMARC1; p=reject']],
};
const resolver = async (name: string) => {
  const records = ZONE[name];
  if (records === undefined) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
  return records;
};
const check = (raw: Buffer) => authenticate(raw, { ip: '192.0.2.1', helo: 'client.example', sender: 'alice@sender.example', mta: 'mx.example', resolver, disableBimi: true });

describe('unsignedHeaderBlock', () => {
  it('gives an unsigned message\'s header block, blank line included, whether its lines end in CRLF or LF', () => {
    expect(unsignedHeaderBlock(Buffer.from(`${headers}\r\n${body}`))?.toString()).toBe(`${headers}\r\n`);
    const lf = `${headers}\n${body}`.replace(/\r\n/g, '\n');
    expect(unsignedHeaderBlock(Buffer.from(lf))?.toString()).toBe(`${headers.replace(/\r\n/g, '\n')}\n`);
  });

  it('gives none when a header may sign the body, or there is no body', () => {
    for (const signature of ['DKIM-Signature: v=1; a=rsa-sha256; d=sender.example; s=s1; bh=x; b=y\r\n', 'ARC-Seal: i=1; a=rsa-sha256; cv=none; d=sender.example; s=s1; b=y\r\n']) {
      expect(unsignedHeaderBlock(Buffer.from(`${signature}${headers}\r\n${body}`))).toBeNull();
    }
    expect(unsignedHeaderBlock(Buffer.from(headers))).toBeNull();
  });

  const unsignedMessages = [
    `${headers}\r\n${body}`,
    `${headers}\n${body}`.replace(/\r\n/g, '\n'),
    `${headers.replace('\r\nTo:', '\nTo:')}\r\n${body}`,
    `\n${headers}\n${body}`,
    `${headers}From: "Bob, Jr." <bob@other.example>, carol@third.example\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n${body}--b--\r\n`,
    `From: mallory@forged.example\r\nTo: bob@example.com\r\n\r\n${body}`,
    `Subject: no sender\r\n\r\n${body}`,
  ];

  it('gives mailauth\'s own results for unsigned messages: the body is not read', async () => {
    expect(await check(Buffer.from(unsignedMessages[0] as string))).toMatchObject({ spf: { status: { result: 'pass' } }, dmarc: { status: { result: 'pass' } } });
    for (const message of unsignedMessages) {
      const raw = Buffer.from(message);
      const block = unsignedHeaderBlock(raw);
      expect(block?.byteLength).toBeLessThan(raw.byteLength);
      expect(await check(block as Buffer)).toEqual(await check(raw));
    }
  });

  it('verifies a header block without mailauth\'s stream, to the same result, its hidden headers and ARC data included', async () => {
    for (const message of unsignedMessages) {
      const block = unsignedHeaderBlock(Buffer.from(message)) as Buffer;
      for (const sender of ['alice@sender.example', '']) {
        const expected = await dkimVerify(block, { resolver, sender });
        const result = await verifyHeaderBlock(block, { resolver, sender });
        expect(result).toEqual(expected);
        expect(Object.keys(result)).toEqual(Object.keys(expected));
        expect(result.arc).toEqual(expected.arc);
        expect(result.headers).toEqual(expected.headers);
      }
    }
  });
});

describe('MailauthAuthenticator', () => {
  const dkimKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const DKIM = { signingDomain: 'sender.example', selector: 's1', privateKey: dkimKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  const DKIM_RECORD = `v=DKIM1; k=rsa; p=${dkimKey.publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  const zone = (): Record<string, Record<string, string[][] | string[]>> => ({
    'sender.example': { TXT: [['v=spf1 ip4:192.0.2.0/24 a:mx.sender.example -all']] },
    'mx.sender.example': { A: ['198.51.100.25'] },
    '_dmarc.sender.example': { TXT: [['v=DMARC1; p=reject']] },
    's1._domainkey.sender.example': { TXT: [[DKIM_RECORD]] },
    'arc._domainkey.sealer.example': { TXT: [[DKIM_RECORD]] },
    'forged.example': { TXT: [['v=spf1 ~all']] },
  });
  const MTA = 'mx.example';

  /** A resolver over `records`, as dns.promises.resolve answers; A records carry a 5 s TTL for the caching one. */
  function dnsOver(records: ReturnType<typeof zone>) {
    const answer = async (name: string, rrtype: string) => {
      const found = records[name]?.[rrtype];
      if (found === undefined) throw Object.assign(new Error(`query ENOTFOUND ${name}`), { code: records[name] ? 'ENODATA' : 'ENOTFOUND' });
      return found;
    };
    let clock = 0;
    const caching = cachingDnsResolver(
      async (name, rrtype) => ({ records: await answer(name, rrtype), ...(rrtype === 'A' ? { ttlSeconds: 5 } : {}) }),
      { maxTtlMs: 60_000, negativeTtlMs: 15_000, maxEntries: 100 },
      () => clock,
    );
    return { answer, caching, advance: (ms: number) => (clock += ms) };
  }

  const signed = async (message: string) => Buffer.from((await dkimSign(message, { ...DKIM, signatureData: [DKIM] })).signatures + message);
  /** An ARC set from a forwarder whose key is published at arc._domainkey.sealer.example. */
  const sealed = async (message: Buffer) => {
    const seal = { signingDomain: 'sealer.example', selector: 'arc', privateKey: DKIM.privateKey, i: 1, cv: 'none', authResults: 'sealer.example; spf=pass smtp.mailfrom=sender.example' };
    return Buffer.concat([await sealMessage(message, seal as ARCSealOptions), message]);
  };
  const unsigned = `${headers}\r\n${body}`.replace('alice@sender.example', 'alice@Sender.example');
  const forged = `From: mallory@forged.example\r\nTo: bob@example.com\r\nSubject: hi\r\n\r\n${body}`;
  const envelopes = [
    { clientIp: '192.0.2.1', helo: 'client.example', mailFrom: 'alice@sender.example' },
    { clientIp: '198.51.100.25', helo: '', mailFrom: 'alice@sender.example' },
    { clientIp: '203.0.113.9', helo: '203.0.113.9', mailFrom: 'alice@sender.example' },
    { clientIp: '::ffff:192.0.2.1', helo: 'client.example', mailFrom: '' },
    { clientIp: '2001:db8::1', helo: 'client.example', mailFrom: 'mallory@forged.example' },
  ];

  it('gives what mailauth\'s authenticate gives, for signed and unsigned mail, whether its results come from the cache or not', async () => {
    const records = zone();
    const { answer, caching } = dnsOver(records);
    const uncached = new MailauthAuthenticator(answer, MTA, 5_000);
    const cached = new MailauthAuthenticator(caching, MTA, 5_000);
    const signedMessage = await signed(`${headers}\r\n${body}`);
    const tampered = Buffer.from(signedMessage.toString().replace('482913', '000000'));
    const messages = [Buffer.from(unsigned), Buffer.from(forged), signedMessage, tampered, await sealed(Buffer.from(unsigned))];
    const seen = new Set<string>();
    for (const envelope of envelopes) {
      for (const raw of messages) {
        const input = { raw, ...envelope };
        const expected = authResultsOf(
          await authenticate(raw, { ip: input.clientIp, helo: input.helo, sender: input.mailFrom, mta: MTA, resolver: answer as DNSResolver, disableBimi: true }),
          input.clientIp,
        );
        seen.add(`${expected.authSummary}, ${expected.authDiagnostics.dmarc.explanation}`);
        expect(await uncached.authenticate(input)).toEqual(expected);
        expect(await cached.authenticate(input)).toEqual(expected);
        expect(await cached.authenticate(input)).toEqual(expected);
      }
    }
    // Every outcome the zone can give was compared, an ARC-sealed message's included.
    const outcomes = [...seen].join('\n');
    for (const outcome of ['SPF: pass', 'SPF: fail', 'SPF: softfail', 'SPF: none', 'DKIM: pass', 'DKIM: fail', 'DKIM: none', 'DMARC: pass', 'DMARC: fail', 'DMARC: none', 'arc=pass']) {
      expect(outcomes).toContain(outcome);
    }
  });

  it('sees a changed SPF or DMARC record once the DNS answer its cached result was worked out from expires', async () => {
    const records = zone();
    const { caching, advance } = dnsOver(records);
    const authenticator = new MailauthAuthenticator(caching, MTA, 5_000);
    const fromMx = { raw: Buffer.from(unsigned), ...envelopes[1]! };
    const forgedInput = { raw: Buffer.from(forged), clientIp: '192.0.2.1', helo: 'client.example', mailFrom: 'mallory@forged.example' };
    const summaries = async () => [(await authenticator.authenticate(fromMx)).authSummary, (await authenticator.authenticate(forgedInput)).authSummary];
    expect(await summaries()).toEqual(['SPF: pass, DKIM: none, DMARC: pass', 'SPF: softfail, DKIM: none, DMARC: none']);

    records['mx.sender.example'] = { A: ['198.51.100.26'] };
    records['_dmarc.forged.example'] = { TXT: [['v=DMARC1; p=quarantine']] };
    advance(4_999);
    expect(await summaries()).toEqual(['SPF: pass, DKIM: none, DMARC: pass', 'SPF: softfail, DKIM: none, DMARC: none']);
    advance(1);
    expect(await summaries()).toEqual(['SPF: fail, DKIM: none, DMARC: fail', 'SPF: softfail, DKIM: none, DMARC: none']);
    advance(10_000);
    expect(await summaries()).toEqual(['SPF: fail, DKIM: none, DMARC: fail', 'SPF: softfail, DKIM: none, DMARC: fail']);

    records['sender.example'] = { TXT: [['v=spf1 ip4:198.51.100.0/24 -all']] };
    advance(44_999);
    expect((await authenticator.authenticate(fromMx)).authSummary).toBe('SPF: fail, DKIM: none, DMARC: fail');
    advance(1);
    expect((await authenticator.authenticate(fromMx)).authSummary).toBe('SPF: pass, DKIM: none, DMARC: pass');
  });
});
