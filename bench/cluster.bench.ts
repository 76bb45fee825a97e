/**
 * Cluster ingest: the same smtp-source load spread over one, two and three Mailroom nodes sharing one
 * PostgreSQL database, one Redis and one blob store (a directory all nodes on this machine share, so
 * the object store's own cost stays out of the figures). Prints messages per second, the nodes' CPU
 * per message, and the database's share: PostgreSQL server CPU ms, transactions and rows per email.
 * On two cores the curve flattens early; the table says so rather than hiding it. See bench/README.md.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify, parseArgs } from 'node:util';
import pg from 'pg';
import { BENCH_SENDER, prepareSmtpBench, startSenderDns } from './support/sender.js';
import type { ChildServer } from './support/child-server.js';
import { createScratchStore, launchMailroom, type MailroomBuild } from './support/mailroom.js';
import { scratchFolder } from './support/scratch.js';
import { runSmtpSource } from './support/smtp-source.js';

const { values: options } = parseArgs({
  options: {
    messages: { type: 'string', default: '3000' },
    sessions: { type: 'string', default: '24' },
    size: { type: 'string', default: '10240' },
    nodes: { type: 'string', default: '1,2,3' },
    from: { type: 'string', default: 'dist' },
  },
});
const MESSAGES = Number(options.messages);
const SESSIONS = Number(options.sessions);
const BODY_BYTES = Number(options.size);
const NODE_COUNTS = options.nodes.split(',').map(Number);
const BUILD = options.from as MailroomBuild;
const POSTGRES_URL = process.env.MAILROOM_BENCH_DATABASE_URL ?? process.env.MAILROOM_TEST_DATABASE_URL;
const REDIS_URL = process.env.MAILROOM_BENCH_REDIS_URL ?? process.env.MAILROOM_TEST_REDIS_URL;
const ROOT = join(import.meta.dirname, '..');
const WARMUP_PER_NODE = 100;
const COUNT_STATEMENTS = ['--import', pathToFileURL(join(import.meta.dirname, 'support/count-pg-statements.mjs')).href];

/** CPU seconds of every PostgreSQL server process on this machine (backends, WAL writer, checkpointer). */
async function postgresCpuSeconds(): Promise<number> {
  let total = 0;
  for (const pid of (await readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    if (!stat.includes('(postgres)')) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return total;
}

/** A backend reports its statistics when it goes idle, but an idle one waits up to 10 s (PGSTAT_IDLE_INTERVAL) before it does. */
const STATS_FLUSH_MS = 11_000;

async function databaseCounters(url: string): Promise<{ commits: number; rows: number }> {
  await sleep(STATS_FLUSH_MS);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ commits: string; rows: string }>(
      'select xact_commit as commits, tup_inserted + tup_updated + tup_deleted as rows from pg_stat_database where datname = current_database()',
    );
    return { commits: Number(rows[0]?.commits), rows: Number(rows[0]?.rows) };
  } finally {
    await client.end();
  }
}

/** The statements a node has sent to PostgreSQL so far (count-pg-statements.mjs prints them on SIGUSR2). */
async function statementsSent(server: ChildServer): Promise<number> {
  const printed = () => [...server.output().matchAll(/^pg-statements (\d+)$/gm)].length;
  const before = printed();
  process.kill(server.pid, 'SIGUSR2');
  for (let waited = 0; printed() === before; waited += 10) {
    if (waited > 5000) throw new Error('the node did not report its statement count');
    await sleep(10);
  }
  return Number([...server.output().matchAll(/^pg-statements (\d+)$/gm)].at(-1)?.[1]);
}

