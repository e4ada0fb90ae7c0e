/**
 * Honest verdicts that spend no call in vain (issue 18, item 4), against three targets that fail
 * in a systemic way: every path answers 404 (no vacuous PASS), every answer is wrapped in Message
 * (one defect reads as one cause, no ERROR), every successful enquiry is flagged as failed (the
 * cases built on an enquiry stop trying once it has been refused three times in a row, so the run
 * costs no more than a clean one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import Fastify from 'fastify';
import type { CertificationReport } from '../../src/reporter/model.js';
import { allCases, registrationWith } from '../../src/suite/cases.js';
import { operation } from '../../src/contract/catalogue.js';
import { startMock } from '../../src/mock/index.js';
import { startBalancer } from '../support/balancer.js';
import { runSuite, LOADED_WINDOW } from './run-suite.js';
import { expectVerdictsReproduced } from '../replay/helpers.js';

test.describe.configure({ timeout: 240_000 });

const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as CertificationReport;

/** The rule families whose cases send something the target must refuse. */
const REJECTION_FAMILIES = new Set(['required-fields', 'transaction-type', 'account-number', 'headers', 'robustness']);

test('a target that answers 404 to everything: 0 PASS on its rejection cases, which are INCONCLUSIVE under the cause of the case testing acceptance', async () => {
  let calls = 0;
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.all('/*', async (_req, reply) => { calls++; return reply.code(404).send({ errorCode: 'MW-404', errorMessage: 'NOT FOUND' }); });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const run = await runSuite({
      SADAD_BASE_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, SADAD_ACCESS_TOKEN: 'tok-0123456789', SADAD_COMPANY_ID: 'X',
      // the preflight would stop this run (test/preflight): here the cases themselves must not pass on it
      SADAD_PREFLIGHT: 'off', SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '1000', SADAD_RATE_LIMIT_MOI: '1000',
    });
    const r = readReport(run.reportsDir);
    expect(run.code).toBe(1);
    const rejectionCases = r.cases.filter((c) => REJECTION_FAMILIES.has(c.family) && !c.id.endsWith('.oversized-body') && !/\.at-limit$|client-headers/.test(c.id));
    expect(rejectionCases.length).toBeGreaterThan(300);
    expect(rejectionCases.filter((c) => c.verdict === 'PASS').map((c) => c.id), 'a target that accepts nothing proves no rejection').toEqual([]);
    expect(r.counts.byVerdict.PASS, 'only the oversized bodies (a 4xx is all they ask) pass').toBeLessThanOrEqual(4);
    // the vacuous ones name the case that tests acceptance, and count under its cause
    const vacuous = r.cases.find((c) => c.id === 'bill-enquiry.req.BillerId.missing')!;
    expect(vacuous.verdict).toBe('INCONCLUSIVE');
    expect(vacuous.notes.find((n) => n.verdict === 'INCONCLUSIVE')!.testedBy).toBe('bill-enquiry.res.schema');
    // and its evidence file says the same as the package (the whole run's evidence decided it)
    const evidence = JSON.parse(readFileSync(join(run.reportsDir, 'evidence', 'bill-enquiry.req.BillerId.missing.json'), 'utf8')) as { verdict: string };
    expect(evidence.verdict).toBe('INCONCLUSIVE');
    for (const c of r.cases) {
      const ev = JSON.parse(readFileSync(join(run.reportsDir, 'evidence', `${c.id}.json`), 'utf8')) as { verdict: string };
      expect(ev.verdict, c.id).toBe(c.verdict);
    }
    expect(r.causes.length, r.causes.map((c) => c.signature).join('\n')).toBeLessThanOrEqual(5);
    expect(r.counts.byVerdict.ERROR).toBe(0);
    // spent no call in vain: once acceptance was refused three times in a row, the cases built on it stopped sending
    expect(calls, 'far fewer calls than the ~530 of a full run').toBeLessThan(350);
  } finally {
    await app.close();
  }
});

test('a target whose every answer is wrapped in Message: at most 10 causes (here one), no ERROR', async () => {
  const run = await runSuite({ ...LOADED_WINDOW, MOCK_DEFECTS: 'message-wrapper-everywhere', SADAD_SEED: '18' });
  const r = readReport(run.reportsDir);
  expect(r.counts.byVerdict.ERROR, run.output.slice(-2000)).toBe(0);
  expect(r.causes.length, r.causes.map((c) => c.signature).join('\n')).toBeLessThanOrEqual(10);
  const top = r.causes[0]!;
  expect(top.signature).toContain('wrapped in a Message object');
  expect(top.operations.sort(), 'one cause across the operations').toEqual(['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment']);
  expect(top.verdicts.FAIL).toBeGreaterThan(4);
  // the per-rule findings beneath it: the root-tag rule among them, and the rules it kept from being checked
  expect(top.findings.map((f) => f.family)).toEqual(expect.arrayContaining(['root-tag', 'response-schema', 'required-fields']));
  expect(r.cases.filter((c) => c.verdict === 'FAIL').every((c) => c.notes.some((n) => n.cause === top.signature))).toBe(true);
  // FAIL, INCONCLUSIVE and the shared preconditions behind them: re-judged from the evidence, the same
  await expectVerdictsReproduced(run.reportsDir);
});

