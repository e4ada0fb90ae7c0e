import { defineConfig } from '@playwright/test';

/**
 * The project's own tests (`npm test`); the conformance suite has its own config at the top level.
 * Most of them wait (on windows, child runs, timers) rather than compute: on 2 cores the default
 * (half the cores: 1 worker) ran them one by one in 443 s; 4 workers take about 200 s.
 * The tests that stop a run with a signal (kill, interrupt) run last, two at a time, with nothing
 * else beside them: under the other workers' load a case in flight met an ERROR as the run
 * stopped, and a SIGTERM let a run go on to its end (each seen once in CI).
 */
const SIGNALS = ['reporter/kill.test.ts', 'reporter/interrupt.test.ts'];
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  outputDir: '../test-results/unit',
  fullyParallel: true,
  workers: Number(process.env.TEST_WORKERS) || 4,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '../test-results/unit-results.json' }]],
  timeout: 60_000,
  projects: [
    { name: 'tests', testIgnore: SIGNALS },
    { name: 'signals', testMatch: SIGNALS, dependencies: ['tests'], workers: 2 },
  ],
});
