import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ChildServer {
  pid: number;
  /** Everything the process wrote to stdout so far. */
  output(): string;
  /** Peak resident set size in MB (Linux VmHWM: the kernel's own high-water mark). */
  peakRssMb(): number;
  /** CPU seconds (user + system, all threads) used so far: unlike wall time, barely moved by other load. */
  cpuSeconds(): number;
  stop(): Promise<string>;
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

/** utime and stime are fields 14 and 15 of /proc/PID/stat, in clock ticks (USER_HZ, 100 on Linux). */
function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
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
    cpuSeconds: () => cpuSecondsOf(pid),
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
