import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from './database.js';

describe('SQLite checkpointer thread', () => {
  let dir: string;
  let db: Db;
  let path: string;
  let errors: unknown[];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-checkpoint-'));
    path = join(dir, 'test.db');
    errors = [];
    db = createDatabase({ dialect: 'sqlite', path }, (error) => errors.push(error));
    await sql`create table big (v text)`.execute(db.kysely);
  });

  afterEach(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies committed WAL pages into the database file without a checkpoint on the writing connection', async () => {
    for (let i = 0; i < 100; i++) await sql`insert into big values (${'x'.repeat(20_000)})`.execute(db.kysely);
    // Automatic checkpoints are off on the writer: everything is still in the WAL.
    expect(statSync(path).size).toBeLessThan(100_000);
    await expect.poll(() => statSync(path).size, { timeout: 5_000 }).toBeGreaterThan(2_000_000);
    expect(errors).toEqual([]);
  });

  it('keeps the WAL bounded while commits never stop: it catches up and the writer starts the WAL over', async () => {
    // 3,000 commits of 20 KB, one every ~2 ms: 60 MB, so checkpoints always overlap commits.
    const row = 'x'.repeat(20_000);
    let largestWal = 0;
    for (let i = 0; i < 3_000; i++) {
      await sql`insert into big values (${row})`.execute(db.kysely);
      largestWal = Math.max(largestWal, statSync(`${path}-wal`).size);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    // Before the catch-up the WAL held everything written (~87 MB here); now ~25 MB.
    expect(largestWal).toBeLessThan(40_000_000);
    expect(errors).toEqual([]);
  });
});
