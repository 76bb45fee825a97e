import { describe, expect, it } from 'vitest';
import { slugOf } from './environment.service.js';

describe('slugOf', () => {
  it('makes a lower-case, hyphenated slug from a name', () => {
    expect(slugOf('QA Europe')).toBe('qa-europe');
    expect(slugOf('  Staging / 2 ')).toBe('staging-2');
    expect(slugOf('Café Préprod')).toBe('cafe-preprod');
    expect(slugOf('!!!')).toBe('');
    expect(slugOf('x'.repeat(70) + ' y').length).toBeLessThanOrEqual(64);
  });
});
