/**
 * `npm run certify` against the embedded mock reports no FAIL and no ERROR, with every reporter and
 * exit code 0: as it comes (sample style, HTTP errors, real limits, in a loaded window: the shared
 * run, test/support/shared-run.ts) and shaped like a deployment
 * (table style, its own prefixes, signed, client headers required; raised limits, since it is about
 * shapes, not pacing). `npm run prove` puts the suite to all four style and error-form combinations
 * and each limiter kind at the real limits (the in-band form's run here repeated its sample-style
 * target, with raised limits, and was left to it).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from '../../src/paths.js';
import { counts, LOADED_WINDOW, runSuite, type SuiteRun } from './run-suite.js';
import { planVersusSent } from './plan-vs-sent.js';
import { expectVerdictsReproduced } from '../replay/helpers.js';
import { sharedRun } from '../support/shared-run.js';

test.describe.configure({ mode: 'parallel', timeout: 300_000 });

// higher limits over a longer window: the same budget per second, several times the calls per window
const RAISED = { MOCK_RATE_LIMIT_BILL: '40', MOCK_RATE_LIMIT_MOI: '30', MOCK_RATE_WINDOW_SECONDS: '2' };
// a real deployment's shape: its own tag and header prefixes, signed requests, client headers required
const DEPLOYMENT = {
  SADAD_TAG_PREFIX: 'OSV', SADAD_HEADER_PREFIX: 'SV', MOCK_REQUIRE_CLIENT_HEADERS: '1',
  SADAD_SIGNING_KEY: join(ROOT, 'data/test-keys/signing-private.pem'), MOCK_SIGNATURE_PUBLIC_KEY: join(ROOT, 'data/test-keys/signing-public.pem'),
};
/** The checks of a full run against the embedded mock: no FAIL and no ERROR, `skipped` cases skipped (the signature cases when nothing is signed). */
async function expectPasses(run: SuiteRun, skipped: number): Promise<void> {
  const c = counts(run);
  expect(run.output, 'the run finished').toMatch(/\d+ passed/);
  expect(c.failed, run.output.slice(-3000)).toBe(0);
  expect(run.code).toBe(0);
  expect(c.passed).toBeGreaterThan(400);
  expect(c.skipped).toBe(skipped);
  const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8'));
  for (const [op, s] of Object.entries<{ calls: number }>(pacing.operations)) expect(s.calls, op).toBeGreaterThan(20);
  // the plan (the dry run's, in the package) says what a clean run sends, per operation
  const plan = planVersusSent(run.reportsDir);
  expect(plan.problems, `planned ${JSON.stringify(plan.planned)}, sent ${JSON.stringify(plan.sent)}`).toEqual([]);
  // evidence is the source of truth: re-judged from it, every verdict is the one the run gave
  await expectVerdictsReproduced(run.reportsDir);
}

// as it comes (sample style, HTTP errors, the real limits in LOADED_WINDOW): the shared run
// (test/support/shared-run.ts), which the attestation, verify-package and regression tests read too
test('the full suite passes against the embedded mock: sample style, HTTP errors, real limits', async () => {
  const run = await sharedRun();
  expect(run.env).toMatchObject({ MOCK_STYLE: 'sample', MOCK_ERRORS: 'http', ...LOADED_WINDOW });
  await expectPasses(run, 8);
});

test('the full suite passes against the embedded mock: table style, HTTP errors, OSV/SV prefixes, signed, client headers required', async () => {
  await expectPasses(await runSuite({ MOCK_STYLE: 'table', MOCK_ERRORS: 'http', ...RAISED, ...DEPLOYMENT }), 0);
});
