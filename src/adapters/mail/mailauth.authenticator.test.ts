import { authenticate } from 'mailauth';
import { describe, expect, it } from 'vitest';
import { bytesToAuthenticate } from './mailauth.authenticator.js';

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

describe('bytesToAuthenticate', () => {
  it('gives an unsigned message\'s header block, blank line included, whether its lines end in CRLF or LF', () => {
    expect(bytesToAuthenticate(Buffer.from(`${headers}\r\n${body}`)).toString()).toBe(`${headers}\r\n`);
    const lf = `${headers}\n${body}`.replace(/\r\n/g, '\n');
    expect(bytesToAuthenticate(Buffer.from(lf)).toString()).toBe(`${headers.replace(/\r\n/g, '\n')}\n`);
  });

  it('keeps the whole message when a header may sign the body, or there is no body', () => {
    for (const signature of ['DKIM-Signature: v=1; a=rsa-sha256; d=sender.example; s=s1; bh=x; b=y\r\n', 'ARC-Seal: i=1; a=rsa-sha256; cv=none; d=sender.example; s=s1; b=y\r\n']) {
      const raw = Buffer.from(`${signature}${headers}\r\n${body}`);
      expect(bytesToAuthenticate(raw)).toBe(raw);
    }
    const headersOnly = Buffer.from(headers);
    expect(bytesToAuthenticate(headersOnly)).toBe(headersOnly);
  });

  it('gives mailauth\'s own results for unsigned messages: the body is not read', async () => {
    const messages = [
      `${headers}\r\n${body}`,
      `${headers}\n${body}`.replace(/\r\n/g, '\n'),
      `${headers}MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n${body}--b--\r\n`,
      `From: mallory@forged.example\r\nTo: bob@example.com\r\n\r\n${body}`,
    ];
    expect(await check(Buffer.from(messages[0] as string))).toMatchObject({ spf: { status: { result: 'pass' } }, dmarc: { status: { result: 'pass' } } });
    for (const message of messages) {
      const raw = Buffer.from(message);
      expect(bytesToAuthenticate(raw).byteLength).toBeLessThan(raw.byteLength);
      expect(await check(bytesToAuthenticate(raw))).toEqual(await check(raw));
    }
  });
});
