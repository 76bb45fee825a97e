import { cpus } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { RawEnv } from './env.js';
import { DEFAULT_RETRY_SCHEDULE_MS } from '../core/retry-schedule.js';
import { storageSettings, type StorageSettings } from './storage-settings.js';
import { operationsSettings, type OperationsSettings } from './operations-settings.js';
import { limitsSettings, type LimitsSettings } from './limits-settings.js';
import { localSettings, type LocalSettings } from './local-settings.js';
import { extractionSettings } from './extraction-settings.js';
import { spamSettings, type SpamSettings } from './spam-settings.js';
import { mailSettings, type MailSettings } from './mail-settings.js';
import { messageCheckSettings, type MessageCheckSettings } from './checks-settings.js';
import type { ExtractionLimits } from '../core/extract.js';

export type DatabaseConfig =
  | { dialect: 'sqlite'; path: string }
  /** preparedStatements (default true): each connection prepares what it runs (docs/decisions.md D76). */
  | { dialect: 'postgres'; url: string; preparedStatements?: boolean };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  dataDir: string;
  db: DatabaseConfig;
  redisUrl: string | undefined;
  realtime: { redisPrefix: string; heartbeatMs: number; maxBufferBytes: number };
  http: { host: string; port: number };
  smtp: { host: string; port: number; maxMessageBytes: number; greetingDelayMs: number };
  imap: {
    host: string;
    port: number;
    maxConnectionsPerInbox: number;
    idleTimeoutMs: number;
    authFailureDelayMs: number;
    authFailuresPerAddress: number;
    authFailuresPerIp: number;
  };
  tls: { certPath: string; keyPath: string } | undefined;
  mailDomain: string;
  mxHost: string;
  dns: { servers: string[]; timeoutMs: number };
  domains: { recheckIntervalMs: number; dnsProviderApiUrl: string; claimDays: number };
  ingestWorkers: number;
  inboxes: { sweepIntervalMs: number };
  publicUrl: string;
  webhooks: {
    timeoutMs: number;
    retryScheduleMs: number[];
    pollIntervalMs: number;
    concurrency: number;
    /** Deliveries of one account in flight at once, over all nodes: one account's dead endpoints cannot take every slot. */
    concurrencyPerTenant: number;
    /** Time to resolve and connect before an attempt fails, shorter than the total timeout. */
    connectTimeoutMs: number;
    allowPrivate: boolean;
    chatappApiUrl: string;
  };
  logLevel: LogLevel;
  /** docs/access.md: TLS termination and rate limits. */
  access: { trustProxy: boolean; rateLimitMultiplier: number };
  /** docs/dashboard.md: self-service sign-up and the session-token signing secret (undefined: generated into the data dir). */
  accounts: { signup: 'open' | 'closed'; jwtSecret: string | undefined };
  /** docs/dashboard.md (Email from Mailroom): the relay for verification and password-reset mail. */
  mail: MailSettings;
  /** docs/storage.md: the service's blob store, tenants' credential key, the orphan sweep. */
  storage: StorageSettings;
  /** docs/operations.md: roles, metrics, shutdown, retention. */
  operations: OperationsSettings;
  /** docs/security.md: connection, memory, recipient and attachment limits. */
  limits: LimitsSettings;
  /** docs/local.md: catch-all, SMTP AUTH and STARTTLS modes, plain HTTP, limits, login-free dashboard. */
  local: LocalSettings;
  /** docs/inboxes.md: the input cap and time budget of code and link extraction. */
  extraction: ExtractionLimits;
  /** docs/spam.md: the spam filter, its deadline before the 250, and the recheck of mail it missed. */
  spam: SpamSettings;
  /** docs/checks.md: the on-demand HTML compatibility and link checks. */
  checks: MessageCheckSettings;
}

