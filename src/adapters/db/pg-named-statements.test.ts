import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { warnIfPostgresSkipped } from '../../../test/helpers/databases.js';
import { createDatabase } from './database.js';
import { nameStatements } from './pg-named-statements.js';

const POSTGRES_URL = process.env.MAILROOM_TEST_DATABASE_URL;
warnIfPostgresSkipped();

describe.skipIf(POSTGRES_URL === undefined)('nameStatements (docs/decisions.md D76)', () => {
  let client: pg.Client;

  beforeEach(async () => {
    client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    nameStatements(client, 3);
  });
  afterEach(async () => {
    await client.end();
  });

  const prepared = async () => (await client.query('select statement from pg_prepared_statements order by prepare_time')).rows.map((row: { statement: string }) => row.statement);
  const add = async (n: number, value: number) => (await client.query(`select $1::int + ${n} as sum`, [value])).rows[0].sum as number;

  it('prepares each parameterised text once, answers every execution with its own values, and keeps only the most recently used', async () => {
    expect(await add(1, 1)).toBe(2);
    expect(await add(1, 41)).toBe(42);
    expect(await prepared()).toEqual(['select $1::int + 1 as sum']);
    for (const n of [2, 3, 4]) await add(n, 0);
    await add(3, 0);
    await add(5, 0);
    expect((await prepared()).sort()).toEqual(['select $1::int + 3 as sum', 'select $1::int + 4 as sum', 'select $1::int + 5 as sum']);
    expect(await add(1, 2)).toBe(3);
  });

  it('leaves texts without values, texts with a *, and calls with a callback unnamed', async () => {
    await client.query('select 1');
    await client.query('select * from (select $1::int as n) as t', [1]);
    const withCallback = await new Promise<pg.QueryResult>((resolve, reject) => client.query('select $1::int as n', [7], (error, result) => (error ? reject(error) : resolve(result))));
    expect(withCallback.rows).toEqual([{ n: 7 }]);
    expect(await prepared()).toEqual([]);
  });

  it('deallocates later what a failed transaction refused', async () => {
    for (const n of [1, 2, 3]) await add(n, 0);
    await client.query('begin');
    await expect(client.query('select 1/0')).rejects.toThrow(/division by zero/);
    await expect(add(4, 0)).rejects.toThrow(/aborted/);
    await client.query('rollback');
    await add(5, 0);
    expect(await prepared()).toEqual(['select $1::int + 3 as sum', 'select $1::int + 5 as sum']);
    expect(await add(5, 1)).toBe(6);
  });

  it('prepares a text anew after a column it returns changed type, failing only the execution that found it', async () => {
    await client.query('create temporary table retyped (id int, v int)');
    await client.query('insert into retyped values (1, 2)');
    // Numbers either way: whether a bigint arrives as a string depends on the type parsers in use.
    const read = async () => Number((await client.query('select v from retyped where id = $1', [1])).rows[0].v);
    expect(await read()).toBe(2);
    await client.query('alter table retyped alter column v type bigint');
    await expect(read()).rejects.toThrow(/cached plan must not change result type/);
    expect(await read()).toBe(2);
    expect(await prepared()).toEqual(['select v from retyped where id = $1']);
  });

  it('is what the pool does unless turned off (MAILROOM_DATABASE_PREPARED_STATEMENTS=off)', async () => {
    for (const preparedStatements of [true, false]) {
      const db = createDatabase({ dialect: 'postgres', url: POSTGRES_URL as string, preparedStatements });
      try {
        const count = await db.kysely.transaction().execute(async (trx) => {
          await sql`select ${1}::int as n`.execute(trx);
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements`.execute(trx);
          return rows[0]?.n;
        });
        expect(count, `preparedStatements: ${preparedStatements}`).toBe(preparedStatements ? 1 : 0);
      } finally {
        await db.close();
      }
    }
  });
});
