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
  tags: string;
  expires_at: string | null;
  active: number;
  created_at: string;
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
}

/** Time-limited named locks, so periodic work runs on one node at a time (workers/periodic-task.ts). */
export interface LeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

export interface Database {
  tenants: TenantsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  domains: DomainsTable;
  inboxes: InboxesTable;
  emails: EmailsTable;
  attachments: AttachmentsTable;
  inbox_messages: InboxMessagesTable;
  activity_logs: ActivityLogsTable;
  leases: LeasesTable;
}
