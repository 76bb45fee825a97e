import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, REDIS_URL } from '../../helpers/databases.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

const POSTGRES_URL = process.env.MAILROOM_TEST_DATABASE_URL;
const runnable = REDIS_URL !== undefined && POSTGRES_URL !== undefined;
if (!runnable) console.warn('SKIPPED: multi-node login throttle test (set MAILROOM_TEST_REDIS_URL and MAILROOM_TEST_DATABASE_URL to run it)');

/** Two nodes sharing PostgreSQL and one Redis key prefix count the same sign-in failures. */
describe.runIf(runnable)('login throttle across two nodes (PostgreSQL + Redis)', () => {
  let a: TestApp;
  let b: TestApp;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const database = await createPostgresDatabase();
    dropDatabase = database.drop;
    const env = { MAILROOM_REDIS_URL: REDIS_URL as string, MAILROOM_REDIS_PREFIX: `mailroom-test-${randomBytes(6).toString('hex')}:`, MAILROOM_SIGNUP: 'open' };
    a = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env });
    b = await startTestApp({ dialect: 'postgres', databaseUrl: database.url, env });
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await dropDatabase?.();
  });

  it('failures on node A and node B add up: the 11th attempt is refused on either node', async () => {
    const email = `shared-${randomBytes(4).toString('hex')}@example.com`;
    const password = 'a long enough passphrase';
    expect((await a.client().post('/api/v1/auth/signup', { email, password }, { apiKey: null })).status).toBe(201);
    const signIn = (node: TestApp, attempt: string) => node.client().post('/api/v1/auth/signin', { email, password: attempt }, { apiKey: null });
    for (let i = 0; i < 5; i += 1) {
      expect((await signIn(a, 'wrong password')).status).toBe(401);
      expect((await signIn(b, 'wrong password')).status).toBe(401);
    }
    expect((await signIn(a, password)).json()).toMatchObject({ statusCode: 429, code: 'LOGIN_THROTTLED' });
    expect((await signIn(b, password)).json()).toMatchObject({ statusCode: 429, code: 'LOGIN_THROTTLED' });
  });
});
