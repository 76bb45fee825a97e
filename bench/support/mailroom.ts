import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { request } from 'node:https';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { startChildServer, type ChildServer } from './child-server.js';
import { scratchFolder } from './scratch.js';

const ROOT = resolve(import.meta.dirname, '../..');
const NODE_ARGS = process.env.MAILROOM_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
/** Every bench Mailroom serves GET /metrics with this token (ingest-stages.ts reads it). */
const METRICS_TOKEN = 'bench-metrics-token';

/** Which build of Mailroom runs: `dist` (what `npm start` runs; build it first) or `src` through tsx. */
export type MailroomBuild = 'dist' | 'src';

/** Compiles src/ to dist/ as `npm run build` does; type errors elsewhere in the tree do not stop the emit. */
export function buildMailroom(): void {
  spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'ignore' });
  if (!existsSync(join(ROOT, 'dist/cli.js'))) throw new Error('npm run build did not produce dist/cli.js');
}

const ENTRIES: Record<MailroomBuild, string> = { dist: join(ROOT, 'dist/cli.js'), src: join(ROOT, 'src/cli.ts') };

/** The bin's shebang (`#!/usr/bin/env -S NAME=value … node …`): a bench runs Mailroom as `mailroom` and `npm start` do. */
function shebang(build: MailroomBuild): { env: Record<string, string>; nodeArgs: string[] } {
  const firstLine = readFileSync(ENTRIES[build], 'utf8').split('\n', 1)[0] ?? '';
  const words = /^#!\/usr\/bin\/env -S (.*)$/.exec(firstLine)?.[1]?.split(' ').filter(Boolean) ?? [];
  const node = words.indexOf('node');
  if (node === -1) return { env: {}, nodeArgs: [] };
  const assignments = words.slice(0, node).map((word) => word.split('=', 2) as [string, string]);
  return { env: Object.fromEntries(assignments), nodeArgs: words.slice(node + 1) };
}

function cli(build: MailroomBuild, nodeArgs: string[] = []): string[] {
  const entry = ENTRIES[build];
  const args = [...shebang(build).nodeArgs, ...NODE_ARGS, ...nodeArgs];
  return build === 'dist' ? [...args, entry] : [...args, '--import', 'tsx', entry];
}

export interface MailroomInstance {
  server: ChildServer;
  smtpPort: number;
  /** Its MAILROOM_DATA_DIR, a scratch folder. */
  dataDir: string;
  inboxAddress: string;
  inboxId: string;
  /** The bench tenant's API key and the API base (https://127.0.0.1:<port>/api/v1; self-signed certificate). */
  apiKey: string;
  apiUrl: string;
  /** Emails the API lists for the bench tenant. */
  countEmails(): Promise<number>;
  /** GET /metrics: the Prometheus text. */
  metrics(): Promise<string>;
  stop(): Promise<void>;
}

export interface MailroomOptions {
  /** postgres://… for PostgreSQL (a fresh database is created and dropped); undefined for SQLite. */
  postgresUrl?: string;
  dnsServer: string;
  build: MailroomBuild;
  env?: Record<string, string>;
  /** Node options for `mailroom serve` only, after MAILROOM_BENCH_NODE_ARGS's, e.g. --cpu-prof; worker threads inherit them. */
  nodeArgs?: string[];
}

/** The PostgreSQL URL benches create their scratch databases with, if any. */
export const BENCH_POSTGRES_URL = process.env.MAILROOM_BENCH_DATABASE_URL ?? process.env.MAILROOM_TEST_DATABASE_URL;

/** A single-server bench's Mailroom from its `--database sqlite|postgres` and `--workers N` options. */
export function singleServerOptions(options: { database?: string; workers?: string }, dnsServer: string, build: MailroomBuild): MailroomOptions {
  if (options.database === 'postgres' && BENCH_POSTGRES_URL === undefined) throw new Error('--database postgres needs MAILROOM_BENCH_DATABASE_URL (or MAILROOM_TEST_DATABASE_URL)');
  return {
    dnsServer,
    postgresUrl: options.database === 'postgres' ? BENCH_POSTGRES_URL : undefined,
    build,
    env: options.workers === undefined ? {} : { MAILROOM_INGEST_WORKERS: options.workers },
  };
}

