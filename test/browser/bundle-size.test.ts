import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { ensureWebBuilt, firstLoadScripts } from './browser-kit.js';

/** Issue 10's budget: the dashboard's first load stays under 300 KB of JavaScript, gzipped. */
const BUDGET_BYTES = 300 * 1024;

it('the built dashboard loads less than 300 KB of JavaScript on first visit (gzipped)', () => {
  ensureWebBuilt();
  const scripts = firstLoadScripts();
  expect(scripts.length).toBeGreaterThan(0);
  const gzipped = scripts.reduce((total, path) => total + gzipSync(readFileSync(path), { level: 9 }).length, 0);
  console.log(`dashboard first-load JavaScript: ${scripts.length} file(s), ${(gzipped / 1024).toFixed(1)} KB gzipped`);
  expect(gzipped).toBeLessThan(BUDGET_BYTES);
});
