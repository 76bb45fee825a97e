import { ConfigError, integer } from './config.js';
import type { RawEnv } from './env.js';

/** What a node does (MAILROOM_ROLES): operators split listeners and background work across machines. */
export const ROLES = ['smtp', 'http', 'imap', 'worker'] as const;
export type Role = (typeof ROLES)[number];

/** docs/operations.md: roles, metrics, shutdown and retention. */
export interface OperationsSettings {
  roles: ReadonlySet<Role>;
  /** Bearer token for GET /metrics; undefined: the endpoint answers 404. */
  metricsToken: string | undefined;
  /** How long SIGTERM waits for SMTP transactions in DATA before the rest get 421 and are closed. */
  smtpDrainMs: number;
  /** Activity log entries older than this many days are deleted; 0 keeps them forever. */
  logRetentionDays: number;
  retentionSweepIntervalMs: number;
}

const MIN_TOKEN_LENGTH = 16;

function roles(env: RawEnv): ReadonlySet<Role> {
  const raw = env.MAILROOM_ROLES;
  if (raw === undefined) return new Set(ROLES);
  const names = raw.split(',').map((name) => name.trim()).filter(Boolean);
  const unknown = names.find((name) => !(ROLES as readonly string[]).includes(name));
  if (unknown !== undefined) throw new ConfigError('MAILROOM_ROLES', `"${unknown}" is not a role; expected a comma-separated list of ${ROLES.join(', ')}`);
  if (names.length === 0) throw new ConfigError('MAILROOM_ROLES', `name at least one of ${ROLES.join(', ')}`);
  return new Set(names as Role[]);
}

function metricsToken(env: RawEnv): string | undefined {
  const token = env.MAILROOM_METRICS_TOKEN;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) throw new ConfigError('MAILROOM_METRICS_TOKEN', `must be at least ${MIN_TOKEN_LENGTH} characters`);
  return token;
}

export function operationsSettings(env: RawEnv): OperationsSettings {
  return {
    roles: roles(env),
    metricsToken: metricsToken(env),
    smtpDrainMs: integer(env, 'MAILROOM_SHUTDOWN_SMTP_DRAIN_MS', 10_000, 0, 600_000),
    logRetentionDays: integer(env, 'MAILROOM_LOG_RETENTION_DAYS', 90, 0, 36_500),
    retentionSweepIntervalMs: integer(env, 'MAILROOM_RETENTION_SWEEP_INTERVAL_MS', 600_000, 100, 86_400_000),
  };
}
