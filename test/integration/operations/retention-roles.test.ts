import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { sendMail } from '../../helpers/smtp-client.js';
import { runCli } from '../../helpers/cli.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

describe.each(TEST_DIALECTS)('retention (%s)', (dialect) => {
  let t: TestApp;
  let address: string;

  beforeAll(async () => {
    t = await startTestApp({ dialect, env: { MAILROOM_LOG_RETENTION_DAYS: '30' } });
    address = (await t.http.post('/api/v1/inboxes', { prefix: 'kept' })).json().address;
  });
  afterAll(() => t?.stop());

  const receive = async (subject: string) => (await sendMail(t.smtpPort, { from: 'a@example.com', to: address, subject, text: subject })).id;
  const backdate = (id: string, createdAt: string) => t.app.ctx.db.kysely.updateTable('emails').set({ created_at: createdAt }).where('id', '=', id).execute();

  it('deletes emails past the plan period, rows then blobs, and activity logs past MAILROOM_LOG_RETENTION_DAYS', async () => {
    const old = await receive('old');
    const recent = await receive('recent');
    await backdate(old, daysAgo(366)); // the pro plan keeps emails 365 days
    const emlKey = await t.app.ctx.repos.emails.getEmlKey(t.tenant.id, old);
    expect(emlKey).toBeDefined();
    const { kysely } = t.app.ctx.db;
    await kysely.updateTable('activity_logs').set({ created_at: daysAgo(31) }).where('email_id', '=', old).execute();
    const oldLogs = await kysely.selectFrom('activity_logs').select('id').where('email_id', '=', old).execute();
    expect(oldLogs.length).toBeGreaterThan(0);

    expect(await t.app.ctx.services.retention.sweep()).toBeGreaterThanOrEqual(1 + oldLogs.length);

    expect((await t.http.get(`/api/v1/emails/${old}`)).status).toBe(404);
    expect(await t.app.ctx.blobs.exists(emlKey as string)).toBe(false);
    expect((await t.http.get(`/api/v1/emails/${recent}`)).status).toBe(200);
    expect(await kysely.selectFrom('activity_logs').select('id').where('email_id', '=', old).execute()).toEqual([]);
    expect((await kysely.selectFrom('activity_logs').select('id').where('email_id', '=', recent).execute()).length).toBeGreaterThan(0);
    expect(await t.app.ctx.services.retention.sweep()).toBe(0);
  });

  it('applies a per-tenant override set with `mailroom tenant set-retention`, and "plan" restores the plan period', async () => {
    const db = t.app.ctx.config.db;
    const env = { MAILROOM_DATA_DIR: t.dataDir, ...(db.dialect === 'postgres' ? { MAILROOM_DATABASE_URL: db.url } : {}) };
    const id = await receive('three days old');
    await backdate(id, daysAgo(3));

    const set = await runCli(['tenant', 'set-retention', '--id', t.tenant.id, '--days', '2'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('keeps emails 2 days');
    await t.app.ctx.services.retention.sweep();
    expect((await t.http.get(`/api/v1/emails/${id}`)).status).toBe(404);

    const [reset, bad, unknown] = await Promise.all([
      runCli(['tenant', 'set-retention', '--id', t.tenant.id, '--days', 'plan'], env),
      runCli(['tenant', 'set-retention', '--id', t.tenant.id, '--days', '0'], env),
      runCli(['tenant', 'set-retention', '--id', 'no-such-tenant', '--days', '5'], env),
    ]);
    expect(reset.stdout).toContain('keeps emails 365 days (plan pro)');
    expect(bad.code).toBe(64);
    expect(bad.stderr).toContain('--days');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not found');
  }, 60_000);
});

describe('roles (MAILROOM_ROLES)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect: 'sqlite', env: { MAILROOM_ROLES: 'http' } });
  });
  afterAll(() => t?.stop());

  it('starts only the listeners of the node\'s roles', async () => {
    expect(t.addresses.http.port).toBeGreaterThan(0);
    expect(t.addresses.smtp.port).toBe(0);
    expect(t.addresses.imap.port).toBe(0);
    expect(t.app.smtp.server.listening).toBe(false);
    expect((await t.http.get('/api/v1/emails')).status).toBe(200);
  });

  it('rejects an unknown role, naming the variable', () => {
    expect(() => loadConfig({ MAILROOM_ROLES: 'smtp,mx' })).toThrow(ConfigError);
    expect(() => loadConfig({ MAILROOM_ROLES: 'smtp,mx' })).toThrow(/MAILROOM_ROLES: "mx" is not a role/);
    expect(loadConfig({ MAILROOM_ROLES: ' smtp , worker ' }).operations.roles).toEqual(new Set(['smtp', 'worker']));
  });
});
