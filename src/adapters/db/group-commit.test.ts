import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDatabase, migrateToLatestOrThrow, type Db } from './database.js';
import { createBatchCommit, createGroupCommitUnitOfWork, type BatchCommitOptions } from './group-commit.js';

describe('group commit unit of work (SQLite)', () => {
  let dir: string;
  let db: Db;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-group-commit-'));
    db = createDatabase({ dialect: 'sqlite', path: join(dir, 'test.db') });
    await migrateToLatestOrThrow(db);
  });
  afterEach(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const leaseNames = async () => (await db.kysely.selectFrom('leases').select('name').orderBy('name').execute()).map((r) => r.name);

  /** A batch commit whose write only records each batch's items. */
  const recordingBatchCommit = (options: BatchCommitOptions) => {
    const writes: string[][] = [];
    const write = async (_repos: unknown, names: string[]) => {
      writes.push(names);
      return names;
    };
    return { commit: createBatchCommit(db, write, () => undefined, options), writes };
  };

  it('commits concurrent units together, each settling with its own result', async () => {
    const transactions = vi.spyOn(db.kysely, 'startTransaction');
    const unitOfWork = createGroupCommitUnitOfWork(db.kysely);
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) =>
        unitOfWork(async (repos) => {
          await repos.leases.tryAcquire(`lease-${i}`, 'holder', 60_000);
          if (i === 3) throw new Error('unit 3 fails');
          return i;
        }),
      ),
    );
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([0, 1, 2, 'unit 3 fails', 4, 5, 6, 7, 8, 9]);
    // All ten arrive within the collection window: one transaction, one commit.
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(await leaseNames()).toEqual(['lease-0', 'lease-1', 'lease-2', 'lease-4', 'lease-5', 'lease-6', 'lease-7', 'lease-8', 'lease-9']);
  });

  it('rejects every unit of a batch whose commit fails, leaving nothing of it behind', async () => {
    // A deferred foreign key is checked only at COMMIT: inserting the lease "poison" makes the commit fail.
    await sql`create table poison (ref text references leases (name) deferrable initially deferred)`.execute(db.kysely);
    await sql`create trigger poison_lease after insert on leases when new.name = 'poison' begin insert into poison values ('missing'); end`.execute(db.kysely);
    const unitOfWork = createGroupCommitUnitOfWork(db.kysely);
    const results = await Promise.allSettled(['innocent', 'poison'].map((name) => unitOfWork((repos) => repos.leases.tryAcquire(name, 'holder', 60_000))));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    await unitOfWork((repos) => repos.leases.tryAcquire('later', 'holder', 60_000));
    expect(await leaseNames()).toEqual(['later']);
  });

  it('writes concurrent items in one call and one transaction, and calls afterCommit once with its result', async () => {
    const transactions = vi.spyOn(db.kysely, 'transaction');
    const writes: string[][] = [];
    const committed: string[][] = [];
    const commit = createBatchCommit(
      db,
      async (repos, names: string[]) => {
        writes.push(names);
        for (const name of names) await repos.leases.tryAcquire(name, 'holder', 60_000);
        return names;
      },
      (names) => committed.push(names),
    );
    await Promise.all(['a', 'b', 'c'].map((name) => commit(name)));
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(writes).toEqual([['a', 'b', 'c']]);
    expect(committed).toEqual([['a', 'b', 'c']]);
    expect(await leaseNames()).toEqual(['a', 'b', 'c']);
  });

  it('retries the items of a failed batch one by one, so only the bad one fails', async () => {
    const committed: string[][] = [];
    const commit = createBatchCommit(
      db,
      async (repos, names: string[]) => {
        for (const name of names) {
          if (name === 'bad') throw new Error('bad item');
          await repos.leases.tryAcquire(name, 'holder', 60_000);
        }
        return names;
      },
      (names) => committed.push(names),
    );
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((name) => commit(name)));
    expect(results.map((r) => (r.status === 'fulfilled' ? 'ok' : (r.reason as Error).message))).toEqual(['ok', 'bad item', 'ok']);
    expect(committed).toEqual([['a'], ['c']]);
    expect(await leaseNames()).toEqual(['a', 'c']);
  });

  it('starts a batch at once when nothing more is on its way, and waits the window while something is', async () => {
    let onTheirWay = 0;
    const { commit, writes } = recordingBatchCommit({ windowMs: 60_000, pending: () => onTheirWay });
    // Nothing else pending: no window (a 60 s one would time the test out).
    await commit('alone');
    // (its drain ends a turn later; an item queued before then would join the drain at once)
    await new Promise((resolve) => setImmediate(resolve));
    // One more on its way: the first waits for it, and the batch starts as soon as it arrives.
    onTheirWay = 1;
    const first = commit('first');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toEqual([['alone']]);
    onTheirWay = 0;
    await Promise.all([first, commit('second')]);
    expect(writes).toEqual([['alone'], ['first', 'second']]);
  });

  it('keeps a batch that is still small when its window ends waiting until it fills, while more are pending', async () => {
    const { commit, writes } = recordingBatchCommit({ windowMs: 5, smallBatch: 3, longestWaitMs: 60_000, pending: () => 1 });
    const first = commit('a');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writes).toEqual([]);
    await Promise.all([first, commit('b'), commit('c')]);
    expect(writes).toEqual([['a', 'b', 'c']]);
  });

  it('starts a small batch at longestWaitMs after its first item however many are pending', async () => {
    const { commit, writes } = recordingBatchCommit({ windowMs: 5, smallBatch: 10, longestWaitMs: 40, pending: () => 5 });
    const started = performance.now();
    await commit('alone');
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(writes).toEqual([['alone']]);
  });

  it('gives what arrives during a commit a window of its own while more are pending', async () => {
    const writes: string[][] = [];
    let onTheirWay = 0;
    let late: Promise<void> | undefined;
    const commit = createBatchCommit(
      db,
      async (_repos, names: string[]) => {
        writes.push(names);
        // One item arrives during the commit, and another is still on its way.
        onTheirWay = 1;
        late ??= commit('late');
        return names;
      },
      () => undefined,
      { windowMs: 60_000, pending: () => onTheirWay },
    );
    await commit('first');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(writes).toEqual([['first']]);
    onTheirWay = 0;
    await Promise.all([late, commit('next')]);
    expect(writes).toEqual([['first'], ['late', 'next']]);
  });

  it('reports each committed batch: its size and its transaction time', async () => {
    const batches: Array<[number, number]> = [];
    const commit = createBatchCommit(db, async (_repos, names: string[]) => names, () => undefined, { onCommit: (items, seconds) => batches.push([items, seconds]) });
    await Promise.all(['a', 'b', 'c'].map((name) => commit(name)));
    expect(batches).toHaveLength(1);
    expect(batches[0]?.[0]).toBe(3);
    expect(batches[0]?.[1]).toBeGreaterThanOrEqual(0);
  });
});
