import { randomUUID } from 'node:crypto';
import type { Caller } from '../core/api-key.js';
import { NotFoundError, RateLimitedError } from '../core/errors.js';
import { ExpiringCache } from '../core/expiring-cache.js';
import { PLAN_LIMITS, usageMonthEnd, usageMonthOf, type PlanLimits } from '../core/plans.js';
import type { PlanName } from '../core/vocab.js';
import type { Repositories } from '../adapters/db/repositories/index.js';
import type { MonthTotals } from '../adapters/db/repositories/usage.repository.js';
import type { IngestParticipant, StoredEmail } from './ingest-participant.js';
import type { Delivery, RecipientAdmission } from './recipient.service.js';
import type { TenantLimits } from './tenant-limits.js';

export interface UsageView {
  month: string;
  periodStart: string;
  resetsAt: string;
  emails: { used: number; limit: number; remaining: number };
  webhooks: { deliveries: number; succeeded: number; failed: number };
  plan: { name: PlanName } & PlanLimits;
  plans: Record<string, PlanLimits>;
  limitsEnforced: boolean;
}

/** The account as the hosted service's GET /tenant shows it: who, which plan, which limits. */
export interface TenantView {
  id: string;
  name: string;
  plan: PlanName;
  limits: PlanLimits;
  createdAt: string;
}

/** A refused recipient is logged at most this often per tenant and node, so a sender's retry storm cannot flood the log. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
const MAX_REMEMBERED_REFUSALS = 10_000;
/** Bounds the per-process memory; forgetting a count costs one extra read. */
const MAX_CACHED_COUNTS = 10_000;

/**
 * The monthly email quota (spec 8): an email counts when it is received, in the ingest transaction
 * (so it counts exactly when it is stored), and deleting it gives nothing back. Once a tenant has
 * used its month's quota, its recipients are refused at RCPT TO with 452 4.2.2 and the activity log
 * records why (docs/access.md).
 *
 * RCPT TO reads a tenant's count at most once per `countCacheMs` (D35). Every ingest commit on this
 * node refreshes it with the total its counter update returned, so this node's own mail is always
 * counted; mail received by other nodes is seen within `countCacheMs`.
 */
export class UsageService implements RecipientAdmission {
  private readonly lastRefusalLogged = new Map<string, number>();
  /** Keyed by tenant and month (`countKey`). */
  private readonly counts: ExpiringCache<string, number>;
  private readonly committedTotals = new WeakMap<StoredEmail[], { month: string; totals: MonthTotals }>();

  constructor(
    private readonly repos: Repositories,
    private readonly limits: TenantLimits,
    countCacheMs: number,
    private readonly onBackgroundError: (error: unknown) => void,
    /** MAILROOM_LIMITS: false reports (in usage()) that no quota applies; app.ts then leaves admit() out. */
    private readonly limitsEnforced = true,
  ) {
    this.counts = new ExpiringCache(countCacheMs, MAX_CACHED_COUNTS);
  }

  async tenant(caller: Caller): Promise<TenantView> {
    const [tenant, { plan, limits }] = await Promise.all([this.repos.tenants.get(caller.tenantId), this.limits.of(caller.tenantId)]);
    if (tenant === undefined) throw new NotFoundError('TENANT_NOT_FOUND', `no tenant ${caller.tenantId}`);
    return { id: tenant.id, name: tenant.name, plan, limits, createdAt: tenant.createdAt };
  }

  async usage(caller: Caller, now = new Date()): Promise<UsageView> {
    const month = usageMonthOf(now);
    const periodStart = `${month}-01T00:00:00.000Z`;
    const resetsAt = usageMonthEnd(month);
    const [{ plan, limits }, used, deliveries] = await Promise.all([
      this.limits.of(caller.tenantId),
      this.repos.usage.emailsIn(caller.tenantId, month),
      this.repos.logs.countByStatus(caller.tenantId, 'WEBHOOK', periodStart, resetsAt),
    ]);
    const succeeded = deliveries.SUCCESS ?? 0;
    const failed = deliveries.FAILED ?? 0;
    return {
      month,
      periodStart,
      resetsAt,
      emails: { used, limit: limits.monthlyEmails, remaining: Math.max(0, limits.monthlyEmails - used) },
      webhooks: { deliveries: succeeded + failed + (deliveries.PENDING ?? 0), succeeded, failed },
      plan: { name: plan, ...limits },
      plans: PLAN_LIMITS,
      limitsEnforced: this.limitsEnforced,
    };
  }

  /** Called at RCPT TO for each recipient Mailroom serves. */
  async admit(delivery: Delivery, now = new Date()): Promise<void> {
    const month = usageMonthOf(now);
    const [{ limits }, used] = await Promise.all([this.limits.of(delivery.tenantId), this.emailsIn(delivery.tenantId, month, now.getTime())]);
    if (used < limits.monthlyEmails) return;
    this.logRefusal(delivery, { month, used, limit: limits.monthlyEmails }, now);
    throw new RateLimitedError('EMAIL_QUOTA_EXCEEDED', "The recipient's monthly email quota is used up");
  }

  /** Counts each tenant's copy of a message once, committed with the email itself. */
  participant(): IngestParticipant {
    return {
      name: 'usage-quota',
      inTransaction: async (repos, emails) => {
        const at = new Date();
        const month = usageMonthOf(at);
        this.committedTotals.set(emails, { month, totals: await repos.usage.addEmails(month, countByTenant(emails), at.toISOString()) });
      },
      afterCommit: (emails) => {
        const committed = this.committedTotals.get(emails);
        if (committed === undefined) return;
        const now = Date.now();
        for (const [tenantId, used] of committed.totals.byTenant()) this.counts.set(countKey(tenantId, committed.month), Promise.resolve(used), now);
      },
    };
  }

  /** The tenant's emails this month, read again once the remembered count is `countCacheMs` old. */
  private emailsIn(tenantId: string, month: string, now: number): Promise<number> {
    return this.counts.get(countKey(tenantId, month), () => this.repos.usage.emailsIn(tenantId, month), now);
  }

  private logRefusal(delivery: Delivery, quota: { month: string; used: number; limit: number }, now: Date): void {
    const last = this.lastRefusalLogged.get(delivery.tenantId) ?? 0;
    if (now.getTime() - last < REFUSAL_LOG_INTERVAL_MS) return;
    if (this.lastRefusalLogged.size >= MAX_REMEMBERED_REFUSALS) this.lastRefusalLogged.clear();
    this.lastRefusalLogged.set(delivery.tenantId, now.getTime());
    this.repos.logs
      .append([
        {
          id: randomUUID(),
          tenantId: delivery.tenantId,
          environmentId: delivery.environmentId,
          emailId: null,
          type: 'SMTP_RECEIVED',
          status: 'FAILED',
          message: `Refused mail for ${delivery.address}: the monthly email quota (${quota.limit}) is used up; senders were told to retry later (452 4.2.2)`,
          metadata: { reason: 'EMAIL_QUOTA_EXCEEDED', recipient: delivery.address, inboxId: delivery.inboxId, ...quota, smtpReply: '452 4.2.2' },
          createdAt: now.toISOString(),
        },
      ])
      .catch(this.onBackgroundError);
  }
}

const countKey = (tenantId: string, month: string) => `${tenantId} ${month}`;

function countByTenant(emails: StoredEmail[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const stored of emails) counts.set(stored.email.tenantId, (counts.get(stored.email.tenantId) ?? 0) + 1);
  return counts;
}
