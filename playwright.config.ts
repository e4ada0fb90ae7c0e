import { defineConfig } from '@playwright/test';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './src/config/index.js';
import { processSettingsOrError } from './src/config/settings.js';
import { REPORTS_DIR, ROOT } from './src/paths.js';
import { allCases, registrationOf } from './src/suite/cases.js';
import { caseFilter } from './src/vocabulary/selection.js';

const SMALL_SELECTION = 60;

// the run's settings (config/settings.ts); a configuration error is reported, naming the variable, by the global setup
const read = processSettingsOrError();
const settings = read instanceof ConfigError ? null : read;
const againstTarget = !!settings?.suite.baseUrl;
// Pacer waits scale with the target's window: a case may queue behind a few windows of others' calls.
const windowSeconds = settings?.run.limits.windowSeconds ?? 60;
// Against a sandbox the run waits on its budgets: 4 workers keep all four operations' budgets busy.
// Against the embedded mock it is CPU-bound: more workers than cores only add process overhead, and
// a narrowed selection of a few dozen cases takes less than a second worker's start (about 1 CPU-s).
const narrowed = !!settings && !againstTarget && !!(settings.run.selection.cases.length || settings.run.selection.runOnly) && selectedCount() < SMALL_SELECTION;
const workers = settings?.run.workers ?? (againstTarget ? 4 : narrowed ? 1 : Math.max(2, Math.min(4, availableParallelism())));

/** The cases the selection keeps. */
function selectedCount(): number {
  const keep = caseFilter(settings!.run.selection);
  return allCases(registrationOf(settings!)).filter(([def]) => keep(def.id)).length;
}

/**
 * The conformance suite (`npm run certify`). Tracing, screenshots and video stay off: Playwright
 * would record request headers (bearer token, client secret) in them. Evidence is attached by the
 * project's own client, masked.
 */
export default defineConfig({
  testDir: './specs',
  outputDir: settings?.run.resultsDir ?? join(ROOT, 'test-results/certify'),
  globalSetup: './src/run/global-setup.ts',
  fullyParallel: true,
  workers,
  timeout: (workers * 3 + 10) * windowSeconds * 1000 + 60_000,
  forbidOnly: !!settings?.variables.CI,
  retries: 0,
  // the certification reporter writes junit.xml itself, from the verdicts (FAIL a <failure>, ERROR an <error>, ...)
  reporter: [['list'], ['html', { outputFolder: join(settings?.run.reportsDir ?? REPORTS_DIR, 'html'), open: 'never' }], ['./src/reporter/certification.ts']],
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
