import { effectiveLimits, type PlanLimits } from '../core/plans.js';
import { NotFoundError } from '../core/errors.js';
import type { PlanName } from '../core/vocab.js';
import type { Repositories } from '../adapters/db/repositories/index.js';

export interface TenantPlan {
  plan: PlanName;
  limits: PlanLimits;
}

/** Bounds the per-process memory; forgetting entries costs one extra read each. */
const MAX_CACHED_TENANTS = 10_000;

/**
 * A tenant's plan and effective limits, read on the hot path of every API request (rate limit) and
 * every RCPT TO (quota). Cached briefly per process: a plan change (CLI) applies on every node
 * within `cacheMs`, without a read per request.
 */
export class TenantLimits {
  private readonly cache = new Map<string, { value: Promise<TenantPlan>; until: number }>();

  constructor(
    private readonly repos: Repositories,
    private readonly cacheMs: number,
  ) {}

  of(tenantId: string, now = Date.now()): Promise<TenantPlan> {
    const cached = this.cache.get(tenantId);
    if (cached !== undefined && cached.until > now) return cached.value;
    if (this.cache.size >= MAX_CACHED_TENANTS) this.cache.clear();
    const value = this.load(tenantId);
    this.cache.set(tenantId, { value, until: now + this.cacheMs });
    // A failed read is not remembered: the next call tries again.
    value.catch(() => this.cache.delete(tenantId));
    return value;
  }

  private async load(tenantId: string): Promise<TenantPlan> {
    const tenant = await this.repos.tenants.get(tenantId);
    if (tenant === undefined) throw new NotFoundError('TENANT_NOT_FOUND', `no tenant ${tenantId}`);
    return { plan: tenant.plan, limits: effectiveLimits(tenant.plan, tenant.limitOverrides) };
  }
}
