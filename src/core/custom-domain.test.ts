import { describe, expect, it } from 'vitest';
import { expectedRecords, judgeRecord, parseCustomDomain, zoneCandidates, zoneContains } from './custom-domain.js';

const reserved = ['mailroom.test', 'mx.mailroom.test'];

describe('parseCustomDomain', () => {
  it('accepts host names, lower-cased, without the root dot', () => {
    expect(parseCustomDomain(' Mail.Example.COM. ', reserved)).toEqual({ ascii: 'mail.example.com', unicode: 'mail.example.com' });
  });

  it('stores IDN names as punycode with the Unicode form beside it', () => {
    expect(parseCustomDomain('Bücher.example', reserved)).toEqual({ ascii: 'xn--bcher-kva.example', unicode: 'bücher.example' });
    expect(parseCustomDomain('xn--bcher-kva.example', reserved)).toEqual({ ascii: 'xn--bcher-kva.example', unicode: 'bücher.example' });
  });

  it.each([
    ['192.0.2.1', 'IP address'],
    ['[2001:db8::1]', 'IP address'],
    ['2001:db8::1', 'IP address'],
    ['localhost', 'two labels'],
    ['com', 'two labels'],
    ['foo.localhost', '.localhost'],
    ['co.uk', 'public suffix'],
    ['github.io', 'public suffix'],
    ['mailroom.test', "Mailroom's own"],
    ['a.b.mailroom.test', "Mailroom's own"],
    ['exa mple.com', 'not a valid'],
    ['-bad.example.com', 'labels'],
    ['under_score.example.com', 'labels'],
    ['a..b.com', 'labels'],
    [`${'a'.repeat(64)}.com`, 'labels'],
    [`${'abcdefghi.'.repeat(26)}com`, 'at most 253'],
    ['', 'not a valid'],
  ])('refuses %j (%s)', (input, reason) => {
    const result = parseCustomDomain(input, reserved);
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining(reason) });
  });

  it('accepts a domain that merely ends like a reserved one', () => {
    expect(parseCustomDomain('notmailroom.test', reserved)).toMatchObject({ ascii: 'notmailroom.test' });
  });
});

describe('records', () => {
  const [mx, txt] = expectedRecords('mail.example.com', 'abc123', 'mx.mailroom.test');

  it('asks for an MX at the domain and a TXT under _mailroom', () => {
    expect(mx).toMatchObject({ type: 'MX', name: 'mail.example.com', value: 'mx.mailroom.test', priority: 10, status: 'pending' });
    expect(txt).toMatchObject({ type: 'TXT', name: '_mailroom.mail.example.com', value: 'mailroom-verification=abc123', status: 'pending' });
  });

  it('matches MX hosts case-insensitively with or without the root dot, among other values', () => {
    const judged = judgeRecord(mx!, { kind: 'found', values: ['backup.example.net', 'MX.Mailroom.Test.'] }, '2026-01-01T00:00:00.000Z');
    expect(judged).toMatchObject({ status: 'verified', error: null, checkedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('names what was found when the value is wrong, and says when the record is missing or the lookup failed', () => {
    expect(judgeRecord(txt!, { kind: 'found', values: ['v=spf1 -all', 'mailroom-verification=old'] }, 'now')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('"mailroom-verification=old"'),
    });
    expect(judgeRecord(mx!, { kind: 'missing' }, 'now').error).toContain('no MX mail.example.com record found');
    expect(judgeRecord(txt!, { kind: 'error', reason: 'ETIMEOUT' }, 'now').error).toContain('lookup of TXT _mailroom.mail.example.com failed: ETIMEOUT');
  });
});

describe('zones', () => {
  it('lists candidate zones longest first, down to the registrable domain', () => {
    expect(zoneCandidates('a.mail.example.co.uk')).toEqual(['a.mail.example.co.uk', 'mail.example.co.uk', 'example.co.uk']);
    expect(zoneCandidates('example.com')).toEqual(['example.com']);
  });

  it('knows which zone holds a name', () => {
    expect(zoneContains('Example.com.', 'mail.example.com')).toBe(true);
    expect(zoneContains('ample.com', 'mail.example.com')).toBe(false);
  });
});
