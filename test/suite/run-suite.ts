export { counts, runSuite as runSuiteIn, type SuiteRun } from '../../src/prove/run-suite.js';
import { CERTIFICATION_REPORTER, runSuite as run } from '../../src/prove/run-suite.js';

/**
 * The embedded mock's window for the project's runs that are not about pacing: they share 2 cores with
 * npm test's other workers and suite runs (each detached run a scheduling group of its own, taking an
 * equal share), more load than the default 0.05 s is chosen for. There a burst of limit+1 calls took
 * 93-521 ms and a rate-limit case could only say ERROR "the limit could not be checked"; a kill test
 * met an ERROR too. The limits stay the real ones; the default window is bench:pacing's and prove's.
 */
export const LOADED_WINDOW = { MOCK_RATE_WINDOW_SECONDS: '0.25' } as const;

/**
 * A suite run for the project's tests: extra Playwright arguments only. One Playwright worker unless
 * the test says otherwise: npm test keeps both cores busy, so a second worker would only add its
 * start (about 1.3 CPU-s a run, 13% of a full one) and finish no sooner. The runs that exercise
 * several workers sharing a pacer are the shared run (support/shared-run.ts) and the certify runs.
 * Playwright's own HTML report only when `html` (a test that scans every file a run wrote for a
 * secret); the package, and its certification.html, are written by every run.
 */
export const runSuite = (env: Record<string, string>, args: string[] = [], options: { html?: boolean } = {}) =>
  run({ SADAD_WORKERS: '1', ...env }, { args, ...(options.html ? {} : { reporter: `line,${CERTIFICATION_REPORTER}` }) });
