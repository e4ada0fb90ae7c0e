import { dirname } from 'node:path';
import { defineConfig } from '@playwright/test';
import { processSettings } from '../config/settings.js';

/**
 * A multi-target run (`npm run prove`): the suite's cases once per target of SADAD_TARGETS, in one
 * Playwright run. Many of its cases wait on a target's window (1 s at most) rather than on the CPU,
 * so it keeps more workers than cores.
 */
const settings = processSettings();
const workers = settings.run.workers ?? 6;
export default defineConfig({
  // the slice files the run wrote beside its targets file (targets-slice.ts)
  testDir: dirname(settings.run.targetsFile ?? '.'),
  testMatch: 'slice-*.spec.ts',
  outputDir: settings.run.resultsDir,
  globalSetup: './targets-setup.ts',
  fullyParallel: true,
  workers,
  timeout: (workers * 3 + 10) * 1000 + 60_000,
  retries: 0,
  reporter: 'dot',
  use: { trace: 'off', screenshot: 'off', video: 'off' },
});
