import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAN_LIMITS } from '../../../src/core/plans.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../../helpers/databases.js';
import { cliEnvFor, runCli } from '../../helpers/cli.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

warnIfPostgresSkipped();

describe.each(TEST_DIALECTS)('plans from the CLI (%s)', (dialect) => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    env = cliEnvFor(t);
  });
  afterAll(() => t?.stop());

  it('`tenant create-key` issues a working all-environment key (the way back in when every key is lost)', async () => {
    const tenant = await t.createTenant('Locked out');
    const issued = await runCli(['tenant', 'create-key', '--id', tenant.id, '--name', 'Recovery', '--json'], env);
    expect(issued.code, issued.stderr).toBe(0);
    const { id, apiKey } = JSON.parse(issued.stdout);
    const listed = (await t.client(apiKey).get('/api/v1/api-keys?perPage=100')).json().data;
    expect(listed).toEqual(expect.arrayContaining([expect.objectContaining({ id, name: 'Recovery', environmentId: null, active: true })]));
  });

  it('`tenant set-limits` overrides one tenant’s limits, which the API then applies', async () => {
    const tenant = await t.createTenant('Bench', 'pro');
    const set = await runCli(['tenant', 'set-limits', '--id', tenant.id, '--requests-per-minute', '5000', '--monthly-emails', '7', '--json'], env);
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout).tenant.limitOverrides).toEqual({ requestsPerMinute: 5000, monthlyEmails: 7 });
    const client = t.client(tenant.apiKey);
    const usage = await client.get('/api/v1/usage');
    expect(usage.json().plan).toEqual({ name: 'pro', requestsPerMinute: 5000, monthlyEmails: 7, customStorage: true, maxResources: PLAN_LIMITS.pro.maxResources });
    expect(usage.json().emails.limit).toBe(7);
    // The test app multiplies rate limits by 1000 so other suites never trip them.
    expect(Number(usage.headers['x-ratelimit-limit'])).toBe(5000 * 1000);
  });

});

describe('plans from the CLI, without a database', () => {
  const env = { MAILROOM_DATA_DIR: '/nonexistent/mailroom-cli-plans' };

  it('`mailroom plans` prints the one plan table', async () => {
    const printed = await runCli(['plans', '--json'], env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual({ plans: PLAN_LIMITS });
  });

  it('a bad limit is a usage error (exit 64), before any database is opened', async () => {
    const refused = await runCli(['tenant', 'set-limits', '--id', 'any', '--monthly-emails', 'lots'], env);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--monthly-emails');
  });
});
