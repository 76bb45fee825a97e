import { describe, expect, it } from 'vitest';
import { makeSnippet } from './email.js';

/** The snippet as it was defined before it folded only the start of the text. */
function foldingAll(text: string): string {
  const folded = text.replace(/\s+/g, ' ').trim();
  if (folded.length <= 100) return folded;
  const cut = folded.slice(0, 100);
  const lastSpace = cut.lastIndexOf(' ');
  return (lastSpace > 70 ? cut.slice(0, lastSpace) : cut) + '…';
}

describe('makeSnippet', () => {
  it('is the snippet of the whole folded text, however the whitespace falls around its cut', () => {
    const pieces = ['word', 'x', 'longerwordhere', ' ', '  ', '\n', '\r\n\t ', '\u00a0', '\u2028', 'é', '😀'];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let sample = 0; sample < 3000; sample++) {
      const length = next() % 400;
      let text = '';
      for (let i = 0; i < length; i++) text += pieces[next() % pieces.length];
      expect(makeSnippet(text)).toBe(foldingAll(text));
    }
  });

  it('cuts a long body at a word boundary, and leaves short or blank text folded', () => {
    const body = `  Hello   there,\n\n${'lorem ipsum '.repeat(1000)}`;
    expect(makeSnippet(body)).toBe(foldingAll(body));
    expect(makeSnippet(body).endsWith('…')).toBe(true);
    expect(makeSnippet(' \n short\ttext \n')).toBe('short text');
    expect(makeSnippet(' '.repeat(5000))).toBe('');
    expect(makeSnippet(`${' '.repeat(3000)}late start ${'x'.repeat(200)}`)).toBe(foldingAll(`${' '.repeat(3000)}late start ${'x'.repeat(200)}`));
  });
});
