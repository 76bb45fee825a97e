import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { extractArtefacts, extractWithinBudget, type Extracted } from './extract.js';
import { textLinks } from './extract-links.js';

interface Expected {
  codes?: string[];
  otp?: string;
  verificationCode?: string;
  magicLink?: string;
  links?: Array<{ url: string; kind: string }>;
}

interface CorpusMessage {
  name: string;
  text?: string;
  html?: string;
  expect: Expected;
}

const CORPUS_DIR = join(import.meta.dirname, '../../test/fixtures/extraction');
const corpus: Array<CorpusMessage & { file: string }> = readdirSync(CORPUS_DIR)
  .filter((file) => file.endsWith('.yaml'))
  .flatMap((file) => (yaml.load(readFileSync(join(CORPUS_DIR, file), 'utf8')) as CorpusMessage[]).map((message) => ({ ...message, file })));

/**
 * Each artefact is one item: every code, otp, verificationCode, magicLink and every link whose kind
 * is not "other". verificationCode, when not given, is expected to equal otp.
 */
function expectedItems(expected: Expected): Set<string> {
  const verificationCode = expected.verificationCode ?? expected.otp;
  return new Set([
    ...(expected.codes ?? []).map((code) => `code:${code}`),
    // otp is the code to type in any alphabet: entries that name only a verificationCode expect it as otp too.
    ...(expected.otp ?? expected.verificationCode ? [`otp:${expected.otp ?? expected.verificationCode}`] : []),
    ...(verificationCode ? [`verificationCode:${verificationCode}`] : []),
    ...(expected.magicLink ? [`magicLink:${expected.magicLink}`] : []),
    ...(expected.links ?? []).map((link) => `link:${link.kind}:${link.url}`),
  ]);
}

function foundItems(found: Extracted): Set<string> {
  return new Set([
    ...found.codes.map((code) => `code:${code}`),
    ...(found.otp ? [`otp:${found.otp}`] : []),
    ...(found.verificationCode ? [`verificationCode:${found.verificationCode}`] : []),
    ...(found.magicLink ? [`magicLink:${found.magicLink}`] : []),
    ...found.links.filter((link) => link.kind !== 'other').map((link) => `link:${link.kind}:${link.url}`),
  ]);
}

/**
 * CPU milliseconds `work` took in this process: unlike wall time, it does not grow when test files
 * running beside this one take the other core (vitest.config.ts). A quadratic scan takes minutes.
 */
function cpuMsOf(work: () => unknown): number {
  const before = process.cpuUsage();
  work();
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}

