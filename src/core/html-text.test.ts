import { describe, expect, it } from 'vitest';
import { decodeEntities } from './html-text.js';

describe('decodeEntities', () => {
  it('decodes named, decimal and hex references', () => {
    expect(decodeEntities('a&amp;b &lt;c&gt; &#65;&#x42; &quot;x&quot;')).toBe('a&b <c> AB "x"');
  });

  it('leaves names it does not know as written, including the names of Object.prototype members', () => {
    const text = '&constructor; &__proto__; &toString; &hasOwnProperty; &valueOf; &unknown;';
    expect(decodeEntities(text)).toBe(text);
  });

  it('leaves references that are out of range or unterminated as written', () => {
    expect(decodeEntities('&#0; &#x110000; &amp &#65')).toBe('&#0; &#x110000; &amp &#65');
  });
});
