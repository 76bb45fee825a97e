import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The parts of V8's `.cpuprofile` format (written by `node --cpu-prof`) this summary reads. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  /** Microseconds on the monotonic clock `process.hrtime` reads, in every process of the machine. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
}

export interface ThreadSummary {
  /** `main` or `worker <thread id>`, from the file name node gives each thread's profile. */
  thread: string;
  windowMs: number;
  /** Share of the window the thread was running JavaScript, GC or native code rather than idle. */
  busy: number;
  busyMs: number;
  modules: SelfTime[];
  functions: SelfTime[];
  /** The thread's busy share in each OVERLAP_BIN_US slice of the window, for `overlap`. */
  busyShareByBin: Float64Array;
}

/** The slices two threads' busy time is compared in: two samples of node's default 1 ms interval. */
export const OVERLAP_BIN_US = 2000;

/** How two threads' busy time lay over each other (shares of the window), slice by slice. */
export interface Overlap {
  both: number;
  firstAlone: number;
  secondAlone: number;
  neither: number;
}

/** Window of the run to summarise, in process.hrtime microseconds. */
export interface Window {
  startUs: number;
  endUs: number;
}

const SPECIAL = /^\((idle|program|garbage collector|root)\)$/;

/** Which package, file of ours, or Node subsystem a function belongs to. */
function moduleOf(url: string, functionName: string): string {
  if (SPECIAL.test(functionName)) return functionName;
  if (url === '') return '(native)';
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  const ours = /\/((?:src|dist\/src|bench|dist)\/.+)$/.exec(url);
  return ours ? (ours[1] as string) : url.replace(/^file:\/\//, '');
}

function functionLabel(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  if (SPECIAL.test(name) || frame.url === '') return name;
  return `${name} ${moduleOf(frame.url, name)}:${frame.lineNumber + 1}`;
}

function top(totals: Map<string, number>, count: number): SelfTime[] {
  return [...totals.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({ name, ms: us / 1000 }));
}

export function summariseProfile(profile: CpuProfile, thread: string, window: Window, count: number): ThreadSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const modules = new Map<string, number>();
  const functions = new Map<string, number>();
  const bins = Math.max(0, Math.ceil((window.endUs - window.startUs) / OVERLAP_BIN_US));
  const busyUsByBin = new Float64Array(bins);
  const sampledUsByBin = new Float64Array(bins);
  let at = profile.startTime;
  let idleUs = 0;
  let totalUs = 0;
  profile.samples.forEach((nodeId, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < window.startUs || at > window.endUs) return;
    const frame = nodes.get(nodeId);
    if (frame === undefined) return;
    totalUs += delta;
    // A sample stamped at the window's very end belongs to its last slice.
    const bin = Math.min(bins - 1, Math.floor((at - window.startUs) / OVERLAP_BIN_US));
    if (bin >= 0) sampledUsByBin[bin] = (sampledUsByBin[bin] ?? 0) + delta;
    if (frame.functionName === '(idle)') {
      idleUs += delta;
      return;
    }
    if (bin >= 0) busyUsByBin[bin] = (busyUsByBin[bin] ?? 0) + delta;
    const module = moduleOf(frame.url, frame.functionName);
    modules.set(module, (modules.get(module) ?? 0) + delta);
    const label = functionLabel(frame);
    functions.set(label, (functions.get(label) ?? 0) + delta);
  });
  const windowMs = (window.endUs - window.startUs) / 1000;
  const busyMs = (totalUs - idleUs) / 1000;
  const busyShareByBin = busyUsByBin.map((busyUs, bin) => {
    const sampledUs = sampledUsByBin[bin] ?? 0;
    return sampledUs > 0 ? busyUs / sampledUs : 0;
  });
  return { thread, windowMs, busy: windowMs > 0 ? busyMs / windowMs : 0, busyMs, modules: top(modules, count), functions: top(functions, count), busyShareByBin };
}

/**
 * Whether two threads worked at the same time or took turns. Within a slice the shorter busy share
 * counts as overlapping, so `both` is an upper bound at the slice's resolution.
 */
export function overlap(first: ThreadSummary, second: ThreadSummary): Overlap {
  const bins = Math.min(first.busyShareByBin.length, second.busyShareByBin.length);
  const sums = { both: 0, firstAlone: 0, secondAlone: 0, neither: 0 };
  for (let bin = 0; bin < bins; bin++) {
    const a = first.busyShareByBin[bin] ?? 0;
    const b = second.busyShareByBin[bin] ?? 0;
    const both = Math.min(a, b);
    sums.both += both;
    sums.firstAlone += a - both;
    sums.secondAlone += b - both;
    sums.neither += 1 - Math.max(a, b);
  }
  const share = (sum: number) => (bins > 0 ? sum / bins : 0);
  return { both: share(sums.both), firstAlone: share(sums.firstAlone), secondAlone: share(sums.secondAlone), neither: share(sums.neither) };
}

/** Every thread's profile in `dir` (node names them CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile). */
export async function summariseProfiles(dir: string, window: Window, count: number): Promise<ThreadSummary[]> {
  const files = (await readdir(dir)).filter((name) => name.endsWith('.cpuprofile')).sort();
  const summaries: ThreadSummary[] = [];
  for (const file of files) {
    const threadId = Number(file.split('.').at(-3));
    const profile = JSON.parse(await readFile(join(dir, file), 'utf8')) as CpuProfile;
    summaries.push(summariseProfile(profile, threadId === 0 ? 'main' : `worker ${threadId}`, window, count));
  }
  return summaries;
}

export function printSummary(summary: ThreadSummary, messages: number): void {
  const perMessage = (ms: number) => (ms / messages).toFixed(3);
  console.log(
    `\n== ${summary.thread}: busy ${(summary.busy * 100).toFixed(0)}% of ${(summary.windowMs / 1000).toFixed(1)} s, ${perMessage(summary.busyMs)} ms/msg on this thread`,
  );
  const table = (title: string, rows: SelfTime[]) => {
    console.log(`  ${title.padEnd(72)} ${'self ms'.padStart(9)} ${'ms/msg'.padStart(7)} ${'share'.padStart(6)}`);
    for (const row of rows) {
      const share = summary.busyMs > 0 ? (row.ms / summary.busyMs) * 100 : 0;
      console.log(`  ${row.name.slice(0, 72).padEnd(72)} ${row.ms.toFixed(0).padStart(9)} ${perMessage(row.ms).padStart(7)} ${share.toFixed(1).padStart(5)}%`);
    }
  };
  table('module (self time)', summary.modules);
  table('function (self time)', summary.functions);
}
