import { ConfigError } from './config.js';
import type { RawEnv } from './env.js';

/** docs/dashboard.md (Email from Mailroom): the relay that carries sign-up verification and password-reset mail. */
export interface MailSettings {
  /** smtp://user:pass@host:port or smtps://…; undefined: Mailroom sends no mail (sign-up is not verified, no reset by email). */
  relayUrl: string | undefined;
  /** The From of those mails. */
  from: string;
}

/** `Name <addr@host>` or a bare address: what a From header takes; no CR/LF (no header injection). */
const MAILBOX = /^([^\r\n<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

function relayUrl(env: RawEnv): string | undefined {
  const raw = env.MAILROOM_SMTP_RELAY_URL;
  if (raw === undefined) return undefined;
  const problem = new ConfigError('MAILROOM_SMTP_RELAY_URL', 'expected smtp://[user:pass@]host[:port] or smtps://… (no path or query)');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw problem;
  }
  const plain = (url.pathname === '' || url.pathname === '/') && url.search === '' && url.hash === '';
  if (!['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '' || !plain) throw problem;
  return raw;
}

export function mailSettings(env: RawEnv, mailDomain: string): MailSettings {
  const from = env.MAILROOM_MAIL_FROM ?? `Mailroom <no-reply@${mailDomain}>`;
  if (!MAILBOX.test(from.trim())) throw new ConfigError('MAILROOM_MAIL_FROM', `expected an address such as "Mailroom <no-reply@example.com>", got "${from}"`);
  return { relayUrl: relayUrl(env), from: from.trim() };
}
