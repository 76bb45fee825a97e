import type { Kysely } from 'kysely';
import type { DnsRecord } from '../../../core/custom-domain.js';
import type { Database } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

export interface DomainRecord {
  id: string;
  tenantId: string;
  domain: string;
  unicodeDomain: string;
  verified: boolean;
  enabled: boolean;
  verificationCode: string;
  records: DnsRecord[];
  lastCheckedAt: string | null;
  createdAt: string;
}

/** The outcome of one verification round, written without touching `enabled` (a concurrent disable wins). */
export interface DomainCheck {
  /** true marks the domain verified; false leaves the flag alone, as checks never un-verify (docs/domains.md). */
  verified: boolean;
  records: DnsRecord[];
  checkedAt: string;
}

type Row = Database['domains'];

const toRecord = (row: Row): DomainRecord => ({
  id: row.id,
  tenantId: row.tenant_id,
  domain: row.domain,
  unicodeDomain: row.unicode_domain,
  verified: fromFlag(row.verified),
  enabled: fromFlag(row.enabled),
  verificationCode: row.verification_code,
  records: parseJson<DnsRecord[]>(row.records_json),
  lastCheckedAt: row.last_checked_at,
  createdAt: row.created_at,
});

export class DomainRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(domain: DomainRecord): Promise<void> {
    await this.db
      .insertInto('domains')
      .values({
        id: domain.id,
        tenant_id: domain.tenantId,
        domain: domain.domain,
        unicode_domain: domain.unicodeDomain,
        verified: toFlag(domain.verified),
        enabled: toFlag(domain.enabled),
        verification_code: domain.verificationCode,
        records_json: JSON.stringify(domain.records),
        last_checked_at: domain.lastCheckedAt,
        created_at: domain.createdAt,
      })
      .execute();
  }

  async getByName(domain: string): Promise<DomainRecord | undefined> {
    const row = await this.db.selectFrom('domains').selectAll().where('domain', '=', domain).executeTakeFirst();
    return row && toRecord(row);
  }

  async get(tenantId: string, id: string): Promise<DomainRecord | undefined> {
    const row = await this.db.selectFrom('domains').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return row && toRecord(row);
  }

  /** Whether mail for this domain id is accepted right now (SMTP checks it for inboxes on custom domains). */
  async isReceiving(id: string): Promise<boolean> {
    const row = await this.db.selectFrom('domains').select(['verified', 'enabled']).where('id', '=', id).executeTakeFirst();
    return row !== undefined && fromFlag(row.verified) && fromFlag(row.enabled);
  }

  async listByTenant(tenantId: string): Promise<DomainRecord[]> {
    const rows = await this.db.selectFrom('domains').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
    return rows.map(toRecord);
  }

  /** Enabled domains not checked since `checkedBefore` (never-checked first), for the periodic recheck. */
  async listDueForCheck(checkedBefore: string, limit: number): Promise<DomainRecord[]> {
    const rows = await this.db
      .selectFrom('domains')
      .selectAll()
      .where('enabled', '=', 1)
      .where((eb) => eb.or([eb('last_checked_at', 'is', null), eb('last_checked_at', '<', checkedBefore)]))
      .orderBy('last_checked_at', (ob) => ob.asc().nullsFirst())
      .orderBy('id', 'asc')
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async saveCheck(id: string, check: DomainCheck): Promise<void> {
    await this.db
      .updateTable('domains')
      .set({ records_json: JSON.stringify(check.records), last_checked_at: check.checkedAt, ...(check.verified ? { verified: toFlag(true) } : {}) })
      .where('id', '=', id)
      .execute();
  }

  async setEnabled(id: string, enabled: boolean): Promise<void> {
    await this.db.updateTable('domains').set({ enabled: toFlag(enabled) }).where('id', '=', id).execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('domains').where('id', '=', id).execute();
  }

  /** Ids of the inboxes created on this domain (removed with it). */
  async inboxIds(id: string): Promise<string[]> {
    const rows = await this.db.selectFrom('inboxes').select('id').where('domain_id', '=', id).execute();
    return rows.map((row) => row.id);
  }
}
