import { defineConfig } from '@playwright/test';

/** The project's own tests (`npm test`); the conformance suite has its own config at the top level. */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  outputDir: '../test-results/unit',
  fullyParallel: true,
  // Most of these tests wait (on windows, child runs, timers) rather than compute: on 2 cores the
  // default (half the cores: 1 worker) ran them one by one in 443 s; 4 workers take about 240 s
  workers: Number(process.env.TEST_WORKERS) || 4,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '../test-results/unit-results.json' }]],
  timeout: 60_000,
});
