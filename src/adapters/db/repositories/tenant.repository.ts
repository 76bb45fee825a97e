import type { Kysely } from 'kysely';
import type { CountedResource, LimitOverrides } from '../../../core/plans.js';
import type { PlanName } from '../../../core/vocab.js';
import type { Database } from '../schema.js';

export interface Tenant {
  id: string;
  name: string;
  plan: PlanName;
  defaultDomain: string | null;
  createdAt: string;
  /** Operator exceptions to the plan's limits (CLI `tenant set-limits`). */
  limitOverrides: LimitOverrides;
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
  limitOverrides: {
    requestsPerMinute: row.requests_per_minute_override ?? null,
    monthlyEmails: row.monthly_emails_override ?? null,
  },
});

const toEnvironment = (row: EnvironmentRow): Environment => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  slug: row.slug,
  createdAt: row.created_at,
});

const RESOURCE_TABLES = { webhooks: 'webhooks', chatappIntegrations: 'chatapp_integrations', inboxes: 'inboxes' } as const satisfies Record<CountedResource, keyof Database>;

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

  /** How many of a plan-limited resource the tenant holds now. */
  async countResources(tenantId: string, resource: CountedResource): Promise<number> {
    const row = await this.db
      .selectFrom(RESOURCE_TABLES[resource])
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async list(): Promise<Tenant[]> {
    const rows = await this.db.selectFrom('tenants').selectAll().orderBy('created_at').execute();
    return rows.map(toTenant);
  }

  async setPlan(id: string, plan: PlanName): Promise<boolean> {
    const result = await this.db.updateTable('tenants').set({ plan }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async setLimitOverrides(id: string, overrides: LimitOverrides): Promise<boolean> {
    const result = await this.db
      .updateTable('tenants')
      .set({ requests_per_minute_override: overrides.requestsPerMinute, monthly_emails_override: overrides.monthlyEmails })
      .where('id', '=', id)
      .executeTakeFirst();
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

  async deleteEnvironment(tenantId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('environments').where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Whether inboxes, emails or keys still belong to the environment (deleting it would orphan them). */
  async environmentInUse(tenantId: string, id: string): Promise<boolean> {
    const users = await Promise.all([
      this.db.selectFrom('inboxes').select('id').where('tenant_id', '=', tenantId).where('environment_id', '=', id).limit(1).executeTakeFirst(),
      this.db.selectFrom('emails').select('id').where('tenant_id', '=', tenantId).where('environment_id', '=', id).limit(1).executeTakeFirst(),
      this.db.selectFrom('api_keys').select('id').where('tenant_id', '=', tenantId).where('environment_id', '=', id).limit(1).executeTakeFirst(),
    ]);
    return users.some((row) => row !== undefined);
  }
}
