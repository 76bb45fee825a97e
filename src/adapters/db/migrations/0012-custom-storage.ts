import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Tenants' own buckets (docs/storage.md). A row is never changed once written: a new PUT /storage
 * retires the current row and adds one, so mail stored under an old configuration (its blob keys
 * name the row, `tenant-storage/<id>/…`) stays readable with the credentials it was written with.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('storage_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('region', 'text')
    .addColumn('endpoint', 'text')
    .addColumn('force_path_style', 'integer', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('metadata_only', 'integer', (c) => c.notNull())
    .addColumn('credentials_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  // At most one current configuration per tenant, even when two PUTs race (both dialects have partial indexes).
  await sql`create unique index storage_configs_one_current on storage_configs (tenant_id) where retired_at is null`.execute(db);
}
