import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatestOrThrow, type Db } from './database.js';

describe('FIFO SQLite driver', () => {
  let dir: string;
  let db: Db;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-fifo-'));
    db = createDatabase({ dialect: 'sqlite', path: join(dir, 'test.db') });
    await migrateToLatestOrThrow(db);
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves concurrent queries one at a time in the order they were issued', async () => {
    const finished: number[] = [];
    await Promise.all(
      Array.from({ length: 2_000 }, (_, i) =>
        db.kysely
          .selectFrom('tenants')
          .select('id')
          .execute()
          .then(() => finished.push(i)),
      ),
    );
    expect(finished).toEqual(Array.from({ length: 2_000 }, (_, i) => i));
  });

  it('keeps transactions exclusive: queries issued during a transaction wait for it', async () => {
    const order: string[] = [];
    await Promise.all([
      db.kysely.transaction().execute(async (trx) => {
        await trx.selectFrom('tenants').select('id').execute();
        order.push('transaction');
      }),
      db.kysely
        .selectFrom('tenants')
        .select('id')
        .execute()
        .then(() => order.push('outside')),
    ]);
    expect(order).toEqual(['transaction', 'outside']);
  });
});
