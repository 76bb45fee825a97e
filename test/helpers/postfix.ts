import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFileSync } from 'node:child_process';

const run = promisify(execFile);

export const POSTFIX = '/usr/sbin/postfix';

/** A private Postfix needs root (its master binds and drops to the postfix user) and Debian's postfix package. */
export const postfixAvailable = existsSync(POSTFIX) && userInfo().uid === 0;
if (!postfixAvailable) console.warn(`SKIPPED: Postfix relay tests need ${POSTFIX} and root (apt-get install -y postfix)`);

export interface PostfixInstance {
  /** Port of its smtpd on 127.0.0.1: what an app would submit to. */
  port: number;
  /** Its mail log, for failure messages. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/** Only the services a relay needs, none chrooted, smtpd on a high loopback port. */
const masterCf = (port: number) =>
  [
    `127.0.0.1:${port} inet n - n - - smtpd`,
    ...['pickup unix n - n 60 1 pickup', 'cleanup unix n - n - 0 cleanup', 'qmgr unix n - n 300 1 qmgr', 'rewrite unix - - n - - trivial-rewrite'],
    ...['bounce unix - - n - 0 bounce', 'defer unix - - n - 0 bounce', 'trace unix - - n - 0 bounce', 'verify unix - - n - 1 verify'],
    ...['flush unix n - n 1000? 0 flush', 'proxymap unix - - n - - proxymap', 'smtp unix - - n - - smtp', 'relay unix - - n - - smtp'],
    ...['showq unix n - n - - showq', 'error unix - - n - - error', 'retry unix - - n - - error', 'discard unix - - n - - discard'],
    ...['anvil unix - - n - 1 anvil', 'scache unix - - n - 1 scache', 'postlog unix-dgram n - n - 1 postlogd'],
  ].join('\n');

/**
 * A Postfix of its own (config dir, queue and log under a temp dir; the system's Postfix is left
 * alone) that relays everything to `relayhost = [127.0.0.1]:<relayPort>`, as a developer's does.
 */
export async function startPostfixRelay(relayPort: number, smtpdPort: number): Promise<PostfixInstance> {
  const root = await mkdtemp(join(tmpdir(), 'mailroom-postfix-'));
  // The postfix user must reach the queue and own the data directory.
  await chmod(root, 0o755);
  const conf = join(root, 'conf');
  const data = join(root, 'data');
  await mkdir(conf);
  await mkdir(join(root, 'queue'));
  await mkdir(data);
  const postfixUser = execFileSync('id', ['-u', 'postfix']).toString().trim();
  await chown(data, Number(postfixUser), -1);
  const logFile = join(root, 'maillog');
  const mainCf = {
    compatibility_level: '3.6',
    queue_directory: join(root, 'queue'),
    data_directory: data,
    mail_owner: 'postfix',
    setgid_group: 'postdrop',
    inet_interfaces: '127.0.0.1',
    inet_protocols: 'ipv4',
    myhostname: 'postfix.test',
    mydomain: 'postfix.test',
    myorigin: 'postfix.test',
    mydestination: '',
    local_recipient_maps: '',
    alias_maps: '',
    alias_database: '',
    mynetworks: '127.0.0.0/8',
    relayhost: `[127.0.0.1]:${relayPort}`,
    smtp_dns_support_level: 'disabled',
    smtp_tls_security_level: 'none',
    smtputf8_enable: 'no',
    maillog_file: logFile,
    maillog_file_prefixes: root,
  };
  await writeFile(join(conf, 'main.cf'), `${Object.entries(mainCf).map(([k, v]) => `${k} = ${v}`).join('\n')}\n`);
  await writeFile(join(conf, 'master.cf'), `${masterCf(smtpdPort)}\n`);
  await run(POSTFIX, ['-c', conf, 'start']);
  return {
    port: smtpdPort,
    log: () => readFile(logFile, 'utf8').catch(() => ''),
    async stop() {
      await run(POSTFIX, ['-c', conf, 'stop']).catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
