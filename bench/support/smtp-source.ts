import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export const SMTP_SOURCE = '/usr/sbin/smtp-source';

export interface SmtpSourceRun {
  port: number;
  to: string;
  from: string;
  messages: number;
  sessions: number;
  bodyBytes: number;
  /** true: every session sends message after message on one connection (`-d`); false: one connection per message. */
  persistent: boolean;
}

/** A bench's `--mode`: true for `persistent`, false for `per-message`; anything else stops the bench. */
export function persistentMode(mode: string | undefined): boolean {
  if (mode !== 'persistent' && mode !== 'per-message') throw new Error(`--mode must be persistent or per-message, not ${mode}`);
  return mode === 'persistent';
}

export function assertSmtpSourceInstalled(): void {
  if (!existsSync(SMTP_SOURCE)) {
    throw new Error(`${SMTP_SOURCE} is missing: apt-get install postfix (the daemon need not run)`);
  }
}

/**
 * Runs Postfix's smtp-source and returns the wall-clock seconds it took. smtp-source stops at the
 * first reply that is not positive, so a clean exit means every message got its 250.
 */
export function runSmtpSource(run: SmtpSourceRun): Promise<number> {
  const args = [
    ...(run.persistent ? ['-d'] : []),
    '-m', String(run.messages),
    '-s', String(run.sessions),
    '-l', String(run.bodyBytes),
    '-f', run.from,
    '-t', run.to,
    '-S', 'bench message',
    '-M', 'bench.localhost',
    `127.0.0.1:${run.port}`,
  ];
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(SMTP_SOURCE, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code === 0) resolve(seconds);
      else reject(new Error(`smtp-source ${args.join(' ')} exited with ${code}: ${stderr.trim()}`));
    });
  });
}
