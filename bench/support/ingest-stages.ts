/**
 * Where an accepted message's time goes, read from Mailroom's own /metrics (docs/operations.md):
 * the ingest and stage histograms are scraped before and after a timed run and the difference
 * summarised, so the warm-up does not count. The event-loop lag gauges are reset by every scrape,
 * so the second scrape's values cover the timed run alone.
 */
import { EVENT_LOOP_SAMPLING_MS } from '../../src/adapters/metrics/prometheus.metrics.js';

interface Histogram {
  /** Upper bound (seconds) → cumulative count. */
  buckets: Map<number, number>;
  sum: number;
  count: number;
}

export interface MetricsSnapshot {
  histograms: Map<string, Histogram>;
  gauges: Map<string, number>;
}

const SAMPLE = /^([a-zA-Z0-9_:]+?)(?:_(bucket|sum|count))?(?:\{([^}]*)\})? ([-+\d.eE]+|NaN|\+Inf)$/;

/** The Prometheus text format's samples: histograms keyed by name and non-`le` labels, gauges by name. */
export function parseMetrics(text: string): MetricsSnapshot {
  const histograms = new Map<string, Histogram>();
  const gauges = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line);
    if (match === null) continue;
    const [, name, part, labelText = '', valueText] = match as unknown as [string, string, string | undefined, string | undefined, string];
    const labels = Object.fromEntries([...labelText.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    const value = Number(valueText);
    if (part === undefined) {
      gauges.set(name, value);
      continue;
    }
    const { le, ...rest } = labels;
    const key = Object.keys(rest).length === 0 ? name : `${name}{${Object.entries(rest).map(([k, v]) => `${k}=${v}`).join(',')}}`;
    const histogram = histograms.get(key) ?? { buckets: new Map(), sum: 0, count: 0 };
    histograms.set(key, histogram);
    if (part === 'bucket') histogram.buckets.set(le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), value);
    else if (part === 'sum') histogram.sum = value;
    else histogram.count = value;
  }
  return { histograms, gauges };
}

function difference(after: Histogram, before: Histogram | undefined): Histogram {
  const buckets = new Map([...after.buckets].map(([le, count]) => [le, count - (before?.buckets.get(le) ?? 0)]));
  return { buckets, sum: after.sum - (before?.sum ?? 0), count: after.count - (before?.count ?? 0) };
}

/** The q-quantile, interpolated linearly inside its bucket (as Prometheus' histogram_quantile does). */
function quantile(histogram: Histogram, q: number): number {
  const rank = q * histogram.count;
  let lower = 0;
  let below = 0;
  for (const [le, cumulative] of [...histogram.buckets].sort((a, b) => a[0] - b[0])) {
    if (cumulative >= rank) {
      if (le === Number.POSITIVE_INFINITY) return lower;
      const inBucket = cumulative - below;
      return inBucket === 0 ? le : lower + ((le - lower) * (rank - below)) / inBucket;
    }
    lower = le;
    below = cumulative;
  }
  return lower;
}

export interface StageRow {
  name: string;
  count: number;
  meanMs: number;
  p50Ms: number;
  p95Ms: number;
}

const ROWS: Array<[string, string]> = [
  ['recipient (one RCPT TO)', 'mailroom_ingest_stage_duration_seconds{stage=recipient}'],
  ['end of DATA -> 250', 'mailroom_ingest_duration_seconds'],
  ['  analysis (worker)', 'mailroom_ingest_stage_duration_seconds{stage=analysis}'],
  ['  blobs (after analysis)', 'mailroom_ingest_stage_duration_seconds{stage=blobs}'],
  ['  rows (group commit)', 'mailroom_ingest_stage_duration_seconds{stage=rows}'],
  ['  of which the transaction', 'mailroom_ingest_commit_duration_seconds'],
];

/** The stage rows between two scrapes, and the mean group-commit size. */
export function ingestStages(before: MetricsSnapshot, after: MetricsSnapshot): { rows: StageRow[]; meanBatch: number } {
  const rows: StageRow[] = [];
  for (const [name, key] of ROWS) {
    const now = after.histograms.get(key);
    if (now === undefined) continue;
    const run = difference(now, before.histograms.get(key));
    if (run.count === 0) continue;
    rows.push({ name, count: run.count, meanMs: (run.sum / run.count) * 1000, p50Ms: quantile(run, 0.5) * 1000, p95Ms: quantile(run, 0.95) * 1000 });
  }
  const batches = after.histograms.get('mailroom_ingest_commit_messages');
  const batchRun = batches === undefined ? undefined : difference(batches, before.histograms.get('mailroom_ingest_commit_messages'));
  return { rows, meanBatch: batchRun === undefined || batchRun.count === 0 ? Number.NaN : batchRun.sum / batchRun.count };
}

/**
 * Prints the stages; `cycleMs` (sessions / msg/s) is how long each session spent per message, so
 * what the stages do not cover is the client's commands and the replies waiting for the event loop.
 */
export function printIngestStages(before: MetricsSnapshot, after: MetricsSnapshot, cycleMs: number): void {
  const { rows, meanBatch } = ingestStages(before, after);
  printStageRows(rows, 'the timed run');
  console.log(`  messages per group commit: ${meanBatch.toFixed(1)}`);
  // monitorEventLoopDelay records the whole interval between its timer's runs: an idle loop reads the interval itself.
  const lag = (name: string) => ((after.gauges.get(`mailroom_nodejs_eventloop_lag_${name}_seconds`) ?? Number.NaN) * 1000 - EVENT_LOOP_SAMPLING_MS).toFixed(1);
  console.log(`  main event-loop delay beyond the ${EVENT_LOOP_SAMPLING_MS} ms sampling interval: p50 ${lag('p50')} ms, p99 ${lag('p99')} ms, max ${lag('max')} ms`);
  const dataTo250 = rows.find((row) => row.name === 'end of DATA -> 250')?.meanMs ?? Number.NaN;
  const recipient = rows.find((row) => row.name.startsWith('recipient'))?.meanMs ?? 0;
  console.log(
    `  per message each session spent ${cycleMs.toFixed(1)} ms (sessions / msg/s): ${dataTo250.toFixed(1)} end of DATA -> 250, ${recipient.toFixed(1)} RCPT, ` +
      `${(cycleMs - dataTo250 - recipient).toFixed(1)} the rest (connect, greeting, MAIL, DATA and the body on the wire, client turnaround)`,
  );
}

/** The stage table; `over` names what the histograms' difference covers. */
export function printStageRows(rows: StageRow[], over: string): void {
  const ms = (value: number) => value.toFixed(2).padStart(8);
  console.log(`\nwhere a message's time goes (server's own histograms over ${over}; p50/p95 interpolated in buckets):`);
  console.log(`  ${'stage'.padEnd(28)} ${'count'.padStart(6)} ${'mean ms'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)}`);
  for (const row of rows) console.log(`  ${row.name.padEnd(28)} ${String(row.count).padStart(6)} ${ms(row.meanMs)} ${ms(row.p50Ms)} ${ms(row.p95Ms)}`);
}
