import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, defaultIngestWorkers, loadConfig } from './config.js';
import { SETTINGS, type RawEnv } from './env.js';
import { mcpClientSettings } from './mcp-settings.js';

/** `mailroom mcp`'s settings are read by that command, not by the service. */
const MCP_CLIENT_SETTINGS = new Set(['MAILROOM_API_URL', 'MAILROOM_API_KEY']);

function configError(env: RawEnv, load: (env: RawEnv) => unknown = loadConfig): ConfigError {
  try {
    load(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

/** Settings where any string is acceptable (a path, or checked only together with another setting). */
const FREE_TEXT = new Set(['MAILROOM_DATA_DIR', 'MAILROOM_DATABASE_URL', 'MAILROOM_TLS_CERT', 'MAILROOM_TLS_KEY', 'MAILROOM_API_KEY']);

describe('loadConfig', () => {
  it('runs on embedded defaults with no settings at all', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      dataDir: resolve('./data'),
      db: { dialect: 'sqlite', path: resolve('./data/mailroom.db') },
      redisUrl: undefined,
      http: { host: '0.0.0.0', port: 8443 },
      smtp: { host: '0.0.0.0', port: 2525, maxMessageBytes: 25 * 1024 * 1024, greetingDelayMs: 0 },
      imap: { port: 9993 },
      tls: undefined,
      mailDomain: 'mailroom.localhost',
      mxHost: 'mailroom.localhost',
      dns: { servers: [], timeoutMs: 2000 },
      ingestWorkers: defaultIngestWorkers(cpus().length),
      logLevel: 'info',
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('documents every setting with a default and a description', () => {
    for (const setting of SETTINGS) {
      expect(setting.name).toMatch(/^MAILROOM_[A-Z0-9_]+$/);
      expect(setting.default.length, setting.name).toBeGreaterThan(0);
      expect(setting.description.length, setting.name).toBeGreaterThan(10);
    }
  });

  it('reads the database URL as PostgreSQL, sqlite:// or a file path', () => {
    expect(loadConfig({ MAILROOM_DATABASE_URL: 'postgres://u@db:5432/mailroom' }).db).toEqual({ dialect: 'postgres', url: 'postgres://u@db:5432/mailroom', preparedStatements: true });
    expect(loadConfig({ MAILROOM_DATABASE_URL: 'postgres://db/m', MAILROOM_DATABASE_PREPARED_STATEMENTS: 'off' }).db).toMatchObject({ preparedStatements: false });
    expect(loadConfig({ MAILROOM_DATABASE_URL: 'postgresql://db/m' }).db.dialect).toBe('postgres');
    expect(loadConfig({ MAILROOM_DATABASE_URL: 'sqlite:///var/lib/m.db' }).db).toEqual({ dialect: 'sqlite', path: '/var/lib/m.db' });
    expect(loadConfig({ MAILROOM_DATABASE_URL: 'rel/m.db' }).db).toEqual({ dialect: 'sqlite', path: resolve('rel/m.db') });
    expect(loadConfig({ MAILROOM_DATA_DIR: '/srv/mr' }).db).toEqual({ dialect: 'sqlite', path: '/srv/mr/mailroom.db' });
  });

  it('reads explicit values', () => {
    const config = loadConfig({
      MAILROOM_HTTP_PORT: '443',
      MAILROOM_HTTP_HOST: '::1',
      MAILROOM_SMTP_PORT: '25',
      MAILROOM_MAIL_DOMAIN: 'Mail.Example.COM.',
      MAILROOM_DNS_SERVERS: '127.0.0.1:53, 10.0.0.2',
      MAILROOM_TLS_CERT: 'c.pem',
      MAILROOM_TLS_KEY: 'k.pem',
      MAILROOM_REDIS_URL: 'rediss://cache:6380',
      MAILROOM_LOG_LEVEL: 'debug',
    });
    expect(config).toMatchObject({
      http: { host: '::1', port: 443 },
      smtp: { port: 25 },
      mailDomain: 'mail.example.com',
      mxHost: 'mail.example.com',
      dns: { servers: ['127.0.0.1:53', '10.0.0.2'] },
      tls: { certPath: resolve('c.pem'), keyPath: resolve('k.pem') },
      redisUrl: 'rediss://cache:6380',
      logLevel: 'debug',
    });
  });

  it.each([
    ['MAILROOM_HTTP_PORT', '65536'],
    ['MAILROOM_HTTP_PORT', '-1'],
    ['MAILROOM_SMTP_PORT', '25.5'],
    ['MAILROOM_SMTP_MAX_MESSAGE_BYTES', '10'],
    ['MAILROOM_SMTP_GREETING_DELAY_MS', '600000'],
    ['MAILROOM_DNS_TIMEOUT_MS', '1'],
    ['MAILROOM_INGEST_WORKERS', '65'],
    ['MAILROOM_DATABASE_URL', 'mysql://db/mailroom'],
    ['MAILROOM_REDIS_URL', 'http://cache:6379'],
    ['MAILROOM_MAIL_DOMAIN', 'under_score.example'],
    ['MAILROOM_MX_HOST', '-bad-.example'],
    ['MAILROOM_DNS_SERVERS', '127.0.0.1:53,dns server'],
    ['MAILROOM_LOG_LEVEL', 'verbose'],
    ['MAILROOM_HTTP_HOST', 'local host'],
    ['MAILROOM_SMTP_RELAY_URL', 'http://relay.example:587'],
    ['MAILROOM_SMTP_RELAY_URL', 'smtp://relay.example:587/path'],
    ['MAILROOM_SMTP_RELAY_URL', 'smtp://relay.example:587?tls=off'],
    ['MAILROOM_MAIL_FROM', 'Mailroom <a@b.example>\r\nBcc: x@y.example'],
  ])('rejects %s=%s with an error naming it', (name, value) => {
    const error = configError({ [name]: value });
    expect(error.variable).toBe(name);
    expect(error.message).toContain(name);
  });

  it('reads the mail relay and sender, defaulting the sender to the mail domain', () => {
    expect(loadConfig({}).mail).toEqual({ relayUrl: undefined, from: 'Mailroom <no-reply@mailroom.localhost>' });
    const mail = loadConfig({ MAILROOM_SMTP_RELAY_URL: 'smtps://u%40x:p%3Aw@relay.example:465', MAILROOM_MAIL_FROM: 'ops@example.com' }).mail;
    expect(mail).toEqual({ relayUrl: 'smtps://u%40x:p%3Aw@relay.example:465', from: 'ops@example.com' });
  });

  it('rejects a certificate without its key and the other way round', () => {
    expect(configError({ MAILROOM_TLS_CERT: 'c.pem' }).variable).toBe('MAILROOM_TLS_KEY');
    expect(configError({ MAILROOM_TLS_KEY: 'k.pem' }).variable).toBe('MAILROOM_TLS_CERT');
  });

  it('validates every documented setting: a nonsense value is refused, naming the variable', () => {
    for (const { name } of SETTINGS.filter((s) => !FREE_TEXT.has(s.name))) {
      const error = MCP_CLIENT_SETTINGS.has(name) ? configError({ MAILROOM_API_KEY: 'mr_x', [name]: 'not valid!' }, mcpClientSettings) : configError({ [name]: 'not valid!' });
      expect(error.variable, name).toBe(name);
    }
  });

  it('reads the spam check as off, host:port or an http(s) URL, and nothing else', () => {
    expect(loadConfig({}).spam).toEqual({ url: undefined, timeoutMs: 1500, recheckIntervalMs: 60_000 });
    expect(loadConfig({ MAILROOM_SPAM_CHECK: 'off' }).spam.url).toBeUndefined();
    expect(loadConfig({ MAILROOM_SPAM_CHECK: '127.0.0.1:11333' }).spam.url).toBe('http://127.0.0.1:11333/');
    expect(loadConfig({ MAILROOM_SPAM_CHECK: 'https://filter.internal/rspamd/' }).spam.url).toBe('https://filter.internal/rspamd/');
    for (const value of ['ftp://filter:11333', 'http://filter:11333/?x=1', 'filter', 'on']) expect(configError({ MAILROOM_SPAM_CHECK: value }).variable, value).toBe('MAILROOM_SPAM_CHECK');
  });

  it('mailroom mcp needs MAILROOM_API_KEY and takes the API address with or without /api/v1', () => {
    expect(configError({}, mcpClientSettings).variable).toBe('MAILROOM_API_KEY');
    expect(mcpClientSettings({ MAILROOM_API_KEY: 'mr_x' })).toEqual({ apiUrl: 'https://localhost:8443', apiKey: 'mr_x' });
    expect(mcpClientSettings({ MAILROOM_API_KEY: 'mr_x', MAILROOM_API_URL: 'https://mail.example.com/api/v1/' }).apiUrl).toBe('https://mail.example.com');
  });
});
