import { describe, expect, it } from 'vitest';
import { FailureWindow } from '../../src/core/login-throttle.js';
import { MimeScanner, scanMime, type MimeEntity } from '../../src/core/mime-structure.js';
import { parseAddressList } from '../../src/transports/imap/address-list.js';
import { parseCommand } from '../../src/transports/imap/imap-parser.js';
import { parseSearch } from '../../src/transports/imap/search-criteria.js';
import { parseSection, SectionSyntaxError } from '../../src/transports/imap/sections.js';
import { inSequenceSet, parseSequenceSet } from '../../src/transports/imap/sequence-set.js';
import { MIME_CORPUS } from '../fixtures/mime-corpus.js';

const shape = (e: MimeEntity): unknown => ({
  range: [e.headerStart, e.bodyStart, e.bodyEnd, e.bodyLines],
  type: `${e.contentType.type}/${e.contentType.subtype}`,
  children: e.children.map(shape),
  message: e.message && shape(e.message),
});

describe('MimeScanner', () => {
  it.each(MIME_CORPUS.map((m) => [m.name, m.raw] as const))('finds the same structure when fed in 1-byte and 7-byte chunks: %s', (_name, raw) => {
    const bytes = Buffer.from(raw, 'latin1');
    const whole = shape(scanMime(bytes));
    for (const size of [1, 7]) {
      const scanner = new MimeScanner();
      for (let i = 0; i < bytes.length; i += size) scanner.push(bytes.subarray(i, i + size));
      expect(shape(scanner.end())).toEqual(whole);
    }
  });

  it('handles LF-only line endings and a message without a blank line after the header', () => {
    const lf = scanMime(Buffer.from('Content-Type: multipart/mixed; boundary=x\n\n--x\n\nbody\n--x--\n'));
    expect(lf.children).toHaveLength(1);
    expect(lf.children[0]?.bodyEnd).toBe((lf.children[0]?.bodyStart ?? 0) + 4);
    const headerOnly = scanMime(Buffer.from('Subject: no body'));
    expect(headerOnly.bodyStart).toBe(headerOnly.bodyEnd);
    expect(headerOnly.fields).toEqual([{ name: 'Subject', value: 'no body', folded: false }]);
  });
});

describe('IMAP command syntax', () => {
  it('parses tags, UID commands, quoted strings, literals, lists and bracketed sections', () => {
    const command = parseCommand(['a1 uid fetch 1:* (UID BODY.PEEK[HEADER.FIELDS (DATE FROM)]<0.100> FLAGS)']);
    expect(command.tag).toBe('a1');
    expect(command.name).toBe('UID FETCH');
    expect(command.args[1]).toEqual({
      type: 'list',
      items: [
        { type: 'atom', value: 'UID' },
        { type: 'atom', value: 'BODY.PEEK[HEADER.FIELDS (DATE FROM)]<0.100>' },
        { type: 'atom', value: 'FLAGS' },
      ],
    });
    const login = parseCommand(['x LOGIN ', Buffer.from('user@example.com'), ' "pa\\"ss"']);
    expect(login.args).toEqual([
      { type: 'string', value: 'user@example.com' },
      { type: 'string', value: 'pa"ss' },
    ]);
  });

  it('rejects unbalanced input and reports the tag', () => {
    expect(() => parseCommand(['t9 SEARCH (FROM x'])).toThrow(expect.objectContaining({ tag: 't9' }));
    expect(() => parseCommand(['t9 LOGIN "open'])).toThrow(/unterminated/);
  });

  it('reads sequence sets with *, reversed ranges and lists', () => {
    const set = parseSequenceSet('5:3,9,12:*') ?? [];
    expect([1, 3, 4, 5, 6, 9, 12, 20].filter((n) => inSequenceSet(set, n, 20))).toEqual([3, 4, 5, 9, 12, 20]);
    // "n:*" with n above the largest UID still matches the largest (RFC 3501 §6.4.8).
    expect(inSequenceSet(parseSequenceSet('30:*') ?? [], 20, 20)).toBe(true);
    expect(parseSequenceSet('0')).toBeUndefined();
    expect(parseSequenceSet('1:2:3')).toBeUndefined();
  });

  it('parses section specifiers and refuses malformed ones', () => {
    expect(parseSection('')).toEqual({ path: [], text: 'ALL', fields: [] });
    expect(parseSection('2.1.MIME')).toEqual({ path: [2, 1], text: 'MIME', fields: [] });
    expect(parseSection('header.fields.not (Received "X-Spam")')).toEqual({ path: [], text: 'HEADER.FIELDS.NOT', fields: ['Received', 'X-Spam'] });
    for (const bad of ['MIME', '0', '1.', 'HEADER.FIELDS', 'TEXT (A)', '1HEADER']) expect(() => parseSection(bad)).toThrow(SectionSyntaxError);
  });

  it('parses SEARCH programs with CHARSET, OR, NOT and nested lists', () => {
    const { criterion, charset } = parseSearch(parseCommand(['s SEARCH CHARSET UTF-8 OR (FROM a SUBJECT b) NOT SEEN 1:3']).args);
    expect(charset).toBe('UTF-8');
    // OR takes the parenthesised list and NOT SEEN; the sequence set is ANDed with it.
    expect(criterion).toMatchObject({ op: 'and', all: [{ op: 'or', a: { op: 'and' }, b: { op: 'not', c: { op: 'seen', value: true } } }, { op: 'seq' }] });
  });
});

describe('ENVELOPE addresses', () => {
  it('keeps groups, quoted names with commas, routes and comments', () => {
    expect(parseAddressList('"Doe, J" <j@x.org>, team: a@x.org, b@y.org;, <@relay.example:c@z.org>, d@w.org (Dee)')).toEqual([
      { name: 'Doe, J', route: null, mailbox: 'j', host: 'x.org' },
      { name: null, route: null, mailbox: 'team', host: null },
      { name: null, route: null, mailbox: 'a', host: 'x.org' },
      { name: null, route: null, mailbox: 'b', host: 'y.org' },
      { name: null, route: null, mailbox: null, host: null },
      { name: null, route: '@relay.example', mailbox: 'c', host: 'z.org' },
      { name: 'Dee', route: null, mailbox: 'd', host: 'w.org' },
    ]);
  });
});

describe('FailureWindow', () => {
  it("counts a key's failures until each leaves the window", () => {
    let now = 0;
    const window = new FailureWindow(1000, () => now);
    window.fail('a');
    now = 500;
    window.fail('a');
    expect(window.count('a')).toBe(2);
    expect(window.count('b')).toBe(0);
    now = 1001;
    expect(window.count('a')).toBe(1);
  });
});
