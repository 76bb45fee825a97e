import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createDatabase, type Db } from './database.js';

describe('SQLite checkpointer thread', () => {
  let dir: string;
  let db: Db;

  afterEach(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('copies committed WAL pages into the database file without a checkpoint on the writing connection', async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-checkpoint-'));
    const path = join(dir, 'test.db');
    const errors: unknown[] = [];
    db = createDatabase({ dialect: 'sqlite', path }, (error) => errors.push(error));
    await sql`create table big (v text)`.execute(db.kysely);
    for (let i = 0; i < 100; i++) await sql`insert into big values (${'x'.repeat(20_000)})`.execute(db.kysely);
    // Automatic checkpoints are off on the writer: everything is still in the WAL.
    expect(statSync(path).size).toBeLessThan(100_000);
    await expect.poll(() => statSync(path).size, { timeout: 5_000 }).toBeGreaterThan(2_000_000);
    expect(errors).toEqual([]);
  });
});
