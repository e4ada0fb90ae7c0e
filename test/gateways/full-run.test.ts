/**
 * A whole run behind the strictest limiter the gateway tests have: HAProxy's stick table, whose
 * http_req_rate blends the previous period into the current one and counts refused calls, at the
 * real limits (10 and 3 per 1 s window). Pacing across the whole run is the subject: every call
 * evenly spaced, the bursts of the rate-limit and concurrent-duplicate cases fitted in, and the run
 * certifies with 0 ERROR. How long it takes against the bound is a benchmark's to say
 * (`npm run bench:pacing -- --gateway haproxy`), not this test's.
 */
import { expect, test } from '@playwright/test';
import { runBehind } from '../support/gateway-run.js';

test.describe.configure({ timeout: 300_000 });

test('a full run behind HAProxy\'s stick-table limiter certifies with 0 ERROR; the package says what the gateway allowed', async () => {
  // a 1 s window: the whole run in about 50 s beside npm test's others; the limits are the real ones
  const g = await runBehind('haproxy', { windowSeconds: 1, env: { SADAD_SEED: '42' } });
  for (const v of ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN']) expect(g.results.filter((r) => r.verdict === v).map((r) => `${r.id}: ${r.notes.map((n) => n.text).join(' | ')}`), g.run.output.slice(-3000)).toEqual([]);
  expect(g.certification.outcome?.certifies, g.certification.outcome?.summary).toBe(true);
  expect(g.run.code).toBe(0);
  expect(g.results.length).toBeGreaterThan(440);
  // the pacing fits HAProxy: at most the odd call refused outside the bursts, never one that cost a case anything
  expect(g.unplannedRefusals).toBeLessThanOrEqual(2);
  expect(g.certification.observations?.availability?.pacing?.summary).toMatch(/^the gateway refused (no call|\d+ calls?)/);
  expect(g.run.output).toMatch(/\npacing: the gateway refused/);
});
