import { describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors.js';
import { parseSearchQuery, searchWords } from './search-query.js';

const rejects = (q: string, message: RegExp) => {
  expect(() => parseSearchQuery(q)).toThrow(InvalidInputError);
  expect(() => parseSearchQuery(q)).toThrow(message);
};

describe('parseSearchQuery', () => {
  it('reads free words, fields, phrases and exclusions', () => {
    expect(parseSearchQuery('482913 from:news@acme.example subject:"Your Code" -spam to:bob')).toEqual({
      terms: [
        { field: 'text', words: ['482913'], negated: false },
        { field: 'from', words: ['news', 'acme', 'example'], negated: false },
        { field: 'subject', words: ['your', 'code'], negated: false },
        { field: 'text', words: ['spam'], negated: true },
        { field: 'to', words: ['bob'], negated: false },
      ],
    });
    expect(parseSearchQuery('"verify your account"  -"old news"').terms).toEqual([
      { field: 'text', words: ['verify', 'your', 'account'], negated: false },
      { field: 'text', words: ['old', 'news'], negated: true },
    ]);
  });

  it('reads the filters, a negated filter meaning the opposite', () => {
    expect(parseSearchQuery('is:unread has:attachment after:2026-11-01 before:2026/11/20')).toEqual({
      terms: [],
      read: false,
      hasAttachment: true,
      after: '2026-11-01T00:00:00.000Z',
      before: '2026-11-20T00:00:00.000Z',
    });
    expect(parseSearchQuery('-is:read -has:attachment -before:2026-01-02')).toEqual({ terms: [], read: false, hasAttachment: false, after: '2026-01-02T00:00:00.000Z' });
    expect(parseSearchQuery('IS:READ')).toEqual({ terms: [], read: true });
  });

  it('treats an unknown prefix as text, so a pasted URL is searchable', () => {
    expect(parseSearchQuery('https://app.example/verify').terms).toEqual([{ field: 'text', words: ['https', 'app', 'example', 'verify'], negated: false }]);
  });

  it('is empty for an empty or blank query', () => {
    expect(parseSearchQuery('   ')).toEqual({ terms: [] });
  });

  it('rejects what it cannot mean, naming the mistake', () => {
    rejects('subject:"unclosed phrase', /opening quote/);
    rejects('"', /opening quote/);
    rejects('x'.repeat(10_000), /longer than 1000/);
    rejects('is:starred', /is: takes read or unread/);
    rejects('has:pdf', /has: takes attachment/);
    rejects('before:yesterday', /YYYY-MM-DD/);
    rejects('after:2026-02-30', /YYYY-MM-DD/);
    rejects('is:read is:unread', /twice/);
    rejects('from:', /no letters or digits/);
    rejects('a - b', /no letters or digits/);
    rejects('foo"bar"', /must start a term/);
    rejects(Array.from({ length: 21 }, (_, i) => `w${i}`).join(' '), /more than 20 terms/);
  });
});

describe('searchWords', () => {
  const bySplit = (text: string) => text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
  // Letters, digits and separators of several scripts, astral letters and digits, an emoji, lone
  // surrogates both ways round, marks, and the capital dotted I that lower-cases to two code points.
  const pieces = ['a', 'Z', '7', ' ', '-', '.', '@', 'é', 'Ä', 'ß', 'İ', 'ı', 'Ω', 'ж', 'Ж', '中', '文', 'の', '٣', '²', '\u0301', '\u00a0', '\u2028', '𝐀', '𝟙', '😀', '\ud800', '\udc00', 'x\ud800', '\udc00y', '\t', '\n'];

  it('gives the words of the Unicode split, on generated texts', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 2000; i++) {
      let text = '';
      for (let n = next() % 24; n > 0; n--) text += pieces[next() % pieces.length];
      expect(searchWords(text), JSON.stringify(text)).toEqual(bySplit(text));
    }
  });

  it('gives the words of the Unicode split on prose', () => {
    const prose = 'Bonjour! Votre code est 482913. Straße İstanbul — 東京 ２０２６ 𝐁old 😀done';
    expect(searchWords(prose)).toEqual(bySplit(prose));
    expect(searchWords('')).toEqual([]);
  });

  it('reads texts longer than the reused array of code units, and that array again after one', () => {
    const long = 'Straße 𝐁old x\ud800 '.repeat(5000);
    expect(long.length).toBeGreaterThan(1 << 16);
    expect(searchWords(long)).toEqual(bySplit(long));
    expect(searchWords('Ça va 2026')).toEqual(['ça', 'va', '2026']);
  });
});
