import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabase, migrateToLatestOrThrow, type Db } from '../database.js';
import { createBatchCommit } from '../group-commit.js';
import type { KnownTargets } from './delivery.repository.js';
import { createPostgresDatabase, TEST_DIALECTS, warnIfPostgresSkipped, type TestDialect } from '../../../../test/helpers/databases.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('notification targets in a group write (%s)', (dialect) => {
  let db: Db;
  let cleanUp: () => Promise<void>;
  const at = new Date().toISOString();

  beforeAll(async () => {
    if (dialect === 'postgres') {
      const database = await createPostgresDatabase();
      db = createDatabase({ dialect, url: database.url });
      cleanUp = database.drop;
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'mailroom-targets-'));
      db = createDatabase({ dialect, path: join(dir, 'test.db') });
      cleanUp = () => rm(dir, { recursive: true, force: true });
    }
    await migrateToLatestOrThrow(db);
    await db.kysely.insertInto('tenants').values({ id: 't1', name: 't1', plan: 'free', default_domain: null, created_at: at }).execute();
  });
  afterAll(async () => {
    await db?.close();
    await cleanUp?.();
  });

  const addWebhook = (id: string) =>
    db.kysely
      .insertInto('webhooks')
      .values({ id, tenant_id: 't1', url: 'https://hooks.test/', events_json: '["email.received"]', description: '', active: 1, secret: 's', created_at: at, updated_at: at })
      .execute();
  const written = async () => (await db.kysely.selectFrom('activity_logs').select('message').orderBy('message').execute()).map((row) => row.message);

  /**
   * What the ingest does: the targets in the group's write, beside rows of its own (a log entry here);
   * `forget` is what the notification participant does when told its targets are outdated.
   */
  async function groupWrite(name: string, known: KnownTargets | undefined, forget = true) {
    let knows = known;
    const outdated = vi.fn(() => {
      if (forget) knows = undefined;
    });
    let current: KnownTargets | undefined;
    const write = createBatchCommit(
      db,
      async (repos) => {
        await repos.logs.append([{ id: name, tenantId: 't1', environmentId: null, emailId: null, type: 'SMTP_RECEIVED', status: 'SUCCESS', message: name, metadata: {}, createdAt: at }]);
        return repos.deliveries.currentTargets('t1', knows, outdated);
      },
      (result) => (current = result),
    );
    const outcome = await write(undefined).then(
      () => 'committed',
      (error: Error) => error.message,
    );
    return { outcome, current, outdated };
  }

  /** A test of one dialect's behaviour, left out of the other's run rather than listed there as skipped. */
  const forDialect = (wanted: TestDialect) => (name: string, test: () => Promise<void>) => {
    if (dialect === wanted) it(name, test);
  };
  const postgresOnly = forDialect('postgres');
  const sqliteOnly = forDialect('sqlite');

  postgresOnly('uses the targets it knows without a read while they are current, and reads again once they changed', async () => {
    const first = await groupWrite('first', undefined);
    expect(first).toMatchObject({ outcome: 'committed', current: { targets: { webhooks: [], integrations: [] }, version: expect.any(String) } });

    // Known targets with the current version are used as they are: these were never in the database.
    const phantom: KnownTargets = { targets: { webhooks: [{ id: 'phantom', events: ['email.received'], inboxIds: [] }], integrations: [] }, version: first.current?.version };
    const second = await groupWrite('second', phantom);
    expect(second).toMatchObject({ outcome: 'committed', current: phantom });
    expect(second.outdated).not.toHaveBeenCalled();

    // Another node adds a webhook: the statement built on the old targets fails whole, and the write runs again with a read.
    await addWebhook('wh1');
    const third = await groupWrite('third', phantom);
    expect(third.outcome).toBe('committed');
    expect(third.outdated).toHaveBeenCalledTimes(1);
    expect(third.current?.targets.webhooks.map((w) => w.id)).toEqual(['wh1']);
    expect(third.current?.version).not.toBe(first.current?.version);
    expect(await written()).toEqual(['first', 'second', 'third']);

    // A change of what a target fires for counts too: deactivated, linked to an inbox, an integration added.
    const changes = [
      () => db.kysely.updateTable('webhooks').set({ active: 0 }).where('id', '=', 'wh1').execute(),
      async () => {
        await db.kysely.updateTable('webhooks').set({ active: 1 }).where('id', '=', 'wh1').execute();
        await db.kysely.insertInto('webhook_inboxes').values({ webhook_id: 'wh1', inbox_id: 'inbox-1', tenant_id: 't1', created_at: at }).execute();
      },
      () =>
        db.kysely
          .insertInto('chatapp_integrations')
          .values({ id: 'ci1', tenant_id: 't1', kind: 'slack', name: 'n', url: 'https://chat.test/', bot_token: null, channel_id: null, guild_id: null, inbox_ids_json: '[]', active: 1, created_at: at, updated_at: at })
          .execute(),
    ];
    let known = third.current;
    for (const [i, change] of changes.entries()) {
      await change();
      const changed = await groupWrite(`changed-${i}`, known);
      expect([changed.outcome, changed.outdated.mock.calls.length]).toEqual(['committed', 1]);
      known = changed.current;
    }
    expect(known?.targets).toEqual({ webhooks: [{ id: 'wh1', events: ['email.received'], inboxIds: ['inbox-1'] }], integrations: [{ id: 'ci1', kind: 'slack', inboxIds: [] }] });
  });

  postgresOnly('fails the write whole when the targets it knows are outdated on the second run too', async () => {
    const before = await groupWrite('before', undefined);
    await addWebhook('wh2');
    const stale = await groupWrite('stale', before.current, false);
    expect(stale.outcome).toMatch(/the notification targets of the recipient changed while the write was being made/);
    expect(stale.outdated).toHaveBeenCalledTimes(2);
    expect(await written()).not.toContain('stale');
  });

  sqliteOnly('reads the targets in the transaction every time, with no version to check', async () => {
    const first = await groupWrite('sqlite-first', undefined);
    expect(first).toMatchObject({ outcome: 'committed', current: { targets: { webhooks: [], integrations: [] } } });
    expect(first.current?.version).toBeUndefined();
    await addWebhook('wh-sqlite');
    const second = await groupWrite('sqlite-second', first.current);
    expect(second.current?.targets.webhooks.map((w) => w.id)).toEqual(['wh-sqlite']);
    expect(second.outdated).not.toHaveBeenCalled();
  });
});
