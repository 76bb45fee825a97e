/**
 * IMAP fetch throughput: imapflow runs `UID FETCH 1:* (UID BODY.PEEK[])` over 1,000 messages of
 * about 10 KB against Mailroom (`mailroom serve`, SQLite; PostgreSQL too when a URL is given) and,
 * in the same run, against Dovecot (Debian dovecot-imapd) holding the very same messages in a
 * maildir. Prints messages/s, MB/s and the servers' resident memory during the fetch. Target: Mailroom within 2x of Dovecot.
 *
 *   npm run bench:imap -- [--messages 1000] [--size 10240] [--runs 5] [--from dist|src]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ImapFlow } from 'imapflow';
import { generate } from 'selfsigned';
import { dovecotVersion, startDovecot } from '../test/helpers/dovecot.js';
import { BENCH_SENDER, prepareSmtpBench, startSenderDns } from './support/sender.js';
import { startMailroom, type MailroomBuild, type MailroomInstance } from './support/mailroom.js';
import { runSmtpSource } from './support/smtp-source.js';

const { values: options } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000' },
    size: { type: 'string', default: '10240' },
    runs: { type: 'string', default: '5' },
    from: { type: 'string', default: 'dist' },
  },
});
const MESSAGES = Number(options.messages);
const BODY_BYTES = Number(options.size);
const RUNS = Number(options.runs);
const BUILD = options.from as MailroomBuild;
const POSTGRES_URL = process.env.MAILROOM_BENCH_DATABASE_URL ?? process.env.MAILROOM_TEST_DATABASE_URL;

interface Account {
  port: number;
  user: string;
  pass: string;
}

interface Row {
  target: string;
  rate: number;
  megabytesPerSecond: number;
  rssMb: number;
}

function api(instance: MailroomInstance, method: string, path: string, body?: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(`${instance.apiUrl}${path}`, { method, rejectUnauthorized: false, headers: { 'x-api-key': instance.apiKey, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => ((res.statusCode ?? 500) >= 300 ? reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`)) : resolve(JSON.parse(text))));
    });
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** One timed `UID FETCH 1:* BODY.PEEK[]`; returns the messages and bytes read and the seconds it took. */
async function fetchAll(account: Account, keep?: Buffer[], sample?: () => void): Promise<{ messages: number; bytes: number; seconds: number }> {
  const client = new ImapFlow({ host: '127.0.0.1', port: account.port, secure: true, tls: { rejectUnauthorized: false }, auth: { user: account.user, pass: account.pass }, logger: false });
  await client.connect();
  try {
    await client.mailboxOpen('INBOX', { readOnly: true });
    let messages = 0;
    let bytes = 0;
    const started = performance.now();
    for await (const message of client.fetch('1:*', { uid: true, source: true }, { uid: true })) {
      messages += 1;
      bytes += message.source?.length ?? 0;
      if (keep !== undefined && message.source !== undefined) keep.push(message.source);
    }
    sample?.();
    return { messages, bytes, seconds: (performance.now() - started) / 1000 };
  } finally {
    await client.logout();
  }
}

/** `rssMb` is sampled at the end of each run, while the session (and Dovecot's imap process) is alive. */
async function measure(target: string, account: Account, rssMb: () => number): Promise<Row> {
  const runs = [];
  let peak = 0;
  for (let i = 0; i < RUNS; i++) runs.push(await fetchAll(account, undefined, () => (peak = Math.max(peak, rssMb()))));
  const best = runs.reduce((a, b) => (a.seconds <= b.seconds ? a : b));
  if (best.messages !== MESSAGES) throw new Error(`${target}: fetched ${best.messages} of ${MESSAGES} messages`);
  const row = { target, rate: best.messages / best.seconds, megabytesPerSecond: best.bytes / 1024 / 1024 / best.seconds, rssMb: peak };
  console.log(`  ${target.padEnd(20)} ${row.rate.toFixed(0).padStart(7)} msg/s  ${row.megabytesPerSecond.toFixed(1).padStart(6)} MB/s  RSS ${row.rssMb} MB  (best of ${RUNS})`);
  return row;
}

