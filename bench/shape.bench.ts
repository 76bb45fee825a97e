/**
 * bench:shape: how far a layout of Mailroom's ingest over threads and processes can fill the
 * machine, measured on a model whose work is busy loops (`servers/shape-smtp-server.ts`) under the
 * bench:smtp load (smtp-source; persistent sessions, or `--mode per-message` for a new connection per
 * message). Neither server waits before its greeting, as Mailroom does not by default. A layout that
 * does not fill the cores here will not in Mailroom, where the work also allocates, collects
 * garbage and contends for locks; one that does is worth building (docs/decisions.md D80). Each
 * row is a fresh server, warmed up, then timed; the ratio is to "mailroom's shape" in the same
 * round.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startChildServer } from './support/child-server.js';
import { machineBusySeconds } from './support/machine-cpu.js';
import { discardServerArgs } from './support/peers.js';
import { printMarkdownTable } from './support/markdown-table.js';
import { scratchFolder } from './support/scratch.js';
import { assertSmtpSourceInstalled, persistentMode, runSmtpSource } from './support/smtp-source.js';

const { values: options } = parseArgs({
  options: {
    messages: { type: 'string', default: '10000' },
    sessions: { type: 'string', default: '20' },
    size: { type: 'string', default: '10240' },
    warmup: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '1' },
    mode: { type: 'string', default: 'persistent' },
    only: { type: 'string' },
    // Mailroom's own per-thread CPU on the AMD EPYC host of 2026-11-28 (bench:profile): main 0.73–0.80
    // ms/msg, of which smtp-server's ~0.25 and the group commit's share; the analysis worker ~0.6.
    'main-us': { type: 'string', default: '250' },
    'worker-us': { type: 'string', default: '600' },
    'commit-fixed-us': { type: 'string', default: '500' },
    'commit-per-us': { type: 'string', default: '200' },
  },
});

function whole(name: string, value: string | undefined, least = 0): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < least) throw new Error(`--${name} must be a whole number of at least ${least}`);
  return number;
}

const MESSAGES = whole('messages', options.messages, 1);
const SESSIONS = whole('sessions', options.sessions, 1);
const BODY_BYTES = whole('size', options.size);
const WARMUP = whole('warmup', options.warmup);
const ROUNDS = whole('rounds', options.rounds, 1);
const PERSISTENT = persistentMode(options.mode);
const REFERENCE = "mailroom's shape";
const BENCH_DIR = import.meta.dirname;

interface Variant {
  name: string;
  /** The model's settings; without them the row is the discard server: smtp-server reading and dropping each message. */
  env?: Record<string, string>;
  sessions?: number;
}

const WORK = {
  SHAPE_MAIN_US: String(whole('main-us', options['main-us'])),
  SHAPE_WORKER_US: String(whole('worker-us', options['worker-us'])),
  SHAPE_COMMIT_FIXED_US: String(whole('commit-fixed-us', options['commit-fixed-us'])),
  SHAPE_COMMIT_PER_US: String(whole('commit-per-us', options['commit-per-us'])),
};

const VARIANTS: Variant[] = [
  { name: 'smtp-server alone' },
  { name: REFERENCE, env: WORK },
  { name: 'commit window 0', env: { ...WORK, SHAPE_WINDOW_MS: '0' } },
  { name: 'two analysis workers', env: { ...WORK, SHAPE_WORKERS: '2' } },
  { name: 'commit on a thread', env: { ...WORK, SHAPE_COMMIT_THREAD: '1' } },
  { name: 'commit on a thread, window 0', env: { ...WORK, SHAPE_COMMIT_THREAD: '1', SHAPE_WINDOW_MS: '0' } },
  {
    name: 'only SMTP on main',
    env: { ...WORK, SHAPE_MAIN_US: '0', SHAPE_WORKER_US: String(Number(WORK.SHAPE_MAIN_US) + Number(WORK.SHAPE_WORKER_US)), SHAPE_COMMIT_THREAD: '1', SHAPE_WINDOW_MS: '0' },
  },
  { name: 'commit on a thread, groups of 7', env: { ...WORK, SHAPE_COMMIT_THREAD: '1', SHAPE_MAX_BATCH: '7' } },
  { name: 'commit on a thread, groups of 10', env: { ...WORK, SHAPE_COMMIT_THREAD: '1', SHAPE_MAX_BATCH: '10' } },
  { name: 'main analyses when the worker has 4', env: { ...WORK, SHAPE_STEAL_AT: '4' } },
  { name: 'main analyses when the worker has 8', env: { ...WORK, SHAPE_STEAL_AT: '8' } },
  { name: 'a second SMTP thread', env: { ...WORK, SHAPE_SMTP_THREADS: '1' } },
  { name: 'a second SMTP thread, commit on a thread', env: { ...WORK, SHAPE_SMTP_THREADS: '1', SHAPE_COMMIT_THREAD: '1' } },
  { name: 'groups of 7', env: { ...WORK, SHAPE_MAX_BATCH: '7' } },
  { name: 'two processes', env: { ...WORK, SHAPE_PROCESSES: '2' } },
  { name: `${REFERENCE}, 80 sessions`, env: WORK, sessions: 80 },
].filter((v) => options.only === undefined || v.name.includes(options.only) || v.name === REFERENCE);

