/**
 * Resumed and merged packages in model terms: which verdict a case keeps, its attempt history, the
 * runs, the cases a resume reruns, what makes a resume refuse, the availability observation, and a
 * package built from a journal on disk (a run killed, then resumed) without Playwright.
 */
import { readSettingsOrError } from '../../src/config/settings.js';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { certifyCommand, packageExitCode } from '../../src/cli/certify.js';
import { SCHEMAS_DIR } from '../../src/paths.js';
import { aggregateAvailability, parseFaults } from '../../src/reporter/availability.js';
import { configuredTarget, identityDifferences, type RunIdentity } from '../../src/reporter/identity.js';
import { writeManifest, type ManifestCase, type RunManifest } from '../../src/reporter/journal.js';
import { writeEvidence } from '../../src/evidence/store.js';
import { type EvidenceRecord } from '../../src/evidence/record.js';
import { casesToRerun, changedVerdicts, mergeCases, mergeRuns, totalCalls } from '../../src/reporter/merge.js';
import { classifyWaivers, type CaseReport, type RunSummary } from '../../src/reporter/model.js';
import { buildPackage, currentPackage, writePackage } from '../../src/reporter/package.js';
import type { Verdict } from '../../src/vocabulary/verdicts.js';

function aCase(id: string, verdict: Verdict, runId: string, extra: Partial<CaseReport> = {}): CaseReport {
  return {
    id, title: `${id} §4`, file: 'specs/x.spec.ts', operation: 'bill-enquiry', family: 'headers', level: 'MUST', sections: ['4'], expectation: 'rejected',
    verdict, notes: [], observation: null, waiver: null, testStatus: 'passed', durationMs: 5, calls: { 'bill-enquiry': 1 }, evidenceFile: null,
    runId, attempts: [{ runId, at: `2026-01-0${runId === 'r1' ? 1 : 2}T00:00:00.000Z`, verdict }], transient: [],
    ...(verdict === 'PASS' ? {} : { exchanges: [] }), ...extra,
  };
}

