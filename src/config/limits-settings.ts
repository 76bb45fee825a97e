import { integer } from './config.js';
import type { RawEnv } from './env.js';

/** docs/security.md: what one client (or everyone together) may hold of connections, memory and rows. */
export interface LimitsSettings {
  smtp: {
    maxSessions: number;
    maxSessionsPerIp: number;
    /** Inactivity before a session is closed; any byte restarts it, which is why `lifetimeMs` exists. */
    idleTimeoutMs: number;
    /** Absolute length of one session, however active: nothing extends it. */
    lifetimeMs: number;
    /** Average DATA rate below which the sender gets 421, measured once `minDataRateWindowMs` has passed. */
    minDataBytesPerSecond: number;
    minDataRateWindowMs: number;
    maxRecipients: number;
    /** Bytes of message data all sessions together may hold in memory before DATA gets 451 4.3.1. */
    maxInFlightBytes: number;
    /** A message larger than this is written to a spool file as it arrives instead of held in memory. */
    spoolThresholdBytes: number;
  };
  maxAttachmentsPerMessage: number;
  imap: { maxSessions: number; maxSessionsPerIp: number };
  /** SSE streams one node holds per API key (or dashboard session) and per account; one more gets 429. */
  sseStreams: { perKey: number; perTenant: number };
  /** Open HTTP(S) connections; requests on newer ones get 503 with Connection: close. */
  httpMaxConnections: number;
  /** TLS handshakes not finished within this are dropped (HTTPS and IMAP). */
  tlsHandshakeTimeoutMs: number;
}

/** Descriptors the listeners of a node running `roles` may hold at their configured limits. */
export function connectionLimitTotal(limits: LimitsSettings, roles: ReadonlySet<string>): number {
  return (
    (roles.has('smtp') ? limits.smtp.maxSessions : 0) +
    (roles.has('imap') ? limits.imap.maxSessions : 0) +
    (roles.has('http') ? limits.httpMaxConnections : 0)
  );
}

export function limitsSettings(env: RawEnv): LimitsSettings {
  return {
    smtp: {
      maxSessions: integer(env, 'MAILROOM_SMTP_MAX_SESSIONS', 1000, 1, 1_000_000),
      maxSessionsPerIp: integer(env, 'MAILROOM_SMTP_MAX_SESSIONS_PER_IP', 100, 1, 1_000_000),
      idleTimeoutMs: integer(env, 'MAILROOM_SMTP_IDLE_TIMEOUT_MS', 60_000, 100, 3_600_000),
      lifetimeMs: integer(env, 'MAILROOM_SMTP_SESSION_LIFETIME_MS', 30 * 60_000, 100, 24 * 3_600_000),
      minDataBytesPerSecond: integer(env, 'MAILROOM_SMTP_MIN_DATA_RATE', 1024, 0, 1024 ** 3),
      minDataRateWindowMs: integer(env, 'MAILROOM_SMTP_MIN_DATA_RATE_WINDOW_MS', 30_000, 100, 3_600_000),
      maxRecipients: integer(env, 'MAILROOM_SMTP_MAX_RECIPIENTS', 100, 1, 100_000),
      maxInFlightBytes: integer(env, 'MAILROOM_SMTP_MAX_IN_FLIGHT_BYTES', 256 * 1024 * 1024, 1024, 64 * 1024 ** 3),
      spoolThresholdBytes: integer(env, 'MAILROOM_SMTP_SPOOL_THRESHOLD_BYTES', 1024 * 1024, 0, 64 * 1024 ** 3),
    },
    maxAttachmentsPerMessage: integer(env, 'MAILROOM_MAX_ATTACHMENTS_PER_MESSAGE', 1000, 1, 100_000),
    imap: {
      maxSessions: integer(env, 'MAILROOM_IMAP_MAX_SESSIONS', 1000, 1, 1_000_000),
      maxSessionsPerIp: integer(env, 'MAILROOM_IMAP_MAX_SESSIONS_PER_IP', 100, 1, 1_000_000),
    },
    sseStreams: {
      perKey: integer(env, 'MAILROOM_SSE_MAX_STREAMS_PER_KEY', 50, 1, 1_000_000),
      perTenant: integer(env, 'MAILROOM_SSE_MAX_STREAMS_PER_TENANT', 200, 1, 1_000_000),
    },
    httpMaxConnections: integer(env, 'MAILROOM_HTTP_MAX_CONNECTIONS', 2000, 1, 1_000_000),
    tlsHandshakeTimeoutMs: integer(env, 'MAILROOM_TLS_HANDSHAKE_TIMEOUT_MS', 10_000, 100, 600_000),
  };
}
