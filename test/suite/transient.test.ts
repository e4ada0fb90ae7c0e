/**
 * Transient faults are not verdicts (design.md §8): the suite against a mock that misbehaves like a
 * flaky gateway (MOCK_FAULTS). Retries where repetition is safe, payments never paid twice (an
 * enquiry, then an idempotent replay), ERROR naming the fault when retries run out, a refused token
 * renewed once in client-credentials mode and an ERROR with a static one; the availability the
 * cases record agrees with what the mock injected. Also: the payments guard, and the smoke profile.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import Fastify from 'fastify';
import { request } from 'undici';
import { operation } from '../../src/contract/catalogue.js';
import { startMock, type RunningMock } from '../../src/mock/index.js';
import { TOKEN_PATH } from '../../src/mock/token.js';
import { caseResults, type SuiteRun } from '../../src/prove/run-suite.js';
import { exhausted, retryDelayMs, transientKind } from '../../src/client/transient.js';
import type { Exchange } from '../../src/client/exchange.js';
import { runSuite } from './run-suite.js';
import { expectVerdictsReproduced } from '../replay/helpers.js';

test.describe.configure({ timeout: 240_000 });

type Evidence = ReturnType<typeof caseResults>[number] & {
  transient?: { op: string; kind: string; recovered: boolean }[];
  observations?: Record<string, unknown>;
  exchanges?: { label: string; op?: string; response?: { status: number }; error?: unknown }[];
};
const evidence = (run: SuiteRun) => caseResults(run) as Evidence[];

/**
 * The suite against a mock the test started (so the test can read what the mock injected). Without
 * the preflight: every fault the mock injects must be found in a case's record, and the preflight
 * against a flaky gateway is the preflight tests' subject, not these.
 */
function suiteAgainst(mock: RunningMock, env: Record<string, string> = {}) {
  const o = mock.options;
  return runSuite({
    SADAD_PREFLIGHT: 'off',
    SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: o.accessToken, SADAD_COMPANY_ID: o.companyId, SADAD_CLIENT_ID: o.clientId, SADAD_CLIENT_SECRET: o.clientSecret,
    SADAD_RATE_WINDOW_SECONDS: String(o.rateWindowSeconds), SADAD_RATE_LIMIT_BILL: String(o.rateLimits.bill), SADAD_RATE_LIMIT_MOI: String(o.rateLimits.moi),
    SADAD_SEED: '20261123', SADAD_REQUEST_TIMEOUT_MS: '3000', ...env,
  }, ['--reporter=dot']);
}

const RAISED = { rateWindowSeconds: 1, rateLimits: { bill: 30, moi: 20 } };

function fakeExchange(status: number | undefined, headers: Record<string, string> = {}, error?: Exchange['error']): Exchange {
  const base = { label: 'x', op: 'bill-enquiry', request: { method: 'POST', url: 'u', headers: {}, body: '' }, startedAt: new Date().toISOString(), durationMs: 1 };
  return status === undefined ? { ...base, error } : { ...base, response: { status, headers, body: '' } };
}

test('what counts as transient, and how long to wait', () => {
  expect(transientKind(fakeExchange(503))).toBe('HTTP 503');
  expect(transientKind(fakeExchange(502))).toBe('HTTP 502');
  expect(transientKind(fakeExchange(504))).toBe('HTTP 504');
  expect(transientKind(fakeExchange(500)), 'a 500 is the service\'s own answer').toBeUndefined();
  expect(transientKind(fakeExchange(429))).toBe('HTTP 429');
  expect(transientKind(fakeExchange(429), { allow429: true }), 'the rate-limit cases expect it').toBeUndefined();
  expect(transientKind(fakeExchange(400))).toBeUndefined();
  expect(transientKind(fakeExchange(undefined, {}, { kind: 'timeout', message: 'no answer' }))).toBe('timeout');
  expect(transientKind(fakeExchange(undefined, {}, { kind: 'network', message: 'x', code: 'ECONNREFUSED' }))).toBe('refused');
  expect(transientKind(fakeExchange(undefined, {}, { kind: 'network', message: 'x', code: 'ECONNRESET' }))).toBe('reset');
  expect(retryDelayMs(fakeExchange(503, { 'retry-after': '2' }), 1, 60)).toBe(2050);
  expect(retryDelayMs(fakeExchange(503, { 'retry-after': '3600' }), 1, 1), 'capped: a long Retry-After would stall the run').toBe(5000);
  for (const attempt of [1, 2, 3]) {
    const d = retryDelayMs(fakeExchange(503), attempt, 60, () => 0.999);
    expect(d).toBeLessThanOrEqual(2000 * 2 ** (attempt - 1));
    expect(retryDelayMs(fakeExchange(503), attempt, 60, () => 0)).toBe(1000 * 2 ** (attempt - 1));
  }
  expect(exhausted(['HTTP 503', 'HTTP 503', 'reset', 'HTTP 503'])).toBe('transient: HTTP 503, reset on 4 attempts');
});