function createInbox(apiUrl: string, apiKey: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${apiUrl}/inboxes`, { method: 'POST', rejectUnauthorized: false, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => ((res.statusCode ?? 500) === 201 ? resolve((JSON.parse(text) as { address: string }).address) : reject(new Error(text))));
    });
    req.once('error', reject);
    req.end(JSON.stringify({ prefix: 'cluster' }));
  });
}

interface Row {
  nodes: number;
  rate: number;
  nodeCpuMs: number;
  dbCpuMs: number;
  commits: number;
  statements: number;
  rows: number;
}

async function measure(nodeCount: number, dnsServer: string): Promise<Row> {
  const store = await createScratchStore(POSTGRES_URL);
  const blobs = await scratchFolder('mailroom-cluster-blobs-');
  const shared = {
    ...store.env,
    MAILROOM_DNS_SERVERS: dnsServer,
    MAILROOM_REDIS_URL: REDIS_URL as string,
    MAILROOM_REDIS_PREFIX: `bench-${randomBytes(4).toString('hex')}:`,
    MAILROOM_BLOB_URL: `file://${blobs}`,
    MAILROOM_STORAGE_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    MAILROOM_JWT_SECRET: randomBytes(32).toString('hex'),
  };
  const cli = BUILD === 'dist' ? ['dist/cli.js'] : ['--import', 'tsx', 'src/cli.ts'];
  const { stdout } = await promisify(execFile)(process.execPath, [...cli, 'tenant', 'create', '--name', 'bench', '--plan', 'pro', '--json'], { env: { ...process.env, ...shared }, cwd: ROOT });
  const apiKey = (JSON.parse(stdout.trim().split('\n').at(-1) as string) as { apiKey: string }).apiKey;
  const nodes: Array<{ server: ChildServer; smtpPort: number; apiUrl: string }> = [];
  try {
    for (let i = 0; i < nodeCount; i += 1) {
      const dataDir = await scratchFolder(`mailroom-cluster-node${i}-`);
      nodes.push(await launchMailroom(BUILD, { ...shared, MAILROOM_DATA_DIR: dataDir }, COUNT_STATEMENTS));
    }
    const to = await createInbox((nodes[0] as (typeof nodes)[number]).apiUrl, apiKey);
    const send = (messages: number) =>
      Promise.all(nodes.map((node) => runSmtpSource({ port: node.smtpPort, to, from: BENCH_SENDER, messages: Math.ceil(messages / nodeCount), sessions: Math.max(1, Math.round(SESSIONS / nodeCount)), bodyBytes: BODY_BYTES, persistent: true })));
    await send(WARMUP_PER_NODE * nodeCount);
    const databaseUrl = store.env.MAILROOM_DATABASE_URL as string;
    const countersBefore = await databaseCounters(databaseUrl);
    const statementsBefore = await Promise.all(nodes.map((n) => statementsSent(n.server)));
    const [cpuBefore, dbCpuBefore] = [nodes.map((n) => n.server.cpuSeconds()), await postgresCpuSeconds()];
    const seconds = Math.max(...(await send(MESSAGES)));
    const sent = Math.ceil(MESSAGES / nodeCount) * nodeCount;
    const nodeCpu = nodes.reduce((sum, node, i) => sum + node.server.cpuSeconds() - (cpuBefore[i] as number), 0);
    const dbCpu = (await postgresCpuSeconds()) - dbCpuBefore;
    const statementsAfter = await Promise.all(nodes.map((n) => statementsSent(n.server)));
    const counters = await databaseCounters(databaseUrl);
    const row = {
      nodes: nodeCount,
      rate: sent / seconds,
      nodeCpuMs: (nodeCpu * 1000) / sent,
      dbCpuMs: (dbCpu * 1000) / sent,
      commits: (counters.commits - countersBefore.commits) / sent,
      statements: statementsAfter.reduce((sum, count, i) => sum + count - (statementsBefore[i] as number), 0) / sent,
      rows: (counters.rows - countersBefore.rows) / sent,
    };
    console.log(`  ${nodeCount} node(s): ${row.rate.toFixed(0)} msg/s, nodes ${row.nodeCpuMs.toFixed(2)} CPU ms/msg, PostgreSQL ${row.dbCpuMs.toFixed(2)} CPU ms/msg`);
    return row;
  } finally {
    for (const node of nodes) await node.server.stop();
    await store.remove();
  }
}

async function main(): Promise<void> {
  if (POSTGRES_URL === undefined || REDIS_URL === undefined) {
    throw new Error('bench:cluster needs MAILROOM_BENCH_DATABASE_URL (or MAILROOM_TEST_DATABASE_URL) and MAILROOM_BENCH_REDIS_URL (or MAILROOM_TEST_REDIS_URL)');
  }
  prepareSmtpBench(BUILD);
  const dns = await startSenderDns();
  const rows: Row[] = [];
  try {
    for (const count of NODE_COUNTS) rows.push(await measure(count, dns.address));
  } finally {
    await dns.close();
  }
  const base = rows[0]?.rate ?? 1;
  console.log(`\n${MESSAGES} messages of ${BODY_BYTES} bytes, ${SESSIONS} persistent sessions split over the nodes, PostgreSQL + Redis, shared blob directory\n`);
  console.log('| nodes | msg/s | vs 1 node | node CPU ms/msg | PostgreSQL CPU ms/msg | transactions/msg (reads included) | statements/msg | rows written/msg |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) {
    console.log(`| ${row.nodes} | ${row.rate.toFixed(0)} | ${(row.rate / base).toFixed(2)}x | ${row.nodeCpuMs.toFixed(2)} | ${row.dbCpuMs.toFixed(2)} | ${row.commits.toFixed(2)} | ${row.statements.toFixed(2)} | ${row.rows.toFixed(1)} |`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
