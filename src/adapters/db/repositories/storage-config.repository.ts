import type { Kysely, Selectable } from 'kysely';
import type { CustomStorage } from '../../../core/custom-storage.js';
import type { StorageProvider } from '../../../core/vocab.js';
import type { Database } from '../schema.js';
import { fromFlag, toFlag } from '../sql.js';

/** A stored configuration with its credentials still sealed (only TenantBlobStores opens them). */
export interface SealedStorage {
  storage: CustomStorage;
  credentialsSealed: string;
}

/** Where one email's blobs are, as recorded on its rows. */
export interface EmailBlobKeys {
  emlKey: string;
  attachments: Array<{ id: string; blobKey: string }>;
}

type Row = Selectable<Database['storage_configs']>;

const toSealed = (row: Row): SealedStorage => ({
  storage: {
    id: row.id,
    tenantId: row.tenant_id,
    provider: row.provider as StorageProvider,
    bucket: row.bucket,
    region: row.region,
    endpoint: row.endpoint,
    forcePathStyle: fromFlag(row.force_path_style),
    prefix: row.prefix,
    metadataOnly: fromFlag(row.metadata_only),
    createdAt: row.created_at,
  },
  credentialsSealed: row.credentials_sealed,
});

export class StorageConfigRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** The tenant's current configuration (at most one is not retired). */
  async current(tenantId: string): Promise<SealedStorage | undefined> {
    const row = await this.db.selectFrom('storage_configs').selectAll().where('tenant_id', '=', tenantId).where('retired_at', 'is', null).executeTakeFirst();
    return row === undefined ? undefined : toSealed(row);
  }

  /** Any configuration, retired or not: old mail is read through the one it was written with. */
  async byId(id: string): Promise<SealedStorage | undefined> {
    const row = await this.db.selectFrom('storage_configs').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : toSealed(row);
  }

  /** Retires the current configuration; false when there was none. Run with `insert` in one transaction to switch. */
  async retireCurrent(tenantId: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('storage_configs')
      .set({ retired_at: at })
      .where('tenant_id', '=', tenantId)
      .where('retired_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async insert({ storage, credentialsSealed }: SealedStorage): Promise<void> {
    await this.db
      .insertInto('storage_configs')
      .values({
        id: storage.id,
        tenant_id: storage.tenantId,
        provider: storage.provider,
        bucket: storage.bucket,
        region: storage.region,
        endpoint: storage.endpoint,
        force_path_style: toFlag(storage.forcePathStyle),
        prefix: storage.prefix,
        metadata_only: toFlag(storage.metadataOnly),
        credentials_sealed: credentialsSealed,
        created_at: storage.createdAt,
        retired_at: null,
      })
      .execute();
  }

  async emailBlobKeys(tenantId: string, emailId: string): Promise<EmailBlobKeys | undefined> {
    const email = await this.db.selectFrom('emails').select('eml_key').where('tenant_id', '=', tenantId).where('id', '=', emailId).executeTakeFirst();
    if (email === undefined) return undefined;
    const attachments = await this.db.selectFrom('attachments').select(['id', 'blob_key']).where('email_id', '=', emailId).execute();
    return { emlKey: email.eml_key, attachments: attachments.map((a) => ({ id: a.id, blobKey: a.blob_key })) };
  }

  /** Which of these email ids still have a row: the orphan sweep keeps their blobs. */
  async existingEmailIds(ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('emails').select('id').where('id', 'in', ids).execute();
    return new Set(rows.map((r) => r.id));
  }
}
