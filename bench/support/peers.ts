import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort } from '../../test/helpers/mailroom-process.js';
import { startChildServer } from './child-server.js';
import { scratchFolder } from './scratch.js';
import type { BenchTarget } from './target.js';

const BENCH_DIR = resolve(import.meta.dirname, '..');
const MAILDEV_BIN = join(BENCH_DIR, 'node_modules/maildev/bin/maildev');

/** How to run the bare smtp-server; `greetingPause: false` removes the library's 100 ms pause before each greeting, as Mailroom does. */
export function discardServerArgs({ greetingPause }: { greetingPause: boolean }): string[] {
  return ['--import', 'tsx', join(BENCH_DIR, 'servers/discard-smtp-server.ts'), ...(greetingPause ? [] : ['--greeting-delay-ms', '0'])];
}

export async function startDiscardServer(options: { greetingPause: boolean }): Promise<BenchTarget> {
  const { server, match } = await startChildServer({
    command: process.execPath,
    args: discardServerArgs(options),
    ready: /listening on (\d+)/,
  });
  return {
    port: Number(match[1]),
    to: 'anyone@bench.localhost',
    process: server,
    async stop() {
      const output = await server.stop();
      return Number(/accepted (\d+)/.exec(output)?.[1] ?? NaN);
    },
  };
}

/** maildev lives in bench/node_modules (bench/package.json), installed on first use. */
export function ensureMaildev(): void {
  if (existsSync(MAILDEV_BIN)) return;
  console.log('Installing maildev into bench/node_modules …');
  execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: BENCH_DIR, stdio: 'inherit' });
}

export async function startMaildev(): Promise<BenchTarget> {
  ensureMaildev();
  const [smtpPort, webPort] = [await freePort(), await freePort()];
  // maildev keeps a file per message; the folder goes when the bench exits (scratch.ts).
  const mailDirectory = await scratchFolder('maildev-bench-');
  const { server } = await startChildServer({
    command: process.execPath,
    args: [MAILDEV_BIN, '--ip', '127.0.0.1', '--smtp', String(smtpPort), '--web', String(webPort), '--mail-directory', mailDirectory],
    ready: /webapp running[\s\S]*SMTP Server running|SMTP Server running[\s\S]*webapp running/,
  });
  return {
    port: smtpPort,
    to: 'anyone@bench.localhost',
    process: server,
    filesAt: mailDirectory,
    async stop() {
      const response = await fetch(`http://127.0.0.1:${webPort}/email`);
      const emails = (await response.json()) as unknown[];
      await server.stop();
      return emails.length;
    },
  };
}
