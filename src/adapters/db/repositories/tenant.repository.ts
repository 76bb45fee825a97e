import type { Kysely } from 'kysely';
import type { PlanName } from '../../../core/vocab.js';
import type { Database } from '../schema.js';

export interface Tenant {
  id: string;
  name: string;
  plan: PlanName;
  defaultDomain: string | null;
  createdAt: string;
}

export interface Environment {
  id: string;
  tenantId: string;
  name: string;
  slug: string;
  createdAt: string;
}

type TenantRow = Database['tenants'];
type EnvironmentRow = Database['environments'];

const toTenant = (row: TenantRow): Tenant => ({
  id: row.id,
  name: row.name,
  plan: row.plan as PlanName,
  defaultDomain: row.default_domain,
  createdAt: row.created_at,
});

const toEnvironment = (row: EnvironmentRow): Environment => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  slug: row.slug,
  createdAt: row.created_at,
});

export class TenantRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(tenant: Tenant): Promise<void> {
    await this.db
      .insertInto('tenants')
      .values({ id: tenant.id, name: tenant.name, plan: tenant.plan, default_domain: tenant.defaultDomain, created_at: tenant.createdAt })
      .execute();
  }

  async get(id: string): Promise<Tenant | undefined> {
    const row = await this.db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTenant(row);
  }

  async list(): Promise<Tenant[]> {
    const rows = await this.db.selectFrom('tenants').selectAll().orderBy('created_at').execute();
    return rows.map(toTenant);
  }

  async setPlan(id: string, plan: PlanName): Promise<boolean> {
    const result = await this.db.updateTable('tenants').set({ plan }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async insertEnvironment(environment: Environment): Promise<void> {
    await this.db
      .insertInto('environments')
      .values({
        id: environment.id,
        tenant_id: environment.tenantId,
        name: environment.name,
        slug: environment.slug,
        created_at: environment.createdAt,
      })
      .execute();
  }

  async getEnvironment(tenantId: string, id: string): Promise<Environment | undefined> {
    const row = await this.db
      .selectFrom('environments')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toEnvironment(row);
  }

  async getEnvironmentBySlug(tenantId: string, slug: string): Promise<Environment | undefined> {
    const row = await this.db
      .selectFrom('environments')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && toEnvironment(row);
  }

  async listEnvironments(tenantId: string): Promise<Environment[]> {
    const rows = await this.db.selectFrom('environments').selectAll().where('tenant_id', '=', tenantId).orderBy('created_at').execute();
    return rows.map(toEnvironment);
  }
}
