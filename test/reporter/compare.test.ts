/**
 * The comparison of two packages (src/reporter/compare.ts), on hand-made reports: what counts as a
 * change of each kind, and what does not. The end-to-end runs are in regression.test.ts.
 */
import type { FailOn } from '../../src/vocabulary/fail-on.js';
import { expect, test } from '@playwright/test';
import { changeFails, compareReports, formatChanges } from '../../src/reporter/compare.js';
import type { CaseReport, CertificationReport } from '../../src/reporter/model.js';

const kase = (id: string, verdict: string, facts?: Record<string, string>, operation = id.split('.')[0]!): CaseReport => ({
  id, title: id, file: 'x.spec.ts', operation, family: 'request-fields', level: 'MUST', sections: ['2.1'], expectation: 'rejected',
  verdict, notes: [], observation: null, ...(facts ? { facts } : {}), waiver: null, testStatus: 'passed', durationMs: 1, calls: {},
  evidenceFile: null, runId: 'r', attempts: [], transient: [],
} as CaseReport);

function report(cases: CaseReport[], extra: { target?: string; url?: string; faults?: Record<string, number>; outages?: number } = {}): CertificationReport {
  return {
    format: 'sadad-certification', cases, runs: [{ runId: 'r1' }],
    identity: { target: extra.target ?? 'embedded mock' },
    fingerprint: { suite: { version: '0.1.0', commit: 'abc' }, schemaHash: 'h', target: { url: extra.url ?? 'http://127.0.0.1:4000', profile: null }, limits: null, selection: {}, profile: 'full', startedAt: '2026-11-25T00:00:00Z' },
    observations: {
      errorBodyShapes: [],
      availability: {
        byOperation: extra.faults ? { 'bill-enquiry': { byKind: Object.fromEntries(Object.entries(extra.faults).map(([k, n]) => [k, { faults: n, recovered: n }])) } } : {},
        outages: Array.from({ length: extra.outages ?? 0 }, (_, i) => ({ durationMs: 1000 * (i + 1) })),
      },
    },
  } as unknown as CertificationReport;
}

const rejection = (form: string, body = '{code: string}') => ({ answers: `${form === 'in-band' ? 'HTTP 200' : 'HTTP 400'} ${body}`, 'rejection form': form });

test('the same facts on another port, with other timings and values in the wording: no change of any kind', () => {
  const a = report([kase('bill-enquiry.req.A.missing', 'PASS', rejection('HTTP 400'))], { url: 'http://127.0.0.1:4000' });
  const b = report([{ ...kase('bill-enquiry.req.A.missing', 'PASS', rejection('HTTP 400')), observation: { answer: 'HTTP 400 after 7 ms, reference X123' } }], { url: 'http://127.0.0.1:4711' });
  const ch = compareReports(a, b, 'prev.json');
  expect(ch.byKind).toEqual({ verdict: 0, behaviour: 0, availability: 0, fingerprint: 0 });
  expect(formatChanges(ch)).toMatch(/: none$/);
});

