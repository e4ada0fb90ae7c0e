/**
 * Causes roll up (issue 24): faults of one kind met across the run are one cause, the field a case
 * changes never makes a new cause, and one defect shown on several operations is one cause that
 * lists them. Each test builds the case records a run behind a real gateway produced, and counts
 * the causes: before these rules each gave one cause per case, field or operation.
 */
import { expect, test } from '@playwright/test';
import { formatCauses, groupCauses, TRANSIENT_CAUSE } from '../../src/reporter/causes.js';
import { VACUOUS_CAUSE } from '../../src/reporter/conditions.js';
import type { CaseReport } from '../../src/reporter/model.js';
import type { Verdict } from '../../src/vocabulary/verdicts.js';

const OPS = ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'] as const;
const TITLES: Record<string, string> = { 'bill-enquiry': 'Bill Enquiry', 'bill-payment': 'Bill Payment', 'moi-enquiry': 'MOI Fee Enquiry', 'moi-payment': 'MOI Fee Payment' };
const PATHS: Record<string, string> = { 'bill-enquiry': '/api/enquiry/sadad/bill', 'bill-payment': '/api/payment/sadad/bill', 'moi-enquiry': '/api/enquiry/sadad/moi', 'moi-payment': '/api/payment/sadad/moi' };
const FAMILIES: Record<string, string> = { req: 'required-fields', hdr: 'headers', robust: 'robustness', res: 'response-schema', flow: 'flows', dup: 'duplicates', rate: 'rate-limit' };
const FIELDS = ['Amount', 'BillerId', 'BillAccountID', 'SequenceNumber', 'TransactionType', 'BankCode', 'CompanyCode', 'TransactionReferenceNumber', 'PaymentType', 'TransactionData'];

type Note = CaseReport['notes'][number];

/** A case record as the reporter builds it; `labels`: the labels of the exchanges it sent. */
function aCase(id: string, verdict: Verdict, notes: Note[], labels: string[] = []): CaseReport {
  const [operation = 'bill-enquiry', kind = 'res'] = id.split('.');
  return {
    id, title: `${id} §4`, file: 'specs/x.spec.ts', operation, family: FAMILIES[kind] ?? kind, level: 'MUST', sections: ['4'], expectation: 'rejected',
    verdict, notes, observation: null, waiver: null, testStatus: 'failed', durationMs: 5, calls: { [operation]: 1 }, evidenceFile: null,
    runId: 'run-1', attempts: [{ runId: 'run-1', at: '2026-01-01T00:00:00.000Z', verdict }], transient: [],
    exchanges: labels.map((label) => ({ label, op: operation, request: { method: 'POST', url: `https://sandbox.example${PATHS[operation]}`, headers: {}, body: '{}' } })),
  };
}
const error = (id: string, text: string, labels: string[] = []) => aCase(id, 'ERROR', [{ verdict: 'ERROR', text }], labels);
const fail = (id: string, text: string, cause?: string) => aCase(id, 'FAIL', [{ verdict: 'FAIL', text, ...(cause ? { cause } : {}) }]);
const last = (op: string, status: number) => `POST https://sandbox.example${PATHS[op]} → HTTP ${status} {"correlationId":"c0ffee-${status}","errorCode":"MW-${status}","errorMessage":"Too many requests"}`;

