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

/** Mean CPU ms scaled to a 10,240-byte message, the unit of the speed target. */
function msPerTenKb(evaluation: Evaluation, meanMicros: number): number {
  return (meanMicros * 10_240) / (evaluation.totalBytes / evaluation.messages) / 1000;
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
  console.log(`-- time: mean ${(meanMicros / 1000).toFixed(3)} ms per message, ${msPerTenKb(evaluation, meanMicros).toFixed(3)} ms per 10 KB (CPU)`);
  console.log(evaluation.misses.length === 0 ? '-- no misses' : `-- misses\n${evaluation.misses.join('\n')}`);
}

/** Issue 16's targets, one line each: what was measured and whether it meets the target. */
function targetLine(label: string, met: boolean, measured: string): string {
  return `  ${label.padEnd(58)} ${(met ? 'MET' : 'NOT MET').padEnd(8)} ${measured}`;
}

function accuracyTargets(name: string, evaluation: Evaluation): string[] {
  const atLeast = (tally: Tally) => tally.precision >= 0.97 && tally.recall >= 0.97;
  return [
    targetLine(`${name}: otp precision and recall >= 0.97`, atLeast(evaluation.otp), pr(evaluation.otp)),
    targetLine(`${name}: action-link precision and recall >= 0.97`, atLeast(evaluation.links), pr(evaluation.links)),
    targetLine(`${name}: no code from a message that has none`, evaluation.codesFromCodeless === 0, `${evaluation.codesFromCodeless} messages`),
  ];
}

const corpora = { 'hand-written': loadCorpus('hand-written'), public: loadCorpus('public') };
const targets: string[] = [];
for (const [name, corpus] of Object.entries(corpora)) {
  const evaluation = evaluate(corpus);
  report(name, evaluation, meanCpuMicros(corpus));
  targets.push(...accuracyTargets(name, evaluation));
}

// The speed target is for 10 KB mails: the same messages as a sender's layout delivers them.
const tenKilobyte = [...corpora['hand-written'], ...corpora.public].map(inTenKilobyteLayout);
const tenKilobyteEvaluation = evaluate(tenKilobyte);
const tenKilobyteMicros = meanCpuMicros(tenKilobyte);
report('both corpora in a 10 KB layout', tenKilobyteEvaluation, tenKilobyteMicros);
const perTenKbMs = msPerTenKb(tenKilobyteEvaluation, tenKilobyteMicros);
targets.push(targetLine('extraction < 0.1 ms CPU per 10 KB message (mean)', perTenKbMs < 0.1, `${perTenKbMs.toFixed(3)} ms`));
console.log(`\nissue 16 targets (time only means something on a quiet machine):\n${targets.join('\n')}`);
