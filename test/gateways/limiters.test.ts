/**
 * The suite behind the limiters real gateways run (design.md §6), each a real nginx or HAProxy from
 * Debian in front of the mock (examples/gateways/), or the mock's own clock-aligned window, at the
 * real limits (10 and 3 calls per 1.5 s window, keyed per operation and CompanyId). The whole run
 * is not the subject here, so each run is narrowed to the cases that meet the limiter head on: the
 * rate-limit cases, the concurrent duplicates (the only other bursts) and the cases their operations
 * build on. The full run behind the strictest of them is in full-run.test.ts.
 */
import { expect, test } from '@playwright/test';
import { runBehind, type GatewayRun } from '../support/gateway-run.js';
import { expectVerdictsReproduced } from '../replay/helpers.js';

test.describe.configure({ mode: 'parallel', timeout: 180_000 });

const NARROWED = { SADAD_CASES: '*.rate.limit,*.dup.concurrent,*.res.schema,bill-enquiry.req.AccountNumber.*,moi-payment.flow.*', SADAD_SEED: '24' };

const rate = (g: GatewayRun) => g.results.filter((r) => r.family === 'rate-limit');
const byVerdict = (g: GatewayRun, v: string) => g.results.filter((r) => r.verdict === v).map((r) => `${r.id}: ${r.notes.map((n) => n.text).join(' | ')}`);
const text = (r: { notes: { verdict: string; text: string }[] }, verdict: string) => r.notes.filter((n) => n.verdict === verdict).map((n) => n.text).join(' | ');

/** No FAIL, ERROR, INCONCLUSIVE or NOT_RUN, and no call refused outside the bursts. */
function expectClean(g: GatewayRun): void {
  for (const v of ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN']) expect(byVerdict(g, v), `${v}\n${g.run.output.slice(-2000)}`).toEqual([]);
  expect(g.results.length).toBeGreaterThanOrEqual(15);
}

test('nginx limit_req with burst and 429: every rate-limit case sees the limit enforced and reset; nothing else is refused', async () => {
  const g = await runBehind('nginx-burst', { env: NARROWED });
  expectClean(g);
  expect(g.unplannedRefusals).toBe(0);
  // nginx sends no Retry-After with its 429: a WARN of the common practice, not of the limit
  for (const r of rate(g)) expect([r.id, r.verdict, text(r, 'WARN')]).toEqual([r.id, 'WARN', '429 without a Retry-After header']);
});

test('nginx limit_req with its default 503: the limiter, seen refusing exactly the calls over the limit, WARNs on the status; never ERROR', async () => {
  const g = await runBehind('nginx-503', { env: NARROWED });
  expectClean(g);
  for (const r of rate(g)) {
    expect(r.verdict).toBe('WARN');
    expect(text(r, 'WARN')).toMatch(/refuses a call over the limit with HTTP 503 .*so it is the limiter, not an outage/);
  }
  // read as the limiter's answer from then on, and said so in the package
  expect(g.pacing.overLimit).toEqual(expect.arrayContaining([expect.objectContaining({ status: 503 })]));
  expect(g.certification.observations?.availability?.pacing?.summary).toMatch(/over-limit answer other than 429: HTTP 503/);
  await expectVerdictsReproduced(g.run.reportsDir);
});

test('HAProxy\'s stick table (http_req_rate blends the previous period in, counts refused calls): no ERROR, no FAIL; a late reset is measured and WARNed', async () => {
  const g = await runBehind('haproxy', { env: NARROWED });
  expectClean(g);
  for (const r of rate(g)) {
    expect(['PASS', 'WARN']).toContain(r.verdict);
    // within two windows after the window: what HAProxy's blending costs a call sent right after it
    expect(text(r, 'WARN'), r.id).toMatch(/^(429 without a Retry-After header)?( \| )?(the limit resets \d+ ms after the window: a call \d+ ms after it was still refused .*)?$/);
  }
  expect(g.unplannedRefusals, 'calls HAProxy refused outside the bursts').toBeLessThanOrEqual(1);
});

test('nginx limit_req without burst: only the rate-limit cases FAIL, naming the spacing, under one cause per operation at most; the concurrent duplicates are INCONCLUSIVE under them; 0 ERROR', async () => {
  const g = await runBehind('nginx-no-burst', { env: NARROWED });
  expect(byVerdict(g, 'ERROR')).toEqual([]);
  expect(byVerdict(g, 'NOT_RUN')).toEqual([]);
  const failing = g.results.filter((r) => r.verdict === 'FAIL');
  expect(failing.map((r) => r.id).sort()).toEqual(['bill-enquiry.rate.limit', 'bill-payment.rate.limit', 'moi-enquiry.rate.limit', 'moi-payment.rate.limit']);
  // one, or on a loaded machine two (calls that left a spacing apart: nginx rightly let the later one through)
  for (const r of failing) expect(text(r, 'FAIL')).toMatch(new RegExp(`^accepts [12] of ${r.op.startsWith('bill') ? 11 : 4} calls sent together: (after them, )?calls are let through one per ~${r.op.startsWith('bill') ? 150 : 500} ms .*not ${r.op.startsWith('bill') ? 10 : 3} per 1.5 s window`));
  expect(byVerdict(g, 'INCONCLUSIVE').map((x) => x.split(':')[0]).sort()).toEqual(['bill-payment.dup.concurrent', 'moi-payment.dup.concurrent']);
  const causes = g.certification.causes ?? [];
  expect(causes.length, causes.map((c) => c.signature).join('\n')).toBeGreaterThanOrEqual(1);
  expect(causes.length).toBeLessThanOrEqual(4);
  for (const c of causes) expect(c.signature).toMatch(/the limiter lets calls through one per ~(150|500) ms/);
});

test('nginx limit_req without burst, documented so (SADAD_RATE_SHAPE=spaced): the rate-limit cases check the spacing and pass; the run is clean', async () => {
  const g = await runBehind('nginx-no-burst-spaced', { env: NARROWED });
  expectClean(g);
  for (const r of rate(g)) expect([r.id, r.verdict, text(r, 'WARN')]).toEqual([r.id, 'WARN', '429 without a Retry-After header']);
  // copies sent together cannot reach the service together through it
  expect(g.results.filter((r) => r.id.endsWith('.dup.concurrent')).map((r) => r.verdict)).toEqual(['NOT_APPLICABLE', 'NOT_APPLICABLE']);
});

test('a clock-aligned fixed window (window k is [k·W, (k+1)·W)): clean, the rate-limit cases PASS', async () => {
  const g = await runBehind('calendar', { env: NARROWED });
  expectClean(g);
  expect(g.unplannedRefusals).toBe(0);
  for (const r of rate(g)) expect([r.id, r.verdict]).toEqual([r.id, 'PASS']);
});
