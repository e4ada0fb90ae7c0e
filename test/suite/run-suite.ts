/** Runs the conformance suite (`playwright test` with the top-level config) in a child process, into a temp folder. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

export interface SuiteRun { code: number | null; output: string; reportsDir: string; resultsDir: string; durationMs: number }

export function runSuite(env: Record<string, string>, args: string[] = []): Promise<SuiteRun> {
  const dir = mkdtempSync(join(tmpdir(), 'sadad-suite-'));
  const reportsDir = join(dir, 'reports');
  const resultsDir = join(dir, 'test-results');
  const started = Date.now();
  // a clean environment: only what the test says, plus what Node needs to run
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, CI: '1', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') };
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/playwright'), ['test', '-c', join(ROOT, 'playwright.config.ts'), '--reporter=line,html,junit', ...args], {
      cwd: ROOT, env: { ...base, SADAD_REPORTS_DIR: reportsDir, SADAD_RESULTS_DIR: resultsDir, PLAYWRIGHT_HTML_OUTPUT_DIR: join(reportsDir, 'html'), PLAYWRIGHT_JUNIT_OUTPUT_NAME: join(reportsDir, 'junit.xml'), ...env },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output, reportsDir, resultsDir, durationMs: Date.now() - started }));
  });
}

/** `N passed`, `N failed`, `N skipped` from Playwright's closing lines. */
export function counts(output: string): { passed: number; failed: number; skipped: number } {
  const n = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(output)?.[1] ?? 0);
  return { passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}
