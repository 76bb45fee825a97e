import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { fromFlag, parseJson, toFlag } from '../sql.js';

export interface DnsRecord {
  type: 'MX' | 'TXT';
  name: string;
  value: string;
  priority?: number;
  ttl: number;
  status: 'pending' | 'verified' | 'failed';
  checkedAt?: string | null;
  error?: string | null;
}

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
}
