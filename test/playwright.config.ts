import { defineConfig } from '@playwright/test';

/** The project's own tests (`npm test`); the conformance suite has its own config at the top level. */
export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  outputDir: '../test-results/unit',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '../test-results/unit-results.json' }]],
  timeout: 60_000,
});