test('behind a flaky gateway the payment, duplicate and flow cases pass, no payment is made twice, and every fault is counted', async () => {
  // small limits: a burst of n copies meets a fault n times as often as one call
  const mock = await startMock({ port: 0, rateWindowSeconds: 1, rateLimits: { bill: 4, moi: 4 }, faults: { 503: 0.05, reset: 0.02, lost: 0.05, latency: 20, jitter: 30, seed: 7 } });
  try {
    const run = await suiteAgainst(mock, { SADAD_CASES: '*.flow.*,*.dup.*,*.res.schema,*.multi.order,bill-enquiry.req.BillerId.*,moi-payment.req.VisaCount.*,*.hdr.Authorization.bad-token' });
    const results = evidence(run);
    const bad = results.filter((r) => r.verdict === 'FAIL' || r.verdict === 'ERROR');
    expect(bad.map((r) => `${r.id}: ${r.notes.map((n) => n.text).join(' | ')}`), run.output.slice(-2000)).toEqual([]);
    expect(run.code).toBe(0);
    expect(results.length).toBeGreaterThan(25);
    const faults = results.flatMap((r) => r.transient ?? []);
    const injected = Object.values(mock.faultCounts()).reduce((n, byKind) => n + Object.values(byKind).reduce((a, b) => a + b, 0), 0);
    expect(injected, 'the mock injected faults').toBeGreaterThan(5);
    // every injected fault reached some case (a fault the suite did not see would have been judged as an answer)
    const seen = JSON.stringify(results.flatMap((r) => (r.transient ?? []).map((f) => `${r.id} ${f.op} ${f.kind}`)));
    expect(faults.length, `mock: ${JSON.stringify(mock.faultCounts())}; suite: ${seen}`).toBe(injected);
    expect(faults.filter((f) => !f.recovered)).toEqual([]);
    // every payment met by a fault was followed by an enquiry (did it take effect?) before anything
    // else, or, for one the case expects refused, by a plain retry; bursts are repeated whole
    const after: string[] = [];
    for (const r of results) {
      const ex = r.exchanges ?? [];
      ex.forEach((e, i) => {
        const payment = e.op === 'bill-payment' || e.op === 'moi-payment';
        const faulted = e.response === undefined || e.response.status === 503;
        if (!payment || !faulted || /burst|sent together|shared SequenceNumber|copy/.test(e.label)) return;
        after.push(`${r.id}: ${e.label} -> ${ex[i + 1]?.label ?? 'nothing'}`);
      });
    }
    for (const line of after) expect(line).toMatch(/-> (enquiry after .* did it take effect\?|.*\(attempt \d+\))$/);
    // faults, retries, replays and lost answers: re-judged from the evidence, the same verdicts
    await expectVerdictsReproduced(run.reportsDir);
  } finally {
    await mock.close();
  }
});

test('retries exhausted: ERROR naming the fault and the attempts, never FAIL', async () => {
  const mock = await startMock({ port: 0, ...RAISED, faults: { 503: 1 } });
  try {
    // one case a run, with one retry: two failures in a row, below the three that make the run probe for
    // an outage (a target that answers 503 to everything is down: test/suite/outage.test.ts)
    // the oversized body may be accepted: a gateway's 503 on every attempt is still no answer to it, never "answered HTTP 503"
    // (the three runs side by side: each its own run, against the same mock that refuses everything)
    const ids = ['bill-enquiry.req.BillerId.missing', 'moi-payment.flow.pay', 'moi-enquiry.robust.oversized-body'];
    const runs = await Promise.all(ids.map((id) => suiteAgainst(mock, { SADAD_CASES: id, SADAD_RETRIES: '1' })));
    for (const [i, id] of ids.entries()) {
      const run = runs[i]!;
      const result = evidence(run).find((r) => r.id === id);
      expect(result?.verdict, id).toBe('ERROR');
      expect(result?.notes.map((n) => n.text).join(' | ')).toContain('transient: HTTP 503 on 2 attempts');
      expect(run.code).toBe(1);
    }
  } finally {
    await mock.close();
  }
});

