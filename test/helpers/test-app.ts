import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App, type AppOverrides, type ListeningAddresses } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { createPostgresDatabase, type TestDialect } from './databases.js';
import { HttpClient } from './http-client.js';

export interface TestApp {
  app: App;
  addresses: ListeningAddresses;
  dataDir: string;
  smtpPort: number;
  /** https://localhost:<port>, and the CA that trusts its self-signed certificate (for SSE and SDK clients). */
  baseUrl: string;
  ca: Buffer;
  tenant: { id: string; apiKey: string; environmentId: string };
  /** HTTPS client authenticated as the default tenant. */
  http: HttpClient;
  /** An HTTPS client with another key (or none). */
  client(apiKey?: string): HttpClient;
  createTenant(name?: string, plan?: 'free' | 'pro'): Promise<{ id: string; apiKey: string; environmentId: string }>;
  stop(): Promise<void>;
}

export interface TestAppOptions {
  dialect?: TestDialect;
  env?: Record<string, string>;
  overrides?: AppOverrides;
  /** Use this (existing) data dir instead of a fresh temporary one; it is still removed by stop(). */
  dataDir?: string;
  /** Share this existing PostgreSQL database (a second node of a multi-node test); the caller drops it. */
  databaseUrl?: string;
  /** Leave the data dir in place on stop(), for a restart test whose next app reuses it; the caller removes it. */
  keepDataDir?: boolean;
}

/** Boots the real app (createApp) on ephemeral ports with its own data dir and database. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'mailroom-test-')));
  const pgDatabase = options.dialect === 'postgres' && options.databaseUrl === undefined ? await createPostgresDatabase() : undefined;
  const config = loadConfig({
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_HTTP_HOST: '127.0.0.1',
    MAILROOM_HTTP_PORT: '0',
    MAILROOM_SMTP_HOST: '127.0.0.1',
    MAILROOM_SMTP_PORT: '0',
    MAILROOM_IMAP_PORT: '0',
    MAILROOM_IMAP_HOST: '127.0.0.1',
    MAILROOM_IMAP_AUTH_FAILURE_DELAY_MS: '0',
    MAILROOM_LOG_LEVEL: 'silent',
    MAILROOM_DNS_SERVERS: '127.0.0.1:9',
    MAILROOM_DNS_TIMEOUT_MS: '200',
    MAILROOM_INGEST_WORKERS: '0',
    // Suites that are not about rate limits must not trip them; rate-limit tests pass '1'.
    MAILROOM_RATE_LIMIT_MULTIPLIER: '1000',
    ...(pgDatabase ? { MAILROOM_DATABASE_URL: pgDatabase.url } : {}),
    ...(options.databaseUrl ? { MAILROOM_DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  });
  const app = await createApp(config, options.overrides);
  const addresses = await app.start();
  const ca = await readFile(join(dataDir, 'tls', 'self-signed.crt')).catch(() => Buffer.alloc(0));
  const baseUrl = `https://localhost:${addresses.http.port}`;
  const clients: HttpClient[] = [];
  const client = (apiKey?: string) => {
    const c = new HttpClient(baseUrl, ca, apiKey);
    clients.push(c);
    return c;
  };
  const createTenant = async (name = 'Test tenant', plan: 'free' | 'pro' = 'pro') => {
    const created = await app.ctx.services.tenants.create({ name, plan });
    return { id: created.tenant.id, apiKey: created.apiKey, environmentId: created.environmentId };
  };
  const tenant = await createTenant('Default test tenant');
  return {
    app,
    addresses,
    dataDir,
    smtpPort: addresses.smtp.port,
    baseUrl,
    ca,
    tenant,
    http: client(tenant.apiKey),
    client,
    createTenant,
    async stop() {
      for (const c of clients) c.close();
      await app.stop();
      await pgDatabase?.drop();
      if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
