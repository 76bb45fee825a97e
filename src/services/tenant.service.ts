import { randomUUID } from 'node:crypto';
import { mintApiKey } from './mint-api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import { NO_OVERRIDES, type LimitOverrides } from '../core/plans.js';
import { PLANS, type PlanName } from '../core/vocab.js';
import type { UnitOfWork, Repositories } from '../adapters/db/repositories/index.js';
import type { Tenant } from '../adapters/db/repositories/tenant.repository.js';
import type { ApiKeyRecord } from '../adapters/db/repositories/api-key.repository.js';

export const PRODUCTION_SLUG = 'production';

export interface CreatedTenant {
  tenant: Tenant;
  environmentId: string;
  apiKey: string;
}

/** A new active tenant-level key for all environments; the full key exists only in the result. */
function allEnvironmentsKey(tenantId: string, name: string, now: string): { record: ApiKeyRecord; key: string } {
  return mintApiKey({ tenantId, name, environmentId: null, inboxId: null, scopes: ['api'] }, Date.parse(now));
}

export class TenantService {
  constructor(
    private readonly repos: Repositories,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /**
   * A tenant, its production environment and its first tenant-level key, in one transaction;
   * `alsoInTransaction` adds more rows that must commit with them (sign-up's first user).
   */
  async create(input: { name: string; plan?: PlanName }, alsoInTransaction?: (repos: Repositories, tenant: Tenant) => Promise<void>): Promise<CreatedTenant> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) throw new InvalidInputError('INVALID_NAME', 'name must be 1 to 200 characters');
    const plan = input.plan ?? 'free';
    if (!PLANS.includes(plan)) throw new InvalidInputError('INVALID_PLAN', `plan must be one of ${PLANS.join(', ')}`);
    const now = new Date().toISOString();
    const tenant: Tenant = { id: randomUUID(), name, plan, defaultDomain: null, createdAt: now, limitOverrides: NO_OVERRIDES };
    const environmentId = randomUUID();
    const firstKey = allEnvironmentsKey(tenant.id, 'Default key', now);
    await this.unitOfWork(async (repos) => {
      await repos.tenants.insert(tenant);
      await repos.tenants.insertEnvironment({ id: environmentId, tenantId: tenant.id, name: 'Production', slug: PRODUCTION_SLUG, createdAt: now });
      await repos.apiKeys.insert(firstKey.record);
      await alsoInTransaction?.(repos, tenant);
    });
    return { tenant, environmentId, apiKey: firstKey.key };
  }

  /** The operator's way back in (CLI `tenant create-key`) when every key is lost, expired or deactivated. */
  async issueKey(tenantId: string, name: string): Promise<{ record: ApiKeyRecord; key: string }> {
    await this.getOrThrow(tenantId);
    const issued = allEnvironmentsKey(tenantId, name, new Date().toISOString());
    await this.repos.apiKeys.insert(issued.record);
    return issued;
  }

  async getOrThrow(id: string): Promise<Tenant> {
    const tenant = await this.repos.tenants.get(id);
    if (tenant === undefined) throw new NotFoundError('TENANT_NOT_FOUND', `no tenant ${id}`);
    return tenant;
  }

  async productionEnvironmentId(tenantId: string): Promise<string> {
    const environment = await this.repos.tenants.getEnvironmentBySlug(tenantId, PRODUCTION_SLUG);
    if (environment === undefined) throw new NotFoundError('ENVIRONMENT_NOT_FOUND', 'tenant has no production environment');
    return environment.id;
  }

  async setPlan(id: string, plan: PlanName): Promise<Tenant> {
    if (!PLANS.includes(plan)) throw new InvalidInputError('INVALID_PLAN', `plan must be one of ${PLANS.join(', ')}`);
    if (!(await this.repos.tenants.setPlan(id, plan))) throw new NotFoundError('TENANT_NOT_FOUND', `no tenant ${id}`);
    return this.getOrThrow(id);
  }

  /** Operator exceptions to the plan (a benchmark tenant, an enterprise deal); null restores the plan's value. */
  async setLimitOverrides(id: string, overrides: LimitOverrides): Promise<Tenant> {
    for (const [field, value] of Object.entries(overrides)) {
      if (value !== null && (!Number.isInteger(value) || value < 0)) throw new InvalidInputError('INVALID_LIMIT', `${field} must be a whole number of at least 0`, { field });
    }
    if (!(await this.repos.tenants.setLimitOverrides(id, overrides))) throw new NotFoundError('TENANT_NOT_FOUND', `no tenant ${id}`);
    return this.getOrThrow(id);
  }

  list(): Promise<Tenant[]> {
    return this.repos.tenants.list();
  }
}
