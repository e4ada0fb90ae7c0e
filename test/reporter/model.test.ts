/** The report's decisions and aggregations, the dry run's arithmetic, the page's escaping, the certify command's arguments. */
import { EMBEDDED_MOCK_WINDOW_SECONDS } from '../../src/config/index.js';
import { groupCauses } from '../../src/reporter/causes.js';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { registerSecret } from '../../src/client/redact.js';
import { playwrightArgs, REPORTER } from '../../src/cli/certify.js';
import { narrowingArgs } from '../../src/reporter/certification.js';
import { renderHtml } from '../../src/reporter/html.js';
import {
  aggregateObservations, buildCounts, buildMatrix, classifyWaivers, decideOutcome, errorBodyShapes, strongestOf, zeroCounts,
  FORMAT, FORMAT_VERSION, type CaseReport, type CertificationReport,
} from '../../src/reporter/model.js';
import { formatDuration, planOf } from '../../src/reporter/plan.js';
import { readSettings } from '../../src/config/settings.js';

const plannedLimits = (vars: Record<string, string>) => readSettings(vars).run.limits;
import { ROOT } from '../../src/paths.js';
import type { Verdict } from '../../src/vocabulary/verdicts.js';

function aCase(id: string, verdict: Verdict, extra: Partial<CaseReport> = {}): CaseReport {
  const [operation = 'bill-enquiry'] = id.split('.');
  return {
    id, title: `${id} §4`, file: 'specs/x.spec.ts', operation, family: 'headers', level: 'MUST', sections: ['4'], expectation: 'rejected',
    verdict, notes: [], observation: null, waiver: null, testStatus: 'passed', durationMs: 5, calls: { [operation]: 1 }, evidenceFile: null,
    runId: 'run-1', attempts: [{ runId: 'run-1', at: '2026-01-01T00:00:00.000Z', verdict }], transient: [],
    ...(verdict === 'PASS' ? {} : { exchanges: [] }), ...extra,
  };
}

test('waivers: used when the verdict matches, not needed for another verdict or a case that did not run', () => {
  const out = classifyWaivers([
    { case: 'a', verdict: 'FAIL', comment: 'x' }, { case: 'b', verdict: 'FAIL', comment: 'y' },
    { case: 'c', verdict: 'WARN', comment: 'z' }, { case: 'gone', verdict: 'FAIL', comment: 'w' },
  ], [{ id: 'a', verdict: 'FAIL' }, { id: 'b', verdict: 'ERROR' }, { id: 'c', verdict: 'PASS' }]);
  expect(out.map((w) => [w.case, w.status, w.actual])).toEqual([['a', 'used', 'FAIL'], ['b', 'not-needed', 'ERROR'], ['c', 'not-needed', 'PASS'], ['gone', 'not-needed', null]]);
  expect(out[1]!.reason).toMatch(/fails the run/);
  expect(out[2]!.reason).toMatch(/remove the waiver/);
  expect(out[3]!.reason).toMatch(/did not run/);
});

