import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SMALL_THREAD_LIMITS } from '../os/small-thread-limits.js';

/** How often the checkpointer copies committed WAL pages into the database file. */
const CHECKPOINT_INTERVAL_MS = 500;

// Plain CommonJS so the same code runs from dist and from src under tsx (a worker's loader hooks do
// not apply to its own entry module on Node 20).
const CHECKPOINTER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    parentPort.postMessage(error instanceof Error ? error.message : String(error));
  }
}, workerData.intervalMs);
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

/**
 * SQLite checkpoints the WAL inside whichever COMMIT crosses 1,000 pages, and a checkpoint fsyncs
 * the WAL and the database file: on the ingest connection that stalled the main thread (every SMTP
 * session) for as long as the disk took. The caller turns automatic checkpoints off on its own
 * connection and this thread, with its own connection, runs PASSIVE checkpoints (they never block
 * the writer) on a timer. Durability is unchanged: a commit is in the WAL either way.
 */
export function startCheckpointer(path: string, onError: (error: unknown) => void): Checkpointer {
  const worker = new Worker(CHECKPOINTER_SOURCE, {
    eval: true,
    resourceLimits: SMALL_THREAD_LIMITS,
    workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: CHECKPOINT_INTERVAL_MS },
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
