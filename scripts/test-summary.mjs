// Prints the plain "N passed, M failed, K skipped" line CI reads, from vitest's JSON report.
// Exits 1 when the report is missing (typecheck or lint failed before vitest ran) or anything failed.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'test-results/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = report.numFailedTests ?? 0;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
const brokenFiles = (report.testResults ?? []).filter((r) => r.status === 'failed' && (r.assertionResults ?? []).length === 0).length;
console.log(`${passed} passed, ${failed + brokenFiles} failed, ${skipped} skipped`);
process.exit(failed + brokenFiles > 0 || report.success === false ? 1 : 0);
