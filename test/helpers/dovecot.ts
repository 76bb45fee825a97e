import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portOpen, startDaemon } from './daemon.js';
import { freePort } from './mailroom-process.js';

const DOVECOT = '/usr/sbin/dovecot';

export interface Dovecot {
  port: number;
  user: string;
  password: string;
  stop(): Promise<void>;
}

export const dovecotAvailable = (): boolean => existsSync(DOVECOT);

function accountOf(name: string): { uid: number; gid: number } {
  const uid = Number(execFileSync('id', ['-u', name]).toString().trim());
  const gid = Number(execFileSync('id', ['-g', name]).toString().trim());
  return { uid, gid };
}

/**
 * Dovecot (Debian dovecot-imapd) on 127.0.0.1 with implicit TLS, a static password and a temporary
 * maildir holding `messages` in order (UID 1, 2, …): the reference server for differential tests and
 * the benchmark. As root, its processes run as the package's dovecot/dovenull users.
 */
export async function startDovecot(messages: Buffer[], cert: { certPath: string; keyPath: string }): Promise<Dovecot> {
  const dir = await mkdtemp(join(tmpdir(), 'mailroom-dovecot-'));
  const maildir = join(dir, 'Maildir');
  for (const sub of ['cur', 'new', 'tmp']) await mkdir(join(maildir, sub), { recursive: true });
  const base = 1_700_000_000;
  await Promise.all(messages.map((raw, i) => writeFile(join(maildir, 'cur', `${base + i}.M${i}P1.mailroom:2,`), raw)));
  const root = process.getuid?.() === 0;
  const me = execFileSync('id', ['-un']).toString().trim();
  const mailUser = root ? accountOf('dovecot') : accountOf(me);
  if (root) for (const path of [dir, maildir, ...['cur', 'new', 'tmp'].map((s) => join(maildir, s)), ...messages.map((_, i) => join(maildir, 'cur', `${base + i}.M${i}P1.mailroom:2,`))]) chownSync(path, mailUser.uid, mailUser.gid);
  const port = await freePort();
  const config = join(dir, 'dovecot.conf');
  await writeFile(
    config,
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = required
ssl_cert = <${cert.certPath}
ssl_key = <${cert.keyPath}
default_internal_user = ${root ? 'dovecot' : me}
default_internal_group = ${root ? 'dovecot' : me}
default_login_user = ${root ? 'dovenull' : me}
first_valid_uid = 1
mail_location = maildir:${maildir}
auth_mechanisms = plain
passdb {
  driver = static
  args = password=secret
}
userdb {
  driver = static
  args = uid=${mailUser.uid} gid=${mailUser.gid} home=${dir}
}
service imap-login {
  chroot =
  inet_listener imap {
    port = 0
  }
  inet_listener imaps {
    port = ${port}
    ssl = yes
  }
}
service anvil {
  chroot =
}
`,
  );
  const daemon = await startDaemon({ name: 'dovecot', command: DOVECOT, args: ['-F', '-c', config], ready: () => portOpen(port), timeoutMs: 10_000, pollMs: 50 });
  return {
    port,
    user: 'tester',
    password: 'secret',
    async stop() {
      await daemon.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** For a clear skip message: whether dovecot can run here at all. */
export function dovecotVersion(): string | undefined {
  if (!dovecotAvailable()) return undefined;
  const result = spawnSync(DOVECOT, ['--version']);
  return result.status === 0 ? result.stdout.toString().trim() : undefined;
}