/** A setting with a bad value: the message names the variable so the operator can fix it. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const HOST_PORT = /^[A-Za-z0-9.\-:[\]]+:\d{1,5}$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export function integer(env: RawEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function database(env: RawEnv, dataDir: string): DatabaseConfig {
  const url = env.MAILROOM_DATABASE_URL;
  // Checked on SQLite too, which has no use for it: a typo should stop the start, not wait for a move to PostgreSQL.
  const preparedStatements = choice(env, 'MAILROOM_DATABASE_PREPARED_STATEMENTS', ['on', 'off'], 'on') === 'on';
  if (url === undefined) return { dialect: 'sqlite', path: resolve(dataDir, 'mailroom.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url, preparedStatements };
  if (url.startsWith('sqlite://')) return { dialect: 'sqlite', path: resolve(url.slice('sqlite://'.length)) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new ConfigError('MAILROOM_DATABASE_URL', 'expected postgres://…, sqlite://… or a file path');
  }
  return { dialect: 'sqlite', path: isAbsolute(url) ? url : resolve(url) };
}

function tls(env: RawEnv): AppConfig['tls'] {
  const certPath = env.MAILROOM_TLS_CERT;
  const keyPath = env.MAILROOM_TLS_KEY;
  if (certPath === undefined && keyPath === undefined) return undefined;
  if (certPath === undefined) throw new ConfigError('MAILROOM_TLS_CERT', 'must be set together with MAILROOM_TLS_KEY');
  if (keyPath === undefined) throw new ConfigError('MAILROOM_TLS_KEY', 'must be set together with MAILROOM_TLS_CERT');
  return { certPath: resolve(certPath), keyPath: resolve(keyPath) };
}

function domainName(env: RawEnv, name: string, fallback: string): string {
  const value = (env[name] ?? fallback).toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(value)) throw new ConfigError(name, `"${value}" is not a valid domain name`);
  return value;
}

function dnsServers(env: RawEnv): string[] {
  const raw = env.MAILROOM_DNS_SERVERS;
  if (raw === undefined) return [];
  const servers = raw.split(',').map((s) => s.trim()).filter(Boolean);
  for (const server of servers) {
    if (!HOST_PORT.test(server) && !/^[\d.]+$/.test(server)) {
      throw new ConfigError('MAILROOM_DNS_SERVERS', `"${server}" is not host:port`);
    }
  }
  return servers;
}

function redisPrefix(env: RawEnv): string {
  const value = env.MAILROOM_REDIS_PREFIX ?? 'mailroom:';
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(value)) throw new ConfigError('MAILROOM_REDIS_PREFIX', 'use 1 to 64 letters, digits or : _ . -');
  return value;
}

function retrySchedule(env: RawEnv): number[] {
  const raw = env.MAILROOM_WEBHOOK_RETRY_SCHEDULE;
  if (raw === undefined) return [...DEFAULT_RETRY_SCHEDULE_MS];
  const delays = raw.split(',').map((s) => s.trim());
  if (delays.some((d) => !/^\d{1,9}$/.test(d))) {
    throw new ConfigError('MAILROOM_WEBHOOK_RETRY_SCHEDULE', `expected comma-separated whole milliseconds, got "${raw}"`);
  }
  return delays.map(Number);
}

/** One of `allowed`, `fallback` when unset; anything else stops the start naming the variable. */
export function choice<T extends string>(env: RawEnv, name: string, allowed: readonly T[], fallback: T): T {
  const value = env[name] ?? fallback;
  if (!(allowed as readonly string[]).includes(value)) throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

export function flag(env: RawEnv, name: string): boolean {
  const raw = env[name] ?? '0';
  if (raw !== '0' && raw !== '1') throw new ConfigError(name, `expected 0 or 1, got "${raw}"`);
  return raw === '1';
}

function httpUrl(env: RawEnv, name: string, fallback: string): string {
  const raw = env[name] ?? fallback;
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new ConfigError(name, `expected an http:// or https:// URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
}

/** A listen address: an IP (v4 or v6) or a host name. Caught here rather than as an obscure listen error. */
function listenHost(env: RawEnv, name: string): string {
  const value = env[name] ?? '0.0.0.0';
  if (!/^[A-Za-z0-9.:-]+$/.test(value)) throw new ConfigError(name, `"${value}" is not an IP address or host name`);
  return value;
}

function accounts(env: RawEnv): AppConfig['accounts'] {
  const signup = env.MAILROOM_SIGNUP ?? 'open';
  if (signup !== 'open' && signup !== 'closed') throw new ConfigError('MAILROOM_SIGNUP', `expected open or closed, got "${signup}"`);
  const jwtSecret = env.MAILROOM_JWT_SECRET;
  if (jwtSecret !== undefined && jwtSecret.length < 32) throw new ConfigError('MAILROOM_JWT_SECRET', 'must be at least 32 characters');
  return { signup, jwtSecret };
}

function logLevel(env: RawEnv): LogLevel {
  const raw = (env.MAILROOM_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError('MAILROOM_LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  return raw;
}

/** One core stays with the main thread (SMTP, HTTP, database); the others parse and authenticate, up to 4. */
export function defaultIngestWorkers(cpuCount: number): number {
  return Math.max(1, Math.min(cpuCount - 1, 4));
}

/** Reads every setting once, applies defaults and rejects bad values with a ConfigError. */
export function loadConfig(env: RawEnv): AppConfig {
  const dataDir = resolve(env.MAILROOM_DATA_DIR ?? './data');
  const mailDomain = domainName(env, 'MAILROOM_MAIL_DOMAIN', 'mailroom.localhost');
  const redisUrl = env.MAILROOM_REDIS_URL;
  const local = localSettings(env);
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('MAILROOM_REDIS_URL', 'expected redis://… or rediss://…');
  }
  const config: AppConfig = {
    dataDir,
    db: database(env, dataDir),
    redisUrl,
    realtime: {
      redisPrefix: redisPrefix(env),
      heartbeatMs: integer(env, 'MAILROOM_SSE_HEARTBEAT_MS', 30_000, 50, 3_600_000),
      maxBufferBytes: integer(env, 'MAILROOM_SSE_MAX_BUFFER_BYTES', 1024 * 1024, 1024, 1024 ** 3),
    },
    http: { host: listenHost(env, 'MAILROOM_HTTP_HOST'), port: integer(env, 'MAILROOM_HTTP_PORT', 8443, 0, 65535) },
    smtp: {
      host: listenHost(env, 'MAILROOM_SMTP_HOST'),
      port: integer(env, 'MAILROOM_SMTP_PORT', 2525, 0, 65535),
      maxMessageBytes: integer(env, 'MAILROOM_SMTP_MAX_MESSAGE_BYTES', 25 * 1024 * 1024, 1024, 1024 ** 3),
      greetingDelayMs: integer(env, 'MAILROOM_SMTP_GREETING_DELAY_MS', 0, 0, 60_000),
    },
    imap: {
      host: listenHost(env, 'MAILROOM_IMAP_HOST'),
      port: integer(env, 'MAILROOM_IMAP_PORT', 9993, 0, 65535),
      maxConnectionsPerInbox: integer(env, 'MAILROOM_IMAP_MAX_CONNECTIONS_PER_INBOX', 10, 1, 10_000),
      idleTimeoutMs: integer(env, 'MAILROOM_IMAP_IDLE_TIMEOUT_MS', 30 * 60_000, 100, 24 * 3_600_000),
      authFailureDelayMs: integer(env, 'MAILROOM_IMAP_AUTH_FAILURE_DELAY_MS', 1000, 0, 60_000),
      authFailuresPerAddress: integer(env, 'MAILROOM_IMAP_AUTH_FAILURES_PER_ADDRESS', 10, 1, 100_000),
      authFailuresPerIp: integer(env, 'MAILROOM_IMAP_AUTH_FAILURES_PER_IP', 50, 1, 100_000),
    },
    tls: tls(env),
    mailDomain,
    mxHost: domainName(env, 'MAILROOM_MX_HOST', mailDomain),
    dns: { servers: dnsServers(env), timeoutMs: integer(env, 'MAILROOM_DNS_TIMEOUT_MS', 2000, 50, 60_000) },
    domains: {
      recheckIntervalMs: integer(env, 'MAILROOM_DOMAIN_RECHECK_MS', 3_600_000, 1000, 7 * 86_400_000),
      claimDays: integer(env, 'MAILROOM_DOMAIN_CLAIM_DAYS', 7, 1, 365),
      dnsProviderApiUrl: httpUrl(env, 'MAILROOM_DNSPROVIDER_API_URL', 'https://api.cloudflare.com/client/v4'),
    },
    // One core stays with the main thread (SMTP, HTTP, database), which is the busier half of ingest.
    ingestWorkers: integer(env, 'MAILROOM_INGEST_WORKERS', defaultIngestWorkers(cpus().length), 0, 64),
    inboxes: { sweepIntervalMs: integer(env, 'MAILROOM_INBOX_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000) },
    publicUrl: httpUrl(env, 'MAILROOM_PUBLIC_URL', `${local.httpTls ? 'https' : 'http'}://${mailDomain}:${integer(env, 'MAILROOM_HTTP_PORT', 8443, 0, 65535)}`),
    webhooks: {
      timeoutMs: integer(env, 'MAILROOM_WEBHOOK_TIMEOUT_MS', 10_000, 10, 300_000),
      retryScheduleMs: retrySchedule(env),
      pollIntervalMs: integer(env, 'MAILROOM_WEBHOOK_POLL_INTERVAL_MS', 1000, 10, 600_000),
      concurrency: integer(env, 'MAILROOM_WEBHOOK_CONCURRENCY', 16, 1, 1000),
      concurrencyPerTenant: integer(env, 'MAILROOM_WEBHOOK_CONCURRENCY_PER_TENANT', 4, 1, 1000),
      connectTimeoutMs: integer(env, 'MAILROOM_WEBHOOK_CONNECT_TIMEOUT_MS', 3000, 10, 300_000),
      allowPrivate: flag(env, 'MAILROOM_ALLOW_PRIVATE_WEBHOOKS'),
      chatappApiUrl: httpUrl(env, 'MAILROOM_CHATAPP_API_URL', 'https://discord.com/api/v10'),
    },
    logLevel: logLevel(env),
    access: {
      trustProxy: flag(env, 'MAILROOM_TRUST_PROXY'),
      rateLimitMultiplier: integer(env, 'MAILROOM_RATE_LIMIT_MULTIPLIER', 1, 1, 1_000_000),
    },
    accounts: accounts(env),
    mail: mailSettings(env, mailDomain),
    storage: storageSettings(env, dataDir),
    operations: operationsSettings(env),
    limits: limitsSettings(env),
    local,
    extraction: extractionSettings(env),
    spam: spamSettings(env),
    checks: messageCheckSettings(env),
  };
  return Object.freeze(config);
}
