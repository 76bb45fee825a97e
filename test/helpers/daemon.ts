import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

export interface Daemon {
  child: ChildProcess;
  /** SIGTERM, then resolves once it has exited (at once if it already had). */
  stop(): Promise<void>;
}

export interface DaemonOptions {
  /** For error messages: `dovecot`, `rspamd`. */
  name: string;
  command: string;
  args: string[];
  /** Resolves true once the daemon serves; polled until then. */
  ready(): Promise<boolean>;
  timeoutMs: number;
  pollMs: number;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await exited;
}

/**
 * Starts a reference server (dovecot, rspamd) in the foreground and waits until `ready` says it
 * serves. If it exits or does not get ready in time, the error carries the end of its output, and a
 * daemon that is still running is stopped.
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  let output = '';
  const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode}: ${output.slice(-2000)}`);
    if (await options.ready()) return { child, stop: () => stopChild(child) };
    if (Date.now() > deadline) {
      await stopChild(child);
      throw new Error(`${options.name} was not ready within ${options.timeoutMs} ms: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
