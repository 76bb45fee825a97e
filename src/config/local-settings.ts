import { ConfigError, choice, flag } from './config.js';
import type { RawEnv } from './env.js';
import { isLoopback } from '../core/loopback.js';

export type SmtpAuthMode = 'off' | 'accept-any';
export type StarttlsMode = 'auto' | 'on' | 'off';
export type DashboardLogin = 'on' | 'off-on-loopback';

/**
 * docs/local.md: what makes Mailroom a developer's mail catcher. Each is a setting of `serve` too
 * (a shared staging catcher), and `mailroom local` is only a preset of them (LOCAL_PRESET).
 */
export interface LocalSettings {
  /** Mail to an address nobody serves goes to the local account instead of 550 5.1.1. */
  acceptAnyRecipient: boolean;
  smtpAuth: SmtpAuthMode;
  /** auto: offered only with a configured certificate (MAILROOM_TLS_CERT), never with the self-signed one. */
  smtpStarttls: StarttlsMode;
  /** false: the API and dashboard listen on plain HTTP. */
  httpTls: boolean;
  /** false: no rate limits and no monthly email quota for any account. */
  limits: boolean;
  /** off-on-loopback: the dashboard opens as the local account, without a login, for clients on this machine. */
  dashboardLogin: DashboardLogin;
}

export function localSettings(env: RawEnv): LocalSettings {
  const httpTls = choice(env, 'MAILROOM_HTTP_TLS', ['on', 'off'], 'on') === 'on';
  const dashboardLogin = choice<DashboardLogin>(env, 'MAILROOM_DASHBOARD_LOGIN', ['on', 'off-on-loopback'], 'on');
  // Behind a proxy every request arrives from the proxy's address, often loopback: everyone would be let in.
  if (dashboardLogin === 'off-on-loopback' && env.MAILROOM_TRUST_PROXY === '1') {
    throw new ConfigError('MAILROOM_DASHBOARD_LOGIN', 'off-on-loopback cannot be used with MAILROOM_TRUST_PROXY=1 (every proxied request would look local)');
  }
  return {
    acceptAnyRecipient: flag(env, 'MAILROOM_ACCEPT_ANY_RECIPIENT'),
    smtpAuth: choice<SmtpAuthMode>(env, 'MAILROOM_SMTP_AUTH', ['off', 'accept-any'], 'off'),
    smtpStarttls: choice<StarttlsMode>(env, 'MAILROOM_SMTP_STARTTLS', ['auto', 'on', 'off'], 'on'),
    httpTls,
    limits: choice(env, 'MAILROOM_LIMITS', ['plans', 'off'], 'plans') === 'plans',
    dashboardLogin,
  };
}

export const LOCAL_DEFAULTS = { httpPort: 8025, smtpPort: 1025 } as const;

/**
 * `mailroom local`: the defaults a developer knows from Mailpit, under whatever the user set
 * (MAILROOM_SMTP_PORT, MAILROOM_DATA_DIR, … override them). HTTPS only with a configured certificate.
 */
export function withLocalPreset(env: RawEnv): RawEnv {
  const httpPort = env.MAILROOM_HTTP_PORT ?? String(LOCAL_DEFAULTS.httpPort);
  const httpTls = env.MAILROOM_HTTP_TLS ?? (env.MAILROOM_TLS_CERT === undefined ? 'off' : 'on');
  const host = env.MAILROOM_HTTP_HOST ?? '127.0.0.1';
  const preset: RawEnv = {
    MAILROOM_HTTP_HOST: '127.0.0.1',
    MAILROOM_HTTP_PORT: httpPort,
    MAILROOM_SMTP_HOST: '127.0.0.1',
    MAILROOM_SMTP_PORT: String(LOCAL_DEFAULTS.smtpPort),
    MAILROOM_IMAP_HOST: '127.0.0.1',
    MAILROOM_ACCEPT_ANY_RECIPIENT: '1',
    MAILROOM_SMTP_AUTH: 'accept-any',
    MAILROOM_SMTP_STARTTLS: 'auto',
    MAILROOM_HTTP_TLS: httpTls,
    MAILROOM_LIMITS: 'off',
    MAILROOM_DASHBOARD_LOGIN: 'off-on-loopback',
    MAILROOM_SIGNUP: 'closed',
    // The banner is what a developer reads; per-message info lines would scroll it away.
    MAILROOM_LOG_LEVEL: 'warn',
    MAILROOM_PUBLIC_URL: `${httpTls === 'on' ? 'https' : 'http'}://${host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host}:${httpPort}`,
  };
  return Object.freeze({ ...preset, ...env });
}

/**
 * An open catcher without a login on a network is a leak: local mode on a non-loopback address
 * needs MAILROOM_DASHBOARD_LOGIN=on set by the user.
 */
export function assertLocalModeIsPrivate(settings: LocalSettings, httpHost: string): void {
  if (settings.dashboardLogin === 'on' || isLoopback(httpHost)) return;
  throw new ConfigError(
    'MAILROOM_HTTP_HOST',
    `local mode listens on ${httpHost}, which other machines can reach, and its dashboard has no login; set MAILROOM_DASHBOARD_LOGIN=on (and create a user with \`mailroom user create --tenant <local account id>\`) or listen on 127.0.0.1`,
  );
}