test('the outcome: certifies without FAIL/ERROR, also when a waiver accepts one; not with a partial selection, a NOT_RUN case, the smoke profile or an unwaived FAIL', () => {
  const base = { selectionNarrowed: false, runErrors: [] };
  const ok = decideOutcome({ ...base, cases: [aCase('a', 'PASS'), aCase('b', 'WARN'), aCase('c', 'NOT_APPLICABLE')] });
  expect(ok).toMatchObject({ certifies: true, unexpected: [], summary: 'Certifies: no FAIL and no ERROR in 3 cases.' });
  const waived = decideOutcome({ ...base, cases: [aCase('a', 'FAIL', { waiver: { verdict: 'FAIL', comment: 'k', status: 'used' } }), aCase('b', 'PASS')] });
  expect(waived).toMatchObject({ certifies: true, waived: ['a'], unexpected: [] });
  expect(waived.summary).toMatch(/other than 1 accepted by the baseline/);
  const bad = decideOutcome({ ...base, cases: [aCase('a', 'FAIL'), aCase('b', 'ERROR'), aCase('c', 'ERROR')], selectionNarrowed: true });
  expect(bad).toMatchObject({ certifies: false, unexpected: ['a', 'b', 'c'], summary: 'Does not certify: 1 FAIL; 2 ERROR; partial case selection.' });
  const stopped = decideOutcome({ ...base, cases: [aCase('a', 'PASS'), aCase('b', 'NOT_RUN'), aCase('c', 'NOT_RUN')], ended: 'the run was interrupted (Ctrl-C, SIGINT or SIGTERM)' });
  expect(stopped).toMatchObject({ certifies: false, unexpected: [], notRun: ['b', 'c'], summary: 'Does not certify: 2 NOT_RUN (incomplete run).' });
  expect(stopped.reasons[0]).toMatch(/^2 cases NOT_RUN: the run was interrupted .*npm run certify -- --resume/);
  const undecided = decideOutcome({ ...base, cases: [aCase('a', 'PASS'), aCase('b', 'INCONCLUSIVE')] });
  expect(undecided).toMatchObject({ certifies: false, unexpected: ['b'], summary: 'Does not certify: 1 INCONCLUSIVE.' });
  const smoke = decideOutcome({ ...base, cases: [aCase('a', 'PASS')], profile: 'smoke' });
  expect(smoke).toMatchObject({ certifies: false, summary: 'Does not certify: smoke profile.' });
  expect(smoke.reasons[0]).toMatch(/never certifies/);
  expect(decideOutcome({ ...base, cases: [] }).summary).toBe('Does not certify: no case ran.');
});

test('counts and the matrix: the strongest verdict per cell, NOT_APPLICABLE only when nothing else applies', () => {
  const c = zeroCounts();
  c.NOT_APPLICABLE = 2; c.PASS = 3;
  expect(strongestOf(c)).toBe('PASS');
  c.SKIPPED = 1;
  expect(strongestOf(c)).toBe('SKIPPED');
  expect(strongestOf({ ...zeroCounts(), NOT_APPLICABLE: 1 })).toBe('NOT_APPLICABLE');
  expect(strongestOf(zeroCounts())).toBeNull();
  const cases = [aCase('bill-enquiry.a', 'PASS'), aCase('bill-enquiry.b', 'FAIL'), aCase('moi-payment.c', 'NOT_APPLICABLE')];
  const counts = buildCounts(cases);
  expect(counts.byOperation['bill-enquiry']).toMatchObject({ PASS: 1, FAIL: 1, total: 2 });
  expect(Object.keys(counts.byOperation)).toEqual(['bill-enquiry', 'moi-payment']);
  const m = buildMatrix(cases);
  expect(m.cells.find((x) => x.operation === 'bill-enquiry' && x.family === 'headers')).toMatchObject({ verdict: 'FAIL', cases: 2 });
  expect(m.cells.find((x) => x.operation === 'bill-payment' && x.family === 'headers')).toMatchObject({ verdict: null, cases: 0 });
  expect(m.cells).toHaveLength(m.operations.length * m.families.length);
});

test('error body shapes: HTTP 4xx bodies grouped by their top-level keys; 2xx and 5xx left out', () => {
  const ex = (status: number, body: string) => ({ label: `x${status}`, request: { method: 'POST', url: 'http://t/x', headers: {}, body: '' }, response: { status, headers: {}, body } });
  const shapes = errorBodyShapes([
    { case: 'a', exchanges: [ex(400, '{"errorCode":"E1","errors":[]}'), ex(200, '{"ok":true}'), ex(500, '{"boom":1}')] },
    { case: 'b', exchanges: [ex(401, '{"errors":[1],"errorCode":"E2"}'), ex(415, 'Unsupported'), ex(404, '')] },
  ]);
  expect(shapes[0]).toMatchObject({ form: 'object', count: 2, statuses: [400, 401], keys: [{ name: 'errorCode', type: 'string' }, { name: 'errors', type: 'array' }], example: { case: 'a', status: 400 } });
  expect(shapes.slice(1).map((s) => s.form).sort()).toEqual(['empty', 'text']);
});

