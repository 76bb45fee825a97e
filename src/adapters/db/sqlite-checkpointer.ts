import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SMALL_THREAD_LIMITS } from '../os/small-thread-limits.js';

/** How often the checkpointer copies committed WAL pages into the database file. */
const CHECKPOINT_INTERVAL_MS = 500;
/**
 * The WAL starts over only when a writer begins a transaction while every frame is checkpointed;
 * a checkpoint that commits overlapped leaves frames behind, and under steady load every one did,
 * so the WAL grew by all that was written (600 MB in 20 s of bench:smtp, D73). After each
 * checkpoint that found new frames another follows this soon, up to CATCH_UP_TRIES times: each
 * copies only what arrived meanwhile, so one usually ends between two commits.
 */
const CATCH_UP_MS = 2;
const CATCH_UP_TRIES = 25;
/**
 * If commits never leave such a gap, a WAL past this many frames (16 MB of 4 KB pages) gets a
 * RESTART checkpoint: it holds new writers off while it copies the few frames the catch-up left
 * and syncs, so that the next writer starts the WAL over. A writer on the main thread waits that
 * long in SQLite's busy handler, which is why this is the last resort and not the routine.
 */
const RESTART_FRAMES = 4096;
/**
 * How long the RESTART waits for the writer lock and then for readers (the only use of this
 * connection's busy handler: PASSIVE never waits). Short, because a transaction on the main
 * connection that read and now wants to write waits for the lock the RESTART holds while the
 * RESTART waits for that transaction's read: whichever gives up first ends it, and giving up
 * here only leaves a PASSIVE checkpoint's work done.
 */
const RESTART_WAIT_MS = 10;

// Plain CommonJS so the same code runs from dist and from src under tsx (a worker's loader hooks do
// not apply to its own entry module on Node 20).
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = ' + workerData.restartWaitMs);
// The frame count a checkpoint reports is the WAL as it was when that checkpoint began.
const checkpoint = (tries, previousLog) => {
  let log = 0;
  try {
    [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
    if (tries === workerData.catchUpTries && log > workerData.restartFrames) [{ log }] = db.pragma('wal_checkpoint(RESTART)');
  } catch (error) {
    parentPort.postMessage(error instanceof Error ? error.message : String(error));
  }
  const caughtUp = log === 0 || log <= previousLog;
  if (!caughtUp && tries < workerData.catchUpTries) setTimeout(checkpoint, workerData.catchUpMs, tries + 1, log);
  else setTimeout(checkpoint, workerData.intervalMs, 0, 0);
};
setTimeout(checkpoint, workerData.intervalMs, 0, 0);
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * SQLite checkpoints the WAL inside whichever COMMIT crosses 1,000 pages, and a checkpoint fsyncs
 * the WAL and the database file: on the ingest connection that stalled the main thread (every SMTP
 * session) for as long as the disk took. The caller turns automatic checkpoints off on its own
 * connection and this thread, with its own connection, runs PASSIVE checkpoints (they never block
 * the writer) on a timer, catching up after each (above). Durability is unchanged: a commit is in
 * the WAL either way.
 */
export function startCheckpointer(path: string, onError: (error: unknown) => void): Checkpointer {
  const worker = new Worker(CHECKPOINTER_SOURCE, {
    eval: true,
    resourceLimits: SMALL_THREAD_LIMITS,
    workerData: {
      path,
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      intervalMs: CHECKPOINT_INTERVAL_MS,
      catchUpMs: CATCH_UP_MS,
      catchUpTries: CATCH_UP_TRIES,
      restartFrames: RESTART_FRAMES,
      restartWaitMs: RESTART_WAIT_MS,
    },
  });
  worker.unref();
  worker.on('message', (message: string) => onError(new Error(`SQLite checkpoint failed: ${message}`)));
  worker.on('error', onError);
  return {
    async stop() {
      await worker.terminate();
    },
  };
}
