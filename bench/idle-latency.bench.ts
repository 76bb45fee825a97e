/**
 * Issue 15's idle latency alone, with where its time goes: a fresh Mailroom gets bench:smtp's
 * warm-up, then `--runs` rounds of bench/support/idle-latency.ts's samples (200 by default), each round printed
 * with the client's end of DATA → 250 and the server's stage histograms over those samples only.
 * A minute instead of bench:smtp's several; the figures are the same measurement. See bench/README.md.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { BENCH_SENDER, SMTP_LOAD_OPTIONS, prepareSmtpBench, startSenderDns } from './support/sender.js';
import { singleServerOptions, startMailroom, type MailroomBuild } from './support/mailroom.js';
import { runSmtpSource } from './support/smtp-source.js';
import { IDLE_SAMPLES, idleLatency } from './support/idle-latency.js';
import { printStageRows } from './support/ingest-stages.js';

const { values: options } = parseArgs({
  options: {
    ...SMTP_LOAD_OPTIONS,
    database: { type: 'string', default: 'sqlite' },
    runs: { type: 'string', default: '2' },
    samples: { type: 'string', default: String(IDLE_SAMPLES) },
  },
});
const BUILD = options.from as MailroomBuild;
if (options.database !== 'sqlite' && options.database !== 'postgres') throw new Error('--database must be sqlite or postgres');

/**
 * Context switches (voluntary + involuntary) of each of the server's threads: every time a thread
 * blocks and is woken again counts, so the count per sample is the thread hand-offs a message costs,
 * which a loaded machine does not inflate the way it inflates milliseconds. Node names all its
 * threads `node`, so they are told apart by id (the main thread's is the pid).
 */
function switchesByThread(pid: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8');
      const switches = [...status.matchAll(/^(?:non)?voluntary_ctxt_switches:\s*(\d+)$/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
      counts.set(tid === String(pid) ? 'main' : `thread ${tid}`, switches);
    } catch {
      // The thread ended between listing and reading.
    }
  }
  return counts;
}

function perSample(before: Map<string, number>, after: Map<string, number>, samples: number): string {
  const rows = [...after].map(([name, count]) => [name, (count - (before.get(name) ?? 0)) / samples] as const).filter(([, n]) => n >= 0.5);
  const total = [...after].reduce((sum, [name, count]) => sum + (count - (before.get(name) ?? 0)) / samples, 0);
  return `${total.toFixed(1)} (${rows.sort((a, b) => b[1] - a[1]).map(([name, n]) => `${name} ${n.toFixed(1)}`).join(', ')})`;
}

async function main(): Promise<void> {
  prepareSmtpBench(BUILD);
  const dns = await startSenderDns();
  try {
    const instance = await startMailroom(singleServerOptions(options, dns.address, BUILD));
    try {
      const warmup = Number(options.warmup);
      if (warmup > 0) {
        await runSmtpSource({ port: instance.smtpPort, to: instance.inboxAddress, from: BENCH_SENDER, messages: warmup, sessions: Number(options.sessions), bodyBytes: Number(options.size), persistent: true });
      }
      for (let run = 1; run <= Number(options.runs); run++) {
        const load = loadavg()[0]?.toFixed(2);
        const switchesBefore = switchesByThread(instance.server.pid);
        const { accept, wait, stages = [] } = await idleLatency({ ...instance, from: BENCH_SENDER }, Number(options.samples));
        const switches = perSample(switchesBefore, switchesByThread(instance.server.pid), accept.samples);
        console.log(
          `\nrun ${run} (load average ${load}): end of DATA -> 250 p50 ${accept.p50Ms.toFixed(2)} ms, p95 ${accept.p95Ms.toFixed(2)} ms, max ${accept.maxMs.toFixed(2)} ms; ` +
            `250 -> waiting HTTP client p50 ${wait.p50Ms.toFixed(2)} ms`,
        );
        console.log(`server context switches per sample (warm-up and scrapes included): ${switches}`);
        printStageRows(stages, `these ${accept.samples} idle samples`);
      }
    } finally {
      await instance.stop();
    }
  } finally {
    await dns.close();
  }
}

await main();
