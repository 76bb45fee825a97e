import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmailSeeder } from '../../bench/support/seed-emails.js';
import { TEST_DIALECTS, warnIfPostgresSkipped } from '../helpers/databases.js';
import type { HttpClient } from '../helpers/http-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

warnIfPostgresSkipped();

interface ListPage {
  data: { id: string; subject: string; read: boolean }[];
  currentPage: number;
  totalItems: number;
  totalPages: number;
  hasNextPage: boolean;
  nextCursor: string | null;
  totalItemsIsLowerBound: boolean;
}

/** More matches than SQLite's "few" (2,000), so searches walk the list and counts stop at 1,000. */
const SEEDED = 2100;

describe.each(TEST_DIALECTS)('GET /emails?q= with a word nearly every email has (%s)', (dialect) => {
  let t: TestApp;
  let client: HttpClient;

  const list = async (query: string): Promise<ListPage> => {
    const response = await client.get(`/api/v1/emails?${query}`);
    expect(response.status, response.text).toBe(200);
    return response.json<ListPage>();
  };

  beforeAll(async () => {
    t = await startTestApp({ dialect });
    const seeder = await EmailSeeder.open(t.app.ctx.config.db);
    await seeder.insert(SEEDED, 0);
    client = t.client(seeder.tenant.apiKey);
    // Another account's mail has the same words and never counts.
    const other = await EmailSeeder.open(t.app.ctx.config.db);
    await other.insert(50, 0);
    await Promise.all([seeder.close(), other.close()]);
  }, 120_000);
  afterAll(() => t?.stop());

  it('returns the same first page as the plain list, with a count that says it is a lower bound', async () => {
    const [plain, search] = await Promise.all([list('perPage=20'), list('perPage=20&q=minutes')]);
    expect(search.data.map((e) => e.id)).toEqual(plain.data.map((e) => e.id));
    expect(plain).toMatchObject({ totalItems: SEEDED, totalItemsIsLowerBound: false });
    expect(search).toMatchObject({ totalItems: 1000, totalPages: 50, hasNextPage: true, totalItemsIsLowerBound: true });
  });

  it('counts exactly to the end of a deep page, and knows the last page', async () => {
    const last = await list('perPage=100&page=21&q=minutes');
    expect(last).toMatchObject({ totalItems: SEEDED, totalItemsIsLowerBound: false, hasNextPage: false });
    expect(last.data).toHaveLength(100);
    const beyond = await list('perPage=100&page=22&q=minutes');
    expect(beyond).toMatchObject({ data: [], totalItems: SEEDED, hasNextPage: false });
    const middle = await list('perPage=100&page=12&q=minutes');
    expect(middle).toMatchObject({ totalItems: 1200, totalItemsIsLowerBound: true, hasNextPage: true });
  });

  it('counts exactly when the other conditions leave fewer than the cap', async () => {
    const read = await list('perPage=100&q=minutes%20is%3Aread');
    expect(read).toMatchObject({ totalItems: SEEDED / 3, totalItemsIsLowerBound: false });
    expect(read.data.every((e) => e.read)).toBe(true);
    const excluded = await list('perPage=20&q=minutes%20-from%3Asender7');
    expect(excluded.data.length).toBe(20);
    expect(excluded.totalItemsIsLowerBound).toBe(true);
    const narrowed = await list('perPage=100&q=minutes%20from%3Asender7');
    expect(narrowed).toMatchObject({ totalItems: 5, totalItemsIsLowerBound: false });
  });

  it('pages by cursor through a bounded count', async () => {
    const first = await list('limit=50&q=minutes');
    const second = await list(`limit=50&q=minutes&cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
    expect(second.currentPage).toBe(2);
    expect(second.hasNextPage).toBe(true);
    expect(second.totalItemsIsLowerBound).toBe(true);
    const plain = await list('perPage=50&page=2');
    expect(second.data.map((e) => e.id)).toEqual(plain.data.map((e) => e.id));
  });

  it('deletes everything a near-universal search matches in one call', async () => {
    const response = await client.post('/api/v1/emails/delete', { q: 'minutes is:read' });
    expect(response.status, response.text).toBe(200);
    expect(response.json<{ deleted: number }>().deleted).toBe(SEEDED / 3);
    expect(await list('perPage=1&q=minutes%20is%3Aread')).toMatchObject({ totalItems: 0, data: [] });
  });
});
