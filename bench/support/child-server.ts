import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ChildServer {
  pid: number;
  /** Everything the process wrote to stdout so far. */
  output(): string;
  /** Peak resident set size in MB (Linux VmHWM: the kernel's own high-water mark). */
  peakRssMb(): number;
  /** CPU seconds (user + system, all threads) used so far: unlike wall time, barely moved by other load. */
  cpuSeconds(): number;
  /** cpuSeconds of the process and of its children, theirs and so on (a node:cluster primary with its servers). */
  treeCpuSeconds(): number;
  /** CPU seconds so far per thread name (`/proc/PID/task/TID/comm`), the main thread as `main`; threads that ended are not counted. */
  cpuSecondsByThread(): Map<string, number>;
  /** The main thread's seconds so far on a CPU and runnable but waiting for one (`/proc/PID/task/PID/schedstat`). */
  mainThreadSchedule(): ThreadSchedule;
  stop(): Promise<string>;
}

export interface ThreadSchedule {
  runSeconds: number;
  waitSeconds: number;
}

export interface ChildServerOptions {
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolves once stdout matches: the server is listening. */
  ready: RegExp;
  timeoutMs?: number;
}

function peakRssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1] ?? NaN);
    return Math.round(kb / 1024);
  } catch {
    return Number.NaN;
  }
}

/** utime and stime are fields 14 and 15 of a stat file (/proc/PID/stat: all threads), in clock ticks (USER_HZ, 100 on Linux). */
function cpuSecondsIn(statPath: string): number {
  try {
    const stat = readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

function treeCpuSecondsOf(pid: number): number {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    children = [];
  }
  return children.reduce((sum, child) => sum + treeCpuSecondsOf(child), cpuSecondsIn(`/proc/${pid}/stat`));
}

/** Node names its threads (libuv-worker, V8 DefaultWorke…); worker threads share the main thread's name, so the main thread is the task whose id is the pid. */
function cpuSecondsByThreadOf(pid: number): Map<string, number> {
  const byName = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const name = tid === String(pid) ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    const seconds = cpuSecondsIn(`/proc/${pid}/task/${tid}/stat`);
    if (!Number.isNaN(seconds)) byName.set(name, (byName.get(name) ?? 0) + seconds);
  }
  return byName;
}

/** schedstat holds the nanoseconds a task ran and waited on a run queue, and its time slices. */
function scheduleOf(pid: number): ThreadSchedule {
  const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
  return { runSeconds: (run ?? Number.NaN) / 1e9, waitSeconds: (wait ?? Number.NaN) / 1e9 };
}

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

/** Starts a server as a child process and waits until it says it is listening. */
export async function startChildServer(options: ChildServerOptions): Promise<{ server: ChildServer; match: RegExpMatchArray }> {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A bench that dies (a failed run, Ctrl-C) must not leave servers behind.
  const killOnExit = () => child.kill('SIGTERM');
  process.once('exit', killOnExit);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const match = await new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.command} did not start:\n${stdout}\n${stderr}`)), options.timeoutMs ?? 60_000);
    const check = () => {
      const found = options.ready.exec(stdout);
      if (found) {
        clearTimeout(timer);
        child.stdout?.off('data', check);
        resolve(found);
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${options.command} exited with ${code}:\n${stdout}\n${stderr}`));
    });
  }).catch((error: unknown) => {
    killOnExit();
    process.off('exit', killOnExit);
    throw error;
  });
  const pid = child.pid as number;
  const server: ChildServer = {
    pid,
    output: () => stdout,
    peakRssMb: () => peakRssOf(pid),
    cpuSeconds: () => cpuSecondsIn(`/proc/${pid}/stat`),
    treeCpuSeconds: () => treeCpuSecondsOf(pid),
    cpuSecondsByThread: () => cpuSecondsByThreadOf(pid),
    mainThreadSchedule: () => scheduleOf(pid),
    async stop() {
      process.off('exit', killOnExit);
      child.removeAllListeners('exit');
      const exited = waitForExit(child);
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      return stdout;
    },
  };
  return { server, match };
}
