import { randomUUID } from 'node:crypto';
import type { LeaseRepository } from '../adapters/db/repositories/lease.repository.js';
import type { Logger } from '../logger.js';

export interface PeriodicTaskOptions {
  name: string;
  intervalMs: number;
  /** Returns how much work it did; a positive number runs it again at once (draining a backlog). */
  run(): Promise<number | void>;
  /** Hold a database lease so only one node runs this at a time (sweepers); omit for per-node work. */
  leases?: LeaseRepository;
  logger: Logger;
}

export interface BackgroundTask {
  start(): void;
  stop(): Promise<void>;
  /** Runs one round now (tests use this instead of waiting for the timer). */
  runOnce(): Promise<void>;
}

/** A timer-driven task that never overlaps itself, survives its own errors, and stops cleanly. */
export function createPeriodicTask(options: PeriodicTaskOptions): BackgroundTask {
  const holder = randomUUID();
  const leaseTtl = Math.max(options.intervalMs * 3, 30_000);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = true;

  const round = async (): Promise<void> => {
    try {
      if (options.leases && !(await options.leases.tryAcquire(options.name, holder, leaseTtl))) return;
      let done: number | void;
      do done = await options.run();
      while (!stopped && typeof done === 'number' && done > 0);
    } catch (error) {
      options.logger.error({ err: error, task: options.name }, 'background task failed');
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = round().finally(() => {
        running = undefined;
        schedule();
      });
    }, options.intervalMs);
    timer.unref();
  };

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      if (options.leases) await options.leases.release(options.name, holder).catch(() => undefined);
    },
    async runOnce() {
      await (running ?? Promise.resolve());
      const wasStopped = stopped;
      stopped = false;
      await round();
      stopped = wasStopped;
    },
  };
}
