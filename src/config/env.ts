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
  { name: 'MAILROOM_REDIS_PREFIX', default: 'mailroom:', description: 'Prefix of every Redis key and channel, so several deployments (or test runs) can share one Redis.' },
  { name: 'MAILROOM_SSE_HEARTBEAT_MS', default: '30000', description: 'Interval of the SSE heartbeat event (spec: 30 s). Distributed-mode presence is refreshed three times per interval, so a dead node leaves its groups within one interval.' },
  { name: 'MAILROOM_SSE_MAX_BUFFER_BYTES', default: '1048576', description: 'Unsent bytes an SSE client may fall behind by before it is disconnected with a slow_consumer event.' },
  { name: 'MAILROOM_HTTP_HOST', default: '0.0.0.0 (local: 127.0.0.1)', description: 'Address the API and dashboard listen on.' },
  { name: 'MAILROOM_HTTP_PORT', default: '8443 (local: 8025)', description: 'Port of the API and dashboard (HTTPS unless MAILROOM_HTTP_TLS=off).' },
  { name: 'MAILROOM_SMTP_HOST', default: '0.0.0.0 (local: 127.0.0.1)', description: 'Address the SMTP listener binds.' },
  { name: 'MAILROOM_SMTP_PORT', default: '2525 (local: 1025)', description: 'SMTP port (STARTTLS: MAILROOM_SMTP_STARTTLS).' },
  { name: 'MAILROOM_SMTP_MAX_MESSAGE_BYTES', default: '26214400', description: 'Largest message accepted (25 MB); larger ones get 552 5.3.4.' },
  { name: 'MAILROOM_SMTP_GREETING_DELAY_MS', default: '0', description: 'Pause before the SMTP greeting (smtp-server hard-codes 100 ms; 0 removes it).' },
  { name: 'MAILROOM_IMAP_PORT', default: '9993', description: 'IMAP port (implicit TLS).' },
  { name: 'MAILROOM_IMAP_HOST', default: '0.0.0.0 (local: 127.0.0.1)', description: 'Address the IMAP listener binds.' },
  { name: 'MAILROOM_IMAP_MAX_CONNECTIONS_PER_INBOX', default: '10', description: 'Simultaneous IMAP logins per inbox on one node; one more is refused with NO [LIMIT].' },
  { name: 'MAILROOM_IMAP_IDLE_TIMEOUT_MS', default: '1800000', description: 'Inactivity after which an IMAP client is logged out (RFC 3501 asks for at least 30 minutes).' },
  { name: 'MAILROOM_IMAP_AUTH_FAILURE_DELAY_MS', default: '1000', description: 'Pause before every failed IMAP login is answered.' },
  { name: 'MAILROOM_IMAP_AUTH_FAILURES_PER_ADDRESS', default: '10', description: 'Failed IMAP logins per (inbox address, client IP) in 15 minutes before further logins for that address from that IP are refused.' },
  { name: 'MAILROOM_IMAP_AUTH_FAILURES_PER_IP', default: '50', description: 'Failed IMAP logins per client IP in 15 minutes before further logins from it are refused.' },
  { name: 'MAILROOM_TLS_CERT', default: '(generated)', description: 'PEM certificate path; without it a self-signed certificate is made once in the data dir.' },
  { name: 'MAILROOM_TLS_KEY', default: '(generated)', description: 'PEM private key path, required together with MAILROOM_TLS_CERT.' },
  { name: 'MAILROOM_MAIL_DOMAIN', default: 'mailroom.localhost', description: 'Shared domain on which inbox addresses are created.' },
  { name: 'MAILROOM_MX_HOST', default: 'the mail domain', description: 'Host customers point their MX records at.' },
  { name: 'MAILROOM_DNS_SERVERS', default: '(system resolvers)', description: 'Comma-separated host:port list used for SPF/DKIM/DMARC and domain lookups.' },
  { name: 'MAILROOM_DNS_TIMEOUT_MS', default: '2000', description: 'Per-lookup DNS timeout; a lookup that times out yields temperror instead of stalling a session.' },
  { name: 'MAILROOM_DOMAIN_RECHECK_MS', default: '3600000', description: 'How often the DNS records of custom domains are checked again (one node at a time); broken records are flagged, never un-verified.' },
  { name: 'MAILROOM_DOMAIN_CLAIM_DAYS', default: '7', description: "Days after which an account's unverified custom-domain claim lapses, so another account can add the name (one that publishes its own TXT record takes it over at once)." },
  { name: 'MAILROOM_DNSPROVIDER_API_URL', default: 'https://api.cloudflare.com/client/v4', description: 'Base URL of the DNS provider API (Cloudflare v4 shape) used by POST /domains/:domain/setup-dnsprovider.' },
  { name: 'MAILROOM_INGEST_WORKERS', default: 'CPUs - 1 (1 to 4)', description: 'Worker threads that parse, authenticate and scan incoming mail, leaving the main thread to SMTP, HTTP and the database (0 does it all on the main thread).' },
  { name: 'MAILROOM_INBOX_SWEEP_INTERVAL_MS', default: '30000', description: 'How often expired temporary inboxes (ttlSeconds) are deleted with their messages; one node at a time does it.' },
  { name: 'MAILROOM_PUBLIC_URL', default: 'https://<mail domain>:<http port>', description: 'Base URL users reach the dashboard at; chat-app notifications link to emails under it.' },
  { name: 'MAILROOM_WEBHOOK_TIMEOUT_MS', default: '10000', description: 'Total time one webhook or chat-app request may take (connect, response, body) before it counts as failed and is retried.' },
  { name: 'MAILROOM_WEBHOOK_RETRY_SCHEDULE', default: '5000,30000,120000,600000,1800000', description: 'Comma-separated delays in ms before each retry of a failed delivery; after the last one the delivery is FAILED.' },
  { name: 'MAILROOM_WEBHOOK_POLL_INTERVAL_MS', default: '1000', description: 'How often each node looks for due deliveries (retries, other nodes\' leftovers); new emails wake the worker at once.' },
  { name: 'MAILROOM_WEBHOOK_CONCURRENCY', default: '16', description: 'Deliveries one node sends at the same time.' },
  { name: 'MAILROOM_WEBHOOK_CONCURRENCY_PER_TENANT', default: '4', description: 'Deliveries of one account in flight at the same time over all nodes; due deliveries are claimed round-robin across accounts, so one account\'s dead endpoints cannot hold every slot (docs/security.md).' },
  { name: 'MAILROOM_WEBHOOK_CONNECT_TIMEOUT_MS', default: '3000', description: 'Time one webhook or chat-app request may take to resolve and connect before it counts as failed (within MAILROOM_WEBHOOK_TIMEOUT_MS).' },
  { name: 'MAILROOM_ALLOW_PRIVATE_WEBHOOKS', default: '0', description: '1 allows webhook and chat-app URLs on loopback, private and link-local addresses (tests, on-premise installs).' },
  { name: 'MAILROOM_CHATAPP_API_URL', default: 'https://discord.com/api/v10', description: 'Base URL of the chat app\'s bot API (chat-app bot integrations post to <base>/channels/<channelId>/messages).' },
  { name: 'MAILROOM_TRUST_PROXY', default: '0', description: '1: a TLS-terminating proxy sits in front; the API listens on plain HTTP, trusts X-Forwarded-* and refuses requests not forwarded as https (403).' },
  { name: 'MAILROOM_RATE_LIMIT_MULTIPLIER', default: '1', description: 'Multiplies every plan\'s requests-per-minute limit (benchmarks, load tests); per-tenant overrides: `mailroom tenant set-limits`.' },
  { name: 'MAILROOM_SIGNUP', default: 'open', description: 'open: anyone can create an account in the dashboard; closed: only operators can (`mailroom user create`).' },
  { name: 'MAILROOM_JWT_SECRET', default: '(generated)', description: 'Secret (at least 32 characters) that signs dashboard session tokens; without it one is generated once into the data dir. Set the same value on every node.' },
  { name: 'MAILROOM_BLOB_URL', default: 'file://<data dir>/blobs', description: 'The service\'s blob store for raw EML and attachments: file:///path, s3://bucket/prefix, azure://container/prefix or gs://bucket/prefix. Nodes behind one load balancer must share a non-file store (docs/storage.md).' },
  { name: 'MAILROOM_S3_ENDPOINT', default: '(AWS)', description: 'Endpoint URL of an S3-compatible service (MinIO, Ceph, R2, …) for an s3:// MAILROOM_BLOB_URL.' },
  { name: 'MAILROOM_S3_REGION', default: 'us-east-1', description: 'Region of the s3:// service store.' },
  { name: 'MAILROOM_S3_FORCE_PATH_STYLE', default: '0', description: '1: path-style S3 URLs (endpoint/bucket/key), which most S3-compatible services need.' },
  { name: 'MAILROOM_S3_ACCESS_KEY_ID', default: '(SDK default chain)', description: 'Access key id for the s3:// service store; set together with MAILROOM_S3_SECRET_ACCESS_KEY.' },
  { name: 'MAILROOM_S3_SECRET_ACCESS_KEY', default: '(SDK default chain)', description: 'Secret access key for the s3:// service store.' },
  { name: 'MAILROOM_AZURE_CONNECTION_STRING', default: '(none)', description: 'Connection string of the storage account, required for an azure:// MAILROOM_BLOB_URL.' },
  { name: 'MAILROOM_GCS_API_ENDPOINT', default: '(storage.googleapis.com)', description: 'JSON API endpoint for a gs:// MAILROOM_BLOB_URL (credentials: Application Default Credentials).' },
  { name: 'MAILROOM_STORAGE_ENCRYPTION_KEY', default: '(generated)', description: '32 bytes (64 hex digits or base64) that encrypt tenants\' storage credentials, webhook secrets and chat-app bot tokens (AES-256-GCM); without it one is generated once into the data dir. Set the same value on every node.' },
  { name: 'MAILROOM_STORAGE_ALLOW_PRIVATE_ENDPOINTS', default: '0', description: '1 allows custom-storage endpoints on loopback, private and link-local addresses (tests, on-premise object stores).' },
  { name: 'MAILROOM_BLOB_SWEEP_INTERVAL_MS', default: '3600000', description: 'How often the service blob store is swept for blobs whose email row is gone (one node at a time).' },
  { name: 'MAILROOM_BLOB_ORPHAN_GRACE_MS', default: '3600000', description: 'Age a blob without an email row must reach before the sweep deletes it (ingest writes the blob before its row).' },
  { name: 'MAILROOM_ROLES', default: 'smtp,http,imap,worker', description: 'What this node runs: smtp, http and imap listeners, worker (webhook deliveries and sweepers). Split them across nodes that share the database, Redis and blob store (docs/operations.md).' },
  { name: 'MAILROOM_METRICS_TOKEN', default: '(none: /metrics is 404)', description: 'Bearer token (at least 16 characters) that GET /metrics requires; Prometheus metrics are off without it.' },
  { name: 'MAILROOM_SHUTDOWN_SMTP_DRAIN_MS', default: '10000', description: 'On SIGTERM, how long SMTP transactions in DATA may take to finish; sessions still open then get 421 and are closed.' },
  { name: 'MAILROOM_LOG_RETENTION_DAYS', default: '90', description: 'Activity log entries older than this are deleted by the retention sweeper; 0 keeps them forever.' },
  { name: 'MAILROOM_RETENTION_SWEEP_INTERVAL_MS', default: '600000', description: 'How often emails past their tenant\'s retention period and old activity logs are deleted (one node at a time).' },
  { name: 'MAILROOM_SMTP_MAX_SESSIONS', default: '1000', description: 'Simultaneous SMTP sessions on one node; one more gets 421 4.7.0 and is closed (docs/security.md).' },
  { name: 'MAILROOM_SMTP_MAX_SESSIONS_PER_IP', default: '100', description: 'Simultaneous SMTP sessions from one client IP; one more gets 421 4.7.0.' },
  { name: 'MAILROOM_SMTP_IDLE_TIMEOUT_MS', default: '60000', description: 'Inactivity after which an SMTP session is closed (421).' },
  { name: 'MAILROOM_SMTP_SESSION_LIFETIME_MS', default: '1800000', description: 'Absolute length of an SMTP session, however active; then 421 4.4.2 and close.' },
  { name: 'MAILROOM_SMTP_MIN_DATA_RATE', default: '1024', description: 'Average bytes per second a sender must keep up during DATA (checked after the window below); slower senders get 421 4.4.2. 0 turns the check off.' },
  { name: 'MAILROOM_SMTP_MIN_DATA_RATE_WINDOW_MS', default: '30000', description: 'Time into DATA after which the average rate is checked (each second from then on).' },
  { name: 'MAILROOM_SMTP_MAX_RECIPIENTS', default: '100', description: 'Distinct RCPT TO addresses per message; one more gets 452 4.5.3 (repeated addresses count once).' },
  { name: 'MAILROOM_SMTP_MAX_IN_FLIGHT_BYTES', default: '268435456', description: 'Message bytes all SMTP sessions of a node may hold in memory together (256 MB), spooled messages while they are analysed and stored; parsing and storing add copies, so RSS grows by up to about four times this. Past it DATA gets 451 4.3.1 until memory frees (a spooled message waits up to 2 minutes first).' },
  { name: 'MAILROOM_SMTP_SPOOL_THRESHOLD_BYTES', default: '1048576', description: 'A message larger than this (1 MiB) is written to a spool file in the data dir as it arrives instead of held in memory, and stored from that file; 0 spools every message.' },
  { name: 'MAILROOM_MAX_ATTACHMENTS_PER_MESSAGE', default: '1000', description: 'Attachments one message may carry; more gets 552 5.3.4 and nothing is stored.' },
  { name: 'MAILROOM_IMAP_MAX_SESSIONS', default: '1000', description: 'Simultaneous IMAP connections on one node; one more gets * BYE and is closed.' },
  { name: 'MAILROOM_IMAP_MAX_SESSIONS_PER_IP', default: '100', description: 'Simultaneous IMAP connections from one client IP; one more gets * BYE.' },
  { name: 'MAILROOM_SSE_MAX_STREAMS_PER_KEY', default: '50', description: 'Open SSE streams per API key (or dashboard session) on one node; one more gets 429 TOO_MANY_STREAMS.' },
  { name: 'MAILROOM_SSE_MAX_STREAMS_PER_TENANT', default: '200', description: 'Open SSE streams per account on one node; one more gets 429 TOO_MANY_STREAMS.' },
  { name: 'MAILROOM_HTTP_MAX_CONNECTIONS', default: '2000', description: 'Open HTTP(S) connections on one node; requests on connections past it get 503 TOO_MANY_CONNECTIONS and the connection is closed (at twice the number new connections are not accepted).' },
  { name: 'MAILROOM_TLS_HANDSHAKE_TIMEOUT_MS', default: '10000', description: 'A TLS handshake (HTTPS, IMAP) not finished within this is dropped.' },
  { name: 'MAILROOM_ACCEPT_ANY_RECIPIENT', default: '0 (local: 1)', description: '1: mail to an address no inbox or verified domain serves is accepted and stored in the local account instead of refused with 550 5.1.1 (docs/local.md).' },
  { name: 'MAILROOM_SMTP_AUTH', default: 'off (local: accept-any)', description: 'off: AUTH is not offered (a client that insists gets 535); accept-any: AUTH PLAIN, LOGIN and CRAM-MD5 are offered and any user and password succeed; the user name is recorded in the Received header.' },
  { name: 'MAILROOM_SMTP_STARTTLS', default: 'on (local: auto)', description: 'on: STARTTLS is offered (with the self-signed certificate when none is configured); auto: only with MAILROOM_TLS_CERT; off: never.' },
  { name: 'MAILROOM_HTTP_TLS', default: 'on (local: off without a certificate)', description: 'off: the API and dashboard listen on plain HTTP (no HSTS); on: HTTPS with MAILROOM_TLS_CERT or the self-signed certificate.' },
  { name: 'MAILROOM_LIMITS', default: 'plans (local: off)', description: 'plans: plan rate limits and monthly email quotas apply; off: no rate limit and no quota for any account.' },
  { name: 'MAILROOM_DASHBOARD_LOGIN', default: 'on (local: off-on-loopback)', description: 'off-on-loopback: a browser on this machine opens the dashboard as the local account without a login (others still sign in). Not with MAILROOM_TRUST_PROXY=1.' },
  { name: 'MAILROOM_EXTRACTION_MAX_CHARS', default: '524288', description: 'Characters of the text body and of the HTML body, each, that code and link extraction reads; the rest of a longer body is not scanned.' },
  { name: 'MAILROOM_EXTRACTION_BUDGET_MS', default: '500', description: 'Time extraction may spend on one message; past it the mail is stored with `extracted: null` and `extractionSkipped: "time-budget"`.' },
  { name: 'MAILROOM_LOG_LEVEL', default: 'info', description: 'Log level: fatal, error, warn, info, debug, trace or silent.' },
  { name: 'MAILROOM_API_URL', default: 'https://localhost:8443', description: '`mailroom mcp` only: base address of the Mailroom API its tools call (a trailing /api/v1 is accepted). Trust a self-signed certificate with NODE_EXTRA_CA_CERTS.' },
  { name: 'MAILROOM_API_KEY', default: '(required by `mailroom mcp`)', description: '`mailroom mcp` only: the API key its tools use; an inbox-scoped key limits the agent to that inbox.' },
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
