import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { TestApp } from './test-app.js';

export const PROJECT_ROOT = join(import.meta.dirname, '../..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `mailroom …` from source as a user would, with only the given MAILROOM_* settings (the test
 * process's own are dropped) and, when given, `stdin` as its standard input.
 */
export function runCli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MAILROOM_')));
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      { cwd: PROJECT_ROOT, env: { ...inherited, MAILROOM_LOG_LEVEL: 'silent', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}

/** The settings that point the CLI at a running test app's data dir and database. */
export function cliEnvFor(t: TestApp): Record<string, string> {
  const db = t.app.ctx.config.db;
  return { MAILROOM_DATA_DIR: t.dataDir, ...(db.dialect === 'postgres' ? { MAILROOM_DATABASE_URL: db.url } : {}) };
}
