/**
 * An A/B of two builds on one host: `bench:profile --no-cpu-prof` run alternately on this checkout
 * (its working tree, uncommitted changes included) and on `--base` (a commit, checked out in a
 * scratch git worktree), in pairs ordered ABBA so that a host drifting during the run does not
 * favour either side. Prints every run's readings, then each reading's per-pair ratio (this
 * checkout over the base): its median and range, its geometric mean over pairs balanced in order,
 * how many pairs went each way, and the order effect (each pair's second run over its first).
 * `--base HEAD` on a clean tree is an A/A: it shows how far identical builds differ on this host
 * now, which an A/B's ratios must clear (D78: one build read 631–1,097 msg/s within 25 minutes
 * while its cores busy held at 1.28–1.41).
 * Options other than --base and --pairs go to bench:profile (--messages, --mode, --database, …).
 */
import { execFileSync, spawn } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { scratchFolder } from './support/scratch.js';

const ROOT = resolve(import.meta.dirname, '..');
const { values: options, tokens } = parseArgs({
  options: { base: { type: 'string', default: 'HEAD' }, pairs: { type: 'string', default: '3' } },
  strict: false,
  tokens: true,
});
if (typeof options.base !== 'string') throw new Error('--base needs a commit, e.g. --base HEAD~1');
const BASE_REF = options.base;
const PAIRS = Number(options.pairs);
if (!Number.isInteger(PAIRS) || PAIRS < 1) throw new Error('--pairs must be a whole number of at least 1');
const PROFILE_ARGS = profileArgs();

/** What bench:profile prints that an A/B compares; larger is better only for msg/s and cores busy. */
interface Reading {
  msgPerSecond: number;
  cpuMsPerMessage: number;
  peakRssMb: number;
  coresBusy: number;
  mainOnCpu: number;
  mainWaiting: number;
  mainCpuMsPerMessage: number;
}

const READINGS: Array<{ key: keyof Reading; label: string }> = [
  { key: 'msgPerSecond', label: 'msg/s' },
  { key: 'cpuMsPerMessage', label: 'CPU ms/msg' },
  { key: 'mainCpuMsPerMessage', label: 'main CPU ms/msg' },
  { key: 'coresBusy', label: 'cores busy' },
  { key: 'mainOnCpu', label: 'main on a CPU %' },
  { key: 'mainWaiting', label: 'main waiting %' },
  { key: 'peakRssMb', label: 'peak RSS MB' },
];

/** The command line's arguments meant for bench:profile, as given (an unknown option's value arrives as a positional). */
function profileArgs(): string[] {
  const args: string[] = [];
  for (const token of tokens ?? []) {
    if (token.kind === 'positional') args.push(token.value);
    else if (token.kind === 'option' && token.name !== 'base' && token.name !== 'pairs') args.push(token.inlineValue === true ? `${token.rawName}=${token.value}` : token.rawName);
  }
  return args;
}

/** A checkout of `ref` in a scratch worktree, sharing this checkout's installed packages, built. */
async function checkoutBase(ref: string): Promise<{ dir: string; commit: string }> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = join(await scratchFolder('mailroom-ab-'), 'base');
  execFileSync('git', ['worktree', 'add', '--detach', dir, commit], { cwd: ROOT, stdio: 'ignore' });
  // Before the scratch folder's own removal at exit, so that git forgets the worktree with it.
  process.prependOnceListener('exit', () => {
    try {
      execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'ignore' });
    } catch (error) {
      console.error(`could not remove the git worktree ${dir} (git worktree prune forgets it): ${String(error)}`);
    }
  });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  symlinkSync(join(ROOT, 'bench/node_modules'), join(dir, 'bench/node_modules'));
  execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'ignore' });
  return { dir, commit };
}

function numberIn(output: string, pattern: RegExp): number {
  const match = pattern.exec(output);
  if (match?.[1] === undefined) throw new Error(`bench:profile printed no match for ${pattern}:\n${output}`);
  return Number(match[1]);
}

