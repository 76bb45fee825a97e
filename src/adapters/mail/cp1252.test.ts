import { describe, expect, it } from 'vitest';
import { repairCp1252 } from './cp1252.js';

describe('repairCp1252', () => {
  it('maps C1 controls to windows-1252\'s characters and leaves every other text as it is', () => {
    expect(repairCp1252('Caf\u00e9 \u0080 \u0093quoted\u0094 \u0081')).toBe('Caf\u00e9 \u20ac \u201cquoted\u201d \u0081');
    for (const text of ['', 'plain ASCII\r\n', 'caf\u00e9', '\u00a0\u00ff', 'emoji \u{1f600}', 'lone \ud800 surrogate', '\u0100\u2028']) {
      expect(repairCp1252(text)).toBe(text);
    }
    expect(repairCp1252('\u{1f600}\u009f')).toBe('\u{1f600}\u0178');
  });
});
