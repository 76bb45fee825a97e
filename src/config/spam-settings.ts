import { ConfigError, integer } from './config.js';
import type { RawEnv } from './env.js';

/** docs/spam.md: the spam filter Mailroom asks before the 250, and how long it waits. */
export interface SpamSettings {
  /** Base URL of rspamd's normal worker (http://host:11333), or undefined when the check is off. */
  url: string | undefined;
  timeoutMs: number;
  /** How often mail the filter could not check in time is looked at again (one node at a time). */
  recheckIntervalMs: number;
}

const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:.]+\]:\d{1,5}$/;

function spamCheckUrl(env: RawEnv): string | undefined {
  const raw = env.MAILROOM_SPAM_CHECK;
  if (raw === undefined || raw === 'off') return undefined;
  const url = HOST_PORT.test(raw) ? `http://${raw}` : raw;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('MAILROOM_SPAM_CHECK', `expected off, host:port or an http:// URL, got "${raw}"`);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '' || parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError('MAILROOM_SPAM_CHECK', `expected off, host:port or an http:// URL, got "${raw}"`);
  }
  return parsed.href;
}

export function spamSettings(env: RawEnv): SpamSettings {
  return {
    url: spamCheckUrl(env),
    timeoutMs: integer(env, 'MAILROOM_SPAM_CHECK_TIMEOUT_MS', 1500, 10, 60_000),
    recheckIntervalMs: integer(env, 'MAILROOM_SPAM_RECHECK_INTERVAL_MS', 60_000, 100, 3_600_000),
  };
}