function parseReading(output: string): Reading {
  return {
    msgPerSecond: numberIn(output, /\((\d+) msg\/s\)/),
    cpuMsPerMessage: numberIn(output, /([\d.]+) CPU ms\/msg \(all threads/),
    peakRssMb: numberIn(output, /peak RSS (\d+) MB/),
    coresBusy: numberIn(output, /cores busy over the timed run: ([\d.]+) by Mailroom/),
    mainOnCpu: numberIn(output, /main thread over the timed run: on a CPU (\d+)%/),
    mainWaiting: numberIn(output, /waiting for a CPU (\d+)%/),
    mainCpuMsPerMessage: numberIn(output, /by thread[^\n]*?\bmain ([\d.]+)/),
  };
}

/** One bench:profile run in `dir`, with its own copy of the bench scripts and build. */
function profile(dir: string): Promise<Reading> {
  const args = [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'bench/profile.bench.ts', '--no-cpu-prof', ...PROFILE_ARGS];
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`bench:profile in ${dir} exited with ${code}:\n${output}`));
      try {
        resolvePromise(parseReading(output));
      } catch (error) {
        reject(error);
      }
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The mean of the ratios' logarithms, over as many pairs run base first as this checkout first. When
 * a pair's second run reads lower than its first whichever build it is (5 pairs of 5 in one A/B on
 * 2026-11-29, D82), each pair's ratio moves by that factor, one way in pairs run base first and the
 * other way in the rest: this cancels it, and a median of an uneven mix does not.
 */
function geometricMean(ratios: number[]): number {
  return Math.exp(ratios.reduce((sum, ratio) => sum + Math.log(ratio), 0) / ratios.length);
}

function rangeOf(values: number[]): string {
  return `${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}`;
}

/** Two decimals at most, as bench:profile prints them. */
function round(value: number): string {
  return String(Math.round(value * 100) / 100);
}

function formatRun(side: string, reading: Reading): string {
  return `  ${side.padEnd(5)} ${READINGS.map(({ key, label }) => `${label} ${reading[key]}`).join(', ')}`;
}

async function main(): Promise<void> {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const base = await checkoutBase(BASE_REF);
  const headLabel = `${head}${dirty ? ' with uncommitted changes' : ''}`;
  console.log(`A/B: this checkout (${headLabel}) against base ${base.commit.slice(0, 7)}, ${PAIRS} pairs ABBA, bench:profile --no-cpu-prof ${PROFILE_ARGS.join(' ')}`);
  const pairs: Array<{ base: Reading; head: Reading; headFirst: boolean }> = [];
  for (let i = 0; i < PAIRS; i++) {
    const headFirst = i % 2 === 1;
    console.log(`pair ${i + 1} (${headFirst ? 'this, base' : 'base, this'}):`);
    const first = await profile(headFirst ? ROOT : base.dir);
    console.log(formatRun(headFirst ? 'this' : 'base', first));
    const second = await profile(headFirst ? base.dir : ROOT);
    console.log(formatRun(headFirst ? 'base' : 'this', second));
    pairs.push(headFirst ? { head: first, base: second, headFirst } : { base: first, head: second, headFirst });
  }
  // The first even number of pairs: as many run base first as this checkout first.
  const balanced = pairs.length - (pairs.length % 2);
  console.log(`\n| reading | base median | this median | ratio this / base: median (range) | geometric mean, ${balanced} pairs | pairs this higher / lower | second run / first: median (range) |`);
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const { key, label } of READINGS) {
    const ratios = pairs.map((pair) => pair.head[key] / pair.base[key]);
    const higher = pairs.filter((pair) => pair.head[key] > pair.base[key]).length;
    const lower = pairs.filter((pair) => pair.head[key] < pair.base[key]).length;
    const balancedMean = balanced === 0 ? '–' : geometricMean(ratios.slice(0, balanced)).toFixed(3);
    const order = pairs.map((pair) => (pair.headFirst ? pair.base[key] / pair.head[key] : pair.head[key] / pair.base[key]));
    console.log(
      `| ${label} | ${round(median(pairs.map((p) => p.base[key])))} | ${round(median(pairs.map((p) => p.head[key])))} | ${median(ratios).toFixed(3)} (${rangeOf(ratios)}) | ${balancedMean} | ${higher} / ${lower} | ${median(order).toFixed(3)} (${rangeOf(order)}) |`,
    );
  }
  console.log('\nA ratio counts only beyond what an A/A (--base HEAD on a clean tree) shows on the same host: see bench/README.md.');
}

await main();
