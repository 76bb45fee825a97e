import type { ControlledTransaction, Kysely } from 'kysely';
import { createRepositories, type UnitOfWork } from './repositories/index.js';
import type { Database } from './schema.js';

interface Queued {
  work: Parameters<UnitOfWork>[0];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Most units committed together: bounds how long one transaction holds the connection. */
const MAX_BATCH = 64;

/**
 * A UnitOfWork with group commit, for SQLite, where every commit costs about a millisecond of the
 * main thread (WAL page writes and checkpoints) and the single connection serialises writers anyway.
 * A unit that arrives while a transaction is running waits for it and then commits together with
 * every other unit that arrived meanwhile: no timer, so an idle server adds no latency, and a busy
 * one commits once per batch. Each unit runs inside its own savepoint, so a failing unit rolls back
 * alone and rejects only its caller; every caller's promise settles after the commit that holds its
 * rows (or with the error of a commit that failed).
 */
export function createGroupCommitUnitOfWork(db: Kysely<Database>): UnitOfWork {
  let queue: Queued[] = [];
  let draining = false;

  const drain = async () => {
    draining = true;
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
    draining = false;
  };

  return <T>(work: Parameters<UnitOfWork>[0]) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!draining) void drain();
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