test('observations: rejection forms, rate-limit answers, duplicate handling and client headers per operation', () => {
  const o = aggregateObservations([
    aCase('bill-enquiry.x', 'PASS', { observation: { 'rejection form': 'HTTP 400' } }),
    aCase('bill-enquiry.y', 'PASS', { observation: { 'rejection form': 'HTTP 400' } }),
    aCase('moi-enquiry.z', 'PASS', { observation: { 'rejection form': 'in-band (HTTP 2xx, failing status)' } }),
    aCase('moi-enquiry.rate.limit', 'WARN', { family: 'rate-limit', observation: { 'limit per window': '3 calls per 60 s', 'rate-limit answer': 'HTTP 400', 'rate-limit headers': 'none', 'rate-limit body': '{}' } }),
    aCase('bill-payment.dup.replay', 'PASS', { family: 'duplicates', observation: { 'duplicate handling': 'rejected', 'debits seen': '2 x 1' } }),
    aCase('bill-enquiry.hdr.client-headers.required', 'OBSERVED', { observation: { 'clientid/clientsecret required': 'yes (HTTP 401)' } }),
  ], []);
  expect(o.rejectionForms).toEqual({ 'bill-enquiry': { 'HTTP 400': 2 }, 'moi-enquiry': { 'in-band (HTTP 2xx, failing status)': 1 } });
  expect(o.rateLimit['moi-enquiry']).toEqual({ case: 'moi-enquiry.rate.limit', verdict: 'WARN', limit: '3 calls per 60 s', answer: 'HTTP 400', headers: 'none', body: '{}' });
  expect(o.duplicates).toEqual([{ case: 'bill-payment.dup.replay', operation: 'bill-payment', verdict: 'PASS', handling: 'rejected', debits: '2 x 1' }]);
  expect(o.clientHeadersRequired['bill-enquiry']).toEqual({ case: 'bill-enquiry.hdr.client-headers.required', value: 'yes (HTTP 401)' });
});

test('the dry run\'s estimate: max over operations of ceil(calls / limit) x window, at the configured or embedded limits', () => {
  const limits = { windowSeconds: 60, perOperation: { 'bill-enquiry': 10, 'moi-enquiry': 3 }, source: 'test' };
  const plan = planOf([
    { id: 'a', operation: 'bill-enquiry', family: 'headers', level: 'MUST', calls: { 'bill-enquiry': 21 } },
    { id: 'b', operation: 'moi-enquiry', family: 'headers', level: 'MUST', calls: { 'moi-enquiry': 6, 'bill-enquiry': 1 } },
  ], limits);
  expect(plan.calls).toMatchObject({ 'bill-enquiry': 22, 'moi-enquiry': 6 });
  expect(plan.estimate).toEqual({ seconds: 180, bound: 'bill-enquiry', perOperation: { 'bill-enquiry': 180, 'moi-enquiry': 120 } });
  expect(formatDuration(180)).toBe('3 min 00 s');
  expect(formatDuration(3 * 3600 + 125)).toBe('3 h 02 min');
  const embedded = plannedLimits({ MOCK_RATE_LIMIT_MOI: '5' });
  expect(embedded.windowSeconds).toBe(EMBEDDED_MOCK_WINDOW_SECONDS);
  expect(embedded.perOperation).toEqual({ 'bill-enquiry': 10, 'bill-payment': 10, 'moi-enquiry': 5, 'moi-payment': 5 });
  const sandbox = plannedLimits({ SADAD_BASE_URL: 'https://sandbox.test', SADAD_ACCESS_TOKEN: 't', SADAD_COMPANY_ID: 'C', MOCK_RATE_LIMIT_MOI: '5' });
  expect(sandbox).toMatchObject({ windowSeconds: 60, perOperation: { 'moi-enquiry': 3 }, source: 'the target https://sandbox.test' });
});

