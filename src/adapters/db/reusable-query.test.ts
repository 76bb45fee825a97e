import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrateToLatestOrThrow, type Db } from './database.js';
import { reusableQuery } from './reusable-query.js';

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
});