test('one change seen by many cases of an operation is one behaviour change listing them; verdicts, rules and availability are their own kinds', () => {
  const ids = ['bill-enquiry.req.A.missing', 'bill-enquiry.req.B.missing', 'bill-enquiry.req.C.empty'];
  const a = report([...ids.map((id) => kase(id, 'PASS', rejection('HTTP 400'))), kase('moi-payment.res.MessageType', 'PASS', {})], { faults: {} });
  const b = report([...ids.map((id) => kase(id, 'PASS', rejection('in-band'))), kase('moi-payment.res.MessageType', 'FAIL', {})], { faults: { 'HTTP 503': 2 }, outages: 1 });
  b.cases[0]!.level = 'SHOULD';
  const ch = compareReports(a, b, 'prev.json');
  const form = ch.behaviour.find((x) => x.topic === 'rejection form')!;
  expect(form).toEqual({ topic: 'rejection form', operation: 'bill-enquiry', previous: 'HTTP 400', current: 'in-band', cases: [...ids].sort() });
  expect(ch.behaviour.filter((x) => x.topic === 'answers')).toHaveLength(1);
  expect(ch.verdicts.map((v) => `${v.case} ${v.kind}`)).toEqual(['moi-payment.res.MessageType newly failing']);
  expect(ch.rules!.map((r) => r.case)).toEqual(['bill-enquiry.req.A.missing']);
  expect(ch.availability!.map((x) => `${x.topic}: ${x.previous} -> ${x.current}`).sort()).toEqual(['outages: none -> 1 outage', 'transient faults: none -> HTTP 503']);
  expect(ch.byKind).toEqual({ verdict: 2, behaviour: 2, availability: 2, fingerprint: 0 });
  expect(ch.count).toBe(4);
  const withChanges = { ...b, changes: ch } as CertificationReport;
  const fails = (v: string) => changeFails(withChanges, v as FailOn);
  expect(fails('fail')).toEqual([]);
  expect(fails('verdict')).toEqual(['verdict']);
  expect(fails('behaviour')).toEqual(['verdict', 'behaviour']);
  expect(fails('change')).toEqual(['verdict', 'behaviour']);
  expect(fails('any')).toEqual(['verdict', 'behaviour', 'availability']);
  expect(formatChanges(ch, 'behaviour')).toMatch(/^Changes since r1 .*: 2 verdict \(fails the run: SADAD_FAIL_ON=behaviour\), 2 behaviour \(fails the run: SADAD_FAIL_ON=behaviour\), 2 availability$/m);
});

test('availability alone, and another length of outage: only `any` fails, and only on the kinds of fault or the number of outages', () => {
  const a = report([kase('bill-enquiry.req.A.missing', 'PASS', rejection('HTTP 400'))], { faults: { 'HTTP 503': 1 }, outages: 1 });
  const b = report([kase('bill-enquiry.req.A.missing', 'PASS', rejection('HTTP 400'))], { faults: { 'HTTP 503': 9 }, outages: 1 });
  b.observations.availability!.outages[0]!.durationMs = 99_000;
  expect(compareReports(a, b, 'p').byKind).toEqual({ verdict: 0, behaviour: 0, availability: 0, fingerprint: 0 });
  const c = report([kase('bill-enquiry.req.A.missing', 'PASS', rejection('HTTP 400'))], { faults: { 'HTTP 503': 1, reset: 1 }, outages: 1 });
  const ch = compareReports(a, c, 'p');
  expect(ch.byKind).toEqual({ verdict: 0, behaviour: 0, availability: 1, fingerprint: 0 });
  expect(changeFails({ ...c, changes: ch } as CertificationReport, 'behaviour' as FailOn)).toEqual([]);
  expect(changeFails({ ...c, changes: ch } as CertificationReport, 'any' as FailOn)).toEqual(['availability']);
});

test('a case that did not run in one of the runs, and a package of a suite that recorded no facts: no behaviour change, and the changes say what was not compared', () => {
  const a = report([kase('bill-enquiry.req.A.missing', 'NOT_RUN', {})]);
  const b = report([kase('bill-enquiry.req.A.missing', 'PASS', rejection('HTTP 400'))]);
  const ch = compareReports(a, b, 'p');
  expect(ch.behaviour).toEqual([]);
  expect(ch.verdicts).toHaveLength(1);
  const old = report([kase('bill-enquiry.req.A.missing', 'PASS')]);
  const ch2 = compareReports(old, b, 'p');
  expect(ch2.behaviour).toEqual([]);
  expect(ch2.limits!.join()).toMatch(/records no stable facts/);
  expect(formatChanges(ch2)).toMatch(/note: the previous package records no stable facts/);
});

test('the target as configured is compared, not the address the run reached', () => {
  const a = report([], { target: 'embedded mock', url: 'http://127.0.0.1:1' });
  const b = report([], { target: 'embedded mock (MOCK_DEFECTS=x)', url: 'http://127.0.0.1:2' });
  expect(compareReports(a, b, 'p').fingerprint).toEqual([{ field: 'target', previous: 'embedded mock', current: 'embedded mock (MOCK_DEFECTS=x)' }]);
});
