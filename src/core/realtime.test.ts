import { describe, expect, it } from 'vitest';
import type { Caller } from './api-key.js';
import { compareEventIds, isVisible } from './realtime.js';

const caller = (overrides: Partial<Caller> = {}): Caller => ({ tenantId: 't1', keyId: 'k1', environmentId: null, inboxId: null, scopes: ['api'], ...overrides });
const event = (overrides: Partial<{ type: string; tenantId: string; environmentId: string | null; inboxId: string }> = {}) => ({
  type: 'email.received',
  tenantId: 't1',
  environmentId: 'prod',
  ...overrides,
});

describe('realtime visibility', () => {
  it('never shows another tenant', () => {
    expect(isVisible({ caller: caller(), environmentId: null }, event({ tenantId: 't2' }))).toBe(false);
  });

  it('narrows by the key environment and by the stream filter', () => {
    expect(isVisible({ caller: caller({ environmentId: 'staging' }), environmentId: null }, event())).toBe(false);
    expect(isVisible({ caller: caller(), environmentId: 'staging' }, event())).toBe(false);
    expect(isVisible({ caller: caller(), environmentId: 'prod' }, event())).toBe(true);
  });

  it('gives inbox-scoped keys only inbox.message of their inbox', () => {
    const scope = { caller: caller({ inboxId: 'i1' }), environmentId: null };
    expect(isVisible(scope, event())).toBe(false);
    expect(isVisible(scope, event({ type: 'inbox.message', inboxId: 'i2' }))).toBe(false);
    expect(isVisible(scope, event({ type: 'inbox.message', inboxId: 'i1' }))).toBe(true);
  });
});

describe('event ids', () => {
  it('order by time, then sequence, numerically', () => {
    const ids = ['1700000000001-0', '1700000000000-10', '1700000000000-2', '999999999999-5'];
    expect([...ids].sort(compareEventIds)).toEqual(['999999999999-5', '1700000000000-2', '1700000000000-10', '1700000000001-0']);
  });
});
