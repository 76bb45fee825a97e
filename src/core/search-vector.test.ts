import { describe, expect, it } from 'vitest';
import { firstCharacters, quotedLexeme, searchVectorText } from './search-vector.js';

describe('searchVectorText', () => {
  it('weights each field and shifts its positions past the previous fields', () => {
    const text = searchVectorText([
      { text: 'Weekly digest', weight: 'A' },
      { text: 'news@acme.example', weight: 'B' },
      { text: '', weight: 'C' },
      { text: 'Weekly news', weight: 'D' },
    ]);
    expect(text).toBe("'weekly':1A,6D 'digest':2A 'news':3B,7D 'acme':4B 'example':5B");
  });

  it('keeps 255 positions of a word in one field, 256 over several, and shifts by the largest kept position', () => {
    const many = Array.from({ length: 300 }, () => 'spam').join(' ');
    const text = searchVectorText([
      { text: many, weight: 'A' },
      { text: 'spam end', weight: 'D' },
    ]);
    const [spam, end] = text.split(' ');
    expect(spam?.split(',')).toHaveLength(256);
    expect(spam?.endsWith(',256D')).toBe(true);
    expect(end).toBe("'end':257D");
  });

  it('gives no lexeme for no words', () => {
    expect(searchVectorText([{ text: ' -- ', weight: 'A' }])).toBe('');
  });
});

describe('quotedLexeme and firstCharacters', () => {
  it('escapes quotes and backslashes, and counts code points', () => {
    expect(quotedLexeme("it's\\")).toBe("'it''s\\\\'");
    expect(firstCharacters('😀😀a', 2)).toBe('😀😀');
  });
});