test('merge: a rerun case takes its new verdict; a case the resumed run did not finish keeps its earlier verdict; the rest is carried; attempts accumulate', () => {
  const previous = [aCase('a', 'PASS', 'r1'), aCase('b', 'NOT_RUN', 'r1'), aCase('c', 'ERROR', 'r1'), aCase('d', 'FAIL', 'r1')];
  const current = [aCase('b', 'PASS', 'r2'), aCase('c', 'NOT_RUN', 'r2'), aCase('d', 'PASS', 'r2')];
  const merged = mergeCases(previous, current);
  const byId = Object.fromEntries(merged.map((c) => [c.id, c]));
  expect(merged.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd']);
  expect(byId.a).toBe(previous[0]);
  expect([byId.b!.verdict, byId.b!.runId, byId.b!.attempts.map((x) => `${x.runId}:${x.verdict}`)]).toEqual(['PASS', 'r2', ['r1:NOT_RUN', 'r2:PASS']]);
  expect([byId.c!.verdict, byId.c!.runId, byId.c!.attempts.map((x) => `${x.runId}:${x.verdict}`)]).toEqual(['ERROR', 'r1', ['r1:ERROR', 'r2:NOT_RUN']]);
  expect([byId.d!.verdict, byId.d!.attempts.map((x) => x.verdict)]).toEqual(['PASS', ['FAIL', 'PASS']]);
  // NOT_RUN attempts say nothing about the target: no change; a FAIL then PASS is one
  expect(changedVerdicts(merged)).toEqual([{ case: 'd', verdicts: ['FAIL', 'PASS'] }]);
  expect(casesToRerun(previous, { failed: false })).toEqual(['b', 'c']);
  expect(casesToRerun(previous, { failed: true })).toEqual(['b', 'c', 'd']);
  expect(casesToRerun(merged, { failed: true })).toEqual(['c']);
  // an undecided rule is the target's answer too: asked again with --rerun-failed only
  expect(casesToRerun([aCase('e', 'INCONCLUSIVE', 'r1')], { failed: false })).toEqual([]);
  expect(casesToRerun([aCase('e', 'INCONCLUSIVE', 'r1')], { failed: true })).toEqual(['e']);
});

test('runs: one entry per run, a run rebuilt twice counted once; calls summed over the runs that know theirs', () => {
  const run = (runId: string, calls: Record<string, number> | null): RunSummary => ({ runId, startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:01:00.000Z', status: 'passed', cases: 1, finished: 1, seed: '1', calls, callsFrom: calls ? 'pacer' : null });
  const runs = mergeRuns([run('r1', { 'bill-enquiry': 5 }), run('r2', null)], run('r2', { 'bill-enquiry': 3, 'moi-enquiry': 1 }));
  expect(runs.map((r) => r.runId)).toEqual(['r1', 'r2']);
  expect(totalCalls(runs)).toEqual({ 'bill-enquiry': 8, 'moi-enquiry': 1 });
  expect(totalCalls([run('r1', null)])).toBeNull();
});

test('a waiver never accepts NOT_RUN', () => {
  const [w] = classifyWaivers([{ case: 'x', verdict: 'FAIL', comment: 'known' }], [{ id: 'x', verdict: 'NOT_RUN' }]);
  expect(w).toMatchObject({ status: 'not-needed', actual: 'NOT_RUN' });
  expect(w!.reason).toMatch(/never accepts/);
});

const identity = (over: Partial<RunIdentity> = {}): RunIdentity => ({
  suiteCommit: 'a'.repeat(40), schemaHash: `sha256:${'1'.repeat(64)}`, target: 'embedded mock', profile: 'full',
  limits: { windowSeconds: 1, bill: 10, moi: 3 }, selection: { cases: null, skipCases: null, args: null }, ...over,
});

test('a resume is refused when the target, the selection, the limits, the profile or the suite differ, each named', () => {
  expect(identityDifferences(identity(), identity())).toEqual([]);
  const d = identityDifferences(identity(), identity({ target: 'https://sandbox.test', selection: { cases: 'bill-*', skipCases: null, args: '--grep rate' }, limits: { windowSeconds: 60, bill: 10, moi: 3 }, profile: 'smoke', suiteCommit: 'b'.repeat(40) }));
  expect(d).toEqual([
    `suite commit: the previous run's was ${'a'.repeat(40)}, this one's is ${'b'.repeat(40)}`,
    "target: the previous run's was embedded mock, this one's is https://sandbox.test",
    "profile (SADAD_PROFILE): the previous run's was full, this one's is smoke",
    "limits (SADAD_RATE_WINDOW_SECONDS, SADAD_RATE_LIMIT_BILL, SADAD_RATE_LIMIT_MOI, SADAD_RATE_SHAPE): the previous run's was bill 10, MOI 3 per 1 s, this one's is bill 10, MOI 3 per 60 s",
    "selection SADAD_CASES: the previous run's was none, this one's is bill-*",
    "selection by Playwright arguments (--grep, --shard, spec files): the previous run's was none, this one's is --grep rate",
  ]);
  // the embedded mock is named by its settings, never its port (new every run), never its credentials
  expect(configuredTarget({ MOCK_DEFECTS: 'list-as-object', MOCK_STYLE: 'table', MOCK_PORT: '4010', MOCK_ACCESS_TOKEN: 'tok-secret' })).toBe('embedded mock (MOCK_DEFECTS=list-as-object, MOCK_STYLE=table)');
  expect(configuredTarget({ SADAD_BASE_URL: 'https://sandbox.test/' })).toBe('https://sandbox.test');
});

test('availability: faults per operation and kind, recovered or not, against the calls; none reads as such', () => {
  const none = aggregateAvailability([{ id: 'a', transient: [] }], { 'bill-enquiry': 120, 'moi-enquiry': 30 });
  expect(none).toMatchObject({ summary: 'no transient fault seen in 150 calls', faults: 0, recovered: 0, calls: 150 });
  expect(none.byOperation['moi-enquiry']).toEqual({ calls: 30, faults: 0, recovered: 0, byKind: {} });
  const some = aggregateAvailability([
    { id: 'a', transient: [{ op: 'bill-enquiry', kind: 'HTTP 503', recovered: true }, { op: 'bill-enquiry', kind: 'HTTP 503', recovered: false }] },
    { id: 'b', transient: parseFaults(JSON.stringify([{ op: 'moi-payment', kind: 'reset', recovered: true }])) },
  ], null);
  expect(some.summary).toBe('3 transient faults (2 recovered, 1 not)');
  expect(some.byOperation['bill-enquiry']).toEqual({ calls: null, faults: 2, recovered: 1, byKind: { 'HTTP 503': { faults: 2, recovered: 1 } } });
  expect(some.cases).toContainEqual({ case: 'b', op: 'moi-payment', kind: 'reset', recovered: true });
  expect(parseFaults('not json')).toEqual([]);
});

test('the certify command: its own flags are taken out, contradictions refused in words', () => {
  expect(certifyCommand(['--resume', '--workers', '2'], {})).toEqual({ mode: 'resume', rerunFailed: false, rest: ['--workers', '2'] });
  expect(certifyCommand(['--rerun-failed'], {})).toEqual({ mode: 'resume', rerunFailed: true, rest: [] });
  expect(certifyCommand(['--report'], {})).toEqual({ mode: 'report', rerunFailed: false, rest: [] });
  expect(certifyCommand(['--grep', 'rate'], {})).toEqual({ mode: 'run', rerunFailed: false, rest: ['--grep', 'rate'] });
  expect(certifyCommand(['--report', '--resume'], {})).toEqual({ error: expect.stringMatching(/cannot be combined/) });
  expect(certifyCommand(['--resume', '--list'], {})).toEqual({ error: expect.stringMatching(/dry run/) });
  expect(certifyCommand(['--resume'], { SADAD_DRY_RUN: '1' })).toEqual({ error: expect.stringMatching(/dry run/) });
});

// ---- a journal on disk, built into packages as the reporter and `--report` do

const planned = (id: string, op = 'bill-enquiry'): ManifestCase => ({ id, title: `${id} §4`, file: 'specs/headers.spec.ts', operation: op, family: 'headers', level: 'MUST', sections: ['4'], expectation: 'rejected', calls: { [op]: 2 } });
const evidence = (id: string, runId: string, verdict: Verdict, extra: Partial<EvidenceRecord> = {}): EvidenceRecord => ({
  id, runId, writtenBy: 'case', verdict, testStatus: verdict === 'FAIL' ? 'failed' : 'passed', finishedAt: `2026-01-0${runId === 'r1' ? 1 : 2}T00:00:10.000Z`, durationMs: 100,
  notes: verdict === 'FAIL' ? [{ verdict: 'FAIL', text: 'accepted' }] : [], observations: { 'rejection form': 'HTTP 400' }, transient: [],
  exchanges: [{ label: '1', op: 'bill-enquiry', request: { method: 'POST', url: 'http://t/x', headers: {}, body: '{}' }, response: { status: 400, headers: {}, body: '{"errorCode":"E1"}' } }],
  ...extra,
});
function manifest(runId: string, cases: ManifestCase[], extra: Partial<RunManifest> = {}): RunManifest {
  return {
    format: 'sadad-run', formatVersion: 1, runId, startedAt: `2026-01-0${runId === 'r1' ? 1 : 2}T00:00:00.000Z`, identity: identity(),
    suite: { name: 'sadad-conformance', version: '0.1.0', commit: 'a'.repeat(40), localChanges: false }, schemaFiles: ['x.json'], seed: runId === 'r1' ? '11' : '22',
    target: { url: 'http://127.0.0.1:1', profile: 'embedded mock' }, baselineFile: null, playwright: '1.65.1', node: 'v20', resume: null, cases, ...extra,
  };
}

test('a killed run, rebuilt from its journal, then resumed: the merged package certifies, keeps every attempt, carries the earlier evidence, and validates', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'sadad-merge-')), 'reports');
  const cases = [planned('bill-enquiry.a'), planned('bill-enquiry.b'), planned('moi-enquiry.c', 'moi-enquiry'), planned('bill-enquiry.d')];
  // run r1: killed after two cases; the third left a reporter record (its worker died); the fourth never started
  writeManifest(dir, manifest('r1', cases));
  writeEvidence(dir, evidence('bill-enquiry.a', 'r1', 'PASS', { transient: [{ op: 'bill-enquiry', kind: 'HTTP 503', recovered: true }] }));
  writeEvidence(dir, evidence('bill-enquiry.b', 'r1', 'FAIL'));
  writeEvidence(dir, { ...evidence('moi-enquiry.c', 'r1', 'NOT_RUN'), writtenBy: 'reporter', testStatus: 'failed', notes: [{ verdict: 'NOT_RUN', text: 'did not finish: the worker process running it exited unexpectedly (code=null, signal=SIGKILL)' }], exchanges: [] });
  const first = currentPackage(dir, readSettingsOrError({}))!;
  expect(first.rebuilt).toBe(true);
  const r1 = first.report;
  expect(r1.runs).toEqual([expect.objectContaining({ runId: 'r1', status: 'killed', cases: 4, finished: 2, callsFrom: 'evidence', calls: { 'bill-enquiry': 2 } })]);
  expect(r1.outcome).toMatchObject({ certifies: false, unexpected: ['bill-enquiry.b'], notRun: ['bill-enquiry.d', 'moi-enquiry.c'] });
  expect(r1.outcome.reasons.join('\n')).toMatch(/2 cases NOT_RUN: the run was killed, or crashed/);
  expect(r1.cases.find((c) => c.id === 'bill-enquiry.d')!.notes[0]!.text).toMatch(/no result reached disk/);
  expect(r1.cases.find((c) => c.id === 'moi-enquiry.c')).toMatchObject({ verdict: 'NOT_RUN', testStatus: 'failed', evidenceFile: 'evidence/moi-enquiry.c.json' });
  expect(r1.observations.availability.summary).toBe('1 transient fault in 2 calls (1 recovered, 0 not)');
  expect(packageExitCode(r1, 'fail')).toBe(1);
  expect(currentPackage(dir, readSettingsOrError({}))!.rebuilt, 'the package written is current now').toBe(false);

  // `--rerun-failed`, as certify prepares it: the package set aside in previous/, the rerun cases' evidence written anew
  const previous = join(dir, 'previous');
  mkdirSync(join(previous, 'evidence'), { recursive: true });
  for (const f of ['certification.json', 'run.json', 'evidence/bill-enquiry.a.json', 'evidence/bill-enquiry.b.json', 'evidence/moi-enquiry.c.json']) writeFileSync(join(previous, f), readFileSync(join(dir, f)));
  const rerun = ['bill-enquiry.b', 'moi-enquiry.c', 'bill-enquiry.d'];
  for (const id of ['bill-enquiry.a', 'bill-enquiry.b', 'moi-enquiry.c']) writeFileSync(join(dir, 'evidence', `${id}.json`), '{"stale": true}');
  const m2 = manifest('r2', cases.filter((c) => rerun.includes(c.id)), { resume: { from: 'previous', runIds: ['r1'], rerun } });
  m2.end = { finishedAt: '2026-01-02T00:01:00.000Z', status: 'passed', durationMs: 60_000, errors: [] };
  writeManifest(dir, m2);
  for (const id of rerun) writeEvidence(dir, evidence(id, 'r2', 'PASS'));
  const built = buildPackage(dir, m2);
  writePackage(dir, built, null);
  const r2 = built.report;
  expect(r2.outcome).toMatchObject({ certifies: true, unexpected: [], notRun: [] });
  expect(r2.runs.map((r) => [r.runId, r.cases, r.finished, r.status])).toEqual([['r1', 4, 2, 'killed'], ['r2', 3, 3, 'passed']]);
  expect(r2.changed).toEqual([{ case: 'bill-enquiry.b', verdicts: ['FAIL', 'PASS'] }]);
  const a = r2.cases.find((c) => c.id === 'bill-enquiry.a')!;
  expect([a.runId, a.attempts.length, a.transient]).toEqual(['r1', 1, [{ op: 'bill-enquiry', kind: 'HTTP 503', recovered: true }]]);
  expect(JSON.parse(readFileSync(join(dir, 'evidence/bill-enquiry.a.json'), 'utf8')).runId, 'the earlier evidence is carried into the package').toBe('r1');
  expect(r2.cases.find((c) => c.id === 'moi-enquiry.c')!.attempts.map((x) => x.verdict)).toEqual(['NOT_RUN', 'PASS']);
  expect(r2.counts.byVerdict).toMatchObject({ PASS: 4, NOT_RUN: 0, FAIL: 0 });
  expect(r2.fingerprint).toMatchObject({ startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-02T00:01:00.000Z', seed: '22' });
  expect(r2.observations.availability.faults).toBe(1);
  expect(r2.plan?.calls).toMatchObject({ 'bill-enquiry': 6, 'moi-enquiry': 2 });
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, 'certification.schema.json'), 'utf8')));
  expect(validate(r1) ? [] : validate.errors).toEqual([]);
  expect(validate(r2) ? [] : validate.errors).toEqual([]);
  expect(existsSync(join(dir, 'certification.html'))).toBe(true);
  const html = readFileSync(join(dir, 'certification.html'), 'utf8');
  expect(html).toContain('Merged from 2 runs');
  expect(html).toMatch(/Verdicts that changed between attempts: .*bill-enquiry\.b/);
});