test('a header the target checks on no operation (CompanyId): one cause listing its cases on all four operations, not one per operation or header case', async () => {
  const run = await runSuite({ ...LOADED_WINDOW, MOCK_DEFECTS: 'company-id-unchecked-everywhere', SADAD_CASES: '*.hdr.*', SADAD_SEED: '18' });
  const r = readReport(run.reportsDir);
  const failing = r.cases.filter((c) => c.verdict === 'FAIL');
  expect(new Set(failing.map((c) => c.operation)).size, run.output.slice(-2000)).toBe(4);
  expect(r.causes.map((c) => c.signature)).toHaveLength(1);
  const [cause] = r.causes;
  expect(cause!.operations.sort()).toEqual(['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment']);
  expect(cause!.cases.sort()).toEqual(failing.map((c) => c.id).sort());
  expect(r.counts.byVerdict.ERROR ?? 0).toBe(0);
});

test('a target that flags every success as failed: the cases built on an enquiry stop trying, and the run costs at most 1.1 times a clean one', async () => {
  const window = Number(LOADED_WINDOW.MOCK_RATE_WINDOW_SECONDS);
  const run = await runSuite({ ...LOADED_WINDOW, MOCK_DEFECTS: 'enquiry-success-failing', SADAD_SEED: '18' });
  const r = readReport(run.reportsDir);
  expect(r.counts.byVerdict.ERROR, run.output.slice(-2000)).toBe(0);
  expect(r.causes.length, r.causes.map((c) => c.signature).join('\n')).toBeLessThanOrEqual(3);
  const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as { operations: Record<string, { calls: number }> };
  // at the real limits a run lasts as long as its busiest operation's calls take: ceil(calls / limit) windows
  const limits: Record<string, number> = { 'bill-enquiry': 10, 'bill-payment': 10, 'moi-enquiry': 3, 'moi-payment': 3 };
  const bound = (calls: Record<string, number>) => Math.max(...Object.entries(calls).map(([op, n]) => Math.ceil(n / limits[op]!))) * window;
  const sent = Object.fromEntries(Object.entries(pacing.operations).map(([op, s]) => [op, s.calls]));
  // a clean run sends what its cases plan (test/suite/plan-vs-sent.ts holds the plan to that)
  const clean: Record<string, number> = {};
  for (const [def] of allCases(registrationWith('full'))) for (const [op, n] of Object.entries(def.calls ?? { [def.op]: 1 })) clean[op] = (clean[op] ?? 0) + n;
  expect(bound(sent), `sent ${JSON.stringify(sent)} against a clean run's ${JSON.stringify(clean)}`).toBeLessThanOrEqual(1.1 * bound(clean));
  expect(sent['moi-enquiry']!, 'the MOI enquiries it used to spend on a base that never came').toBeLessThan(clean['moi-enquiry']!);
});

test('answers slower than the window: a limit that never resets is a FAIL, a conformant one a PASS, never INCONCLUSIVE or ERROR', async () => {
  // every answer 300 ms late, the window 0.25 s: each burst spans more than a window. Only an
  // over-acceptance may be excused by that; a burst held back by a blocked budget is the verdict
  const env = { ...LOADED_WINDOW, MOCK_FAULTS: 'latency=300', SADAD_CASES: 'moi-enquiry.rate.limit,moi-enquiry.res.schema', SADAD_SEED: '18' };
  const [blocked, conformant] = await Promise.all([runSuite({ ...env, MOCK_DEFECTS: 'rate-limit-no-reset' }), runSuite(env)]);
  const verdictOf = (run: { reportsDir: string }) => readReport(run.reportsDir).cases.find((c) => c.id === 'moi-enquiry.rate.limit')!;
  const b = verdictOf(blocked);
  expect([b.verdict, b.notes.map((n) => n.text).join(' | ')]).toEqual(['FAIL', expect.stringMatching(/still refused|only 0 of 4/)]);
  const c = verdictOf(conformant);
  expect([c.verdict, c.notes.map((n) => n.text).join(' | ')], conformant.output.slice(-2000)).toEqual(['PASS', '']);
  await expectVerdictsReproduced(blocked.reportsDir);
});

