import { defineConfig } from '@playwright/test';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { EMBEDDED_MOCK_WINDOW_SECONDS } from './src/config/index.js';
import { loadEnvFile } from './src/config/env-file.js';
import { reportsDir, resultsDir } from './src/paths.js';
import { allCases } from './src/suite/cases.js';
import { caseFilter } from './src/vocabulary/selection.js';

const SMALL_SELECTION = 60;

// Pacer waits scale with the target's window: a case may queue behind a few windows of others' calls.
try { loadEnvFile(); } catch { /* reported, naming the variable, by the global setup */ }
const windowSeconds = Number(process.env.SADAD_RATE_WINDOW_SECONDS || process.env.MOCK_RATE_WINDOW_SECONDS || (process.env.SADAD_BASE_URL ? 60 : EMBEDDED_MOCK_WINDOW_SECONDS)) || 60;
// Against a sandbox the run waits on its budgets: 4 workers keep all four operations' budgets busy.
// Against the embedded mock it is CPU-bound: more workers than cores only add process overhead, and
// a narrowed selection of a few dozen cases takes less than a second worker's start (about 1 CPU-s).
const narrowed = !process.env.SADAD_BASE_URL && !!(process.env.SADAD_CASES || process.env.SADAD_RUN_ONLY) && selectedCount() < SMALL_SELECTION;
const workers = Number(process.env.SADAD_WORKERS) || (process.env.SADAD_BASE_URL ? 4 : narrowed ? 1 : Math.max(2, Math.min(4, availableParallelism())));

/** The cases the selection keeps; a selection that names a variable wrongly counts as large (the global setup reports it). */
function selectedCount(): number {
  try {
    const keep = caseFilter();
    return allCases().filter(([def]) => keep(def.id)).length;
  } catch {
    return SMALL_SELECTION;
  }
}

/**
 * The conformance suite (`npm run certify`). Tracing, screenshots and video stay off: Playwright
 * would record request headers (bearer token, client secret) in them. Evidence is attached by the
 * project's own client, masked.
 */
export default defineConfig({
  testDir: './specs',
  outputDir: resultsDir(),
  globalSetup: './src/run/global-setup.ts',
  fullyParallel: true,
  workers,
  timeout: (workers * 3 + 10) * windowSeconds * 1000 + 60_000,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // the certification reporter writes junit.xml itself, from the verdicts (FAIL a <failure>, ERROR an <error>, ...)
  reporter: [['list'], ['html', { outputFolder: join(reportsDir(), 'html'), open: 'never' }], ['./src/reporter/certification.ts']],
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
