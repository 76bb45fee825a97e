import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface MailroomProcess {
  child: ChildProcess;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Resolves at the first JSON log line (or plain stdout line) whose `msg` is this. */
  logged(msg: string): Promise<void>;
  /** Every JSON log line so far, parsed. */
  logLines: Array<Record<string, unknown>>;
  /** Every line of standard output so far (the start banner, logs). */
  stdoutLines: string[];
}

/** Free loopback ports for one node's three listeners, as MAILROOM_* settings. */
export async function listenerEnv(): Promise<Record<string, string>> {
  return {
    MAILROOM_HTTP_HOST: '127.0.0.1',
    MAILROOM_HTTP_PORT: String(await freePort()),
    MAILROOM_SMTP_HOST: '127.0.0.1',
    MAILROOM_SMTP_PORT: String(await freePort()),
    MAILROOM_IMAP_HOST: '127.0.0.1',
    MAILROOM_IMAP_PORT: String(await freePort()),
  };
}

/** `mailroom serve` (or another command) as users run it (through tsx from src/), with only the given MAILROOM_* settings. */
export function spawnMailroom(env: Record<string, string>, command: 'serve' | 'local' = 'serve'): MailroomProcess {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('MAILROOM_')));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', command], {
    cwd: ROOT,
    env: { ...inherited, MAILROOM_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const waiting = new Map<string, Array<() => void>>();
  const seen = new Set<string>();
  const logLines: Array<Record<string, unknown>> = [];
  const stdoutLines: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    stdoutLines.push(line);
    let msg: string | undefined = line;
    if (line.startsWith('{')) {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        logLines.push(parsed);
        msg = typeof parsed.msg === 'string' ? parsed.msg : undefined;
      } catch {
        msg = undefined;
      }
    }
    if (msg === undefined) return;
    seen.add(msg);
    for (const resolve of waiting.get(msg) ?? []) resolve();
    waiting.delete(msg);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const logged = (msg: string) =>
    seen.has(msg) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(msg, [...(waiting.get(msg) ?? []), resolve]));
  return { child, exited, logged, logLines, stdoutLines };
}

/** The self-signed certificate a node generated into its data dir (to trust it in HTTPS clients). */
export const nodeCertificate = (dataDir: string): Promise<Buffer> => readFile(join(dataDir, 'tls', 'self-signed.crt'));
