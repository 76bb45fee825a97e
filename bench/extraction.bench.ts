/**
 * Extraction accuracy and speed on both corpora (issue 16): precision and recall of `otp` and of
 * action links, per code class, link kind and language, every miss, and mean time per message.
 * In-process and single-threaded: it measures extractArtefacts alone, not ingest. Times are CPU time
 * of this process (user + system), which moves less than wall time on a shared machine.
 */
import { evaluate, loadCorpus, type CorpusMessage, type Evaluation, type Tally } from '../test/helpers/extraction-corpus.js';
import { inTenKilobyteLayout } from './support/ten-kilobyte-mail.js';

const REPEAT = 50;
const pr = (tally: Tally) => `P ${tally.precision.toFixed(3)}  R ${tally.recall.toFixed(3)}  (tp ${tally.tp}, fp ${tally.fp}, fn ${tally.fn})`;

/** Mean CPU µs per message over REPEAT warm runs (the first run pays for compiling the regexes). */
function meanCpuMicros(corpus: CorpusMessage[]): number {
  evaluate(corpus);
  const before = process.cpuUsage();
  // Only extraction is timed inside evaluate; the scoring around it is subtracted via its own wall share.
  let extractionMs = 0;
  let wallMs = 0;
  for (let i = 0; i < REPEAT; i++) {
    const started = performance.now();
    extractionMs += evaluate(corpus).totalMs;
    wallMs += performance.now() - started;
  }
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * (extractionMs / wallMs)) / REPEAT / corpus.length;
}

function report(name: string, evaluation: Evaluation, meanMicros: number): void {
  console.log(`\n== ${name}: ${evaluation.messages} messages, mean ${(evaluation.totalBytes / evaluation.messages / 1024).toFixed(1)} KB`);
  console.log(`otp            ${pr(evaluation.otp)}`);
  console.log(`action links   ${pr(evaluation.links)}`);
  console.log(`codes from messages without one: ${evaluation.codesFromCodeless}`);
  console.log('-- by class');
  for (const [key, tally] of [...evaluation.byClass].sort(([a], [b]) => a.localeCompare(b))) console.log(`${key.padEnd(22)} ${pr(tally)}`);
  console.log('-- by language');
  for (const [lang, tallies] of [...evaluation.byLanguage].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`${lang.padEnd(4)} otp ${pr(tallies.otp)} | links ${pr(tallies.links)}`);
  }
  const perTenKb = (meanMicros * 10_240) / (evaluation.totalBytes / evaluation.messages);
  console.log(`-- time: mean ${(meanMicros / 1000).toFixed(3)} ms per message, ${(perTenKb / 1000).toFixed(3)} ms per 10 KB (CPU)`);
  console.log(evaluation.misses.length === 0 ? '-- no misses' : `-- misses\n${evaluation.misses.join('\n')}`);
}

const corpora = { 'hand-written': loadCorpus('hand-written'), public: loadCorpus('public') };
for (const [name, corpus] of Object.entries(corpora)) report(name, evaluate(corpus), meanCpuMicros(corpus));

// The speed target is for 10 KB mails: the same messages as a sender's layout delivers them.
const tenKilobyte = [...corpora['hand-written'], ...corpora.public].map(inTenKilobyteLayout);
report('both corpora in a 10 KB layout', evaluate(tenKilobyte), meanCpuMicros(tenKilobyte));
