import type { AppConfig } from './config/config.js';
import type { ListeningAddresses } from './app.js';
import type { LocalAccount } from './services/local-account.service.js';

/** A wildcard listen address is reached at localhost; a specific one at itself. */
const reachableHost = (host: string): string => (host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

/** What `serve` prints once it listens: one line per listener this node runs (MAILROOM_ROLES). */
export function serviceBanner(config: AppConfig, addresses: ListeningAddresses): string {
  const scheme = config.local.httpTls ? 'https' : 'http';
  const host = config.http.host === '0.0.0.0' ? 'localhost' : config.http.host;
  const lines = [
    addresses.http.port > 0 && `  Dashboard and API: ${scheme}://${host}:${addresses.http.port}/  (docs: /api/v1/docs)`,
    addresses.smtp.port > 0 && `  SMTP:              ${addresses.smtp.host}:${addresses.smtp.port}  (mail domain ${config.mailDomain}: inboxes are <prefix>@${config.mailDomain}; sign up in the dashboard for your first one)`,
    addresses.imap.port > 0 && `  IMAP (TLS):        ${addresses.imap.host}:${addresses.imap.port}`,
  ].filter(Boolean);
  return `Mailroom is running (${[...config.operations.roles].join(', ')}).\n${lines.join('\n')}`;
}

/**
 * What `mailroom local` prints: exactly what goes into an app's SMTP settings, where to look, and
 * the local account's API key with a curl line that lists the mail (docs/local.md).
 */
export function localBanner(config: AppConfig, addresses: ListeningAddresses, account: LocalAccount): string {
  const smtpHost = reachableHost(addresses.smtp.host);
  const dashboard = `${config.local.httpTls ? 'https' : 'http'}://${reachableHost(addresses.http.host)}:${addresses.http.port}`;
  const starttls = config.local.smtpStarttls === 'on' || (config.local.smtpStarttls === 'auto' && config.tls !== undefined);
  const cacert = config.local.httpTls && config.tls === undefined ? ` --cacert ${config.dataDir}/tls/self-signed.crt` : '';
  return [
    `Mailroom is catching mail (local mode; data in ${config.dataDir}).`,
    '',
    "Your app's SMTP settings:",
    `  host: ${smtpHost}`,
    `  port: ${addresses.smtp.port}`,
    `  security: ${starttls ? 'STARTTLS (optional)' : 'none (no SSL/TLS, no STARTTLS)'}`,
    `  user name and password: any, or none`,
    `  as a URL: smtp://${smtpHost}:${addresses.smtp.port}`,
    '',
    `Every message to any address is kept. Send a test: swaks --server ${smtpHost}:${addresses.smtp.port} --to someone@example.com`,
    '',
    `Dashboard (no login from this machine): ${dashboard}/`,
    `API key (local account, kept in the data dir): ${account.apiKey}`,
    `List mail: curl${cacert} -H 'x-api-key: ${account.apiKey}' ${dashboard}/api/v1/emails`,
    addresses.imap.port > 0 ? `IMAP (TLS): ${reachableHost(addresses.imap.host)}:${addresses.imap.port}` : '',
  ]
    .filter((line, index, all) => line !== '' || all[index - 1] !== '')
    .join('\n');
}
