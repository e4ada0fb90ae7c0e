/**
 * The projects of test/playwright.config.ts hold to their rule: a test file of the `unit` project
 * (every file not listed as end-to-end or signals) calls none of the helpers that start a suite run,
 * the client judge, a gateway or Redis; and every file listed exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E, SIGNALS, TIMING } from './playwright.config.js';

const TEST_DIR = import.meta.dirname;
/** Calls that start a child run of the suite or the client judge, a gateway or Redis (test/support, test/reporter/helpers.ts, test/suite/run-suite.ts, src/prove). */
const CHILD_RUNS = /\b(runSuite|runSuiteIn|certify|startCertify|runBehind|sharedRun|copyOfSharedRun|makeSharedRun|runSampleClient|startGateway|startRedis|sharedRedis)\(|certify-client\.ts|src\/prove\/cli\.ts|soak-child/;

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' ? [] : testFiles(p);
    return name.endsWith('.test.ts') ? [relative(TEST_DIR, p)] : [];
  });
}

test('every end-to-end and signals file listed exists', () => {
  expect([...E2E, ...SIGNALS, ...TIMING].filter((f) => !existsSync(join(TEST_DIR, f)))).toEqual([]);
});

test('no unit test file starts a suite run, the client judge, a gateway or Redis (those are listed as end-to-end)', () => {
  const unit = testFiles(TEST_DIR).filter((f) => !E2E.includes(f) && !SIGNALS.includes(f) && f !== 'projects.test.ts');
  expect(unit.length).toBeGreaterThan(30);
  expect(unit.filter((f) => CHILD_RUNS.test(readFileSync(join(TEST_DIR, f), 'utf8')))).toEqual([]);
  // and the rule is not vacuous: the end-to-end files do call them (aside from the load runs, and
  // the CI templates' mock job, which runs their `npm run certify` line through bash)
  expect(E2E.filter((f) => !/soak|fuzz|mock-job/.test(f) && !CHILD_RUNS.test(readFileSync(join(TEST_DIR, f), 'utf8')))).toEqual([]);
});
