import { describe, expect, it } from 'vitest';
import { evaluate, loadCorpus } from '../helpers/extraction-corpus.js';

/**
 * Issue 16 targets on both corpora: the hand-written one and the default templates of open-source
 * projects (test/fixtures/extraction/public). `npm run bench:extraction` prints the same figures per
 * class and language, with every miss and the time per message.
 */
describe.each(['hand-written', 'public'] as const)('extraction on the %s corpus', (which) => {
  const evaluation = evaluate(loadCorpus(which));

  it('finds the otp with precision and recall of at least 0.97', () => {
    if (evaluation.misses.length > 0) console.log(evaluation.misses.join('\n'));
    expect(evaluation.otp.precision).toBeGreaterThanOrEqual(0.97);
    expect(evaluation.otp.recall).toBeGreaterThanOrEqual(0.97);
  });

  it('finds and names the action links with precision and recall of at least 0.97', () => {
    expect(evaluation.links.precision).toBeGreaterThanOrEqual(0.97);
    expect(evaluation.links.recall).toBeGreaterThanOrEqual(0.97);
  });

  it('finds no code in a message that has none', () => {
    expect(evaluation.codesFromCodeless).toBe(0);
  });
});

describe('the public corpus', () => {
  const corpus = loadCorpus('public');

  it('records the source of every template and covers codes of every shape in several languages', () => {
    for (const message of corpus) expect(message.source, message.name).toMatchObject({ repo: expect.any(String), path: expect.any(String), commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(new Set(corpus.map((m) => m.lang))).toEqual(new Set(['en', 'de', 'fr', 'es', 'pt', 'it', 'nl', 'ru', 'ja', 'zh']));
    const otps = corpus.flatMap((m) => (m.expect.otp ? [m.expect.otp] : []));
    expect(otps).toEqual(expect.arrayContaining(['HZCB-PLFG', 'HJJKIB', 'wRw8IrRO', 'UCM743', '7391']));
  });
});
