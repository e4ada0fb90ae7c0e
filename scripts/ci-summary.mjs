// Prints `N passed, N failed[, N skipped]` over Playwright JSON reports (the line CI reads).
import { existsSync, readFileSync } from 'node:fs';

// `--failed-steps N` counts CI steps outside Playwright (typecheck, ...) that failed.
const args = process.argv.slice(2);
const stepsAt = args.indexOf('--failed-steps');
let passed = 0, failed = stepsAt >= 0 ? Number(args.splice(stepsAt, 2)[1]) : 0, skipped = 0;
for (const file of args) {
  if (!existsSync(file)) { console.error(`ci-summary: ${file} is missing (the run did not finish)`); failed += 1; continue; }
  const { stats } = JSON.parse(readFileSync(file, 'utf8'));
  passed += stats.expected + stats.flaky;
  failed += stats.unexpected;
  skipped += stats.skipped;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