test.describe('faults of one kind across the run are one cause', () => {
  test('40 required-field cases whose retries ran out on 429s: one cause with its count, not one per field (was 40)', () => {
    const cases = OPS.flatMap((op) => FIELDS.map((f) => error(`${op}.req.${f}.missing`, `transient: HTTP 429 on 4 attempts (${f}.missing; last: ${last(op, 429)})`, [`${f}.missing`])));
    const causes = groupCauses(cases);
    expect(causes.map((c) => c.signature)).toEqual([`${TRANSIENT_CAUSE}: HTTP 429`]);
    expect(causes[0]!.signature).toBe('ERROR: transient faults the retries could not get past: HTTP 429');
    expect(causes[0]!.cases).toHaveLength(40);
    expect(causes[0]!.verdicts).toEqual({ ERROR: 40 });
    expect(causes[0]!.operations).toEqual([...OPS]);
    expect(causes[0]!.example.text).toContain('Amount.missing');
    const console = formatCauses(causes);
    expect(console).toContain('Causes (1), most cases first:');
    expect(console).toContain('  40 cases (40 ERROR) on bill-enquiry, bill-payment, moi-enquiry, moi-payment: ERROR: transient faults the retries could not get past: HTTP 429');
  });

  test('every ERROR text of a transient fault joins it, the kinds sorted and deduplicated (was 12 causes)', () => {
    const cases = [
      error('bill-enquiry.req.Amount.missing', `transient: HTTP 503, reset on 4 attempts (Amount.missing; last: no HTTP answer, network: the connection was closed before an answer (ECONNRESET))`, ['Amount.missing']),
      error('moi-enquiry.hdr.Device.missing', `transient: reset, HTTP 503 on 2 attempts (Device missing; last: ${last('moi-enquiry', 503)})`, ['Device missing']),
      // requireAccepted: one fault where no retry was safe, a 429 the pacer did not expect, no answer at all
      error('bill-payment.flow.partial', `the partial payment: transient: HTTP 503 (${last('bill-payment', 503)})`, ['the partial payment']),
      error('moi-payment.flow.exact', 'the payment: the target answered 429 (rate limited); the pacer\'s limits do not match the target\'s', ['the payment']),
      error('bill-payment.req.Amount.null', 'Amount null: no HTTP answer (timeout: no answer within 30000 ms)', ['Amount.null']),
      error('moi-payment.flow.partial', 'the payment got no usable answer: network: connect ECONNREFUSED 10.0.0.7:443'),
      // bursts (duplicates, rate limit), and headers' and duplicates' own 429 texts
      error('bill-payment.dup.concurrent', 'transient: HTTP 502, HTTP 502 on 2 attempts in 3 bursts: the concurrent duplicates could not be judged'),
      error('bill-payment.hdr.client-headers.required', 'rate limited: the pacer\'s limits do not match the target\'s'),
      error('moi-payment.dup.replay', 'replay: rate limited; the pacer\'s limits do not match the target\'s', ['replay']),
      // a case that read another case's shared exchange quotes its ERROR; answers lost on every attempt
      error('bill-enquiry.res.echo', `could not obtain an accepted bill-enquiry exchange: transient: HTTP 504 on 4 attempts (accepted request; last: ${last('bill-enquiry', 504)})`),
      error('moi-payment.res.schema', 'the answers of 4 accepted moi-payment requests were all lost: nothing to judge'),
      error('moi-enquiry.req.BranchCode.missing', 'the case ended on a step another case took (ERROR: transient: HTTP 429 on 4 attempts (moi enquiry (payment base); last: HTTP 429 {}))'),
    ];
    const causes = groupCauses(cases);
    expect(causes).toHaveLength(1);
    expect(causes[0]!.signature).toBe(`${TRANSIENT_CAUSE}: HTTP 429, HTTP 502, HTTP 503, HTTP 504, answers lost, refused, reset, timeout`);
    expect(causes[0]!.cases).toHaveLength(cases.length);
    expect(causes[0]!.findings.map((f) => [f.family, f.cases])).toEqual([['flows', 3], ['required-fields', 3], ['duplicates', 2], ['headers', 2], ['response-schema', 2]]);
  });

  test('a case INCONCLUSIVE behind a precondition that met the faults counts under them', () => {
    const tester = error('bill-enquiry.res.schema', `transient: HTTP 503 on 4 attempts (accepted request; last: ${last('bill-enquiry', 503)})`);
    const blocked = aCase('bill-payment.flow.partial', 'INCONCLUSIVE', [{ verdict: 'INCONCLUSIVE', text: 'precondition not met: ...', cause: 'precondition: Bill Enquiry not accepted: HTTP 503 (server error)', testedBy: 'bill-enquiry.res.schema' }]);
    const other = error('moi-enquiry.req.Amount.missing', `transient: HTTP 503 on 4 attempts (Amount.missing; last: ${last('moi-enquiry', 503)})`);
    const causes = groupCauses([tester, blocked, other]);
    expect(causes).toHaveLength(1);
    expect(causes[0]!.verdicts).toEqual({ ERROR: 2, INCONCLUSIVE: 1 });
    expect(causes[0]!.testedBy).toEqual(['bill-enquiry.res.schema']);
  });

  test('refused credentials, a suite defect, a broken case, a time limit: each one cause whatever case met it (was 9)', () => {
    const causes = groupCauses([
      error('bill-enquiry.req.Amount.missing', 'Amount omitted: rejected for credentials (HTTP 401 {"error":"invalid_token"}), so the case could not test the body; check the token, company id and signer', ['Amount.missing']),
      error('moi-payment.flow.partial', 'the payment: credentials rejected (HTTP 403 {"error":"forbidden"}); check SADAD_ACCESS_TOKEN, SADAD_COMPANY_ID and the signer'),
      error('bill-payment.res.schema', 'the target refused the bearer token (HTTP 401) on a call that is not about credentials: it was revoked or expired mid-run, or is wrong; a static SADAD_ACCESS_TOKEN cannot be renewed (SADAD_TOKEN_URL can): HTTP 401 {}'),
      error('bill-enquiry.req.BillerId.missing', 'mutation BillerId.missing does not apply to the base request'),
      error('moi-enquiry.req.BranchCode.null', 'mutation BranchCode.null does not apply to the base request'),
      error('bill-payment.dup.replay', 'the case broke: TypeError: Cannot read properties of undefined (reading \'entries\')\n    at replay (src/suite/rules/duplicates.ts:61:13)\n    at run (src/suite/case.ts:512:7)'),
      error('moi-payment.dup.replay', 'the case broke: TypeError: Cannot read properties of undefined (reading \'entries\')\n    at concurrent (src/suite/rules/duplicates.ts:140:9)'),
      error('bill-enquiry.rate.limit', 'the case did not finish within its time limit: Test timeout of 120000ms exceeded.\n\n  at specs/rate-limit.spec.ts:5'),
      error('moi-enquiry.rate.limit', 'the case did not finish within its time limit: Test timeout of 60000ms exceeded while running "beforeEach" hook.'),
    ]);
    expect(causes.map((c) => [c.signature, c.cases.length])).toEqual([
      ['ERROR: the target refused the credentials (HTTP 401 or 403) on calls that were not about them: check the token, company id and signer', 3],
      ['ERROR: a mutation does not apply to the base request it changes', 2],
      ['ERROR: the case broke: TypeError: Cannot read properties of undefined (reading \'entries\')', 2],
      ['ERROR: the case did not finish within its time limit', 2],
    ]);
  });

  test('the label of the request an ERROR met is left out: one configuration fault reads once (was 3)', () => {
    const dns = 'the host name does not resolve: getaddrinfo ENOTFOUND sandbox.example; check the host in SADAD_BASE_URL; behind a corporate proxy that resolves names for you, set HTTPS_PROXY';
    const causes = groupCauses([
      error('bill-enquiry.req.Amount.missing', `Amount.missing: ${dns}`, ['Amount.missing']),
      error('moi-payment.flow.partial', `first payment: ${dns}`, ['first payment']),
      error('bill-enquiry.robust.xml-body', `xml-body: ${dns}`, ['xml-body']),
    ]);
    expect(causes.map((c) => c.signature)).toEqual([`ERROR: ${dns}`]);
  });
});