test('the certify command: passes arguments through; --list or SADAD_DRY_RUN=1 lists with the certification reporter only', () => {
  const config = ['-c', join(ROOT, 'playwright.config.ts')];
  expect(playwrightArgs(['--grep', 'rate', '--workers=2'], {})).toMatchObject({ args: ['test', ...config, '--grep', 'rate', '--workers=2'], dryRun: false });
  expect(playwrightArgs(['--list'], {})).toMatchObject({ args: ['test', ...config, '--list', `--reporter=${REPORTER}`], dryRun: true, env: { SADAD_DRY_RUN: '1' } });
  expect(playwrightArgs([], { SADAD_DRY_RUN: '1' }).args).toEqual(['test', ...config, '--list', `--reporter=${REPORTER}`]);
  expect(playwrightArgs([], { SADAD_DRY_RUN: '0' }).dryRun).toBe(false);
  expect(playwrightArgs(['--list', '--reporter=list', '-c', 'other.ts'], {}).args).toEqual(['test', '--list', '--reporter=list', '-c', 'other.ts']);
});

test('a narrowed run is recognised from Playwright\'s arguments', () => {
  const pw = (...args: string[]) => narrowingArgs(['node', 'cli.js', 'test', ...args]);
  expect(pw('-c', '/x/playwright.config.ts', '--workers', '2', '--output', 'test-results', '--reporter=list', '-u', 'all', '--project', 'a', 'b')).toBeNull();
  expect(pw('--grep', 'rate', '--shard=1/2', '-j', '2')).toBe('--grep rate --shard=1/2');
  expect(pw('specs/headers.spec.ts:6', '--last-failed', 'rate-limit')).toBe('specs/headers.spec.ts:6 --last-failed rate-limit');
});

test('the page escapes and masks everything it shows', () => {
  const secret = 'page-secret-0123456789';
  registerSecret(secret);
  const c = aCase('bill-enquiry.<script>alert(1)</script>', 'FAIL', {
    notes: [{ verdict: 'FAIL', text: `echoed ${secret} and </td><img src=x onerror=alert(2)>` }],
    exchanges: [{ label: 'x', request: { method: 'POST', url: 'http://t/api', headers: { Authorization: `Bearer ${secret}`, clientsecret: 'plain-client-secret' }, body: '{}' }, response: { status: 400, headers: {}, body: `{"token":"${secret}"}` } }],
  });
  const report: CertificationReport = {
    format: FORMAT, formatVersion: FORMAT_VERSION,
    outcome: decideOutcome({ cases: [c], selectionNarrowed: false, runErrors: [] }),
    identity: { suiteCommit: null, schemaHash: `sha256:${'0'.repeat(64)}`, target: 'http://t', profile: 'full', limits: null, selection: { cases: null, skipCases: null, args: null } },
    runs: [{ runId: 'run-1', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', status: 'failed', cases: 1, finished: 1, seed: '1', calls: null, callsFrom: null }],
    changed: [],
    causes: groupCauses([c]), changes: null, connection: null,
    fingerprint: {
      suite: { name: 's', version: '1', commit: null, localChanges: null }, schemaHash: `sha256:${'0'.repeat(64)}`, schemaFiles: [], seed: '1',
      target: { url: 'http://t', profile: 'p' }, limits: null, selection: { cases: null, skipCases: null, args: null }, profile: 'full', baselineFile: null,
      startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', durationMs: 60_000, playwright: { version: 'x', status: 'failed' }, node: 'v20',
    },
    plan: null, counts: buildCounts([c]), matrix: buildMatrix([c]), observations: aggregateObservations([c], []),
    waivers: { file: null, used: [], notNeeded: [] }, specSections: {}, runErrors: [], cases: [c],
  };
  const html = renderHtml(report);
  expect(html).not.toContain('<script>alert(1)</script>');
  expect(html).not.toContain('<img src=x');
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  expect(html).not.toContain(secret);
  expect(html).not.toContain('plain-client-secret');
  expect(html.match(/<script>/g)).toHaveLength(1);
  expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'");
});
