import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Webhooks, their inbox links, chat-app integrations, and the notification outbox: one row per
 * (email, target) written in the ingest transaction and claimed by delivery workers.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events_json', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_tenant').on('webhooks').columns(['tenant_id', 'created_at']).execute();

  // No foreign key to inboxes on purpose: when an inbox is deleted its links stay, so the webhook
  // stays scoped to inboxes (and goes quiet) instead of widening to every email of the tenant.
  await db.schema
    .createTable('webhook_inboxes')
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('inbox_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_inboxes_pk', ['webhook_id', 'inbox_id'])
    .execute();
  await db.schema.createIndex('webhook_inboxes_inbox').on('webhook_inboxes').columns(['inbox_id']).execute();

  await db.schema
    .createTable('chatapp_integrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('bot_token', 'text')
    .addColumn('channel_id', 'text')
    .addColumn('guild_id', 'text')
    .addColumn('inbox_ids_json', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('chatapp_integrations_tenant').on('chatapp_integrations').columns(['tenant_id', 'created_at']).execute();

  // A row is claimable when available_at has passed: claiming pushes it to now + lease, so a
  // crashed worker's claim expires by itself; a retry sets it to the next scheduled attempt.
  await db.schema
    .createTable('notification_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('environment_id', 'text')
    .addColumn('email_id', 'text', (c) => c.notNull())
    .addColumn('target_kind', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('attempts_made', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer')
    .addColumn('available_at', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notification_deliveries_available').on('notification_deliveries').columns(['available_at']).execute();
  await db.schema.createIndex('notification_deliveries_target').on('notification_deliveries').columns(['target_id']).execute();

  // Delivery log entries name their webhook or integration here, so /webhooks/:id/logs is an indexed read.
  await db.schema.alterTable('activity_logs').addColumn('target_id', 'text').execute();
  await db.schema.createIndex('activity_logs_target').on('activity_logs').columns(['tenant_id', 'target_id', 'seq']).execute();
}