test('a spaced limit checked against answers slower than the spacing: a call that left late and was accepted is a payment done, never sent again (no duplicate read as the limiter)', async () => {
  // every answer 150 ms late, one call per 100 ms allowed: the call meant to go out sooner than the
  // spacing always leaves after the previous answer, so the limiter rightly accepts it. Each try is
  // another payment; before, the second try sent the accepted one again, and its 409 duplicate
  // answer read as the limiter's refusal (a WARN that the limiter answers 409)
  const run = await runSuite({ MOCK_RATE_WINDOW_SECONDS: '1', MOCK_LIMITER: 'spaced', SADAD_RATE_SHAPE: 'spaced', MOCK_FAULTS: 'latency=150', SADAD_CASES: 'bill-payment.rate.limit', SADAD_SEED: '5' });
  const c = readReport(run.reportsDir).cases.find((x) => x.id === 'bill-payment.rate.limit')!;
  expect([c.verdict, c.notes.map((n) => n.text).join(' | ')], run.output.slice(-2000)).toEqual(['ERROR', expect.stringMatching(/the answers come later than the spacing/)]);
  const ev = JSON.parse(readFileSync(join(run.reportsDir, 'evidence', 'bill-payment.rate.limit.json'), 'utf8')) as { exchanges: { response?: { status: number } }[] };
  expect(ev.exchanges.filter((x) => x.response?.status === 409), 'no payment sent twice').toEqual([]);
});

test('a spaced limit whose first two tries of the call sooner than the spacing leave late: the tries after them are timed from a fresh accepted call, not sent straight after the enquiry that fetched their bills', async () => {
  // one bill call per 333 ms allowed (3 a second), the call sooner than the spacing meant to go 271 ms
  // after an accepted one. In front of the mock, a stand-in gateway holds two answers 400 ms: those of
  // the last spaced call and of the first try, so the first two tries leave late and are accepted.
  // A payment's next try needs a new bill, and every enquiry from then on is answered 400 ms late:
  // before, the try went out at once after that enquiry, always late, and the case ended in ERROR
  // (the machine's timers too coarse); a check that a busy machine made miss its band looked the same
  const limit = 3;
  const mock = await startMock({ port: 0, rateWindowSeconds: 1, rateLimits: { bill: limit, moi: limit }, limiter: 'spaced' });
  const paths = { payment: operation('bill-payment').path, enquiry: operation('bill-enquiry').path };
  let payments = 0;
  const gateway = await startBalancer([mock.url], {
    hold: (path) => {
      if (path === paths.payment) return [limit + 1, limit + 2].includes(++payments) ? 400 : 0;
      return path === paths.enquiry && payments > limit ? 400 : 0;
    },
  });
  try {
    const o = mock.options;
    const run = await runSuite({
      SADAD_BASE_URL: gateway.url, SADAD_ACCESS_TOKEN: o.accessToken, SADAD_COMPANY_ID: o.companyId, SADAD_CLIENT_ID: o.clientId, SADAD_CLIENT_SECRET: o.clientSecret,
      SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: String(limit), SADAD_RATE_LIMIT_MOI: String(limit), SADAD_RATE_SHAPE: 'spaced',
      SADAD_CASES: 'bill-payment.rate.limit', SADAD_SEED: '5',
      // the gateway counts the case's payments: no preflight call before them
      SADAD_PREFLIGHT: 'off',
    });
    const c = readReport(run.reportsDir).cases.find((x) => x.id === 'bill-payment.rate.limit')!;
    const ev = JSON.parse(readFileSync(join(run.reportsDir, 'evidence', 'bill-payment.rate.limit.json'), 'utf8')) as { exchanges: { label: string; response?: { status: number } }[] };
    const sooner = ev.exchanges.filter((x) => /^a call \d+ ms after the previous( \(try \d+\))?$/.test(x.label) || /before try/.test(x.label));
    const trail = sooner.map((x) => `${x.label.replace(/^a call \d+ ms after the previous( answer)?,? ?/, '') || 'try 1'} ${x.response?.status}`);
    expect([c.verdict, c.notes.map((n) => n.text).join(' | ')], `${trail.join(', ')}\n${run.output.slice(-2000)}`).toEqual(['PASS', '']);
    // the path this test is about: the first two tries late (accepted), then a call a spacing after the last answer
    expect(trail.slice(0, 3)).toEqual(['try 1 200', '(try 2) 200', 'before try 3 200']);
    expect(trail.at(-1), 'judged on a try inside the band, refused').toMatch(/^\(try [3-5]\) 429$/);
    expect(ev.exchanges.filter((x) => x.response?.status === 409), 'no payment sent twice').toEqual([]);
    await expectVerdictsReproduced(run.reportsDir);
  } finally {
    await gateway.close();
    await mock.close();
  }
});