/** Resident memory now (VmRSS), the largest of the given processes, in MB. */
function rssOfPids(pids: number[]): number {
  const kb = pids.map((pid) => {
    try {
      return Number(/VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  });
  return Math.round(Math.max(0, ...kb) / 1024);
}

/** Dovecot forks one `imap` process per session; the largest one's high-water mark is its per-session cost. */
function dovecotImapPids(): number[] {
  try {
    return execFileSync('pgrep', ['-x', 'imap']).toString().trim().split('\n').map(Number).filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** Mailroom with MESSAGES messages in one inbox, an imap-scoped key, and the raw messages it serves. */
async function mailroomWithMail(dnsServer: string, postgresUrl?: string): Promise<{ instance: MailroomInstance; account: Account }> {
  const instance = await startMailroom({ dnsServer, postgresUrl, build: BUILD });
  const imapPort = Number(/IMAP \(TLS\):\s+\S+:(\d+)/.exec(instance.server.output())?.[1]);
  const inboxes = (await api(instance, 'GET', '/inboxes')) as { data: Array<{ id: string; address: string }> };
  const inbox = inboxes.data.find((i) => i.address === instance.inboxAddress);
  if (inbox === undefined || Number.isNaN(imapPort)) throw new Error('bench inbox or IMAP port not found');
  const key = (await api(instance, 'POST', `/inboxes/${inbox.id}/api-keys`, { name: 'bench', scopes: ['imap'] })) as { key: string };
  await runSmtpSource({ port: instance.smtpPort, to: instance.inboxAddress, from: BENCH_SENDER, messages: MESSAGES, sessions: 10, bodyBytes: BODY_BYTES, persistent: true });
  return { instance, account: { port: imapPort, user: instance.inboxAddress, pass: key.key } };
}

async function main(): Promise<void> {
  if (dovecotVersion() === undefined) throw new Error('dovecot is missing: apt-get install dovecot-imapd (the daemon need not run)');
  prepareSmtpBench(BUILD);
  const dns = await startSenderDns();
  const certDir = await mkdtemp(join(tmpdir(), 'mailroom-bench-cert-'));
  const rows: Row[] = [];
  try {
    const sqlite = await mailroomWithMail(dns.address);
    const raw: Buffer[] = [];
    try {
      await fetchAll(sqlite.account, raw);
      rows.push(await measure('mailroom sqlite', sqlite.account, () => rssOfPids([sqlite.instance.server.pid])));
    } finally {
      await sqlite.instance.stop();
    }

    const pem = await generate([{ name: 'commonName', value: 'localhost' }], { algorithm: 'sha256', keySize: 2048 });
    const cert = { certPath: join(certDir, 'cert.pem'), keyPath: join(certDir, 'key.pem') };
    await writeFile(cert.certPath, pem.cert);
    await writeFile(cert.keyPath, pem.private);
    const dovecot = await startDovecot(raw, cert);
    try {
      rows.push(await measure(`dovecot ${dovecotVersion()?.split(' ')[0]}`, { port: dovecot.port, user: dovecot.user, pass: dovecot.password }, () => rssOfPids(dovecotImapPids())));
    } finally {
      await dovecot.stop();
    }

    if (POSTGRES_URL) {
      const postgres = await mailroomWithMail(dns.address, POSTGRES_URL);
      try {
        await fetchAll(postgres.account);
        rows.push(await measure('mailroom postgres', postgres.account, () => rssOfPids([postgres.instance.server.pid])));
      } finally {
        await postgres.instance.stop();
      }
    } else {
      console.log('PostgreSQL skipped: set MAILROOM_BENCH_DATABASE_URL (or MAILROOM_TEST_DATABASE_URL) to include it.');
    }
  } finally {
    await dns.close();
    await rm(certDir, { recursive: true, force: true });
  }

  const reference = rows.find((r) => r.target.startsWith('dovecot'));
  console.log(`\n${MESSAGES} messages of about ${BODY_BYTES} bytes, UID FETCH 1:* (UID BODY.PEEK[]) by imapflow 2.1.2, best of ${RUNS} runs\n`);
  console.log('| target | msg/s | MB/s | vs Dovecot | server RSS MB at end of fetch |');
  console.log('|---|---|---|---|---|');
  for (const row of rows) {
    const ratio = reference === undefined ? '-' : `${(row.rate / reference.rate).toFixed(2)}x`;
    console.log(`| ${row.target} | ${row.rate.toFixed(0)} | ${row.megabytesPerSecond.toFixed(1)} | ${ratio} | ${row.rssMb} |`);
  }
  console.log('\nDovecot RSS is its per-session imap process; Mailroom RSS is the whole service process (HTTP, SMTP, ingest workers and IMAP).');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