test('a 429 outside the rate-limit cases is the gateway\'s limiter: the pacing slows down and sends the call again, never at a case\'s expense; a gateway that keeps refusing ends the case NOT_RUN', async () => {
  // a quarter of the calls answered 429 by the "gateway" (not counted by the mock's own limiter), no retries allowed
  const flaky = await startMock({ port: 0, ...RAISED, faults: { 429: 0.25, seed: 7, 'retry-after': 1 } });
  try {
    const run = await suiteAgainst(flaky, { SADAD_CASES: 'bill-enquiry.req.BillerId.*,bill-payment.flow.*,moi-enquiry.res.schema', SADAD_RETRIES: '0' });
    const results = evidence(run);
    const paced = results.flatMap((r) => (r.transient ?? []).filter((f) => (f as { paced?: boolean }).paced));
    expect(paced.length, 'refusals the pacing adapted to').toBeGreaterThan(0);
    expect(paced.every((f) => f.recovered && f.kind === 'HTTP 429')).toBe(true);
    expect(results.filter((r) => ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN'].includes(r.verdict)).map((r) => `${r.id} ${r.verdict}: ${r.notes.map((n) => n.text).join(' | ')}`), run.output.slice(-2000)).toEqual([]);
    const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as { operations: Record<string, { refused: number; slowestSpacingMs: number; spacingMs: number }> };
    const slowed = Object.values(pacing.operations).filter((o) => o.refused > 0);
    expect(slowed.length).toBeGreaterThan(0);
    for (const o of slowed) expect(o.slowestSpacingMs).toBeGreaterThan(o.spacingMs);
    // the console's closing line (the package's availability section says the same)
    expect(run.output).toMatch(/\npacing: the gateway refused \d+ calls? as over its limit outside the rate-limit cases; the pacing slowed down/);
  } finally {
    await flaky.close();
  }
  // every call refused: the case waits while the pacing adapts, for SADAD_MAX_OUTAGE_SECONDS, then stops NOT_RUN (resumable), never ERROR
  const closed = await startMock({ port: 0, ...RAISED, faults: { 429: 1, 'retry-after': 1 } });
  try {
    const run = await suiteAgainst(closed, { SADAD_CASES: 'moi-enquiry.res.schema', SADAD_MAX_OUTAGE_SECONDS: '2' });
    const [r] = evidence(run);
    expect([r?.verdict, r?.notes.map((n) => n.text).join(' | ')]).toEqual(['NOT_RUN', expect.stringMatching(/the gateway kept refusing moi-enquiry as over its limit for \d+ s .*SADAD_MAX_OUTAGE_SECONDS=2.*--resume/)]);
    expect(run.code).toBe(1);
  } finally {
    await closed.close();
  }
});

test('a token revoked mid-run: renewed once with client credentials, an ERROR with a static token', async () => {
  const mock = await startMock({ port: 0, ...RAISED, faults: { revoke: 0.3, seed: 3 } });
  try {
    const cases = 'bill-enquiry.res.*,bill-enquiry.req.BillerId.*,moi-enquiry.req.ID.*';
    const renewing = await suiteAgainst(mock, { SADAD_CASES: cases, SADAD_TOKEN_URL: `${mock.url}${TOKEN_PATH}`, SADAD_ACCESS_TOKEN: '' });
    const results = evidence(renewing);
    expect(results.filter((r) => r.verdict === 'FAIL' || r.verdict === 'ERROR').map((r) => r.id), renewing.output.slice(-2000)).toEqual([]);
    const refused = results.flatMap((r) => r.transient ?? []).filter((f) => f.kind === 'token refused');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((f) => f.recovered)).toBe(true);

    const fixed = await suiteAgainst(mock, { SADAD_CASES: cases });
    const errors = evidence(fixed).filter((r) => r.verdict === 'ERROR');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.notes.map((n) => n.text).join(' ')).toContain('a static SADAD_ACCESS_TOKEN cannot be renewed');
  } finally {
    await mock.close();
  }
});

