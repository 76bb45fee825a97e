/**
 * The one place that reads process.env. Every setting Mailroom understands is listed here,
 * with its default and meaning; README's settings table and docs/config.md follow this list.
 */
export interface SettingDoc {
  name: string;
  default: string;
  description: string;
}

export const SETTINGS: readonly SettingDoc[] = [
  { name: 'MAILROOM_DATA_DIR', default: './data', description: 'Directory for the SQLite database, local blobs and the generated TLS certificate.' },
  { name: 'MAILROOM_DATABASE_URL', default: 'SQLite file in the data dir', description: 'postgres://… to use PostgreSQL; sqlite:///path/file.db or a file path for SQLite.' },
  { name: 'MAILROOM_REDIS_URL', default: '(none)', description: 'redis://… enables multi-node realtime fan-out, presence and shared rate limits.' },
  { name: 'MAILROOM_HTTP_HOST', default: '0.0.0.0', description: 'Address the HTTPS API and dashboard listen on.' },
  { name: 'MAILROOM_HTTP_PORT', default: '8443', description: 'HTTPS port.' },
  { name: 'MAILROOM_SMTP_HOST', default: '0.0.0.0', description: 'Address the SMTP listener binds.' },
  { name: 'MAILROOM_SMTP_PORT', default: '2525', description: 'SMTP port (STARTTLS offered with the service certificate).' },
  { name: 'MAILROOM_SMTP_MAX_MESSAGE_BYTES', default: '26214400', description: 'Largest message accepted (25 MB); larger ones get 552 5.3.4.' },
  { name: 'MAILROOM_SMTP_GREETING_DELAY_MS', default: '0', description: 'Pause before the SMTP greeting (smtp-server hard-codes 100 ms; 0 removes it).' },
  { name: 'MAILROOM_IMAP_PORT', default: '9993', description: 'IMAP port (implicit TLS).' },
  { name: 'MAILROOM_TLS_CERT', default: '(generated)', description: 'PEM certificate path; without it a self-signed certificate is made once in the data dir.' },
  { name: 'MAILROOM_TLS_KEY', default: '(generated)', description: 'PEM private key path, required together with MAILROOM_TLS_CERT.' },
  { name: 'MAILROOM_MAIL_DOMAIN', default: 'mailroom.localhost', description: 'Shared domain on which inbox addresses are created.' },
  { name: 'MAILROOM_MX_HOST', default: 'the mail domain', description: 'Host customers point their MX records at.' },
  { name: 'MAILROOM_DNS_SERVERS', default: '(system resolvers)', description: 'Comma-separated host:port list used for SPF/DKIM/DMARC and domain lookups.' },
  { name: 'MAILROOM_DNS_TIMEOUT_MS', default: '2000', description: 'Per-lookup DNS timeout; a lookup that times out yields temperror instead of stalling a session.' },
  { name: 'MAILROOM_INGEST_WORKERS', default: 'number of CPUs', description: 'Worker threads that parse and authenticate mail (0 parses on the main thread).' },
  { name: 'MAILROOM_LOG_LEVEL', default: 'info', description: 'Log level: fatal, error, warn, info, debug, trace or silent.' },
] as const;

export type RawEnv = Readonly<Record<string, string | undefined>>;

/** Returns only the MAILROOM_* variables, so nothing downstream touches process.env. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): RawEnv {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key.startsWith('MAILROOM_') && value !== undefined && value !== '') env[key] = value;
  }
  return Object.freeze(env);
}
