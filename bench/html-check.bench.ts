/**
 * GET /emails/:id/html-check cost (issue 19: a 100 KB newsletter answers in under 100 ms): the
 * caniemail check of a generated newsletter, in-process, first call (loads the data set) and warm.
 * CPU time is printed beside wall time: on a shared machine the wall time includes waiting for a core.
 */
import { CaniemailHtmlChecker } from '../src/adapters/checks/caniemail.html-checker.js';
import { newsletterHtml } from '../test/helpers/newsletter.js';

const REPEAT = 20;

async function main(): Promise<void> {
  const checker = new CaniemailHtmlChecker();
  for (const kb of [10, 100, 500]) {
    const html = newsletterHtml(kb * 1024);
    const coldStart = performance.now();
    const result = await checker.check(html);
    const cold = performance.now() - coldStart;
    const times: number[] = [];
    const cpuStart = process.cpuUsage();
    for (let i = 0; i < REPEAT; i++) {
      const start = performance.now();
      await checker.check(html);
      times.push(performance.now() - start);
    }
    const cpu = process.cpuUsage(cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000 / REPEAT;
    times.sort((a, b) => a - b);
    const p = (q: number) => (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
    console.log(`${String(kb).padStart(4)} KB  first ${cold.toFixed(1)} ms  warm median ${p(0.5)} ms  p95 ${p(0.95)} ms  CPU ${cpuMs.toFixed(1)} ms  (${result.features.length} features, ${result.families.length} client families, score ${result.score})`);
  }
}

await main();
