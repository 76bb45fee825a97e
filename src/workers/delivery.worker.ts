import type { DeliveryJob } from '../adapters/db/repositories/delivery.repository.js';
import type { Logger } from '../logger.js';
import type { BackgroundTask } from './periodic-task.js';

export interface DeliveryWorkerOptions {
  concurrency: number;
  pollIntervalMs: number;
  /** A reservation not used within this time is given back (its transaction did not commit). */
  reservationTtlMs: number;
  claim(limit: number): Promise<DeliveryJob[]>;
  deliver(job: DeliveryJob): Promise<unknown>;
  logger: Logger;
}

/** Free slots set aside for jobs a transaction claims for this node directly (no separate claim query). */
export interface Reservation {
  readonly size: number;
  /** Starts the jobs the committed transaction claimed (at most `size`). */
  run(jobs: DeliveryJob[]): void;
  /** Gives the slots back unused: the transaction that claimed jobs with them did not commit. */
  release(): void;
}

export interface DeliveryWorker extends BackgroundTask {
  /** Look for due jobs now (called after an ingest commit queued some). */
  wake(): void;
  /** Sets aside up to `wanted` free slots, or returns undefined when there are none (or the worker is stopped). */
  reserve(wanted: number): Reservation | undefined;
}

/**
 * Keeps up to `concurrency` deliveries in flight: claims due jobs when woken, on a short poll (for
 * retries and jobs other nodes left behind), and whenever a slot frees up while a backlog remains.
 * Jobs an ingest transaction claimed for this node through a reservation start without a claim
 * query. stop() waits for the attempts in flight, so a clean shutdown leaves no job mid-attempt.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const inFlight = new Set<Promise<void>>();
  let reserved = 0;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let pumping: Promise<void> | undefined;
  let wokenWhilePumping = false;
  let backlog = false;
  const free = () => options.concurrency - inFlight.size - reserved;

  const dispatch = (job: DeliveryJob) => {
    const attempt: Promise<void> = options
      .deliver(job)
      .then(() => undefined)
      .catch((error: unknown) => options.logger.error({ err: error, emailId: job.emailId, deliveryId: job.deliveryId }, 'delivery attempt failed'))
      .finally(() => {
        inFlight.delete(attempt);
        if (backlog) wake();
      });
    inFlight.add(attempt);
  };

  const fill = async () => {
    do {
      wokenWhilePumping = false;
      // Woken with every slot busy: the next attempt to finish looks again, instead of the next poll.
      if (free() <= 0) backlog = true;
      while (!stopped && free() > 0) {
        const wanted = free();
        const jobs = await options.claim(wanted);
        backlog = jobs.length === wanted;
        for (const job of jobs) dispatch(job);
        if (!backlog) break;
      }
    } while (wokenWhilePumping && !stopped);
  };

  const wake = () => {
    if (stopped) return;
    if (pumping !== undefined) {
      wokenWhilePumping = true;
      return;
    }
    pumping = fill()
      .catch((error: unknown) => options.logger.error({ err: error }, 'claiming deliveries failed'))
      .finally(() => {
        pumping = undefined;
      });
  };

  const reserve = (wanted: number): Reservation | undefined => {
    const size = Math.min(wanted, free());
    if (stopped || size <= 0) return undefined;
    reserved += size;
    let settled = false;
    const settle = () => {
      if (settled) return false;
      settled = true;
      clearTimeout(expiry);
      reserved -= size;
      return true;
    };
    const expiry = setTimeout(settle, options.reservationTtlMs);
    expiry.unref();
    return {
      size,
      run(jobs) {
        // After stop(), or if the reservation already expired, the claimed jobs come back when their lease ends.
        if (!settle() || stopped) return;
        for (const job of jobs.slice(0, size)) dispatch(job);
      },
      release() {
        if (settle() && backlog) wake();
      },
    };
  };

  return {
    wake,
    reserve,
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setInterval(wake, options.pollIntervalMs);
      timer.unref();
      wake();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pumping;
      await Promise.all(inFlight);
    },
    async runOnce() {
      const jobs = await options.claim(options.concurrency);
      await Promise.all(jobs.map((job) => options.deliver(job)));
    },
  };
}
