import { PLANS, type PlanName } from './vocab.js';

/** What a plan allows. A new plan is one more row in PLAN_LIMITS (and its name in vocab.ts PLANS). */
export interface PlanLimits {
  /** API requests per tenant per minute, over all keys and nodes (spec 8). */
  requestsPerMinute: number;
  /** Emails received per tenant per calendar month (UTC); deleting an email gives nothing back. */
  monthlyEmails: number;
  /** Whether the tenant may store mail in its own bucket (spec 1: paid plans only). */
  customStorage: boolean;
  /** How many of each resource the account may hold at once; creating one more answers 403 PLAN_LIMIT_REACHED. */
  maxResources: Readonly<Record<CountedResource, number>>;
}

/** Resources an account creates that cost the service per item (delivery slots, addresses to route). */
export const COUNTED_RESOURCES = ['webhooks', 'chatappIntegrations', 'inboxes'] as const;
export type CountedResource = (typeof COUNTED_RESOURCES)[number];

/** The one table of plan limits; docs/access.md shows it to users. */
export const PLAN_LIMITS: Readonly<Record<PlanName, PlanLimits>> = Object.freeze({
  free: { requestsPerMinute: 100, monthlyEmails: 1_000, customStorage: false, maxResources: { webhooks: 10, chatappIntegrations: 5, inboxes: 100 } },
  pro: { requestsPerMinute: 1_000, monthlyEmails: 100_000, customStorage: true, maxResources: { webhooks: 100, chatappIntegrations: 50, inboxes: 10_000 } },
});

/** Operator-set exceptions for one tenant (CLI `tenant set-limits`); null keeps the plan's value. */
export interface LimitOverrides {
  requestsPerMinute: number | null;
  monthlyEmails: number | null;
}

export const NO_OVERRIDES: LimitOverrides = Object.freeze({ requestsPerMinute: null, monthlyEmails: null });

export const isPlanName = (value: string): value is PlanName => (PLANS as readonly string[]).includes(value);

/** A tenant's effective limits: its plan's row with the operator's overrides applied. */
export function effectiveLimits(plan: PlanName, overrides: LimitOverrides): PlanLimits {
  const base = PLAN_LIMITS[plan];
  return {
    requestsPerMinute: overrides.requestsPerMinute ?? base.requestsPerMinute,
    monthlyEmails: overrides.monthlyEmails ?? base.monthlyEmails,
    customStorage: base.customStorage,
    maxResources: base.maxResources,
  };
}

/** The usage month an instant belongs to: `YYYY-MM` in UTC. */
export const usageMonthOf = (at: Date): string => at.toISOString().slice(0, 7);

/** When a usage month ends (the first instant of the next month, UTC), as ISO 8601. */
export function usageMonthEnd(month: string): string {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, monthNumber, 1)).toISOString();
}

/**
 * How many days each plan keeps emails before the retention sweeper deletes them (docs/operations.md).
 * An operator may set another period per tenant (CLI `tenant set-retention`).
 */
export const PLAN_EMAIL_RETENTION_DAYS: Readonly<Record<PlanName, number>> = Object.freeze({ free: 30, pro: 365 });

export const emailRetentionDays = (plan: PlanName, override: number | null): number => override ?? PLAN_EMAIL_RETENTION_DAYS[plan];
