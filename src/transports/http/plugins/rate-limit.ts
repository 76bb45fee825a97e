import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { PLAN_LIMITS } from '../../../core/plans.js';
import { RateLimitedError } from '../../../core/errors.js';
import type { TenantLimits } from '../../../services/tenant-limits.js';

export interface RateLimitOptions {
  limits: TenantLimits;
  /** MAILROOM_RATE_LIMIT_MULTIPLIER: scales every plan's limit (benchmarks). */
  multiplier: number;
  /** Set: every node counts in this Redis, so all nodes share one budget per tenant. */
  redis?: Redis;
  redisPrefix: string;
}

const WINDOW_MS = 60_000;
const RESET_HEADER = 'x-ratelimit-reset';

/**
 * The dashboard's own requests (a session JWT) have a budget per user, apart from the account's API
 * keys: a person clicking through the UI is never limited at human speed (a page view is a few
 * requests), and a test suite spending the key budget does not lock the dashboard out.
 */
export const DASHBOARD_REQUESTS_PER_MINUTE = 3_000;

/** Public routes (no caller) are limited per client address at the free plan's rate. */
function budgetOf(request: FastifyRequest): string {
  if (!request.caller) return `ip:${request.ip}`;
  return request.caller.credential === 'jwt' ? `dashboard:${request.caller.keyId}` : `tenant:${request.caller.tenantId}`;
}

async function perMinute(request: FastifyRequest, limits: TenantLimits): Promise<number> {
  if (!request.caller) return PLAN_LIMITS.free.requestsPerMinute;
  const plan = (await limits.of(request.caller.tenantId)).limits.requestsPerMinute;
  return request.caller.credential === 'jwt' ? Math.max(plan, DASHBOARD_REQUESTS_PER_MINUTE) : plan;
}

/**
 * Spec 8: per-tenant requests per minute on every /api/v1 route, over all keys and nodes.
 *
 * Ordering: the plugin adds its counter as a *route-level* onRequest hook, and route-level hooks
 * run after the scope's onRequest hooks, so the auth hook (plugins/auth.ts) has already run. A
 * request without a valid key is answered 401 there and never spends a tenant's budget, and the
 * budget is keyed by tenant id, not by key or address (the dashboard's by user, see budgetOf). A long-lived request (an SSE stream, a
 * wait-for-message call) is one request: it is counted once, when it starts.
 *
 * Register inside the /api/v1 scope after registerAuth and before the routes.
 */
export async function registerRateLimit(api: FastifyInstance, options: RateLimitOptions): Promise<void> {
  await api.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    timeWindow: WINDOW_MS,
    keyGenerator: budgetOf,
    max: async (request: FastifyRequest) => (await perMinute(request, options.limits)) * options.multiplier,
    errorResponseBuilder: (_request, context) =>
      new RateLimitedError('RATE_LIMITED', `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`),
    // Redis unreachable: serve unlimited rather than refuse every request (logged by the Redis client).
    skipOnError: true,
    ...(options.redis === undefined ? {} : { redis: options.redis, nameSpace: `${options.redisPrefix}rate-limit:` }),
  });
  // The plugin sends seconds until the reset; the spec's "time the limit resets" is a moment: Unix epoch seconds.
  api.addHook('onSend', async (_request, reply) => {
    const secondsLeft = reply.getHeader(RESET_HEADER);
    if (secondsLeft !== undefined) reply.header(RESET_HEADER, Math.ceil(Date.now() / 1000) + Number(secondsLeft));
  });
}
