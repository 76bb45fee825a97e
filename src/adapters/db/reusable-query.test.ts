import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatestOrThrow, type Db } from './database.js';
import { combineInserts, reusableInsert, reusableQuery } from './reusable-query.js';
import { createPostgresDatabase, TEST_DIALECTS, warnIfPostgresSkipped } from '../../../test/helpers/databases.js';

describe('reusableQuery', () => {
  let dir: string;
  let db: Db;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mailroom-reusable-'));
    db = createDatabase({ dialect: 'sqlite', path: join(dir, 'test.db') });
    await migrateToLatestOrThrow(db);
    const at = new Date().toISOString();
    await db.kysely
      .insertInto('tenants')
      .values(['t1', 't2'].map((id) => ({ id, name: id, plan: 'free', default_domain: null, created_at: at })))
      .execute();
    await db.kysely
      .insertInto('usage_counters')
      .values([
        { tenant_id: 't1', month: '2026-11', emails: 3, updated_at: at },
        { tenant_id: 't2', month: '2026-11', emails: 5, updated_at: at },
      ])
      .execute();
  });
  afterAll(async () => {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('builds once and binds each call its own arguments, in and outside a transaction', async () => {
    let builds = 0;
    const emails = reusableQuery((k, tenantId: string, month: string) => {
      builds++;
      return k.selectFrom('usage_counters').select('emails').where('tenant_id', '=', tenantId).where('month', '=', month);
    });
    expect(await emails(db.kysely, 't1', '2026-11')).toEqual([{ emails: 3 }]);
    expect(await emails(db.kysely, 't2', '2026-11')).toEqual([{ emails: 5 }]);
    expect(await db.kysely.transaction().execute((trx) => emails(trx, 't2', '2026-11'))).toEqual([{ emails: 5 }]);
    expect(await emails(db.kysely, 't3', '2026-11')).toEqual([]);
    expect(builds).toBe(1);
  });

  it('refuses a query that binds anything but its arguments in order', async () => {
    const swapped = reusableQuery((k, tenantId: string, month: string) =>
      k.selectFrom('usage_counters').select('emails').where('month', '=', month).where('tenant_id', '=', tenantId),
    );
    await expect(swapped(db.kysely, 't1', '2026-11')).rejects.toThrow(/not its arguments in order/);
    const constant = reusableQuery((k, tenantId: string) => k.selectFrom('usage_counters').select('emails').where('tenant_id', '=', tenantId).limit(1));
    await expect(constant(db.kysely, 't1')).rejects.toThrow(/not its arguments in order/);
  });

  it('inserts rows through one compiled statement per row count, and rows of another shape through the builder', async () => {
    const insertCounters = reusableInsert('usage_counters');
    const at = new Date().toISOString();
    const row = (tenant: string, month: string, emails: number) => ({ tenant_id: tenant, month, emails, updated_at: at });
    await insertCounters(db.kysely, [row('t1', '2026-01', 1), row('t2', '2026-01', 2)]);
    await db.kysely.transaction().execute((trx) => insertCounters(trx, [row('t1', '2026-02', 3), row('t2', '2026-02', 4)]));
    await insertCounters(db.kysely, [row('t1', '2026-03', 5)]);
    // Another column order, then a value Kysely leaves out: each still lands in its own column.
    await insertCounters(db.kysely, [{ updated_at: at, emails: 6, month: '2026-04', tenant_id: 't1' }, { updated_at: at, emails: 7, month: '2026-04', tenant_id: 't2' }]);
    await insertCounters(db.kysely, []);
    const insertTenants = reusableInsert('tenants');
    await insertTenants(db.kysely, [{ id: 't3', name: 't3', plan: 'free', default_domain: 'a.test', created_at: at }]);
    await insertTenants(db.kysely, [{ id: 't4', name: 't4', plan: 'free', default_domain: undefined, created_at: at }]);
    const tenants = await db.kysely.selectFrom('tenants').select(['id', 'default_domain']).where('id', 'in', ['t3', 't4']).orderBy('id').execute();
    expect(tenants).toEqual([{ id: 't3', default_domain: 'a.test' }, { id: 't4', default_domain: null }]);
    const rows = await db.kysely.selectFrom('usage_counters').select(['tenant_id', 'month', 'emails']).where('month', '<', '2026-11').orderBy('month').orderBy('tenant_id').execute();
    expect(rows.map((r) => `${r.tenant_id} ${r.month} ${r.emails}`)).toEqual([
      't1 2026-01 1', 't2 2026-01 2', 't1 2026-02 3', 't2 2026-02 4', 't1 2026-03 5', 't1 2026-04 6', 't2 2026-04 7',
    ]);
  });
});

describe.each(TEST_DIALECTS)('combineInserts (%s)', (dialect) => {
  let dir: string;
  let db: Db;
  let dropPostgres: (() => Promise<void>) | undefined;
  const at = new Date().toISOString();

  beforeAll(async () => {
    warnIfPostgresSkipped();
    dir = await mkdtemp(join(tmpdir(), 'mailroom-combined-'));
    if (dialect === 'postgres') {
      const database = await createPostgresDatabase();
      dropPostgres = database.drop;
      db = createDatabase({ dialect: 'postgres', url: database.url });
    } else {
      db = createDatabase({ dialect: 'sqlite', path: join(dir, 'test.db') });
    }
    await migrateToLatestOrThrow(db);
  });
  afterAll(async () => {
    await db.close();
    await dropPostgres?.();
    await rm(dir, { recursive: true, force: true });
  });

  const insertTenants = reusableInsert('tenants');
  const insertCounters = reusableInsert('usage_counters');
  const tenant = (id: string) => ({ id, name: id, plan: 'free', default_domain: null, created_at: at });
  const counter = (tenantId: string, emails: number, month = '2026-11') => ({ tenant_id: tenantId, month, emails, updated_at: at });

  it('sends the inserts made inside as one statement on PostgreSQL, rows referencing rows of the same statement', async () => {
    const statements: string[] = [];
    const counting = db.kysely.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements.push(args.queryId.queryId);
        return args.result;
      },
    });
    await counting.transaction().execute((trx) =>
      combineInserts(trx, async () => {
        await insertTenants(trx, [tenant('c1'), tenant('c2')]);
        // Rows of another shape go through the builder, and join the statement all the same.
        await insertCounters(trx, [counter('c1', 1), counter('c2', 2)]);
        await insertCounters(trx, Array.from({ length: 130 }, (_, i) => counter('c1', i, `m${String(i).padStart(3, '0')}`)));
      }),
    );
    expect(statements).toHaveLength(dialect === 'postgres' ? 1 : 3);
    const rows = await db.kysely.selectFrom('usage_counters').select(['tenant_id', 'emails']).where('month', '=', '2026-11').orderBy('tenant_id').execute();
    expect(rows).toEqual([{ tenant_id: 'c1', emails: 1 }, { tenant_id: 'c2', emails: 2 }]);
    expect((await db.kysely.selectFrom('usage_counters').select('month').where('tenant_id', '=', 'c1').execute()).length).toBe(131);
  });

  it('fails as a whole when a row breaks a constraint, leaving nothing of the statement', async () => {
    await expect(
      db.kysely.transaction().execute((trx) =>
        combineInserts(trx, async () => {
          await insertTenants(trx, [tenant('c3')]);
          await insertCounters(trx, [counter('missing-tenant', 1)]);
        }),
      ),
    ).rejects.toThrow();
    expect(await db.kysely.selectFrom('tenants').select('id').where('id', '=', 'c3').execute()).toEqual([]);
  });
});