test('payments guard: a target other than the embedded mock, SADAD_PAYMENTS unset: stops before the first call and says what it would pay', async () => {
  let calls = 0;
  const app = Fastify();
  app.all('/*', async () => { calls++; return {}; });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  try {
    const run = await runSuite({ SADAD_BASE_URL: url, SADAD_ACCESS_TOKEN: 'tok-12345', SADAD_COMPANY_ID: 'X', SADAD_PAYMENTS: '' });
    expect(run.code).toBe(2);
    expect(run.output).toMatch(/Payments guard: the target http:\/\/127\.0\.0\.1:\d+ is not the embedded mock/);
    expect(run.output).toMatch(/\d+ payment calls \(bill \d+, MOI \d+\), of which about \d+ are meant to take effect/);
    expect(run.output).toContain('SADAD_PAYMENTS=on');
    expect(calls).toBe(0);
  } finally {
    await app.close();
  }
});

test('the smoke profile: every family on every operation (rate limits on the bill operations), 12 calls at most on each MOI operation, and it says it does not certify', async () => {
  const { allCases, registrationWith } = await import('../../src/suite/cases.js');
  const { SMOKE_CASES, SMOKE_MOI_CALLS } = await import('../../src/vocabulary/profile.js');
  const all = allCases(registrationWith('full')).map(([def]) => def);
  const ids = new Set(all.map((d) => d.id));
  expect([...SMOKE_CASES].filter((id) => !ids.has(id)), 'every smoke id names a case').toEqual([]);
  const smoke = all.filter((d) => SMOKE_CASES.has(d.id));
  for (const pair of new Set(all.map((d) => `${d.op} ${d.family}`))) {
    if (/^moi-.* rate-limit$/.test(pair)) continue;
    expect(smoke.some((d) => `${d.op} ${d.family}` === pair), pair).toBe(true);
  }
  for (const op of ['moi-enquiry', 'moi-payment'] as const) {
    const calls = smoke.reduce((n, d) => n + ((d.calls ?? { [d.op]: 1 })[op] ?? 0), 0);
    expect(calls, op).toBeLessThanOrEqual(SMOKE_MOI_CALLS);
  }
  const list = await runSuite({ SADAD_PROFILE: 'smoke' }, ['--list']);
  expect(list.output).toContain(`Total: ${SMOKE_CASES.size} tests`);
});

/**
 * A gateway in front of `mock` that blips: `blip(path, n)` decides for the n-th call to `path` among
 * those that arrived within 300 ms (a burst and what follows it at once) whether it is answered with
 * the gateway's 503 page, before the mock sees it (`before`: the limiter never counts it) or instead of
 * the mock's answer (`after`: counted). Other calls are passed on, `latencyMs` late.
 */
async function blippingGateway(mock: RunningMock, blip: (path: string, n: number) => 'before' | 'after' | undefined, latencyMs = 0) {
  const arrivals = new Map<string, number[]>();
  const blips: string[] = [];
  const page = '<html><body>503 Service Temporarily Unavailable</body></html>';
  const gateway = Fastify();
  gateway.removeAllContentTypeParsers();
  gateway.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  gateway.all('/*', async (req, reply) => {
    const now = Date.now();
    const seen = [...(arrivals.get(req.url) ?? []), now];
    arrivals.set(req.url, seen);
    const n = seen.filter((t) => now - t < 300).length;
    const when = blip(req.url, n);
    if (when) blips.push(`${req.url} #${n} ${when}`);
    if (when === 'before') return reply.code(503).header('content-type', 'text/html').send(page);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k))) as Record<string, string>;
    const answer = await request(`${mock.url}${req.url}`, { method: req.method as 'POST', headers, body: req.body as Buffer | undefined });
    const body = Buffer.from(await answer.body.arrayBuffer());
    if (when === 'after') return reply.code(503).header('content-type', 'text/html').send(page);
    if (latencyMs) await new Promise((r) => setTimeout(r, latencyMs));
    return reply.code(answer.statusCode).headers(Object.fromEntries(Object.entries(answer.headers).filter(([k]) => !['connection', 'transfer-encoding', 'content-length'].includes(k)))).send(body);
  });
  await gateway.listen({ host: '127.0.0.1', port: 0 });
  return { url: `http://127.0.0.1:${(gateway.server.address() as { port: number }).port}`, blips, close: () => gateway.close() };
}

