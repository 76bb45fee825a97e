import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

const RSPAMD = '/usr/bin/rspamd';

export const rspamdAvailable = (): boolean => existsSync(RSPAMD);

/** rspamd's test string: any message containing it scores the reject score (rspamd GTUBE rule). */
export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

export interface Rspamd {
  /** http://127.0.0.1:<port>, the normal worker (what MAILROOM_SPAM_CHECK takes). */
  url: string;
  /** Stops the daemon; start() brings it back on the same port with the same config. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it and removes its directory. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * rspamd's DBDIR, shared by every test run on this machine: it holds the compiled hyperscan databases,
 * which take 20 to 90 s to build on a cold start here; with them cached rspamd answers within 1 to 4 s.
 */
const SHARED_DB_DIR = join(tmpdir(), 'mailroom-rspamd-db');

/**
 * Debian's stock rules and modules, with only a normal worker on `port` (no controller or proxy) and
 * DNS to the test's loopback server. Modules that need Redis stay off without a Redis server
 * configured; signing and fuzzy modules are off because nothing here signs or reaches the internet.
 */
function configFor(port: number, dnsServer: string): string {
  return `.include "$CONFDIR/common.conf"
options {
  pidfile = "$RUNDIR/rspamd.pid";
  .include "$CONFDIR/options.inc"
  hs_cache_dir = "$DBDIR";
  dns { nameserver = ["${dnsServer}"]; timeout = 0.5s; retransmits = 1; }
}
logging { type = "console"; level = "error"; }
worker "normal" {
  bind_socket = "127.0.0.1:${port}";
  mime = true;
  count = 1;
}
`;
}

const LOCAL_MODULES: Record<string, string> = {
  'dkim_signing.conf': 'enabled = false;',
  'arc.conf': 'enabled = false;',
  'fuzzy_check.conf': 'enabled = false;',
};

async function waitUntilReady(url: string, child: ChildProcess, output: () => string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`rspamd exited with ${child.exitCode}: ${output()}`);
    const pong = await fetch(`${url}/ping`).then((r) => r.ok, () => false);
    if (pong) {
      // The first scan after a start loads the rules lazily and can take seconds: do it here, not in a test.
      await fetch(`${url}/checkv2`, { method: 'POST', body: 'Subject: warm-up\r\n\r\nwarm-up\r\n' });
      return;
    }
    if (Date.now() > deadline) throw new Error(`rspamd did not answer /ping within ${timeoutMs} ms: ${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts Debian's rspamd from its own temporary config dir on a free port (tests skip when it is not installed). */
export async function startRspamd(options: { dnsServer: string }): Promise<Rspamd> {
  const dir = await mkdtemp(join(tmpdir(), 'mailroom-rspamd-'));
  await mkdir(SHARED_DB_DIR, { recursive: true });
  await mkdir(join(dir, 'local.d'));
  const port = await freePort();
  await writeFile(join(dir, 'rspamd.conf'), configFor(port, options.dnsServer));
  for (const [file, text] of Object.entries(LOCAL_MODULES)) await writeFile(join(dir, 'local.d', file), text);
  const url = `http://127.0.0.1:${port}`;
  const user = userInfo();
  // As root rspamd would switch to its _rspamd user, which cannot write the temporary dir: stay root (-i).
  const asRoot = user.uid === 0 ? ['-u', 'root', '-g', 'root', '-i'] : [];
  const vars = ['--var', `DBDIR=${SHARED_DB_DIR}`, ...['LOCAL_CONFDIR', 'RUNDIR', 'LOGDIR'].flatMap((name) => ['--var', `${name}=${dir}`])];
  let child: ChildProcess | undefined;

  const start = async () => {
    let output = '';
    const process = spawn(RSPAMD, ['-f', ...asRoot, '-c', join(dir, 'rspamd.conf'), ...vars], { stdio: ['ignore', 'pipe', 'pipe'] });
    process.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    process.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child = process;
    await waitUntilReady(url, process, () => output.slice(-2000));
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    await exited;
  };
  await start();
  return {
    url,
    start,
    stop,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
