import { defineConfig } from '@playwright/test';

/**
 * The project's own tests (`npm test`); the conformance suite has its own config at the top level.
 * The projects, all run by `npm test`:
 *
 * - `unit` (`npm run test:unit`, the inner loop): the tests that run in the test process itself.
 *   The rule: a unit test file starts no child process that runs the suite or the client judge (a
 *   Playwright run, `npm run certify`, `certify-client`, `prove`), no gateway (nginx, HAProxy,
 *   Squid), no redis-server, and no load run (the soak, the fuzz). Short helper processes are
 *   allowed (the mock's own CLI, a node one-liner, bash around a fake npm or git). Every other test
 *   file is end-to-end and listed in E2E below; test/projects.test.ts holds the list to the rule.
 * - `e2e-long`, `e2e`: the tests with child runs, gateways, Redis and load, at most 4 at a time each
 *   (E2E_WORKERS), beside the unit tests; the long files first (E2E_LONG). The ones that only read a
 *   full clean package share one run (test/support/shared-run.ts: the first to ask makes it);
 *   `shared-run-check`, their teardown, fails if a test changed it.
 * - `timing`: unit tests that measure milliseconds (TIMING), after the end-to-end tests.
 * - `signals`: the tests that stop a run with a signal (kill, interrupt), after the end-to-end tests
 *   too, two at a time, with only the timing tests beside them: under the other workers' load a case
 *   in flight met an ERROR as the run stopped, and a SIGTERM let a run go on to its end (each seen
 *   once in CI). The two sit well together: the timing tests mostly wait on their timers, and a
 *   signal test's run is a session of its own (setsid), which Linux schedules as a group apart from
 *   the test workers (autogroup), at the lowest priority (test/reporter/helpers.ts, runsYieldCpu:
 *   at an equal share a timing test's 9 paced calls once took 70 ms longer than allowed), so a
 *   timing test waking up is not queued behind it. Side by side the two take about 36 s, one after
 *   the other 48 s (measured on the 2-core machine).
 *
 * Most tests wait (on windows, child runs, timers) rather than compute: 6 workers on 2 cores
 * (`TEST_WORKERS=N`), at most 4 of them end-to-end, so that two run the unit tests from the start.
 * `npm run test:unit` runs the unit and timing projects alone (`--no-deps`).
 */
export const SIGNALS = ['reporter/kill.test.ts', 'reporter/interrupt.test.ts'];
/**
 * Unit tests that measure time in milliseconds (the pacer's schedule, the mock's limiters): beside
 * the end-to-end runs, which keep both cores busy, their timers fire late (seen: 15 and 170 ms).
 * Their own project, after the end-to-end ones, with only unit tests beside them.
 */
export const TIMING = ['pacer/budget.test.ts', 'mock/rate-limit.test.ts', 'mock/limiters.test.ts'];
/**
 * The end-to-end files whose longest test takes 15 s or more (measured in npm test on the 2-core
 * machine): a project of their own, dispatched first (Playwright hands out tests project by project,
 * in the config's order), so that the long ones do not start last and leave a tail.
 */
export const E2E_LONG = [
  'reporter/regression.test.ts', 'gateways/outages.test.ts', 'gateways/full-run.test.ts', 'suite/outage.test.ts',
  'net/full-run.test.ts', 'suite/certify-against-mock.test.ts', 'ci/mock-job.test.ts', 'mock/soak.test.ts',
  'mock/redis-certify.test.ts', 'gateways/limiters.test.ts', 'replay/rejudge.test.ts', 'judge/certify-client.test.ts',
  'suite/transient.test.ts', 'suite/honest-verdicts.test.ts', 'mock/companies-judge.test.ts', 'reporter/smoke-availability.test.ts',
  'judge/postman.test.ts', 'spec/downstream.test.ts',
];
export const E2E = [
  ...E2E_LONG,
  'attest/keys.test.ts', 'attest/package.test.ts',
  'client/curl.test.ts',
  'judge/cli-args.test.ts',
  'mock/fuzz.test.ts',
  'mock/redis-limiters.test.ts', 'mock/redis-outage.test.ts', 'mock/redis-replicas.test.ts',
  'net/material.test.ts', 'net/tls.test.ts',
  'preflight/gateway-mtls.test.ts', 'preflight/preflight.test.ts',
  'reporter/certification.test.ts', 'reporter/dry-run.test.ts', 'reporter/har.test.ts',
  'reporter/rerun.test.ts', 'reporter/resume-refusal.test.ts',
  'suite/bad-targets.test.ts', 'suite/secrets.test.ts',
  'verify/verify.test.ts',
];

/** The end-to-end tests at a time (`TEST_E2E_WORKERS=N` to change it). */
const E2E_WORKERS = Number(process.env.TEST_E2E_WORKERS) || 4;

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.test.ts',
  outputDir: '../test-results/unit',
  globalSetup: './global-setup.ts',
  fullyParallel: true,
  workers: Number(process.env.TEST_WORKERS) || 6,
  forbidOnly: !!process.env.CI,
  reporter: [['list'], ['json', { outputFile: '../test-results/unit-results.json' }]],
  timeout: 60_000,
  // the tests that open a report page (`page`) do it in Debian Chromium (Playwright cannot download
  // browsers here); set once for all, since a file's own test.use would give it workers of its own,
  // started afresh and queued after every other file's tests
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] },
  },
  projects: [
    // e2e first: its long tests start first; at most 4 at a time (they compute: child runs, gateways),
    // so that from the start two workers run the unit tests, most of whose time is waits on windows
    { name: 'e2e-long', testMatch: E2E_LONG, teardown: 'shared-run-check', workers: E2E_WORKERS },
    // after e2e (and so after unit and the shared run too: earlier phases), beside timing; listed
    // before it so that its long tests are handed out first and timing's short ones fill around them
    { name: 'signals', testMatch: SIGNALS, dependencies: ['e2e-long', 'e2e'], workers: 2 },
    // before unit: alone (`npm run test:unit`, --no-deps) its long waits start first
    { name: 'timing', testMatch: TIMING, dependencies: ['e2e-long', 'e2e'] },
    { name: 'unit', testIgnore: [...E2E, ...SIGNALS, ...TIMING] },
    { name: 'e2e', testMatch: E2E.filter((f) => !E2E_LONG.includes(f)), teardown: 'shared-run-check', workers: E2E_WORKERS },
    { name: 'shared-run-check', testMatch: 'shared-run.teardown.ts' },
  ],
});
