import type { ControlledTransaction, Kysely } from 'kysely';
import { createRepositories, createUnitOfWork, type Repositories, type UnitOfWork } from './repositories/index.js';
import type { Db } from './database.js';
import { writeInOneStatement } from './reusable-query.js';
import type { Database } from './schema.js';

interface Queued {
  work: Parameters<UnitOfWork>[0];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Most units committed together: bounds how long one transaction holds the connection. */
export const MAX_BATCH = 64;
/** How long the first unit of a batch waits for others: the latency every ingest pays for cheaper commits. */
const DEFAULT_WINDOW_MS = 2;
/**
 * createBatchCommit's window, while more items are on their way: 5 ms, not 2, made the ingest's
 * groups on SQLite ~1.5–2x larger under load and saved ~0.05–0.1 CPU ms per message, its mean
 * latency unchanged within 0.5 ms (D67). An idle server's item does not wait (`pending`).
 */
export const DEFAULT_BATCH_WINDOW_MS = 5;
/**
 * A batch still smaller than this when its window ends waits on for more, up to
 * DEFAULT_BATCH_LONGEST_WAIT_MS after its first item; so does a batch of what arrived during a
 * commit. Much of a commit's cost is per batch (the WAL writes of the tables' last pages, the
 * wake-ups of other threads), and with a new connection per message items arrive spread out: at
 * bench:smtp's load groups grew from 7.4 to ~9.5 and CPU per message fell ~6% (D91). Persistent
 * sessions arrive in waves of ~19, which a plain 12 ms window held back (fewer msg/s); this does not.
 */
export const SMALL_BATCH = 12;
export const DEFAULT_BATCH_LONGEST_WAIT_MS = 12;

/**
 * A UnitOfWork with group commit, for SQLite, where a COMMIT blocks the main thread for about a
 * millisecond (WAL page writes and checkpoints) and the single connection serialises writers anyway.
 * The first unit waits `windowMs` for others (the statements run synchronously, so without a window
 * no other unit ever arrives in time), then all of them run in one transaction, and units that
 * arrive meanwhile form the next batch. Each unit runs inside its own savepoint, so a failing unit
 * rolls back alone and rejects only its caller; every caller's promise settles after the commit that
 * holds its rows (or with the error of a commit that failed). Measured in docs/decisions.md (D16).
 */
export function createGroupCommitUnitOfWork(db: Kysely<Database>, windowMs = DEFAULT_WINDOW_MS): UnitOfWork {
  let queue: Queued[] = [];
  // A drain is scheduled or running: new units join its queue.
  let scheduled = false;

  const drain = async () => {
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      const outcomes = await commitTogether(db, batch);
      batch.forEach((unit, i) => {
        const outcome = outcomes[i] as Outcome;
        if (outcome.ok) unit.resolve(outcome.value);
        else unit.reject(outcome.error);
      });
    }
    scheduled = false;
  };

  return <T>(work: Parameters<UnitOfWork>[0]) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (scheduled) return;
      scheduled = true;
      setTimeout(() => void drain(), windowMs);
    });
}

async function commitTogether(db: Kysely<Database>, batch: Queued[]): Promise<Outcome[]> {
  let trx: ControlledTransaction<Database>;
  try {
    trx = await db.startTransaction().execute();
  } catch (error) {
    return batch.map(() => ({ ok: false, error }));
  }
  try {
    const outcomes: Outcome[] = [];
    for (const unit of batch) outcomes.push(await runInSavepoint(trx, unit));
    await trx.commit().execute();
    return outcomes;
  } catch (error) {
    await trx.rollback().execute().catch(() => undefined);
    return batch.map(() => ({ ok: false, error }));
  }
}

/** Runs one unit; its failure is its own outcome, anything failing around it fails the batch. */
async function runInSavepoint(trx: ControlledTransaction<Database>, unit: Queued): Promise<Outcome> {
  const inSavepoint = await trx.savepoint('unit').execute();
  try {
    const value = await unit.work(createRepositories(inSavepoint));
    await inSavepoint.releaseSavepoint('unit').execute();
    return { ok: true, value };
  } catch (error) {
    await inSavepoint.rollbackToSavepoint('unit').execute();
    await inSavepoint.releaseSavepoint('unit').execute();
    return { ok: false, error };
  }
}

interface PendingItem<I> {
  item: I;
  resolve(): void;
  reject(error: unknown): void;
}

