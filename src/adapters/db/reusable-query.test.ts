import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, migrateToLatestOrThrow, type Db } from './database.js';
import { collectCheck, reusableInsert, reusableQuery, runReturning, writeInOneStatement } from './reusable-query.js';
import { createRepositories } from './repositories/index.js';
import type { Database } from './schema.js';
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

  it('refuses a check outside a collected statement, where it would check nothing', () => {
    expect(() => collectCheck(db.kysely, CompiledQuery.raw('select 1'), () => undefined)).toThrow(/only inside writeInOneStatement/);
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

warnIfPostgresSkipped();

describe.skipIf(!TEST_DIALECTS.includes('postgres'))('writeInOneStatement (PostgreSQL)', () => {
  let db: Db;
  let readOnly: Kysely<Database>;
  let url: string;
  let dropPostgres: (() => Promise<void>) | undefined;
  const at = new Date().toISOString();

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    dropPostgres = database.drop;
    url = database.url;
    db = createDatabase({ dialect: 'postgres', url });
    readOnly = db.readOnly as Kysely<Database>;
    await migrateToLatestOrThrow(db);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await db?.close();
    await dropPostgres?.();
  });

  const insertTenants = reusableInsert('tenants');
  const insertCounters = reusableInsert('usage_counters');
  const tenant = (id: string) => ({ id, name: id, plan: 'free', default_domain: null, created_at: at });
  const counter = (tenantId: string, emails: number, month = '2026-11') => ({ tenant_id: tenantId, month, emails, updated_at: at });
  it('sends the writes made inside as one statement of their own, rows referencing rows of the same statement', async () => {
    const executed = vi.spyOn(db.kysely, 'executeQuery');
    const transactions = vi.spyOn(db.kysely, 'transaction');
    const seen = await writeInOneStatement(db.kysely, readOnly, async (handle) => {
      await insertTenants(handle, [tenant('c1'), tenant('c2')]);
      // What was committed before is read; the rows of this write are not there yet.
      const before = await handle.selectFrom('tenants').select('id').where('id', '=', 'c1').execute();
      await insertCounters(handle, [counter('c1', 1), counter('c2', 2)]);
      await insertCounters(handle, Array.from({ length: 130 }, (_, i) => counter('c1', i, `m${String(i).padStart(3, '0')}`)));
      return before;
    });
    expect(seen).toEqual([]);
    expect(executed).toHaveBeenCalledTimes(1);
    expect((executed.mock.calls[0]?.[0] as CompiledQuery).sql).toMatch(/^with i0 as \(insert into "tenants"/);
    expect(transactions).not.toHaveBeenCalled();
    const rows = await db.kysely.selectFrom('usage_counters').select(['tenant_id', 'emails']).where('month', '=', '2026-11').orderBy('tenant_id').execute();
    expect(rows).toEqual([{ tenant_id: 'c1', emails: 1 }, { tenant_id: 'c2', emails: 2 }]);
    expect((await db.kysely.selectFrom('usage_counters').select('month').where('tenant_id', '=', 'c1').execute()).length).toBe(131);
  });

  it('fails as a whole when a row breaks a constraint, leaving nothing of the statement', async () => {
    await expect(
      writeInOneStatement(db.kysely, readOnly, async (handle) => {
        await insertTenants(handle, [tenant('c3')]);
        await insertCounters(handle, [counter('missing-tenant', 1)]);
      }),
    ).rejects.toThrow(/foreign key/);
    expect(await db.kysely.selectFrom('tenants').select('id').where('id', '=', 'c3').execute()).toEqual([]);
  });

  it('refuses a write that is not collected, so that nothing is written half', async () => {
    await expect(
      writeInOneStatement(db.kysely, readOnly, async (handle) => {
        await insertTenants(handle, [tenant('c4')]);
        await handle.insertInto('tenants').values(tenant('c5')).execute();
      }),
    ).rejects.toThrow(/was not collected/);
    await expect(
      writeInOneStatement(db.kysely, readOnly, async (handle) => {
        await insertTenants(handle, [tenant('c4')]);
        await handle.selectFrom('tenants').select('id').forUpdate().execute();
      }),
    ).rejects.toThrow(/was not collected/);
    await expect(writeInOneStatement(db.kysely, readOnly, (handle) => handle.transaction().execute(async () => undefined))).rejects.toThrow(/was not collected/);
    expect(await db.kysely.selectFrom('tenants').select('id').where('id', 'in', ['c4', 'c5']).execute()).toEqual([]);
  });

  it('gives a write its returned rows once the statement ran, and runs two such writes in one transaction', async () => {
    await insertTenants(db.kysely, [tenant('r1'), tenant('r2')]);
    const upsert = (handle: Kysely<Database>, tenantId: string) =>
      runReturning(
        handle,
        handle
          .insertInto('usage_counters')
          .values(counter(tenantId, 2, '2026-10'))
          .onConflict((oc) => oc.columns(['tenant_id', 'month']).doUpdateSet({ emails: (eb) => eb('usage_counters.emails', '+', eb.ref('excluded.emails')) }))
          .returning(['tenant_id', 'emails'])
          .compile(),
      );
    const transactions = vi.spyOn(db.kysely, 'transaction');
    const one = await writeInOneStatement(db.kysely, readOnly, async (handle) => {
      const returned = await upsert(handle, 'r1');
      expect(() => returned.rows()).toThrow(/before their statement ran/);
      await insertCounters(handle, [counter('r1', 9, '2026-09')]);
      return returned;
    });
    expect(one.rows()).toEqual([{ tenant_id: 'r1', emails: 2 }]);
    expect(transactions).not.toHaveBeenCalled();
    const [first, second] = await writeInOneStatement(db.kysely, readOnly, async (handle) => [await upsert(handle, 'r1'), await upsert(handle, 'r2')]);
    expect(transactions).toHaveBeenCalledTimes(1);
    expect([first?.rows(), second?.rows()]).toEqual([[{ tenant_id: 'r1', emails: 4 }], [{ tenant_id: 'r2', emails: 2 }]]);
    await expect(
      writeInOneStatement(db.kysely, readOnly, async (handle) => {
        await upsert(handle, 'r1');
        await runReturning(handle, handle.insertInto('usage_counters').values(counter('missing-tenant', 1)).returning('emails').compile());
      }),
    ).rejects.toThrow(/foreign key/);
    expect(await db.kysely.selectFrom('usage_counters').select('emails').where('tenant_id', '=', 'r1').where('month', '=', '2026-10').execute()).toEqual([{ emails: 4 }]);
  });

  it('takes the inbox lock before the inserted messages take their UIDs, inside a collected statement too', async () => {
    await insertTenants(db.kysely, [tenant('u1')]);
    await sql`insert into inboxes (id, tenant_id, environment_id, domain, address_prefix, address, tags, active, created_at) values ('inbox-u1', 'u1', 'env', 'd.test', 'a', 'a@d.test', '[]', 1, ${at})`.execute(db.kysely);
    // The emails the messages point at are beside the point here.
    await sql`alter table inbox_messages drop constraint inbox_messages_email_id_fkey`.execute(db.kysely);
    const message = (id: string) => ({ id, inboxId: 'inbox-u1', emailId: `email-${id}`, tenantId: 'u1', extraction: { extracted: null, extractionSkipped: null }, createdAt: at });
    let otherUid: number;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`select id from inboxes where id = 'inbox-u1' for update`);
      const grouped = writeInOneStatement(db.kysely, readOnly, async (handle) => {
        await insertCounters(handle, [counter('u1', 1)]);
        await createRepositories(handle).inboxes.insertMessages([message('grouped')]);
        await insertTenants(handle, [tenant('u2')]);
      });
      // While the group waits for the lock, another writer takes a UID.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const taken = await sql<{ uid: number }>`select nextval('inbox_messages_uid_seq') as uid`.execute(db.kysely);
      otherUid = Number(taken.rows[0]?.uid);
      await holder.query('commit');
      await grouped;
    } finally {
      await holder.end();
    }
    const grouped = await db.kysely.selectFrom('inbox_messages').select('uid').where('id', '=', 'grouped').executeTakeFirstOrThrow();
    expect(Number(grouped.uid)).toBeGreaterThan(otherUid);
  });
});
