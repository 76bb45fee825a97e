import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchWords } from '../../src/core/search-query.js';
import { firstCharacters, quotedLexeme, searchVectorText, type SearchVectorField } from '../../src/core/search-vector.js';
import { createPostgresDatabase, TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';

warnIfPostgresSkipped();

interface Email {
  subject: string;
  from: string;
  recipients: string;
  body: string | null;
}

const fields = (e: Email): SearchVectorField[] => [
  { text: e.subject, weight: 'A' },
  { text: e.from, weight: 'B' },
  { text: e.recipients, weight: 'C' },
  { text: firstCharacters(e.body ?? '', 100_000), weight: 'D' },
];

const words = (n: number, word = (i: number) => `w${i % 997}`) => Array.from({ length: n }, (_, i) => word(i)).join(' ');
const email = (body: string | null, subject = 'Weekly digest', from = 'news@acme.example'): Email => ({ subject, from, recipients: 'a@b.example, c@d.example', body });

/** Text PostgreSQL's parser and searchWords split and lower-case alike: the literal must equal the generated column of migration 0020. */
const SAME_WORDS: Record<string, Email> = {
  ascii: email('Your verification code is 482913. Welcome aboard!'),
  'letters and digits': email('abc123 123abc a1b2c3 1e5 0x1F 007 3.14 v1.2.3 foo_bar foo-bar'),
  cyrillic: email('Привет, МИР! Ёжик в тумане.', 'Счёт №42'),
  cjk: email('日本語のテキスト 中文文本 한국어 텍스트'),
  'german ß and accents': email('Straße STRASSE Éclair café naïve Ångström', 'Grüße'),
  emoji: email('hello 👋 world 🎉🎉 ok', 'Party 🎉 time'),
  'combining marks': email('cafe\u0301 nai\u0308ve'),
  'empty and null body': email(null, '', ''),
  'empty body': email(''),
  quotes: email("it's a \\ back'slash 'quoted'"),
  'long words': email(`x ${'b'.repeat(2046)} ${'c'.repeat(2047)} ${'d'.repeat(2048)} ${'я'.repeat(1023)} ${'ж'.repeat(1024)} y`),
  'over 16383 words': email(`${words(17_000)} tail end`, words(300), 'many@words.example'),
  'a word over 256 times in every field': email(words(600, () => 'spam'), words(300, () => 'spam'), words(300, () => 'spam')),
  'a word at the position limit in several fields': email('spam tail', words(16_390, () => 'z') + ' spam', 'spam'),
  'a 100,000 character body': email('x'.repeat(10) + ' ' + words(30_000).slice(0, 200_000)),
  'a body of emoji past 100,000 characters': email('😀 a '.repeat(30_000)),
};

/**
 * Where searchWords and PostgreSQL's parser disagree. The query side looks for searchWords' words, so
 * the literal follows it: these searches now find what they ask for (docs/decisions.md D53).
 */
const DIFFERENT_WORDS: Record<string, { email: Email; query: string }> = {
  'Turkish İ': { email: email('İstanbul'), query: 'İstanbul' },
  'final sigma': { email: email('ΟΔΟΣ'), query: 'ΟΔΟΣ' },
  'superscript digit': { email: email('x² area'), query: 'x²' },
  'Devanagari vowel signs': { email: email('हिन्दी पाठ'), query: 'हिन्दी' },
};

describe.skipIf(!TEST_DIALECTS.includes('postgres'))('searchVectorText equals what PostgreSQL generated (migration 0020)', () => {
  let database: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let client: pg.Client;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await database?.drop();
  });

  const words = (column: string) => `to_tsvector('simple', regexp_replace(${column}, '[^[:alnum:]]+', ' ', 'g'))`;
  const generated = `setweight(${words('$1::text')}, 'A') || setweight(${words('$2::text')}, 'B') || setweight(${words('$3::text')}, 'C') || setweight(${words(`left(coalesce($4::text, ''), 100000)`)}, 'D')`;

  const both = async (e: Email) => {
    const { rows } = await client.query<{ generated: string; ours: string }>(`select (${generated})::text as generated, $5::tsvector::text as ours`, [
      e.subject,
      e.from,
      e.recipients,
      e.body,
      searchVectorText(fields(e)),
    ]);
    return rows[0] as { generated: string; ours: string };
  };

  it.each(Object.entries(SAME_WORDS))('%s', async (_name, e) => {
    const { generated: expected, ours } = await both(e);
    expect(ours).toBe(expected);
  });

  it.each(Object.entries(DIFFERENT_WORDS))('%s: the query side’s words, which the search looks for', async (_name, { email: e, query }) => {
    const { generated: expected, ours } = await both(e);
    expect(ours).not.toBe(expected);
    const phrase = searchWords(query).map(quotedLexeme).join(' <-> ');
    const found = async (vector: string) => (await client.query<{ found: boolean }>(`select $1::tsvector @@ $2::tsquery as found`, [vector, phrase])).rows[0]?.found;
    expect(await found(ours)).toBe(true);
  });
});
