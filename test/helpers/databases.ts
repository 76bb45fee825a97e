import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDialect = 'sqlite' | 'postgres';

const POSTGRES_URL = process.env.MAILROOM_TEST_DATABASE_URL;
export const REDIS_URL = process.env.MAILROOM_TEST_REDIS_URL;

/** SQLite always; PostgreSQL when MAILROOM_TEST_DATABASE_URL is set (CI sets it). */
export const TEST_DIALECTS: TestDialect[] = POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

let warned = false;
export function warnIfPostgresSkipped(): void {
  if (POSTGRES_URL || warned) return;
  warned = true;
  console.warn('SKIPPED: PostgreSQL variants of the tests (set MAILROOM_TEST_DATABASE_URL to run them)');
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A fresh, empty PostgreSQL database per test app, so parallel test files never share rows. */
export async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  if (!POSTGRES_URL) throw new Error('MAILROOM_TEST_DATABASE_URL is not set');
  const name = `mailroom_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(POSTGRES_URL, name),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
