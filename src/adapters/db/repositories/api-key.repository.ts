import type { Kysely } from 'kysely';
import { makePage, offsetOf, type Page, type PageRequest } from '../../../core/pagination.js';
import type { ApiKeyScope } from '../../../core/vocab.js';
import type { Database } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  name: string;
  prefix: string;
  keyHash: string;
  active: boolean;
  environmentId: string | null;
  /** Set for inbox-scoped keys (spec 5.4). */
  inboxId: string | null;
  scopes: ApiKeyScope[];
  lastUsedAt: string | null;
  expiresAt: string | null;
  createdAt: string;
}

type Row = Database['api_keys'];

const toRecord = (row: Row): ApiKeyRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  prefix: row.prefix,
  keyHash: row.key_hash,
  active: fromFlag(row.active),
  environmentId: row.environment_id,
  inboxId: row.inbox_id,
  scopes: parseJson<ApiKeyScope[]>(row.scopes),
  lastUsedAt: row.last_used_at,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
});

export class ApiKeyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(key: ApiKeyRecord): Promise<void> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        tenant_id: key.tenantId,
        name: key.name,
        prefix: key.prefix,
        key_hash: key.keyHash,
        active: toFlag(key.active),
        environment_id: key.environmentId,
        inbox_id: key.inboxId,
        scopes: JSON.stringify(key.scopes),
        last_used_at: key.lastUsedAt,
        expires_at: key.expiresAt,
        created_at: key.createdAt,
      })
      .execute();
  }

  async getByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
    return row && toRecord(row);
  }

  async get(tenantId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  /** Tenant-level keys only (inbox-scoped keys are listed under their inbox); optionally one environment's. */
  async listTenantKeys(tenantId: string, request: PageRequest, environmentId?: string): Promise<Page<ApiKeyRecord>> {
    let base = this.db.selectFrom('api_keys').where('tenant_id', '=', tenantId).where('inbox_id', 'is', null);
    if (environmentId !== undefined) base = base.where('environment_id', '=', environmentId);
    const [rows, count] = await Promise.all([
      base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(request.perPage).offset(offsetOf(request)).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return makePage(rows.map(toRecord), Number(count.n), request);
  }

  async listInboxKeys(tenantId: string, inboxId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('inbox_id', '=', inboxId)
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toRecord);
  }

  /**
   * Active tenant-level keys that reach `environmentId`: all-environment keys, plus (for an
   * environment) the keys scoped to it. null counts all-environment keys only.
   */
  async countActiveTenantKeys(tenantId: string, environmentId: string | null): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('inbox_id', 'is', null)
      .where('active', '=', 1)
      .where((eb) => (environmentId === null ? eb('environment_id', 'is', null) : eb.or([eb('environment_id', 'is', null), eb('environment_id', '=', environmentId)])))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async setActive(tenantId: string, id: string, active: boolean): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ active: toFlag(active) })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('api_keys').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async touch(id: string, at: string): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }
}
