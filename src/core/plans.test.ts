import { describe, expect, it } from 'vitest';
import { effectiveLimits, isPlanName, NO_OVERRIDES, PLAN_LIMITS, usageMonthEnd, usageMonthOf } from './plans.js';
import { PLANS } from './vocab.js';

describe('plans', () => {
  it('has a row for every plan name, with the spec rates', () => {
    expect(Object.keys(PLAN_LIMITS).sort()).toEqual([...PLANS].sort());
    expect(PLAN_LIMITS.free).toMatchObject({ requestsPerMinute: 100, customStorage: false });
    expect(PLAN_LIMITS.pro).toMatchObject({ requestsPerMinute: 1000, customStorage: true });
    expect(isPlanName('pro')).toBe(true);
    expect(isPlanName('enterprise')).toBe(false);
  });

  it('applies overrides field by field; null keeps the plan value', () => {
    expect(effectiveLimits('free', NO_OVERRIDES)).toEqual(PLAN_LIMITS.free);
    expect(effectiveLimits('free', { requestsPerMinute: 7, monthlyEmails: null })).toEqual({ ...PLAN_LIMITS.free, requestsPerMinute: 7 });
    expect(effectiveLimits('pro', { requestsPerMinute: null, monthlyEmails: 0 }).monthlyEmails).toBe(0);
  });

  it('usage months are UTC calendar months', () => {
    expect(usageMonthOf(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(usageMonthOf(new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12');
    expect(usageMonthEnd('2026-11')).toBe('2026-12-01T00:00:00.000Z');
    expect(usageMonthEnd('2026-12')).toBe('2027-01-01T00:00:00.000Z');
  });
});
