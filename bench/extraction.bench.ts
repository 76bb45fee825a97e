/**
 * Extraction accuracy and speed on both corpora (issue 16): precision and recall of `otp` and of
 * action links, per code class, link kind and language, every miss, and mean time per message.
 * In-process and single-threaded: it measures extractArtefacts alone, not ingest.
 */
import { evaluate, loadCorpus, type Evaluation, type Tally } from '../test/helpers/extraction-corpus.js';

const REPEAT = 20;
const pr = (tally: Tally) => `P ${tally.precision.toFixed(3)}  R ${tally.recall.toFixed(3)}  (tp ${tally.tp}, fp ${tally.fp}, fn ${tally.fn})`;

function report(name: string, evaluation: Evaluation, meanMs: number): void {
  console.log(`\n== ${name}: ${evaluation.messages} messages`);
  console.log(`otp            ${pr(evaluation.otp)}`);
  console.log(`action links   ${pr(evaluation.links)}`);
  console.log(`codes from messages without one: ${evaluation.codesFromCodeless}`);
  console.log('-- by class');
  for (const [key, tally] of [...evaluation.byClass].sort(([a], [b]) => a.localeCompare(b))) console.log(`${key.padEnd(22)} ${pr(tally)}`);
  console.log('-- by language');
  for (const [lang, tallies] of [...evaluation.byLanguage].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`${lang.padEnd(4)} otp ${pr(tallies.otp)} | links ${pr(tallies.links)}`);
  }
  const perTenKb = (meanMs * 10_240) / (evaluation.totalBytes / evaluation.messages);
  console.log(`-- time: mean ${(meanMs * 1000).toFixed(1)} µs per message, ${(perTenKb * 1000).toFixed(1)} µs per 10 KB`);
  console.log(evaluation.misses.length === 0 ? '-- no misses' : `-- misses\n${evaluation.misses.join('\n')}`);
}

for (const which of ['hand-written', 'public'] as const) {
  const corpus = loadCorpus(which);
  const first = evaluate(corpus);
  // Warm runs for the time: the first pays for compiling the regexes.
  let totalMs = 0;
  for (let i = 0; i < REPEAT; i++) totalMs += evaluate(corpus).totalMs;
  report(which, first, totalMs / REPEAT / corpus.length);
}
