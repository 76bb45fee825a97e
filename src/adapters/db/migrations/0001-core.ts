import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/** Tenants, keys, inboxes, emails, attachments and the activity log: the spine of spec 2. */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const serial = dialect === 'postgres' ? 'bigserial' : 'integer';
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('default_domain', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('environments_tenant_slug', ['tenant_id', 'slug'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('environment_id', 'text')
    .addColumn('inbox_id', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_keys_tenant').on('api_keys').columns(['tenant_id', 'created_at']).execute();

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull().unique())
    .addColumn('unicode_domain', 'text', (c) => c.notNull())
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('verification_code', 'text', (c) => c.notNull())
    .addColumn('records_json', 'text', (c) => c.notNull())
    .addColumn('last_checked_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('inboxes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('domain_id', 'text')
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('address_prefix', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull().unique())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inboxes_tenant').on('inboxes').columns(['tenant_id', 'created_at']).execute();
  await db.schema.createIndex('inboxes_expiry').on('inboxes').columns(['expires_at']).execute();

  await db.schema
    .createTable('emails')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('base_email_id', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_json', 'text', (c) => c.notNull())
    .addColumn('cc_json', 'text', (c) => c.notNull())
    .addColumn('bcc_json', 'text', (c) => c.notNull())
    .addColumn('recipients_search', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('read', 'integer', (c) => c.notNull())
    .addColumn('has_attachments', 'integer', (c) => c.notNull())
    .addColumn('snippet', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text')
    .addColumn('html_body', 'text')
    .addColumn('headers_json', 'text', (c) => c.notNull())
    .addColumn('spf_result', 'text', (c) => c.notNull())
    .addColumn('dkim_result', 'text', (c) => c.notNull())
    .addColumn('dmarc_result', 'text', (c) => c.notNull())
    .addColumn('auth_summary', 'text', (c) => c.notNull())
    .addColumn('auth_diagnostics_json', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('eml_key', 'text', (c) => c.notNull())
    .addColumn('remote_address', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('emails_tenant_created').on('emails').columns(['tenant_id', 'created_at', 'id']).execute();
  await db.schema
    .createIndex('emails_tenant_env_created')
    .on('emails')
    .columns(['tenant_id', 'environment_id', 'created_at'])
    .execute();
  await db.schema.createIndex('emails_base').on('emails').columns(['base_email_id']).execute();

  await db.schema
    .createTable('attachments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email_id', 'text', (c) => c.notNull().references('emails.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('content_id', 'text')
    .addColumn('disposition', 'text', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('attachments_email').on('attachments').columns(['email_id', 'position']).execute();

  // `uid` is a global ascending sequence: strictly increasing within every inbox, as IMAP UIDs must be.
  await db.schema
    .createTable('inbox_messages')
    .addColumn('uid', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('inbox_id', 'text', (c) => c.notNull().references('inboxes.id').onDelete('cascade'))
    .addColumn('email_id', 'text', (c) => c.notNull().references('emails.id').onDelete('cascade'))
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('extracted_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('inbox_messages_inbox').on('inbox_messages').columns(['inbox_id', 'created_at']).execute();
  await db.schema.createIndex('inbox_messages_email').on('inbox_messages').columns(['email_id']).execute();

  await db.schema
    .createTable('activity_logs')
    .addColumn('seq', serial, (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('id', 'text', (c) => c.notNull().unique())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('environment_id', 'text')
    .addColumn('email_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('metadata_json', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.createIndex('activity_logs_tenant').on('activity_logs').columns(['tenant_id', 'seq']).execute();
  await db.schema.createIndex('activity_logs_email').on('activity_logs').columns(['email_id', 'seq']).execute();
}
