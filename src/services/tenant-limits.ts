import { effectiveLimits, type CountedResource, type PlanLimits } from '../core/plans.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { ExpiringCache } from '../core/expiring-cache.js';
import type { PlanName } from '../core/vocab.js';
import type { Repositories } from '../adapters/db/repositories/index.js';

export interface TenantPlan {
  plan: PlanName;
  limits: PlanLimits;
}

const RESOURCE_NAMES: Record<CountedResource, string> = { webhooks: 'webhooks', chatappIntegrations: 'chat-app integrations', inboxes: 'inboxes' };

/** Bounds the per-process memory; forgetting entries costs one extra read each. */
const MAX_CACHED_TENANTS = 10_000;

/**
 * A tenant's plan and effective limits, read on the hot path of every API request (rate limit) and
 * every RCPT TO (quota). Cached briefly per process: a plan change (CLI) applies on every node
 * within `cacheMs`, without a read per request.
 */
export class TenantLimits {
  private readonly plans: ExpiringCache<string, TenantPlan>;

  constructor(
    private readonly repos: Repositories,
    cacheMs: number,
  ) {
    this.plans = new ExpiringCache(cacheMs, MAX_CACHED_TENANTS);
  }

  of(tenantId: string, now = Date.now()): Promise<TenantPlan> {
    return this.plans.get(tenantId, () => this.load(tenantId), now);
  }

  /**
   * Refuses to create one more `resource` when the tenant already holds its plan's maximum. Counted,
   * not reserved: requests racing each other at the limit may each pass (docs/security.md).
   */
  async assertRoomFor(tenantId: string, resource: CountedResource): Promise<void> {
    const [{ plan, limits }, held] = await Promise.all([this.of(tenantId), this.repos.tenants.countResources(tenantId, resource)]);
    const max = limits.maxResources[resource];
    if (held >= max) {
      throw new ForbiddenError('PLAN_LIMIT_REACHED', `The ${plan} plan allows ${max} ${RESOURCE_NAMES[resource]} per account and this account has ${held}; delete one first`);
    }
  }

  private async load(tenantId: string): Promise<TenantPlan> {
    const tenant = await this.repos.tenants.get(tenantId);
    if (tenant === undefined) throw new NotFoundError('TENANT_NOT_FOUND', `no tenant ${tenantId}`);
    return { plan: tenant.plan, limits: effectiveLimits(tenant.plan, tenant.limitOverrides) };
  }
}