test.describe('the field a case changes never makes a new cause', () => {
  test('required-field cases whose cause names the field: one cause per kind of change (was 20)', () => {
    const cases = FIELDS.flatMap((f) => [
      fail(`bill-payment.req.${f}.missing`, `${f} omitted: the target accepted it: HTTP 200 {}`, `Bill Payment: a request with ${f} omitted accepted`),
      fail(`bill-payment.req.${f}.null`, `${f} null: the target accepted it: HTTP 200 {}`, `Bill Payment: a request with ${f} null accepted (${f}.null)`),
    ]);
    const causes = groupCauses(cases);
    expect(causes.map((c) => [c.signature, c.cases.length])).toEqual([
      ['Bill Payment: a request with <field> null accepted (<field>.null)', 10],
      ['Bill Payment: a request with <field> omitted accepted', 10],
    ]);
    expect(causes[1]!.example).toEqual({ case: 'bill-payment.req.Amount.missing', text: 'Amount omitted: the target accepted it: HTTP 200 {}' });
  });

  test('header cases whose notes name the header: grouped by what the target did (was 6)', () => {
    const causes = groupCauses([
      error('moi-enquiry.hdr.CompanyId.missing', 'no CompanyId header: the target answered HTTP 302 (neither success nor rejection)', ['CompanyId missing']),
      error('moi-enquiry.hdr.Device.missing', 'no Device header: the target answered HTTP 302 (neither success nor rejection)', ['Device missing']),
      error('moi-enquiry.hdr.SvcReferenceID.missing', 'no <prefix>ReferenceID header: the target answered HTTP 302 (neither success nor rejection)', ['SvcReferenceID missing']),
      fail('moi-enquiry.hdr.Device.empty', 'an empty Device: the target accepted it', 'MOI Fee Enquiry: an empty Device accepted'),
      fail('moi-enquiry.hdr.SvcReferenceID.empty', 'an empty reference id: accepted', 'MOI Fee Enquiry: an empty SvcReferenceID accepted'),
      fail('moi-enquiry.hdr.DateTimeStamp.empty', 'an empty DateTimeStamp: the target accepted it', 'MOI Fee Enquiry: an empty DateTimeStamp accepted'),
    ]);
    expect(causes.map((c) => [c.signature, c.cases.length])).toEqual([
      ['ERROR: no <header> header: the target answered HTTP # (neither success nor rejection)', 3],
      ['MOI Fee Enquiry: an empty <header> accepted', 3],
    ]);
  });

  test('a field named for another reason stays: the Message wrapper reads as one cause with the Message cases in it', () => {
    const wrapped = 'the answers are wrapped in a Message object: the root tag is not at the top level';
    const causes = groupCauses([
      fail('bill-enquiry.res.schema', 'the root tag is missing', wrapped),
      aCase('bill-enquiry.req.Message.missing', 'INCONCLUSIVE', [{ verdict: 'INCONCLUSIVE', text: 'precondition not met', cause: wrapped, testedBy: 'moi-enquiry.res.schema' }]),
      aCase('bill-enquiry.req.TransactionData.null', 'INCONCLUSIVE', [{ verdict: 'INCONCLUSIVE', text: 'precondition not met', cause: 'precondition: Bill Enquiry TransactionData answered as an object, not an array', testedBy: 'moi-enquiry.res.schema' }]),
      fail('bill-enquiry.res.lists', 'TransactionData is an object', 'precondition: Bill Enquiry TransactionData answered as an object, not an array'),
    ]);
    expect(causes.map((c) => [c.signature, c.cases.length])).toEqual([
      ['precondition: Bill Enquiry TransactionData answered as an object, not an array', 2],
      [wrapped, 2],
    ]);
  });
});

