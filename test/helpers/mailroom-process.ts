import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(import.meta.dirname, '../..');

/** The first of Linux's ephemeral ports: what the kernel gives `listen(0)` and every outgoing connection's local end. */
function firstEphemeralPort(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // Not Linux: take Linux's default.
  }
  return 32_768;
}

const PORTS_PER_WORKER = 500;
const handedOut = new Set<number>();
let nextOffset = Math.floor(Math.random() * PORTS_PER_WORKER);

/** This test worker's own slice of the ports below the ephemeral range (VITEST_POOL_ID is 1..maxWorkers). */
function workerSlice(): number {
  const first = 10_000;
  const slices = Math.max(1, Math.floor((firstEphemeralPort() - first) / PORTS_PER_WORKER));
  return first + ((Number(process.env.VITEST_POOL_ID ?? 1) - 1) % slices) * PORTS_PER_WORKER;
}

function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port for a server a test or a bench starts in another process (Mailroom, Dovecot,
 * rspamd, Postfix, maildev), which binds it later. Not one from `listen(0)`: that is an ephemeral
 * port, and once released any test's outgoing connection can take it as its local port before the
 * child binds it (CI saw `EADDRINUSE` on such a port). So the port comes from below the ephemeral
 * range, from this worker's own slice, and is never handed out twice by one worker.
 */
export async function freePort(): Promise<number> {
  const first = workerSlice();
  for (let attempt = 0; attempt < PORTS_PER_WORKER; attempt++) {
    const port = first + (nextOffset++ % PORTS_PER_WORKER);
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port left in ${first}-${first + PORTS_PER_WORKER - 1}`);
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
