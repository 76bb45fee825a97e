import { describe, expect, it } from 'vitest';
import { SpamFilterUnavailableError } from '../../ports/spam-filter.js';
import { parseRspamdResult } from './rspamd.spam-filter.js';

describe('rspamd /checkv2 answer', () => {
  it('becomes a report: score, required_score as threshold, action, rules by effect', () => {
    const body = JSON.stringify({
      is_skipped: false,
      score: 7.300001,
      required_score: 15,
      action: 'add header',
      symbols: {
        MIME_GOOD: { name: 'MIME_GOOD', score: -0.1, metric_score: -0.1, description: 'Known content-type', options: ['text/plain'] },
        HFILTER_HOSTNAME_UNKNOWN: { name: 'HFILTER_HOSTNAME_UNKNOWN', score: 2.5, metric_score: 2.5, description: 'Unknown client hostname' },
        MIME_TRACE: { name: 'MIME_TRACE', score: 0, metric_score: 0, options: ['0:+'] },
      },
    });
    expect(parseRspamdResult(body)).toEqual({
      score: 7.3,
      threshold: 15,
      isSpam: false,
      action: 'add header',
      rules: [
        { name: 'HFILTER_HOSTNAME_UNKNOWN', score: 2.5, description: 'Unknown client hostname', options: [] },
        { name: 'MIME_GOOD', score: -0.1, description: 'Known content-type', options: ['text/plain'] },
        { name: 'MIME_TRACE', score: 0, description: null, options: ['0:+'] },
      ],
    });
  });

  it('is spam from the required score on', () => {
    expect(parseRspamdResult(JSON.stringify({ score: 15, required_score: 15, action: 'reject', symbols: { GTUBE: { name: 'GTUBE', score: 0 } } })).isSpam).toBe(true);
  });

  it('refuses an answer that is not rspamd JSON as unavailable', () => {
    expect(() => parseRspamdResult('<html>')).toThrow(SpamFilterUnavailableError);
    expect(() => parseRspamdResult('{"error":"bad"}')).toThrow(SpamFilterUnavailableError);
  });
});