test('a blip on the call over the limit hides whether the limiter accepted it: the check is repeated, and a target accepting one call too many still FAILs', async () => {
  // the limiter accepts 11 of 10 (rate-limit-one-extra); a gateway in front turns the answer to the
  // 11th call of the first burst into a 503 after the limiter counted it, so the probe after it is
  // refused (the 12th): exactly what a conformant limiter behind a blip looks like. Seen in the
  // detection run with faults, where it was read as the limit kept, and the defect missed.
  const mock = await startMock({ port: 0, rateWindowSeconds: 1, rateLimits: { bill: 10, moi: 3 }, defects: ['rate-limit-one-extra'] });
  let first = true;
  const gateway = await blippingGateway(mock, (path, n) => {
    if (path !== operation('bill-enquiry').path || n !== 11 || !first) return undefined;
    first = false;
    return 'after';
  });
  try {
    const run = await suiteAgainst({ ...mock, url: gateway.url } as RunningMock, { SADAD_CASES: 'bill-enquiry.rate.limit' });
    const c = caseResults(run).find((r) => r.id === 'bill-enquiry.rate.limit')!;
    expect(gateway.blips, 'the gateway hid the answer to the 11th call once').toHaveLength(1);
    expect([c.verdict, c.notes.map((n) => n.text).join(' | ')], run.output.slice(-2000)).toEqual(['FAIL', expect.stringMatching(/all 11 calls sent together were accepted/)]);
  } finally {
    await gateway.close();
    await mock.close();
  }
});

test('blips that look like a limiter are not believed from one check: two refused calls of a burst and the probe after them are no spacing, the over-limit call and the probe after it no 503 limiter', async () => {
  // a conformant limiter behind a gateway that drops calls with its 503 page before they reach it, in
  // the first burst of each operation only. Bill enquiry: the 10th and 11th calls of the burst and the
  // probe after them, the answers 20 ms late (before: "accepts 9 of 11: calls are let through one per
  // ~50 ms", a FAIL). MOI enquiry: the call over the limit and the probe after it (before: "the limiter
  // refuses a call over the limit with HTTP 503", a WARN). Both seen in the detection run with faults
  const mock = await startMock({ port: 0, rateWindowSeconds: 1, rateLimits: { bill: 10, moi: 3 } });
  const planned = new Map([[operation('bill-enquiry').path, [10, 11, 12]], [operation('moi-enquiry').path, [4, 5]]]);
  // the first burst's: within 300 ms of the first blip of its operation
  const firstBlip = new Map<string, number>();
  const gateway = await blippingGateway(mock, (path, n) => {
    if (!planned.get(path)?.includes(n)) return undefined;
    if (!firstBlip.has(path)) firstBlip.set(path, Date.now());
    return Date.now() - firstBlip.get(path)! < 300 ? 'before' : undefined;
  }, 20);
  try {
    const run = await suiteAgainst({ ...mock, url: gateway.url } as RunningMock, { SADAD_CASES: 'bill-enquiry.rate.limit,moi-enquiry.rate.limit' });
    // (the probe after the bill burst is sent only when that burst is read as a spacing limiter's)
    expect(gateway.blips, 'the bursts met their blips').toEqual(expect.arrayContaining([10, 11].map((n) => `${operation('bill-enquiry').path} #${n} before`).concat([4, 5].map((n) => `${operation('moi-enquiry').path} #${n} before`))));
    for (const id of ['bill-enquiry.rate.limit', 'moi-enquiry.rate.limit']) {
      const c = evidence(run).find((r) => r.id === id)!;
      expect([id, c.verdict, c.notes.map((n) => n.text).join(' | ')], run.output.slice(-2000)).toEqual([id, 'PASS', '']);
      expect(String(c.observations?.['check 1']), 'the first check was repeated').toMatch(/not judged: HTTP 503 .*the limiter's answer, or a gateway's blips/);
    }
  } finally {
    await gateway.close();
    await mock.close();
  }
});
