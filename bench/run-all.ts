/** `npm run bench`: every `bench:*` script of package.json in turn, so a new bench needs no edit here. */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const scripts = Object.keys((JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts);
const failed: string[] = [];
for (const name of scripts.filter((s) => s.startsWith('bench:'))) {
  console.log(`\n=== npm run ${name} ===`);
  if (spawnSync('npm', ['run', '--silent', name], { cwd: ROOT, stdio: 'inherit' }).status !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nFailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
