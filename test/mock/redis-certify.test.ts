/**
 * `npm run certify` against a hosted sandbox: three replicas of the mock on one Redis behind a
 * per-request round-robin load balancer, at the real limits in a short window. The suite's
 * duplicate, flow and rate-limit cases meet a different replica on nearly every call, so the run
 * certifies only if the replicas are one sandbox.
 */
import { expect, test } from '@playwright/test';
import { startMock, type RunningMock } from '../../src/mock/index.js';
import { uniquePrefix } from '../../src/mock/store/redis.js';
import { startBalancer } from '../support/balancer.js';
import { startRedis } from '../support/redis.js';
import { counts, LOADED_WINDOW, runSuite } from '../suite/run-suite.js';

test.describe.configure({ timeout: 300_000 });

test('the full suite certifies three replicas on one Redis behind a round-robin load balancer', async () => {
  const window = Number(LOADED_WINDOW.MOCK_RATE_WINDOW_SECONDS);
  const redis = await startRedis();
  const shared = { redisUrl: redis.url, redisPrefix: uniquePrefix('certify'), rateWindowSeconds: window };
  const mocks: RunningMock[] = await Promise.all([0, 1, 2].map(() => startMock({ port: 0, ...shared })));
  const lb = await startBalancer(mocks.map((m) => m.url));
  try {
    const o = mocks[0]!.options;
    const run = await runSuite({
      SADAD_BASE_URL: lb.url, SADAD_ACCESS_TOKEN: o.accessToken, SADAD_COMPANY_ID: o.companyId, SADAD_CLIENT_ID: o.clientId, SADAD_CLIENT_SECRET: o.clientSecret,
      SADAD_RATE_WINDOW_SECONDS: String(window), SADAD_RATE_LIMIT_BILL: String(o.rateLimits.bill), SADAD_RATE_LIMIT_MOI: String(o.rateLimits.moi),
      SADAD_SEED: '20261124',
    }, ['--reporter=dot']);
    const c = counts(run);
    console.log(`certify through the balancer: ${JSON.stringify(c)} in ${Math.round(run.durationMs / 1000)} s; calls per replica ${lb.counts.join(', ')}`);
    expect(run.output, 'the run finished').toMatch(/\d+ passed/);
    expect(c.failed, run.output.slice(-3000)).toBe(0);
    expect(run.code, run.output.slice(-3000)).toBe(0);
    expect(c.passed).toBeGreaterThan(400);
    // round robin per request: every replica took a third of the calls
    const total = lb.counts.reduce((a, b) => a + b, 0);
    for (const n of lb.counts) expect(Math.abs(n - total / 3)).toBeLessThanOrEqual(1);
  } finally {
    await lb.close();
    await Promise.all(mocks.map((m) => m.close()));
    await redis.stop();
  }
});
