/**
 * GET /emails latency as the store grows: rows are written straight through the repositories (not
 * SMTP) up to 1,000, 10,000 and 100,000 emails, and at each size Mailroom (a child process, as
 * `mailroom serve` runs) answers a series of list requests over HTTPS keep-alive. Prints the median
 * and 95th percentile per query and the server's memory. Target: median under 20 ms at 100,000
 * for the default page (perPage=20); median under 50 ms at 100,000 for each full-text search (`q=`:
 * one email's code, a subject word, a sender, a sender's unread mail with a phrase, a word every email
 * has). See bench/README.md.
 */
import { Agent, request } from 'node:https';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/config.js';
import { buildMailroom, createScratchStore, launchMailroom, type MailroomBuild } from './support/mailroom.js';
import { EmailSeeder, seededCode } from './support/seed-emails.js';

const { values: options } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    requests: { type: 'string', default: '200' },
    from: { type: 'string', default: 'dist' },
    dialects: { type: 'string', default: 'sqlite,postgres' },
  },
});
const SIZES = (options.sizes as string).split(',').map(Number);
const REQUESTS = Number(options.requests);
const BUILD = options.from as MailroomBuild;
const POSTGRES_URL = process.env.MAILROOM_BENCH_DATABASE_URL ?? process.env.MAILROOM_TEST_DATABASE_URL;
const TARGET_MS = 20;
const SEARCH_TARGET_MS = 50;

/** What users ask most (the first page), a deep page, a filter, and a sort on another column. */
const LIST_QUERIES = ['/emails?perPage=20', '/emails?perPage=20&page=500', '/emails?perPage=20&subject=code%20%2342', '/emails?perPage=20&sort.field=subject&sort.order=asc'];
/** Searches people run: one email's code, a subject word, a sender, a sender's unread mail with a phrase. */
const SEARCH_QUERIES = [
  `/emails?perPage=20&q=${seededCode(4242)}`,
  '/emails?perPage=20&q=42',
  '/emails?perPage=20&q=from%3Asender7',
  '/emails?perPage=20&q=from%3Asender7%20%22ten%20minutes%22%20is%3Aunread',
  // A word in every seeded email: the count stops at 1,000 (totalItemsIsLowerBound).
  '/emails?perPage=20&q=minutes',
  '/emails?perPage=20&q=minutes%20is%3Aunread',
];
const QUERIES = [...LIST_QUERIES, ...SEARCH_QUERIES];

/** Whether a median meets its target: the first page's, and every search's, at the largest size. */
function meetsTarget(query: string, median: number): boolean {
  if (query === LIST_QUERIES[0]) return median < TARGET_MS;
  return !SEARCH_QUERIES.includes(query) || median < SEARCH_TARGET_MS;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1, rejectUnauthorized: false });

function get(url: string, apiKey: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = request(url, { agent, headers: { 'x-api-key': apiKey } }, (res) => {
      res.resume();
      res.once('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
        else resolve(Number(process.hrtime.bigint() - started) / 1e6);
      });
    });
    req.once('error', reject);
    req.end();
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;

async function timeQuery(apiUrl: string, apiKey: string, query: string): Promise<{ median: number; p95: number }> {
  for (let i = 0; i < 20; i++) await get(apiUrl + query, apiKey);
  const samples: number[] = [];
  for (let i = 0; i < REQUESTS; i++) samples.push(await get(apiUrl + query, apiKey));
  samples.sort((a, b) => a - b);
  return { median: percentile(samples, 50), p95: percentile(samples, 95) };
}

async function runDialect(label: string, postgresUrl: string | undefined): Promise<boolean> {
  const store = await createScratchStore(postgresUrl);
  const seeder = await EmailSeeder.open(loadConfig(store.env).db);
  const { server, apiUrl } = await launchMailroom(BUILD, store.env);
  let met = true;
  try {
    console.log(`\n${label}: GET /api/v1/emails over HTTPS keep-alive, ${REQUESTS} requests per query after 20 warm-up\n`);
    console.log('| emails  | query                                                                  | median ms | p95 ms | server RSS MB (peak) |');
    console.log('| ------- | ---------------------------------------------------------------------- | --------- | ------ | -------------------- |');
    let stored = 0;
    for (const size of SIZES) {
      const started = Date.now();
      await seeder.insert(size - stored, stored);
      await seeder.settle();
      stored = size;
      process.stderr.write(`  (${label}: ${size} emails stored in ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
      for (const query of QUERIES) {
        const { median, p95 } = await timeQuery(apiUrl, seeder.tenant.apiKey, query);
        if (size === SIZES.at(-1) && !meetsTarget(query, median)) met = false;
        console.log(`| ${String(size).padEnd(7)} | ${query.padEnd(70)} | ${median.toFixed(2).padStart(9)} | ${p95.toFixed(2).padStart(6)} | ${String(server.peakRssMb()).padStart(20)} |`);
      }
    }
  } finally {
    await server.stop();
    await seeder.close();
    await store.remove();
  }
  return met;
}

async function main(): Promise<void> {
  if (BUILD !== 'dist' && BUILD !== 'src') throw new Error('--from must be dist or src');
  if (BUILD === 'dist') buildMailroom();
  const dialects = (options.dialects as string).split(',');
  const results: boolean[] = [];
  if (dialects.includes('sqlite')) results.push(await runDialect('SQLite', undefined));
  if (!dialects.includes('postgres')) return finish(results);
  if (POSTGRES_URL) results.push(await runDialect('PostgreSQL', POSTGRES_URL));
  else console.log('\nPostgreSQL skipped: set MAILROOM_BENCH_DATABASE_URL (or MAILROOM_TEST_DATABASE_URL) to include it.');
  finish(results);
}

function finish(results: boolean[]): void {
  agent.destroy();
  const targets = `median under ${TARGET_MS} ms for ${LIST_QUERIES[0]} and under ${SEARCH_TARGET_MS} ms for each q= search`;
  console.log(`\nTarget: ${targets} at ${SIZES.at(-1)} emails: ${results.every(Boolean) ? 'met' : 'NOT met'}`);
}

await main();
