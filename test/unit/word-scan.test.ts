import { describe, expect, it, vi } from 'vitest';
import { CODE_WORDS, CORE_CODE_WORD, NOT_CODE_WORDS } from '../../src/core/extract-words.js';
import { htmlToText } from '../../src/core/html-text.js';
import { prefixesOf, ScannedText } from '../../src/core/word-scan.js';
import { loadCorpus } from '../helpers/extraction-corpus.js';

const everyMatch = (pattern: RegExp, text: string) => [...text.matchAll(pattern)].map((match) => ({ start: match.index, end: match.index + match[0].length }));

/** Texts with every kind of cue: both corpora, and words inside words, compounds, scripts without spaces. */
const texts = [
  ...[...loadCorpus('hand-written'), ...loadCorpus('public')].flatMap((m) => [m.subject ?? '', m.text ?? '', m.html ? htmlToText(m.html) : '']),
  'Ihr Bestätigungscode: 4821; Einmalpasswort 9921; pushTAN 1234; mTAN; iTAN; zweifaktor; Zwei-Faktor-Code',
  'barcode, Postleitzahl 10115, code postal 75001, código promocional, Rechnungsnummer 8812, Kundennummer 7',
  '验证码为605218，認証コードは 4821、ワンタイムパスワード 9912、인증번호 7712, 인증 코드, Код подтверждения: 7391, кодом',
  'ONE-TIME PASSCODE, SINGLE USE, Log-in, LOG IN, sign-in, n° client 12, nº 7, Nr. 5, no. 9, ID 4, İstanbul code 4821',
  'xcode decode encoded codes códigos codice kodes kode kod',
];

describe('WordList.find', () => {
  it.each([
    ['CODE_WORDS', CODE_WORDS],
    ['CORE_CODE_WORD', CORE_CODE_WORD],
    ['NOT_CODE_WORDS', NOT_CODE_WORDS],
  ])('finds exactly what matchAll of %s finds', (_name, list) => {
    for (const text of texts) expect(list.find(new ScannedText(text)), text.slice(0, 60)).toEqual(everyMatch(list.pattern, text));
  });

  it('finds the same in a text longer than the reused array of code units', () => {
    const long = texts.join('\n').repeat(Math.ceil((1 << 17) / texts.join('\n').length));
    expect(CODE_WORDS.find(new ScannedText(long))).toEqual(everyMatch(CODE_WORDS.pattern, long));
  });

  it('finds the same without Node\'s Buffer, as in the dashboard\'s browser bundle', async () => {
    vi.resetModules();
    vi.stubGlobal('Buffer', undefined);
    try {
      const browser = await import('../../src/core/word-scan.js');
      for (const text of texts) expect(new browser.ScannedText(text).wordStarts, text.slice(0, 60)).toEqual(new ScannedText(text).wordStarts);
    } finally {
      vi.unstubAllGlobals();
      vi.resetModules();
    }
  });

  it('derives the prefixes a pattern can start with', () => {
    expect(prefixesOf('c[oó]digos?', 2).sort()).toEqual(['co', 'có']);
    expect(prefixesOf('(?:push|sms|m)?tan', 2).sort()).toEqual(['mt', 'pu', 'sm', 'ta']);
    expect(prefixesOf('log[- ]?in', 3).sort()).toEqual(['log']);
    expect(prefixesOf('nr\\.?', 3).sort()).toEqual(['nr', 'nr.']);
    expect(() => prefixesOf('\\p{L}*code', 2)).toThrow(/class/);
  });
});
