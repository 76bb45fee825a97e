import { randomUUID } from 'node:crypto';
import { generateApiKey } from '../core/api-key.js';
import { InvalidInputError, NotFoundError } from '../core/errors.js';
import { PLANS, type PlanName } from '../core/vocab.js';
import type { UnitOfWork, Repositories } from '../adapters/db/repositories/index.js';
import type { Tenant } from '../adapters/db/repositories/tenant.repository.js';

export const PRODUCTION_SLUG = 'production';

export interface CreatedTenant {
  tenant: Tenant;
  environmentId: string;
  apiKey: string;
}

export class TenantService {
  constructor(
    private readonly repos: Repositories,
    private readonly unitOfWork: UnitOfWork,
  ) {}

  /** A tenant, its production environment and its first tenant-level key, in one transaction. */
  async create(input: { name: string; plan?: PlanName }): Promise<CreatedTenant> {
    const name = input.name.trim();
    if (name.length === 0 || name.length > 200) throw new InvalidInputError('INVALID_NAME', 'name must be 1 to 200 characters');
    const plan = input.plan ?? 'free';
    if (!PLANS.includes(plan)) throw new InvalidInputError('INVALID_PLAN', `plan must be one of ${PLANS.join(', ')}`);
    const now = new Date().toISOString();
    const tenant: Tenant = { id: randomUUID(), name, plan, defaultDomain: null, createdAt: now };
    const environmentId = randomUUID();
    const generated = generateApiKey();
    await this.unitOfWork(async (repos) => {
      await repos.tenants.insert(tenant);
      await repos.tenants.insertEnvironment({ id: environmentId, tenantId: tenant.id, name: 'Production', slug: PRODUCTION_SLUG, createdAt: now });
      await repos.apiKeys.insert({
        id: randomUUID(),
        tenantId: tenant.id,
        name: 'Default key',
        prefix: generated.prefix,
        keyHash: generated.hash,
        active: true,
        environmentId: null,
        inboxId: null,
        scopes: ['api'],
        lastUsedAt: null,
        expiresAt: null,
        createdAt: now,
      });
    });
    return { tenant, environmentId, apiKey: generated.key };
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

  list(): Promise<Tenant[]> {
    return this.repos.tenants.list();
  }
}
