import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import { cliEnvFor, runCli } from '../helpers/cli.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('mailroom CLI (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    env = cliEnvFor(t);
  });
  afterAll(() => t?.stop());

  it('tenant create --json prints the tenant and a key that works against the running app', async () => {
    const created = await runCli(['tenant', 'create', '--name', 'Acme QA', '--plan', 'pro', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const output = JSON.parse(created.stdout);
    expect(Object.keys(output).sort()).toEqual(['apiKey', 'tenant']);
    expect(output.tenant).toMatchObject({ id: expect.any(String), name: 'Acme QA', plan: 'pro', createdAt: expect.any(String) });
    expect(output.apiKey).toMatch(/^mr_[A-Za-z0-9_-]{40,}$/);

    const response = await t.client(output.apiKey).get('/api/v1/emails');
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ totalItems: 0, perPage: 20 });

    const listed = await runCli(['tenant', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).tenants).toEqual(expect.arrayContaining([expect.objectContaining({ id: output.tenant.id, plan: 'pro' })]));

    const changed = await runCli(['tenant', 'set-plan', '--id', output.tenant.id, '--plan', 'free', '--json'], env);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout).tenant).toMatchObject({ id: output.tenant.id, plan: 'free' });
    expect((await t.app.ctx.repos.tenants.get(output.tenant.id))?.plan).toBe('free');
  });
});

describe('mailroom CLI usage and settings', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mailroom-cli-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('migrate creates the database and exits 0', async () => {
    const result = await runCli(['migrate'], { MAILROOM_DATA_DIR: dataDir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('up to date');
    expect(existsSync(join(dataDir, 'mailroom.db'))).toBe(true);
  });

  it('set-plan of an unknown tenant fails with exit 1 and a message', async () => {
    const result = await runCli(['tenant', 'set-plan', '--id', 'no-such-tenant', '--plan', 'pro'], { MAILROOM_DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no tenant no-such-tenant');
  });

  it('exits 64 with the usage for an unknown command, subcommand or option, or a bad plan', async () => {
    const results = await Promise.all([
      runCli(['frobnicate'], { MAILROOM_DATA_DIR: dataDir }),
      runCli(['tenant', 'create', '--name', 'X', '--plan', 'gold'], { MAILROOM_DATA_DIR: dataDir }),
      runCli(['tenant', 'create', '--bogus'], { MAILROOM_DATA_DIR: dataDir }),
    ]);
    for (const result of results) {
      expect(result.code, result.stderr).toBe(64);
      expect(result.stderr).toContain('Usage: mailroom');
    }
    expect(results[0]?.stderr).toContain('unknown command "frobnicate"');
    expect(results[1]?.stderr).toContain('--plan');
  });

  it('exits 78 naming the variable for a bad setting, for serve and for the other commands', async () => {
    const [serve, migrate] = await Promise.all([
      runCli(['serve'], { MAILROOM_DATA_DIR: dataDir, MAILROOM_HTTP_PORT: 'eighty' }),
      runCli(['migrate'], { MAILROOM_DATA_DIR: dataDir, MAILROOM_DATABASE_URL: 'mysql://localhost/x' }),
    ]);
    expect(serve.code).toBe(78);
    expect(serve.stderr).toContain('MAILROOM_HTTP_PORT');
    expect(migrate.code).toBe(78);
    expect(migrate.stderr).toContain('MAILROOM_DATABASE_URL');
  });
});
