import type { Generated } from 'kysely';

/**
 * Table shapes, snake_case as stored. Portable column types on both dialects:
 * ids are UUID text, booleans are 0/1 integers (better-sqlite3 cannot bind booleans),
 * timestamps are ISO 8601 UTC text of fixed width (so they sort and compare as text),
 * lists and objects are JSON text. docs/decisions.md explains why.
 */
export interface TenantsTable {
  id: string;
  name: string;
  plan: string;
  default_domain: string | null;
  created_at: string;
  /** Operator overrides of the plan's limits (migration 0007); null keeps the plan's value. */
  requests_per_minute_override?: number | null;
  monthly_emails_override?: number | null;
  /** Operator override of the plan's email retention in days (migration 0013); null keeps the plan's. */
  retention_days_override?: number | null;
}

export interface EnvironmentsTable {
  id: string;
  tenant_id: string;
  name: string;
  slug: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  active: number;
  environment_id: string | null;
  inbox_id: string | null;
  scopes: string;
  last_used_at: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface DomainsTable {
  id: string;
  tenant_id: string;
  domain: string;
  unicode_domain: string;
  verified: number;
  enabled: number;
  verification_code: string;
  records_json: string;
  last_checked_at: string | null;
  created_at: string;
}

export interface InboxesTable {
  id: string;
  tenant_id: string;
  environment_id: string;
  domain_id: string | null;
  domain: string;
  address_prefix: string;
  address: string;
  /** Display name (migration 0021); null when none was given. */
  name: string | null;
  tags: string;
  /** JSON array of the inbox's alias addresses (inbox_aliases holds the same, one row each). */
  aliases: string;
  expires_at: string | null;
  active: number;
  created_at: string;
}

export interface InboxAliasesTable {
  address: string;
  inbox_id: string;
  tenant_id: string;
}

export interface EmailsTable {
  id: string;
  tenant_id: string;
  environment_id: string;
  base_email_id: string;
  message_id: string | null;
  from_address: string;
  to_json: string;
  cc_json: string;
  bcc_json: string;
  /** Lower-cased "to, cc, bcc" addresses for the `to` filter without JSON functions. */
  recipients_search: string;
  subject: string;
  date: string;
  read: number;
  has_attachments: number;
  snippet: string;
  text_body: string | null;
  html_body: string | null;
  headers_json: string;
  spf_result: string;
  dkim_result: string;
  dmarc_result: string;
  auth_summary: string;
  auth_diagnostics_json: string;
  size: number;
  eml_key: string;
  remote_address: string | null;
  /** PostgreSQL only: tsvector text of the searchable fields (core/search-vector.ts, migrations 0020 and 0027). */
  search_vector?: string;
  /** The SMTP envelope (migration 0020); null for mail stored before it. */
  mail_from?: string | null;
  helo?: string | null;
  /** The spam filter's verdict (migration 0022, docs/spam.md); is_spam is 0/1, null unless spam_check is 'done'. */
  spam_check: string;
  spam_score: number | null;
  spam_threshold: number | null;
  is_spam: number | null;
  spam_action: string | null;
  spam_rules_json: string;
  /** When the recheck worker next asks the filter (null: nothing to do) and how often it has tried. */
  spam_recheck_at: string | null;
  spam_recheck_attempts: number;
  created_at: string;
  updated_at: string;
}

export interface AttachmentsTable {
  id: string;
  email_id: string;
  tenant_id: string;
  position: number;
  filename: string;
  content_type: string;
  size: number;
  content_id: string | null;
  disposition: string;
  blob_key: string;
}

export interface InboxMessagesTable {
  /** Global ascending sequence, used as the IMAP UID. */
  uid: Generated<number>;
  id: string;
  inbox_id: string;
  email_id: string;
  tenant_id: string;
  extracted_json: string;
  created_at: string;
}

export interface ActivityLogsTable {
  id: string;
  tenant_id: string;
  environment_id: string | null;
  /** The email's id; kept after the email is deleted (spec 2.10: logs stay, unlinked). */
  email_id: string | null;
  type: string;
  status: string;
  message: string;
  metadata_json: string;
  created_at: string;
  seq: Generated<number>;
  /** The webhook or chat-app integration a delivery entry is about (migration 0003); null otherwise. */
  target_id?: string | null;
}

/** Time-limited named locks, so periodic work runs on one node at a time (workers/periodic-task.ts). */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

/** Webhooks and their delivery tables: migration 0003, docs/webhooks.md. */
export interface WebhooksTable {
  id: string;
  tenant_id: string;
  url: string;
  events_json: string;
  description: string;
  active: number;
  /** Kept recoverable (deliveries sign with it); docs/decisions.md explains the at-rest choice. */
  secret: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookInboxesTable {
  webhook_id: string;
  inbox_id: string;
  tenant_id: string;
  created_at: string;
}

export interface ChatappIntegrationsTable {
  id: string;
  tenant_id: string;
  kind: string;
  name: string;
  url: string | null;
  bot_token: string | null;
  channel_id: string | null;
  guild_id: string | null;
  inbox_ids_json: string;
  active: number;
  created_at: string;
  updated_at: string;
}

/** The notification outbox and queue: one row per (email, target) until it succeeds or fails for good. */
export interface NotificationDeliveriesTable {
  id: string;
  /** Sent as X-Webhook-Delivery-Id; a resend reuses it so receivers can de-duplicate. */
  delivery_id: string;
  tenant_id: string;
  environment_id: string | null;
  email_id: string;
  target_kind: string;
  target_id: string;
  attempts_made: number;
  /** null: as many as the retry schedule allows; a resend is a single attempt. */
  max_attempts: number | null;
  available_at: string;
  claimed_by: string | null;
  created_at: string;
}

/** Emails received per tenant per UTC month (migration 0007, docs/access.md). */
export interface UsageCountersTable {
  tenant_id: string;
  /** YYYY-MM */
  month: string;
  emails: number;
  updated_at: string;
}

/** Dashboard users (migration 0011, docs/dashboard.md). email is stored lower-cased. */
export interface UsersTable {
  id: string;
  tenant_id: string;
  email: string;
  password_hash: string;
  created_at: string;
  last_sign_in_at: string | null;
}

/** Refresh sessions of dashboard users: the SHA-256 of the refresh cookie's token (migration 0011). */
export interface UserSessionsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

/** Single-use emailed links of dashboard accounts (migration 0023): only the SHA-256 of each token. */
export interface AccountTokensTable {
  id: string;
  purpose: string;
  token_hash: string;
  email: string;
  user_id: string | null;
  password_hash: string | null;
  created_at: string;
  expires_at: string;
}

/** Tenants' own buckets (migration 0012); credentials only as AES-256-GCM ciphertext. */
export interface StorageConfigsTable {
  id: string;
  tenant_id: string;
  provider: string;
  bucket: string;
  region: string | null;
  endpoint: string | null;
  force_path_style: number;
  prefix: string;
  metadata_only: number;
  credentials_sealed: string;
  created_at: string;
  /** Set when a newer configuration or DELETE /storage replaced it; mail written under it stays readable. */
  retired_at: string | null;
}

export interface Database {
  tenants: TenantsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  domains: DomainsTable;
  inboxes: InboxesTable;
  inbox_aliases: InboxAliasesTable;
  emails: EmailsTable;
  attachments: AttachmentsTable;
  inbox_messages: InboxMessagesTable;
  activity_logs: ActivityLogsTable;
  leases: LeasesTable;
  webhooks: WebhooksTable;
  webhook_inboxes: WebhookInboxesTable;
  chatapp_integrations: ChatappIntegrationsTable;
  notification_deliveries: NotificationDeliveriesTable;
  usage_counters: UsageCountersTable;
  users: UsersTable;
  user_sessions: UserSessionsTable;
  storage_configs: StorageConfigsTable;
  account_tokens: AccountTokensTable;
}
