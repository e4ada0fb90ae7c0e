/**
 * Which cases a change of the API document touches (src/replay/spec-change.ts over the references
 * of src/suite/spec-refs.ts): the same comparison a re-judge under the newer document makes. Each
 * change here is made in memory on the document this project is built from; the end-to-end proof
 * (a package recorded under the old document, re-judged and resumed under the new one) is
 * test/spec/downstream.test.ts.
 */
import { expect, test } from '@playwright/test';
import { currentSpec, refDigests, type SpecView } from '../../src/contract/spec-refs.js';
import { fieldName } from '../../src/contract/field-tables.js';
import { casesChange } from '../../src/replay/spec-change.js';
import { allCases, registrationWith } from '../../src/suite/cases.js';
import { specRefsOf } from '../../src/suite/spec-refs.js';
import { specCoverage } from '../../src/reporter/spec-coverage.js';

const edited = (edit: (s: SpecView) => void): SpecView => {
  const s = structuredClone(currentSpec());
  edit(s);
  return s;
};
const ids = allCases(registrationWith('full')).map(([d]) => d);

test('the same document: no case changes, none is added or removed', () => {
  expect(casesChange(currentSpec(), structuredClone(currentSpec()))).toEqual({ added: [], removed: [], changed: [] });
});

test('a lower MOI rate limit changes exactly the MOI operations\' rate-limit cases', () => {
  const next = edited((s) => {
    for (const op of s.facts.operations) if (op.rateGroup === 'moi') op.rateLimit = 2;
    for (const l of s.facts.limits) if (l.name.includes('MOI')) l.value = '2 calls per minute';
  });
  const change = casesChange(currentSpec(), next);
  expect(change.changed.map((c) => c.id).sort()).toEqual(['moi-enquiry.rate.limit', 'moi-payment.rate.limit']);
  expect(change.changed.find((c) => c.id === 'moi-enquiry.rate.limit')!.because).toEqual(['the moi-enquiry rate limit', 'limit "Sandbox rate, MOI Enquiry and MOI Payment"']);
  expect([change.added, change.removed]).toEqual([[], []]);
});

test('a response field removed changes the cases that test that table, not those that only read its status rows', () => {
  const next = edited((s) => {
    const t = s.fieldTables.messages['bill-payment.response']!;
    t.fields = t.fields.filter((f) => fieldName(f.path) !== 'BankReferenceNumber');
  });
  const change = casesChange(currentSpec(), next);
  expect(change.changed.map((c) => c.id)).toEqual(['bill-payment.res.schema']);
  expect(change.changed[0]!.because).toEqual(['the bill-payment.response field table']);
});

test('a new required request field changes every case that sends that operation\'s body, and names the cases the next run adds', () => {
  const next = edited((s) => {
    const t = s.fieldTables.messages['moi-enquiry.request']!;
    t.fields.push({ path: 'Message.SvcSadadMOIEnquiryRequest.SvcSadadMOIEnquiry[].TransactionData[].Nationality', required: true, type: 'String' });
  });
  const change = casesChange(currentSpec(), next);
  const changed = new Set(change.changed.map((c) => c.id));
  const sendsMoiEnquiry = ids.filter((d) => specRefsOf(d).builtFrom.includes('table:moi-enquiry.request')).map((d) => d.id);
  expect([...changed].sort()).toEqual(sendsMoiEnquiry.sort());
  // the enquiry's own cases, and the MOI payments built on an enquiry; never a bill operation's
  expect(changed.has('moi-enquiry.req.BillerID.missing')).toBe(true);
  expect([...changed].some((id) => id.startsWith('moi-payment.'))).toBe(true);
  expect([...changed].filter((id) => id.startsWith('bill-'))).toEqual([]);
  expect(change.added).toEqual(['moi-enquiry.req.Nationality.*']);
});

test('a shorter AccountNumber changes the bill enquiry\'s cases and its limit cases name the row', () => {
  const next = edited((s) => {
    const row = s.fieldTables.messages['bill-enquiry.request']!.fields.find((f) => fieldName(f.path) === 'AccountNumber')!;
    row.maxLength = 20;
  });
  const change = casesChange(currentSpec(), next);
  const atLimit = change.changed.find((c) => c.id === 'bill-enquiry.req.AccountNumber.at-limit')!;
  expect(atLimit.because).toContain('row Message.SvcSadadBillEnquiryRequest.SvcSadadBillEnquiry[].TransactionData[].AccountNumber of bill-enquiry.request');
  expect(change.changed.every((c) => ids.find((d) => d.id === c.id)!.op !== 'moi-enquiry')).toBe(true);
});

test('a header added changes every case (every call sends the header table) and names each operation\'s new header cases', () => {
  const next = edited((s) => { s.facts.headers.push({ name: 'Channel', digest: 'channel', line: 0 }); });
  const change = casesChange(currentSpec(), next);
  expect(change.changed).toHaveLength(ids.length);
  expect(change.added).toEqual(currentSpec().facts.operations.map((o) => `${o.id}.hdr.Channel.*`));
});

test('an operation\'s cases record digests that hold for an unchanged document and break for a changed one', () => {
  const def = ids.find((d) => d.id === 'bill-enquiry.req.AccountNumber.over-limit')!;
  const { builtFrom, tests } = specRefsOf(def);
  expect(tests).toEqual(expect.arrayContaining(['row:bill-enquiry.request:Message.SvcSadadBillEnquiryRequest.SvcSadadBillEnquiry[].TransactionData[].AccountNumber']));
  expect(tests.some((t) => t.startsWith('limits:') && t.includes('AccountNumber'))).toBe(true);
  const before = refDigests(builtFrom, currentSpec());
  expect(refDigests(builtFrom, structuredClone(currentSpec()))).toEqual(before);
  const next = edited((s) => { s.fieldTables.messages['bill-enquiry.request']!.fields.find((f) => fieldName(f.path) === 'AccountNumber')!.maxLength = 20; });
  expect(refDigests(builtFrom, next)).not.toEqual(before);
});

test('spec coverage: every item of the document is listed; what no case tests is untested, and a table\'s case covers its rows', () => {
  const cases = ids.map((d) => ({ id: d.id, verdict: 'PASS' as const, tests: specRefsOf(d).tests }));
  const cov = specCoverage(cases, currentSpec());
  const spec = currentSpec();
  const rows = Object.values(spec.fieldTables.messages).reduce((n, t) => n + t.fields.length, 0);
  expect(cov.total).toBe(rows + spec.facts.operations.length * 2 + spec.facts.headers.length + spec.facts.rules.length + spec.facts.limits.length);
  expect(cov.byKind.field).toEqual({ total: rows, covered: rows });
  expect(cov.byKind.endpoint.covered).toBe(spec.facts.operations.length);
  // the document's prose rules no machine check covers stay untested, and say so
  const untested = cov.items.filter((i) => !i.tested.length).map((i) => i.ref);
  expect(untested).toEqual(expect.arrayContaining(['rule:2.9.3', 'limits:Production rate']));
  expect(cov.untested).toBe(untested.length);
  expect(cov.summary).toMatch(new RegExp(`^${cov.covered} of ${cov.total} rows, endpoints, headers, rules and limits of the document are tested; untested: `));
  const schema = cov.items.find((i) => i.ref.startsWith('row:bill-payment.response:') && i.ref.endsWith('.BankReferenceNumber'))!;
  expect(schema.tested.map((t) => t.id)).toEqual(['bill-payment.res.schema']);
});
