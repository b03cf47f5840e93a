// Prints "N passed, N failed" from vitest's JSON report; exits non-zero on a failure or when no test ran.
import { existsSync, readFileSync } from 'node:fs';

const path = process.argv[2] ?? '.reports/vitest.json';
if (!existsSync(path)) {
  console.log('no vitest report: the typecheck or lint step failed before the tests ran');
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const report = JSON.parse(readFileSync(path, 'utf8'));
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 || report.success === false ? 1 : 0);
