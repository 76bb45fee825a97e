/**
 * API throughput: authenticated `GET /api/v1/emails?perPage=20` on Mailroom (SQLite, and PostgreSQL
 * when MAILROOM_BENCH_DATABASE_URL is set) under autocannon load, beside a bare Fastify route that
 * returns the same JSON from memory over the same certificate, in the same run. The bench tenant is
 * on the pro plan with its rate limit raised (MAILROOM_RATE_LIMIT_MULTIPLIER), so every request does
 * the full work: key lookup, rate-limit count, the query and serialisation. Target: Mailroom at
 * least 50% of the bare route's rate on SQLite.
 *
 *   npm run bench:api                      50 connections, 20 s per target
 *   npm run bench:api -- --duration 5      a quick run
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config/config.js';
import { loadTlsMaterial } from '../src/adapters/tls/certificate.js';
import { sendMail } from '../test/helpers/smtp-client.js';
import { startChildServer, type ChildServer } from './support/child-server.js';
import { buildMailroom, startMailroom, type MailroomBuild } from './support/mailroom.js';

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: process.env.MAILROOM_BENCH_DURATION_S ?? '20' },
    connections: { type: 'string', default: '50' },
    emails: { type: 'string', default: '40' },
    from: { type: 'string', default: 'dist' },
  },
});
const DURATION_S = Number(options.duration);
const CONNECTIONS = Number(options.connections);
const WARMUP_S = Math.min(3, Math.max(1, Math.round(DURATION_S / 5)));
const POSTGRES_URL = process.env.MAILROOM_BENCH_DATABASE_URL;
const BUILD = options.from as MailroomBuild;
const PATH = '/api/v1/emails?perPage=20';
const ROOT = resolve(import.meta.dirname, '..');

interface Result {
  target: string;
  rate: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Server CPU time per request (user + system, all threads): unlike req/s, barely moved by other load on the machine. */
  cpuMs: number;
}

function getJson(url: string, apiKey: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers: { 'x-api-key': apiKey } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => ((res.statusCode ?? 500) === 200 ? resolvePromise(text) : reject(new Error(`${url}: ${res.statusCode} ${text}`))));
    });
    req.once('error', reject);
    req.end();
  });
}

async function load(target: string, server: ChildServer, url: string, headers: Record<string, string>): Promise<Result> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_S });
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  const cpuMs = ((server.cpuSeconds() - cpuBefore) * 1000) / Math.max(1, result.requests.total);
  const row = { target, rate: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors, cpuMs };
  console.log(
    `  ${target.padEnd(28)} ${row.rate.toFixed(0).padStart(7)} req/s  p99 ${String(row.p99).padStart(4)} ms  ${cpuMs.toFixed(2)} CPU ms/req  non-2xx ${row.non2xx}  errors ${row.errors}`,
  );
  return row;
}

async function main(): Promise<void> {
  if (BUILD === 'dist') buildMailroom();
  const tlsDir = await mkdtemp(join(tmpdir(), 'mailroom-api-bench-'));
  try {
    await loadTlsMaterial(loadConfig({ MAILROOM_DATA_DIR: tlsDir }));
    const tls = { MAILROOM_TLS_CERT: join(tlsDir, 'tls/self-signed.crt'), MAILROOM_TLS_KEY: join(tlsDir, 'tls/self-signed.key') };
    console.log(`GET ${PATH}: ${CONNECTIONS} connections, ${DURATION_S} s per target (after ${WARMUP_S} s warm-up), Mailroom from ${BUILD}`);
    const results: Result[] = [];
    for (const dialect of POSTGRES_URL === undefined ? ['sqlite'] : ['sqlite', 'postgres']) {
      const mailroom = await startMailroom({
        build: BUILD,
        dnsServer: '127.0.0.1:9',
        postgresUrl: dialect === 'postgres' ? POSTGRES_URL : undefined,
        env: { ...tls, MAILROOM_RATE_LIMIT_MULTIPLIER: '1000000', MAILROOM_LOG_LEVEL: 'warn' },
      });
      try {
        for (let i = 0; i < Number(options.emails); i += 1) {
          await sendMail(mailroom.smtpPort, { from: 'bench@sender.example', to: mailroom.inboxAddress, subject: `Your code is ${100000 + i}`, text: `Code ${100000 + i}\nhttps://example.com/verify?token=${i}` });
        }
        const body = await getJson(`${mailroom.apiUrl.replace('/api/v1', '')}${PATH}`, mailroom.apiKey);
        await writeFile(join(tlsDir, 'page.json'), body);
        results.push(await load(`Mailroom (${dialect})`, mailroom.server, `${mailroom.apiUrl.replace('/api/v1', '')}${PATH}`, { 'x-api-key': mailroom.apiKey }));
      } finally {
        await mailroom.stop();
      }
    }
    const { server: bare, match } = await startChildServer({
      command: process.execPath,
      args: ['--import', 'tsx', join(ROOT, 'bench/servers/bare-json-server.ts')],
      env: { BARE_TLS_CERT: tls.MAILROOM_TLS_CERT, BARE_TLS_KEY: tls.MAILROOM_TLS_KEY, BARE_BODY_FILE: join(tlsDir, 'page.json') },
      cwd: ROOT,
      ready: /listening on (https:\/\/\S+\/)/,
    });
    try {
      results.push(await load('bare Fastify (same JSON)', bare, `${(match[1] as string).replace(/\/$/, '')}${PATH}`, {}));
    } finally {
      await bare.stop();
    }
    const bareRate = (results.at(-1) as Result).rate;
    const bareCpu = (results.at(-1) as Result).cpuMs;
    console.log('\n| target | req/s | p99 ms | % of bare (req/s) | CPU ms/req | % of bare (CPU) | non-2xx |\n|---|---|---|---|---|---|---|');
    for (const row of results) {
      const ofBare = ((row.rate / bareRate) * 100).toFixed(0);
      const ofBareCpu = ((bareCpu / row.cpuMs) * 100).toFixed(0);
      console.log(`| ${row.target} | ${row.rate.toFixed(0)} | ${row.p99} | ${ofBare}% | ${row.cpuMs.toFixed(2)} | ${ofBareCpu}% | ${row.non2xx} |`);
    }
    const sqlite = results[0] as Result;
    console.log(
      `\nMailroom (SQLite) / bare route: ${((sqlite.rate / bareRate) * 100).toFixed(0)}% of the rate, ${((bareCpu / sqlite.cpuMs) * 100).toFixed(0)}% by CPU per request (target at least 50%)`,
    );
  } finally {
    await rm(tlsDir, { recursive: true, force: true });
  }
}

await main();