describe('extractArtefacts', () => {
  it('holds a corpus of at least 60 messages in five languages', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(60);
    expect(new Set(corpus.map((m) => m.file))).toEqual(new Set(['en.yaml', 'de.yaml', 'fr.yaml', 'es.yaml', 'pt.yaml', 'traps.yaml']));
  });

  it('keeps precision and recall at or above 0.95 over the corpus', () => {
    let truePositives = 0;
    let predicted = 0;
    let relevant = 0;
    const misses: string[] = [];
    for (const message of corpus) {
      const expected = expectedItems(message.expect);
      const found = foundItems(extractArtefacts(message.text ?? '', message.html ?? null));
      predicted += found.size;
      relevant += expected.size;
      for (const item of found) {
        if (expected.has(item)) truePositives += 1;
        else misses.push(`${message.file} ${message.name}: unexpected ${item}`);
      }
      for (const item of expected) if (!found.has(item)) misses.push(`${message.file} ${message.name}: missed ${item}`);
    }
    const precision = predicted === 0 ? 1 : truePositives / predicted;
    const recall = relevant === 0 ? 1 : truePositives / relevant;
    console.log(`extraction corpus: ${corpus.length} messages, ${relevant} artefacts; precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}`);
    if (misses.length > 0) console.log(misses.join('\n'));
    expect(precision).toBeGreaterThanOrEqual(0.95);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  it('reads visible text and anchors only: not CSS, comments, scripts or tracking pixels', () => {
    const html = `<html><head><style>.c{color:#482913}</style><script>var code = 739104;</script></head><body>
      <!-- verification code 551234 -->
      <img src="https://t.example/pixel.gif?code=884422&u=9f8e7d6c5b4a39281706" alt="">
      <p>Welcome aboard.</p></body></html>`;
    expect(extractArtefacts('', html)).toEqual({ otp: null, verificationCode: null, links: [], codes: [], magicLink: null });
  });

  it('keeps link text and the kind "other" for links that are not auth links', () => {
    const found = extractArtefacts('', '<p><a href="https://example.com/pricing">See &amp; compare plans</a></p>');
    expect(found.links).toEqual([{ url: 'https://example.com/pricing', text: 'See & compare plans', kind: 'other' }]);
  });

  it('names a generic "verify" button by the action the sentence around it asks for', () => {
    const url = 'https://social.example/auth/confirmation?confirmation_token=vP3xQz8sKm2RtYwL9aNf';
    const button = `<a href="${url}">Verify email address</a>`;
    const kindIn = (html: string) => extractArtefacts('', html).links[0]?.kind;
    expect(kindIn(`<p>Confirm the new address to change your email.</p><p>${button}</p>`)).toBe('email-change');
    expect(kindIn(`<p>You have created an account with this email address.</p><p>${button}</p>`)).toBe('verification');
    const reset = (sentence: string) => `<p>${sentence}<br><a href="https://forum.example/u/password-reset/9d1c7e3a5b2f48e06a4c8d2e1f7b3a96">https://forum.example/u/password-reset/9d1c7e3a5b2f48e06a4c8d2e1f7b3a96</a></p>`;
    expect(kindIn(reset('Click the following link to choose a password for your new account:'))).toBe('set-password');
    expect(kindIn(reset('Click the following link to choose a new password:'))).toBe('password-reset');
  });

  it('stays fast on a large newsletter (it runs on every ingest)', () => {
    const block = '<tr><td><a href="https://shop.example/p/12345?utm=x">Item 12345</a> now $19.99, order by 2026-12-01. Call 555-123-4567.</td></tr>';
    const html = `<table>${block.repeat(2_000)}</table>`;
    expect(cpuMsOf(() => extractArtefacts(html.replace(/<[^>]+>/g, ' '), html))).toBeLessThan(1_000);
  });

  it.each([
    ['unterminated comments', '<!--'.repeat(100_000)],
    ['unterminated scripts', '<script>'.repeat(50_000)],
    ['unclosed anchors', '<a href="https://x.example/v?token=abcdefghijklmnop">'.repeat(8_000)],
    ['bare angle brackets', '<'.repeat(400_000)],
    ['unclosed tags', '<td'.repeat(130_000)],
    ['unmatched closing tags', '</b>'.repeat(100_000)],
    ['an entity that never ends', `&${'a'.repeat(400_000)}`],
    ['URLs on one line', 'https://a.example/x '.repeat(20_000)],
  ])('reads 400 KB of %s in linear time (issue 20: the old regexes took minutes)', (_name, hostile) => {
    // About 0.5 s of CPU on a quiet machine; the bound leaves room for a loaded CI runner (2.07 s seen) and still fails a quadratic scan by minutes.
    expect(cpuMsOf(() => extractArtefacts(hostile, hostile))).toBeLessThan(5_000);
  });

  it('reads no further than the cap, and gives up past its time budget without throwing', () => {
    const late = `${'x '.repeat(600)}Your code is 482913.`;
    expect(extractArtefacts(late, null, '', { maxChars: 1024, budgetMs: 100 }).otp).toBeNull();
    expect(extractArtefacts(late, null, '', { maxChars: 4096, budgetMs: 100 }).otp).toBe('482913');
    const links = '<p><a href="https://app.example/verify?token=abcdef123456">verify</a></p>'.repeat(20_000);
    expect(extractWithinBudget('', links, '', { maxChars: 2_000_000, budgetMs: 1 })).toEqual({ extracted: null, extractionSkipped: 'time-budget' });
  });

  it.each([
    ['letters in groups', 'Your password reset code is listed below.\n\nHZCB-PLFG\n', 'HZCB-PLFG'],
    ['capital letters', 'Your sign-in code is listed below.\n\nHJJKIB\n', 'HJJKIB'],
    ['mixed case', 'Use code wRw8IrRO to sign in.', 'wRw8IrRO'],
    ['letters then digits', 'Verification code: UCM743', 'UCM743'],
    ['a Russian cue', 'Код для получения: 7391', '7391'],
    ['a Japanese cue', '次のコードを入力してください。\n\n605218', '605218'],
    ['a Chinese cue', '您的验证码为 482913，五分钟内有效。', '482913'],
  ])('takes a code of any shape as otp: %s', (_name, text, otp) => {
    expect(extractArtefacts(text, null).otp).toBe(otp);
  });

  it.each([
    ['a colour', 'Your verification code theme colour is #FF5733.'],
    ['a model number in prose', 'Enter the code shown on your ACME XR500 model to pair it.'],
    ['capitalised words', 'Enter the code from the app.\n\nWELCOME TO ACME\n'],
    ['a year, a price and a phone', 'Your code expires in 2026. Pay $1299 or call +1 415 555 0100 for a code.'],
  ])('takes no code from %s', (_name, text) => {
    expect(extractArtefacts(text, null).codes).toEqual([]);
  });

  it('reads a code set apart in HTML (bold, large or monospace type) and from the subject line', () => {
    expect(extractArtefacts('', '<p>Use the code below to verify your identity.</p><p style="font-size:32px">K7PQ2X</p>').otp).toBe('K7PQ2X');
    expect(extractArtefacts('', '<h2>Your verification code</h2><p>It expires shortly.</p>', '318452 is your verification code').otp).toBe('318452');
  });
});

describe('textLinks', () => {
  const links = (text: string) => textLinks(text, () => {}).map(({ url, text: own, kind }) => [url, own, kind]);

  it('names a URL by the rest of its line, else by the nearer non-blank of the two lines above (CRLF, CR and LF alike)', () => {
    expect(links('Reset your password:\r\n\r\nhttps://acme.example/reset?token=abcdef1234567890abcdef\r\nThanks')).toEqual([
      ['https://acme.example/reset?token=abcdef1234567890abcdef', 'Reset your password', 'password-reset'],
    ]);
    expect(links('Confirm your email\n\n\nhttps://acme.example/confirm?token=abcdefabcdefabcdefabcdef')).toEqual([
      ['https://acme.example/confirm?token=abcdefabcdefabcdefabcdef', '', 'verification'],
    ]);
    expect(links('\nhttps://acme.example/login?code=123456789\n\n\nhttps://acme.example/unsubscribe\rOld Mac line: https://acme.example/x')).toEqual([
      ['https://acme.example/login?code=123456789', '', 'magic-login'],
      ['https://acme.example/unsubscribe', '', 'unsubscribe'],
      ['https://acme.example/x', 'Old Mac line', 'other'],
    ]);
  });

  it('reads each of several URLs on one line with the text around it on that line only', () => {
    expect(links('https://acme.example/a first line\nSee https://acme.example/b and https://acme.example/verify?token=zzzzzzzzzzzzzzzzzz.\n')).toEqual([
      ['https://acme.example/a', 'first line', 'other'],
      ['https://acme.example/b', 'See and https://acme.example/verify?token=zzzzzzzzzzzzzzzzzz.', 'other'],
      ['https://acme.example/verify?token=zzzzzzzzzzzzzzzzzz', 'See https://acme.example/b and', 'verification'],
    ]);
  });
});
