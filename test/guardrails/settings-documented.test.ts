import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settingsTable } from '../../scripts/settings-table.js';

describe('README settings table', () => {
  it('matches src/config/env.ts (regenerate with: npx tsx scripts/settings-table.ts)', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(settingsTable());
  });
});