export interface BatchCommitOptions {
  /** How long a batch waits for more items (default 5 ms). */
  windowMs?: number;
  /** A batch below this many items when its window ends waits on, while more are pending (default SMALL_BATCH). */
  smallBatch?: number;
  /** The longest a small batch waits, from its first item (default 12 ms). */
  longestWaitMs?: number;
  /**
   * How many more items are on their way (callers that will submit soon, e.g. ingests still being
   * analysed). While none are, waiting could only add latency: the batch starts at once.
   */
  pending?: () => number;
  /** Told of every committed batch: its items and its transaction's seconds (the ingest commit metrics). */
  onCommit?: (items: number, seconds: number) => void;
}

/**
 * Group commit for work that merges: concurrent callers' items are written by ONE call of `write`
 * over all of them (multi-row inserts): on SQLite in one transaction, on PostgreSQL as one statement
 * (reusable-query.ts `writeInOneStatement`: `write` reads only what was committed before it, and
 * its writes go out together when it returns).
 * A batch starts when nothing more is `pending`, or `windowMs` after its first item; one still
 * smaller than `smallBatch` then waits on until it has that many, up to `longestWaitMs` after its first item;
 * items arriving while a batch commits form the next one, which starts as soon as that commit is
 * done if it is `smallBatch` or more or nothing more is pending, else after a window of its own;
 * at most one batch transaction runs at a time. `afterCommit` (which must not throw) gets
 * what `write` returned, once per committed batch. If a batch fails, each of its items is
 * retried in a transaction of its own, so one bad item fails only its caller; every caller's promise
 * settles after the commit that holds its rows, or with the error that kept them out.
 */
export function createBatchCommit<I, R>(
  db: Db,
  write: (repos: Repositories, items: I[]) => Promise<R>,
  afterCommit: (result: R) => void,
  options: BatchCommitOptions = {},
): (item: I) => Promise<void> {
  const { windowMs = DEFAULT_BATCH_WINDOW_MS, pending = () => Number.POSITIVE_INFINITY, onCommit } = options;
  const { smallBatch = SMALL_BATCH, longestWaitMs = Math.max(windowMs, DEFAULT_BATCH_LONGEST_WAIT_MS) } = options;
  let queue: PendingItem<I>[] = [];
  let draining = false;
  let window: NodeJS.Timeout | undefined;
  // The batch's window has ended and it is waiting on to fill up (see SMALL_BATCH).
  let waitingToFill = false;
  let startSoon: NodeJS.Immediate | undefined;
  // Past its window, a batch starts once it is full enough or nothing more is on its way.
  const ready = () => queue.length >= smallBatch || pending() === 0;

  const commit = async (batch: PendingItem<I>[]): Promise<void> => {
    let result: R;
    try {
      const started = performance.now();
      result = await writeTogether(db, (repos) => write(repos, batch.map((item) => item.item)));
      onCommit?.(batch.length, (performance.now() - started) / 1000);
    } catch (error) {
      if (batch.length === 1) (batch[0] as PendingItem<I>).reject(error);
      else for (const item of batch) await commit([item]);
      return;
    }
    for (const item of batch) item.resolve();
    afterCommit(result);
  };

  const drain = async () => {
    clearTimeout(window);
    clearImmediate(startSoon);
    window = undefined;
    waitingToFill = false;
    startSoon = undefined;
    draining = true;
    do {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      await commit(batch);
    } while (queue.length > 0 && ready());
    draining = false;
    // What arrived during the commit is a batch of its own, with its own window.
    if (queue.length > 0) schedule();
  };

  const windowEnded = () => {
    if (ready()) return void drain();
    waitingToFill = true;
    window = setTimeout(() => void drain(), longestWaitMs - windowMs);
  };

  // setImmediate, not a synchronous start: items completing in the same turn of the event loop join.
  const schedule = () => {
    if (draining || startSoon !== undefined) return;
    if (waitingToFill ? ready() : pending() === 0) startSoon = setImmediate(() => void drain());
    else window ??= setTimeout(windowEnded, windowMs);
  };

  return (item: I) =>
    new Promise<void>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}

/** SQLite: one transaction; PostgreSQL: one statement (D86). */
function writeTogether<R>(db: Db, work: (repos: Repositories) => Promise<R>): Promise<R> {
  if (db.readOnly === undefined) return createUnitOfWork(db.kysely)(work);
  return writeInOneStatement(db.kysely, db.readOnly, (handle) => work(createRepositories(handle)));
}