interface Row {
  round: number;
  name: string;
  sessions: number;
  rate: number;
  cpuMs: number;
  serverCores: number;
  machineCores: number;
  /** The main thread's share of the run on a CPU and waiting for one; undefined for a cluster, whose primary only hands out connections. */
  main?: { onCpu: number; waiting: number };
  accepted: number;
  sent: number;
}

async function measure(variant: Variant, round: number): Promise<Row> {
  const sessions = variant.sessions ?? SESSIONS;
  const { server, match } = await startChildServer({
    command: process.execPath,
    args: variant.env === undefined ? discardServerArgs({ greetingPause: false }) : ['--import', 'tsx', join(BENCH_DIR, 'servers', 'shape-smtp-server.ts')],
    // Every model appends and fdatasyncs each message, as Mailroom stores its EML.
    env: variant.env === undefined ? {} : { ...variant.env, SHAPE_DIR: await scratchFolder('shape-bench-') },
    ready: /listening on (\d+)/,
  });
  const load = { port: Number(match[1]), to: 'anyone@bench.localhost', from: 'bench@bench.localhost', sessions, bodyBytes: BODY_BYTES, persistent: PERSISTENT };
  try {
    if (WARMUP > 0) await runSmtpSource({ ...load, messages: WARMUP });
    const cpuBefore = server.treeCpuSeconds();
    const machineBefore = machineBusySeconds();
    const mainBefore = server.mainThreadSchedule();
    const seconds = await runSmtpSource({ ...load, messages: MESSAGES });
    const cpu = server.treeCpuSeconds() - cpuBefore;
    const machine = machineBusySeconds() - machineBefore;
    const mainAfter = server.mainThreadSchedule();
    const single = variant.env?.SHAPE_PROCESSES === undefined;
    const output = await server.stop();
    return {
      round,
      name: variant.name,
      sessions,
      rate: MESSAGES / seconds,
      cpuMs: (cpu / MESSAGES) * 1000,
      serverCores: cpu / seconds,
      machineCores: machine / seconds,
      main: single ? { onCpu: (mainAfter.runSeconds - mainBefore.runSeconds) / seconds, waiting: (mainAfter.waitSeconds - mainBefore.waitSeconds) / seconds } : undefined,
      accepted: Number(/accepted (\d+)/.exec(output)?.[1] ?? NaN),
      sent: WARMUP + MESSAGES,
    };
  } catch (error) {
    await server.stop().catch(() => undefined);
    throw error;
  }
}

function printTable(rows: Row[]): void {
  const percent = (share: number | undefined) => (share === undefined ? '-' : `${Math.round(share * 100)}%`);
  const header = ['round', 'layout', 'sessions', 'msg/s', 'ratio', 'CPU ms/msg', 'server cores', 'machine cores', 'main on a CPU', 'main waiting', 'accepted/sent'];
  const lines = rows.map((row) => {
    const reference = rows.find((r) => r.round === row.round && r.name === REFERENCE);
    return [
      String(row.round),
      row.name,
      String(row.sessions),
      row.rate.toFixed(0),
      reference === undefined ? '-' : `${(row.rate / reference.rate).toFixed(2)}x`,
      row.cpuMs.toFixed(2),
      row.serverCores.toFixed(2),
      row.machineCores.toFixed(2),
      percent(row.main?.onCpu),
      percent(row.main?.waiting),
      `${row.accepted}/${row.sent}`,
    ];
  });
  console.log(`\n${MESSAGES} messages of ${BODY_BYTES} bytes after a ${WARMUP}-message warm-up, ${PERSISTENT ? 'persistent sessions' : 'a new connection per message'}; work per message (µs): ${JSON.stringify(WORK)}`);
  console.log('server cores: the server processes\' CPU over the run\'s wall time; machine cores: every process and the kernel (os.cpus())\n');
  printMarkdownTable(header, lines);
}

async function main(): Promise<void> {
  assertSmtpSourceInstalled();
  const rows: Row[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of VARIANTS) {
      const row = await measure(variant, round);
      console.log(`${row.name} (${row.sessions} sessions): ${row.rate.toFixed(0)} msg/s, ${row.serverCores.toFixed(2)} server cores, ${row.machineCores.toFixed(2)} machine cores`);
      rows.push(row);
    }
  }
  printTable(rows);
  const lost = rows.filter((r) => r.accepted !== r.sent);
  if (lost.length > 0) {
    console.error(`accepted differs from sent: ${lost.map((r) => r.name).join(', ')}`);
    process.exitCode = 1;
  }
}

await main();
