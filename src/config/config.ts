import { cpus } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import type { RawEnv } from './env.js';

export type DatabaseConfig =
  | { dialect: 'sqlite'; path: string }
  | { dialect: 'postgres'; url: string };

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface AppConfig {
  dataDir: string;
  db: DatabaseConfig;
  redisUrl: string | undefined;
  http: { host: string; port: number };
  smtp: { host: string; port: number; maxMessageBytes: number; greetingDelayMs: number };
  imap: { port: number };
  tls: { certPath: string; keyPath: string } | undefined;
  mailDomain: string;
  mxHost: string;
  dns: { servers: string[]; timeoutMs: number };
  ingestWorkers: number;
  logLevel: LogLevel;
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

function integer(env: RawEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function database(env: RawEnv, dataDir: string): DatabaseConfig {
  const url = env.MAILROOM_DATABASE_URL;
  if (url === undefined) return { dialect: 'sqlite', path: resolve(dataDir, 'mailroom.db') };
  if (/^postgres(ql)?:\/\//.test(url)) return { dialect: 'postgres', url };
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

function logLevel(env: RawEnv): LogLevel {
  const raw = (env.MAILROOM_LOG_LEVEL ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError('MAILROOM_LOG_LEVEL', `expected one of ${LOG_LEVELS.join(', ')}`);
  return raw;
}

/** Reads every setting once, applies defaults and rejects bad values with a ConfigError. */
export function loadConfig(env: RawEnv): AppConfig {
  const dataDir = resolve(env.MAILROOM_DATA_DIR ?? './data');
  const mailDomain = domainName(env, 'MAILROOM_MAIL_DOMAIN', 'mailroom.localhost');
  const redisUrl = env.MAILROOM_REDIS_URL;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('MAILROOM_REDIS_URL', 'expected redis://… or rediss://…');
  }
  const config: AppConfig = {
    dataDir,
    db: database(env, dataDir),
    redisUrl,
    http: { host: env.MAILROOM_HTTP_HOST ?? '0.0.0.0', port: integer(env, 'MAILROOM_HTTP_PORT', 8443, 0, 65535) },
    smtp: {
      host: env.MAILROOM_SMTP_HOST ?? '0.0.0.0',
      port: integer(env, 'MAILROOM_SMTP_PORT', 2525, 0, 65535),
      maxMessageBytes: integer(env, 'MAILROOM_SMTP_MAX_MESSAGE_BYTES', 25 * 1024 * 1024, 1024, 1024 ** 3),
      greetingDelayMs: integer(env, 'MAILROOM_SMTP_GREETING_DELAY_MS', 0, 0, 60_000),
    },
    imap: { port: integer(env, 'MAILROOM_IMAP_PORT', 9993, 0, 65535) },
    tls: tls(env),
    mailDomain,
    mxHost: domainName(env, 'MAILROOM_MX_HOST', mailDomain),
    dns: { servers: dnsServers(env), timeoutMs: integer(env, 'MAILROOM_DNS_TIMEOUT_MS', 2000, 50, 60_000) },
    ingestWorkers: integer(env, 'MAILROOM_INGEST_WORKERS', Math.min(cpus().length, 4), 0, 64),
    logLevel: logLevel(env),
  };
  return Object.freeze(config);
}
