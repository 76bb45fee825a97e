import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = join(import.meta.dirname, '../..');
export const WEB_DIST = join(ROOT, 'web/dist');
export const CHROMIUM = '/usr/bin/chromium';
export const SCREENSHOTS = join(ROOT, 'test-results/screenshots');

export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable) console.warn(`SKIPPED: browser tests need Debian's chromium at ${CHROMIUM} (apt-get install -y chromium)`);

function newestMtime(dir: string): number {
  return Math.max(0, ...readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => statSync(join(e.parentPath, e.name)).mtimeMs));
}

/**
 * The dashboard bundle the server serves: built by `npm install`; rebuilt here when missing or older
 * than its sources. Test files run in parallel, so builds take a lock and never empty web/dist (a
 * running test may be serving it); hashed names make a rebuild of the same sources a no-op.
 */
export function ensureWebBuilt(): void {
  const index = join(WEB_DIST, 'index.html');
  const sources = Math.max(newestMtime(join(ROOT, 'web/src')), newestMtime(join(ROOT, 'src/client')), statSync(join(ROOT, 'web/index.html')).mtimeMs);
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  const vite = [process.execPath, join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'web/vite.config.ts', '--emptyOutDir', 'false'];
  execFileSync('flock', [join(tmpdir(), 'mailroom-web-build.lock'), ...vite], { cwd: ROOT, stdio: 'inherit' });
}

/** The scripts index.html loads (the entry and its preloads): what a first visit downloads. */
export function firstLoadScripts(): string[] {
  const index = readFileSync(join(WEB_DIST, 'index.html'), 'utf8');
  return [...index.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((match) => join(WEB_DIST, 'assets', match[1] as string));
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}
