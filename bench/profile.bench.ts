/**
 * Where a message's CPU goes: runs `mailroom serve` under `node --cpu-prof` (worker threads inherit
 * the flag, so every thread writes its own profile), sends the bench:smtp load with smtp-source,
 * stops the server so the profiles are written, and prints for each thread its busy share of the
 * timed run and the top modules and functions by self time. Only samples taken between the first
 * and last message of the timed run count (profiles and process.hrtime share the monotonic clock).
 * Before those it prints the cores busy (Mailroom's and the whole machine's) and how the main thread
 * spent the run (on a CPU, waiting for one, asleep), then where a message's time goes, from the
 * server's own stage histograms (/metrics); `--no-cpu-prof` prints only these, without the
 * profiler's overhead. See bench/README.md.
 */
import { mkdtemp } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { BENCH_SENDER, SMTP_LOAD_OPTIONS, prepareSmtpBench, startSenderDns } from './support/sender.js';
import { singleServerOptions, startMailroom, type MailroomBuild } from './support/mailroom.js';
import { persistentMode, runSmtpSource } from './support/smtp-source.js';
import type { ThreadSchedule } from './support/child-server.js';
import { OVERLAP_BIN_US, overlap, printSummary, summariseProfiles, type ThreadSummary } from './support/cpu-profile.js';
import { parseMetrics, printIngestStages } from './support/ingest-stages.js';
import { machineBusySeconds } from './support/machine-cpu.js';

const { values: options } = parseArgs({
  options: {
    ...SMTP_LOAD_OPTIONS,
    mode: { type: 'string', default: 'persistent' },
    database: { type: 'string', default: 'sqlite' },
    top: { type: 'string', default: '15' },
    'no-cpu-prof': { type: 'boolean', default: false },
  },
});
const PROFILE = !options['no-cpu-prof'];
const MESSAGES = Number(options.messages);
const BUILD = options.from as MailroomBuild;
const PERSISTENT = persistentMode(options.mode);
if (options.database !== 'sqlite' && options.database !== 'postgres') throw new Error('--database must be sqlite or postgres');

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** The timed run's CPU per message of each thread name, largest first. */
function cpuByThread(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([name, seconds]) => [name, ((seconds - (before.get(name) ?? 0)) * 1000) / MESSAGES] as const)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
    .join(', ');
}

/** Where the main thread's wall time went: on a CPU, runnable but waiting for one, or asleep with nothing to do. */
function mainThreadShares(before: ThreadSchedule, after: ThreadSchedule, seconds: number): string {
  const share = (part: number) => `${((part / seconds) * 100).toFixed(0)}%`;
  const run = after.runSeconds - before.runSeconds;
  const wait = after.waitSeconds - before.waitSeconds;
  return `main thread over the timed run: on a CPU ${share(run)}, waiting for a CPU ${share(wait)}, asleep ${share(seconds - run - wait)} (/proc schedstat)`;
}

/** Whether the main thread and the busiest worker (the analysis worker under this load) worked at once or took turns (D80). */
function printOverlap(summaries: ThreadSummary[]): void {
  const main = summaries.find((s) => s.thread === 'main');
  const worker = summaries.filter((s) => s.thread !== 'main').sort((a, b) => b.busy - a.busy)[0];
  if (main === undefined || worker === undefined) return;
  const { both, firstAlone, secondAlone, neither } = overlap(main, worker);
  const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
  console.log(
    `main and ${worker.thread} in ${OVERLAP_BIN_US / 1000} ms slices of the timed run: both busy ${percent(both)}, main alone ${percent(firstAlone)}, ` +
      `${worker.thread} alone ${percent(secondAlone)}, neither ${percent(neither)}`,
  );
}

async function main(): Promise<void> {
  prepareSmtpBench(BUILD);
  const profileDir = await mkdtemp(join(tmpdir(), 'mailroom-profile-'));
  const dns = await startSenderDns();
  try {
    const instance = await startMailroom({
      ...singleServerOptions(options, dns.address, BUILD),
      nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : undefined,
    });
    const send = (messages: number, persistent: boolean) =>
      runSmtpSource({
        port: instance.smtpPort,
        to: instance.inboxAddress,
        from: BENCH_SENDER,
        messages,
        sessions: Number(options.sessions),
        bodyBytes: Number(options.size),
        persistent,
      });
    let timed;
    let cpuMs;
    try {
      if (Number(options.warmup) > 0) await send(Number(options.warmup), true);
      const metricsBefore = parseMetrics(await instance.metrics());
      const cpuBefore = instance.server.cpuSeconds();
      const threadsBefore = instance.server.cpuSecondsByThread();
      const machineBefore = machineBusySeconds();
      const mainBefore = instance.server.mainThreadSchedule();
      const startUs = nowUs();
      const seconds = await send(MESSAGES, PERSISTENT);
      timed = { startUs, endUs: nowUs() };
      const machineSeconds = machineBusySeconds() - machineBefore;
      const mainAfter = instance.server.mainThreadSchedule();
      cpuMs = ((instance.server.cpuSeconds() - cpuBefore) * 1000) / MESSAGES;
      const metricsAfter = parseMetrics(await instance.metrics());
      console.log(
        `${options.database}, ${options.mode}: ${MESSAGES} messages in ${seconds.toFixed(1)} s (${(MESSAGES / seconds).toFixed(0)} msg/s${PROFILE ? ' under the profiler' : ''}), ` +
          `${cpuMs.toFixed(2)} CPU ms/msg (all threads, /proc), peak RSS ${instance.server.peakRssMb()} MB`,
      );
      console.log(
        `cores busy over the timed run: ${((cpuMs * MESSAGES) / 1000 / seconds).toFixed(2)} by Mailroom, ` +
          `${(machineSeconds / seconds).toFixed(2)} of ${cpus().length} on the whole machine (Mailroom, smtp-source, the kernel)`,
      );
      console.log(mainThreadShares(mainBefore, mainAfter, seconds));
      console.log(`CPU ms/msg by thread (/proc; worker threads are all named node): ${cpuByThread(threadsBefore, instance.server.cpuSecondsByThread())}`);
      printIngestStages(metricsBefore, metricsAfter, (Number(options.sessions) * seconds * 1000) / MESSAGES);
    } finally {
      await instance.stop();
    }
    if (!PROFILE) return;
    const summaries = await summariseProfiles(profileDir, timed, Number(options.top));
    for (const summary of summaries) printSummary(summary, MESSAGES);
    const busy = summaries.map((s) => `${s.thread} ${(s.busy * 100).toFixed(0)}%`).join(', ');
    console.log(`\nbusy: ${busy}; profiles kept in ${profileDir} (open them in Chrome DevTools or speedscope)`);
    printOverlap(summaries);
  } finally {
    await dns.close();
  }
}

await main();