function httpsText(url: string, method: string, headers: Record<string, string>, body?: string): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method, rejectUnauthorized: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('end', () => {
        if ((res.statusCode ?? 500) >= 300) reject(new Error(`${method} ${url}: ${res.statusCode} ${text}`));
        else resolvePromise(text);
      });
    });
    req.once('error', reject);
    req.end(body);
  });
}

async function httpsJson(url: string, method: string, apiKey: string, body?: unknown): Promise<unknown> {
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
  return JSON.parse(await httpsText(url, method, headers, body === undefined ? undefined : JSON.stringify(body)));
}

async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `mailroom_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A scratch data dir and, for PostgreSQL, a fresh database; `env` points Mailroom at both. `remove`
 * drops the database; the data dir's files go when the bench process exits (scratch.ts).
 */
export async function createScratchStore(postgresUrl?: string): Promise<{ env: Record<string, string>; dataDir: string; remove(): Promise<void> }> {
  const dataDir = await scratchFolder('mailroom-bench-');
  const database = postgresUrl === undefined ? undefined : await createPostgresDatabase(postgresUrl);
  return {
    dataDir,
    env: { MAILROOM_DATA_DIR: dataDir, ...(database ? { MAILROOM_DATABASE_URL: database.url } : {}) },
    async remove() {
      await database?.drop();
    },
  };
}

/** `mailroom serve` on free loopback ports; resolves once it prints where it listens. */
export async function launchMailroom(
  build: MailroomBuild,
  env: Record<string, string>,
  nodeArgs?: string[],
): Promise<{ server: ChildServer; apiUrl: string; smtpPort: number }> {
  const { server, match } = await startChildServer({
    command: process.execPath,
    args: [...cli(build, nodeArgs), 'serve'],
    env: {
      ...shebang(build).env,
      MAILROOM_HTTP_HOST: '127.0.0.1',
      MAILROOM_HTTP_PORT: '0',
      MAILROOM_SMTP_HOST: '127.0.0.1',
      MAILROOM_SMTP_PORT: '0',
      MAILROOM_IMAP_PORT: '0',
      MAILROOM_LOG_LEVEL: 'warn',
      ...env,
    },
    cwd: ROOT,
    ready: /https:\/\/[^:]+:(\d+)\/[\s\S]*SMTP:\s+\S+:(\d+)/,
  });
  return { server, apiUrl: `https://127.0.0.1:${match[1]}/api/v1`, smtpPort: Number(match[2]) };
}

/** Mailroom as users run it (`mailroom serve`), on free ports with its own data dir, plus one tenant and inbox. */
export async function startMailroom(options: MailroomOptions): Promise<MailroomInstance> {
  const store = await createScratchStore(options.postgresUrl);
  try {
    return await startInStore(options, store);
  } catch (error) {
    await store.remove();
    throw error;
  }
}

async function startInStore(options: MailroomOptions, store: Awaited<ReturnType<typeof createScratchStore>>): Promise<MailroomInstance> {
  const env: Record<string, string> = { ...store.env, MAILROOM_DNS_SERVERS: options.dnsServer, MAILROOM_METRICS_TOKEN: METRICS_TOKEN, ...options.env };
  const { stdout } = await promisify(execFile)(process.execPath, [...cli(options.build), 'tenant', 'create', '--name', 'bench', '--plan', 'pro', '--json'], {
    env: { ...process.env, ...env },
    cwd: ROOT,
  });
  const apiKey = (JSON.parse(stdout.trim().split('\n').at(-1) as string) as { apiKey: string }).apiKey;
  const { server, apiUrl: api, smtpPort } = await launchMailroom(options.build, env, options.nodeArgs);
  const inbox = (await httpsJson(`${api}/inboxes`, 'POST', apiKey, { prefix: 'bench' }).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  })) as { id: string; address: string };
  return {
    server,
    smtpPort,
    dataDir: store.dataDir,
    inboxAddress: inbox.address,
    inboxId: inbox.id,
    apiKey,
    apiUrl: api,
    async countEmails() {
      const page = (await httpsJson(`${api}/emails?perPage=1`, 'GET', apiKey)) as { totalItems: number };
      return page.totalItems;
    },
    metrics: () => httpsText(new URL('/metrics', api).href, 'GET', { authorization: `Bearer ${METRICS_TOKEN}` }),
    async stop() {
      await server.stop();
      await store.remove();
    },
  };
}