test.describe('one defect on several operations is one cause listing them', () => {
  test('a header not checked on all four operations: one cause, its operations and its 8 cases (was 4)', () => {
    const cases = OPS.flatMap((op) => [
      fail(`${op}.hdr.CompanyId.missing`, 'no CompanyId header: the target accepted it: HTTP 200 {}', `${TITLES[op]}: requests with a missing or bad header accepted`),
      fail(`${op}.hdr.CompanyId.unknown`, 'a CompanyId the target does not know: the target accepted it: HTTP 200 {}', `${TITLES[op]}: requests with a missing or bad header accepted`),
    ]);
    const causes = groupCauses(cases);
    expect(causes).toHaveLength(1);
    expect(causes[0]!.signature).toBe('All four operations: requests with a missing or bad header accepted');
    expect(causes[0]!.operations).toEqual([...OPS]);
    expect(causes[0]!.cases).toEqual(cases.map((c) => c.id));
    expect(causes[0]!.example.case).toBe('bill-enquiry.hdr.CompanyId.missing');
    expect(formatCauses(causes)).toContain('     8 cases (8 FAIL) on bill-enquiry, bill-payment, moi-enquiry, moi-payment: All four operations: requests with a missing or bad header accepted');
  });

  test('a defect on two operations names them; one on a single operation keeps its own cause', () => {
    const causes = groupCauses([
      fail('bill-enquiry.robust.malformed-json', 'HTTP 500', 'Bill Enquiry: unreadable bodies answered HTTP 500 (server error)'),
      fail('moi-enquiry.robust.malformed-json', 'HTTP 500', 'MOI Fee Enquiry: unreadable bodies answered HTTP 500 (server error)'),
      fail('moi-enquiry.robust.empty-body', 'HTTP 500', 'MOI Fee Enquiry: unreadable bodies answered HTTP 500 (server error)'),
      fail('bill-payment.res.lists', 'an object', 'Bill Payment: TransactionData answered as an object, not an array'),
    ]);
    expect(causes.map((c) => [c.signature, c.operations])).toEqual([
      ['Bill Enquiry and MOI Fee Enquiry: unreadable bodies answered HTTP 500 (server error)', ['bill-enquiry', 'moi-enquiry']],
      ['Bill Payment: TransactionData answered as an object, not an array', ['bill-payment']],
    ]);
    const console = formatCauses(causes);
    expect(console).toContain('     3 cases (3 FAIL) on bill-enquiry, moi-enquiry: Bill Enquiry and MOI Fee Enquiry: unreadable bodies answered');
    expect(console).toContain('     1 case  (1 FAIL): Bill Payment: TransactionData answered as an object, not an array');
  });

  test('operations named by id (a vacuous rejection) group too, each with the case that tests it; a case id is no operation', () => {
    const vacuous = (id: string, op: string) => aCase(id, 'INCONCLUSIVE', [{ verdict: 'INCONCLUSIVE', text: `a rejection proves nothing here: ${op}.res.schema tests acceptance directly`, cause: VACUOUS_CAUSE(op), testedBy: `${op}.res.schema` }]);
    const causes = groupCauses([
      vacuous('bill-payment.req.Amount.missing', 'bill-payment'), vacuous('moi-payment.req.Amount.missing', 'moi-payment'), vacuous('moi-payment.req.Amount.null', 'moi-payment'),
      fail('bill-enquiry.res.echo', 'x', 'echo broken, bill-enquiry.res.schema tests it'),
      fail('moi-enquiry.res.echo', 'x', 'echo broken, moi-enquiry.res.schema tests it'),
    ]);
    expect(causes.map((c) => [c.signature, c.cases.length, c.testedBy])).toEqual([
      ['precondition: bill-payment and moi-payment accepted nothing in this run', 3, ['bill-payment.res.schema', 'moi-payment.res.schema']],
      ['echo broken, bill-enquiry.res.schema tests it', 1, []],
      ['echo broken, moi-enquiry.res.schema tests it', 1, []],
    ]);
  });

  test('what worked still does: INCONCLUSIVE under the root cause, the findings per rule family, the failing case as the example', () => {
    const root = 'Bill Enquiry not accepted: HTTP 200 with a failing in-band status';
    const causes = groupCauses([
      aCase('bill-payment.flow.partial', 'INCONCLUSIVE', [{ verdict: 'INCONCLUSIVE', text: 'precondition not met: the enquiry was not accepted', cause: `precondition: ${root}`, testedBy: 'bill-enquiry.res.schema' }]),
      aCase('bill-payment.dup.replay', 'INCONCLUSIVE', [{ verdict: 'INCONCLUSIVE', text: 'precondition not met: the enquiry was not accepted', cause: `precondition: ${root}`, testedBy: 'bill-enquiry.res.schema' }]),
      fail('bill-enquiry.res.schema', 'the enquiry was not accepted: HTTP 200 {}', root),
      aCase('bill-enquiry.res.echo', 'PASS', []),
    ]);
    expect(causes).toHaveLength(1);
    expect(causes[0]!.signature).toBe(root);
    expect(causes[0]!.verdicts).toEqual({ INCONCLUSIVE: 2, FAIL: 1 });
    expect(causes[0]!.testedBy).toEqual(['bill-enquiry.res.schema']);
    expect(causes[0]!.example).toEqual({ case: 'bill-enquiry.res.schema', text: 'the enquiry was not accepted: HTTP 200 {}' });
    expect(causes[0]!.findings.map((f) => [f.family, f.cases])).toEqual([['duplicates', 1], ['flows', 1], ['response-schema', 1]]);
    expect([...causes[0]!.operations].sort()).toEqual(['bill-enquiry', 'bill-payment']);
  });
});
