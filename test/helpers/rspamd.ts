import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { startDaemon, type Daemon } from './daemon.js';
import { freePort } from './mailroom-process.js';

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

/** /ping answers; then the first scan, which loads the rules lazily and can take seconds, is done here rather than in a test. */
async function answers(url: string): Promise<boolean> {
  const pong = await fetch(`${url}/ping`).then((r) => r.ok, () => false);
  if (pong) await fetch(`${url}/checkv2`, { method: 'POST', body: 'Subject: warm-up\r\n\r\nwarm-up\r\n' });
  return pong;
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
  let daemon: Daemon | undefined;

  const start = async () => {
    daemon = await startDaemon({ name: 'rspamd', command: RSPAMD, args: ['-f', ...asRoot, '-c', join(dir, 'rspamd.conf'), ...vars], ready: () => answers(url), timeoutMs: 120_000, pollMs: 100 });
  };
  const stop = async () => {
    const running = daemon;
    daemon = undefined;
    await running?.stop();
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
