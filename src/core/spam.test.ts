import { describe, expect, it } from 'vitest';
import { spamCheckLogStatus, spamFields } from './spam.js';

const passing = { spfResult: 'pass', dkimResult: 'pass', dmarcResult: 'pass' } as const;
const report = (isSpam: boolean) => ({ score: isSpam ? 15 : 0.5, threshold: 15, isSpam, action: isSpam ? 'reject' : 'no action', rules: [] });

describe('SPAM_CHECK log status', () => {
  it('is SUCCESS for authenticated mail that is not spam, with the check on or off', () => {
    expect(spamCheckLogStatus(passing, spamFields({ state: 'off' }))).toBe('SUCCESS');
    expect(spamCheckLogStatus(passing, spamFields({ state: 'done', report: report(false) }))).toBe('SUCCESS');
    expect(spamCheckLogStatus({ ...passing, spfResult: 'none', dkimResult: 'none', dmarcResult: 'none' }, spamFields({ state: 'off' }))).toBe('SUCCESS');
  });

  it('is FAILED when SPF, DKIM or DMARC failed, or the filter calls it spam', () => {
    for (const field of ['spfResult', 'dkimResult', 'dmarcResult'] as const) expect(spamCheckLogStatus({ ...passing, [field]: 'fail' }, spamFields({ state: 'off' })), field).toBe('FAILED');
    expect(spamCheckLogStatus(passing, spamFields({ state: 'done', report: report(true) }))).toBe('FAILED');
    expect(spamCheckLogStatus({ ...passing, dmarcResult: 'fail' }, spamFields({ state: 'unavailable', reason: 'down' }))).toBe('FAILED');
  });

  it('is PENDING while the verdict is still to come', () => {
    expect(spamCheckLogStatus(passing, spamFields({ state: 'unavailable', reason: 'down' }))).toBe('PENDING');
  });
});
