import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');
const CATALOG = join(import.meta.dirname, '../../docs/errors.md');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const sources = sourceFiles(SRC).map((path) => ({ path, text: readFileSync(path, 'utf8') }));

/**
 * Codes as the code base builds them: `new XxxError('CODE', …)` (ConfigError names a variable, not a
 * code), `errorBody(status, 'CODE', …)`, and the stable names the HTTP error handler gives
 * framework errors.
 */
function thrownCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  const patterns = [/new (?!Config)\w*Error\(\s*'([A-Z][A-Z0-9_]+)'/g, /errorBody\(\s*\d+,\s*'([A-Z][A-Z0-9_]+)'/g];
  for (const { path, text } of sources) {
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) codes.set(match[1] as string, path);
    if (path.endsWith('error-handler.ts')) {
      for (const match of text.matchAll(/'((?!FST_)[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g)) codes.set(match[1] as string, path);
    }
  }
  return codes;
}

const documentedCodes = (): Set<string> =>
  new Set([...readFileSync(CATALOG, 'utf8').matchAll(/^\| ([A-Z][A-Z0-9_]+) \|/gm)].map((m) => m[1] as string));

describe('docs/errors.md', () => {
  it('lists every error code the code base throws', () => {
    const documented = documentedCodes();
    const missing = [...thrownCodes()].filter(([code]) => !documented.has(code)).map(([code, path]) => `${code} (${path})`);
    expect(missing).toEqual([]);
  });

  it('lists no code that is gone from the code base', () => {
    const allSource = sources.map((s) => s.text).join('\n');
    const stale = [...documentedCodes()].filter((code) => !allSource.includes(`'${code}'`));
    expect(stale).toEqual([]);
  });

  it('finds codes (the patterns still match the code base)', () => {
    expect([...thrownCodes().keys()]).toEqual(expect.arrayContaining(['EMAIL_NOT_FOUND', 'API_KEY_MISSING', 'VALIDATION_ERROR', 'ROUTE_NOT_FOUND', 'INVALID_JSON']));
  });
});
