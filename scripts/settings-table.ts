// Rewrites the settings table in README.md from src/config/env.ts (run: npx tsx scripts/settings-table.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { SETTINGS } from '../src/config/env.js';

export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.name}\` | ${s.default} | ${s.description} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

if (process.argv[1]?.endsWith('settings-table.ts')) {
  const readme = readFileSync('README.md', 'utf8');
  const updated = readme.replace(/<!-- settings:start -->[\s\S]*<!-- settings:end -->/, `<!-- settings:start -->\n${settingsTable()}\n<!-- settings:end -->`);
  writeFileSync('README.md', updated);
}
