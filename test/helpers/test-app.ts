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
}

/** Boots the real app (createApp) on ephemeral ports with its own data dir and database. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'mailroom-test-'));
  const pgDatabase = options.dialect === 'postgres' ? await createPostgresDatabase() : undefined;
  const config = loadConfig({
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_HTTP_HOST: '127.0.0.1',
    MAILROOM_HTTP_PORT: '0',
    MAILROOM_SMTP_HOST: '127.0.0.1',
    MAILROOM_SMTP_PORT: '0',
    MAILROOM_IMAP_PORT: '0',
    MAILROOM_LOG_LEVEL: 'silent',
    MAILROOM_DNS_SERVERS: '127.0.0.1:9',
    MAILROOM_DNS_TIMEOUT_MS: '200',
    MAILROOM_INGEST_WORKERS: '0',
    ...(pgDatabase ? { MAILROOM_DATABASE_URL: pgDatabase.url } : {}),
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
    tenant,
    http: client(tenant.apiKey),
    client,
    createTenant,
    async stop() {
      for (const c of clients) c.close();
      await app.stop();
      await pgDatabase?.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
