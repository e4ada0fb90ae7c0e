/**
 * One `npm run certify` run against the mock with deliberately failing cases (the suite's rate limits
 * are lower than the mock's, so the over-limit call is accepted: FAIL), a baseline that waives one of
 * them, and a signer, token and client secret to look for afterwards. Then: the JSON validates against
 * its schema, the failing case carries its evidence in both files, the waivers are listed, the
 * checksums verify, no secret is anywhere, and Debian Chromium shows the report as a reader sees it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPORTS_DIR, ROOT, SCHEMAS_DIR } from '../../src/paths.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import { counts } from '../suite/run-suite.js';
import { certify, filesUnder, recordingMock, type CertifyRun, type RecordingMock } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
test.describe.configure({ mode: 'default' });
// the page fixture opens Debian Chromium: test/playwright.config.ts's `use` (one for every file, so that they share workers)

const token = `tok-${randomBytes(12).toString('hex')}`;
const clientSecret = `cs-${randomBytes(12).toString('hex')}`;
const FAILING = 'bill-enquiry.rate.limit';
const WAIVED = 'moi-enquiry.rate.limit';
const CASES = [
  FAILING, WAIVED, 'bill-enquiry.res.*', 'bill-enquiry.hdr.Authorization.*', 'bill-enquiry.hdr.signature.*',
  'bill-enquiry.hdr.client-headers.required', 'moi-enquiry.req.BankCode.*', 'moi-payment.dup.other-fee',
].join(',');
const WAIVERS = [
  { case: WAIVED, verdict: 'FAIL', comment: 'TICKET-1: the sandbox counts MOI calls per minute, not per window' },
  { case: 'bill-enquiry.res.schema', verdict: 'FAIL', comment: 'TICKET-2: strict types were fixed since' },
  { case: 'moi-payment.rate.limit', verdict: 'WARN', comment: 'TICKET-3: answered 400 instead of 429' },
];

let mock: RecordingMock;
let run: CertifyRun;
let report: CertificationReport;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  mock = await recordingMock({
    accessToken: token, companyId: 'CERTTEST', clientId: 'cert-client', clientSecret,
    rateWindowSeconds: 1, rateLimits: { bill: 100, moi: 100 },
    signaturePublicKeyPem: readFileSync(join(ROOT, 'data/test-keys/signing-public.pem'), 'utf8'),
  });
  const baseline = join(mkdtempSync(join(tmpdir(), 'sadad-baseline-')), 'baseline.json');
  writeFileSync(baseline, JSON.stringify({ waivers: WAIVERS }, null, 2));
  run = await certify({
    SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: token, SADAD_COMPANY_ID: 'CERTTEST', SADAD_CLIENT_ID: 'cert-client', SADAD_CLIENT_SECRET: clientSecret,
    SADAD_SIGNING_KEY: join(ROOT, 'data/test-keys/signing-private.pem'),
    SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '10', SADAD_RATE_LIMIT_MOI: '3',
    SADAD_CASES: CASES, SADAD_BASELINE: baseline, SADAD_SEED: '4242', SADAD_PAYMENTS: 'on',
  });
  const file = join(run.reportsDir, 'certification.json');
  if (!existsSync(file)) throw new Error(`no certification.json; the run said:\n${run.output.slice(-4000)}`);
  report = JSON.parse(readFileSync(file, 'utf8'));
});

test.afterAll(async () => {
  await mock?.close();
});

test('the run fails on the FAIL the baseline does not accept, and only on it', () => {
  expect(run.code, run.output.slice(-3000)).toBe(1);
  expect(counts(run).failed, 'Playwright failed only the unwaived case').toBe(1);
  expect(run.output).toContain(`FAIL ${FAILING}`);
  expect(run.output).toMatch(/Certification: Does not certify/);
  expect(report.outcome.certifies).toBe(false);
  expect(report.outcome.unexpected).toEqual([FAILING]);
  expect(report.outcome.waived).toEqual([WAIVED]);
  expect(report.outcome.summary).toBe('Does not certify: 1 FAIL; partial case selection.');
  expect(report.outcome.reasons.join('\n')).toMatch(/1 case FAIL/);
  expect(report.outcome.reasons.join('\n')).toMatch(/selection was narrowed/);
  expect(mock.requests, 'the suite reached the mock').toBeGreaterThan(20);
});

test('certification.json validates against schemas/certification.schema.json, with the run fingerprint', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, 'certification.schema.json'), 'utf8')));
  expect(validate(report) ? [] : validate.errors).toEqual([]);
  // and the schema really constrains: a verdict outside the list is refused
  const broken = structuredClone(report);
  (broken.cases[0] as { verdict: string }).verdict = 'GREAT';
  expect(validate(broken)).toBe(false);

  const f = report.fingerprint;
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  expect(f.suite.version).toBe(pkg.version);
  const git = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  expect(f.suite.commit).toBe(git.status === 0 ? git.stdout.trim() : null);
  const shellHash = execFileSync('bash', ['-c', 'cat $(LC_ALL=C ls *.json) | sha256sum'], { cwd: SCHEMAS_DIR, encoding: 'utf8' }).split(' ')[0];
  expect(f.schemaHash).toBe(`sha256:${shellHash}`);
  expect(f.seed).toBe('4242');
  expect(f.target).toEqual({ url: mock.url, profile: 'configured target' });
  expect(f.limits).toEqual({ windowSeconds: 1, bill: 10, moi: 3 });
  expect(f.selection.cases).toBe(CASES);
  expect(Date.parse(f.finishedAt)).toBeGreaterThanOrEqual(Date.parse(f.startedAt));
  expect(f.durationMs).toBeGreaterThan(0);
  expect(report.counts.cases).toBe(report.cases.length);
  expect(report.counts.byVerdict.FAIL).toBe(2);
  expect(report.counts.byOperation['bill-enquiry']!.FAIL).toBe(1);
  expect(report.plan?.calls['bill-enquiry']).toBeGreaterThan(12);
  // the document it was judged by, and its coverage: every row of every field table listed, each tested or said untested
  expect(f.specDocument).toEqual({ title: expect.any(String), source: 'api-spec.md', sha256: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), version: null });
  const cov = report.specCoverage!;
  expect(cov.items.filter((i) => i.kind === 'field')).toHaveLength(189);
  expect(cov.items.find((i) => i.ref === 'rule:2.9.3')!.tested).toEqual([]);
  expect(cov.untested).toBe(cov.items.filter((i) => !i.tested.length).length);
});

test('the failing case is in certification.json with its masked evidence; PASS cases carry none', () => {
  const c = report.cases.find((x) => x.id === FAILING)!;
  expect(c).toMatchObject({ verdict: 'FAIL', level: 'MUST', family: 'rate-limit', operation: 'bill-enquiry', sections: ['4', '8'], evidenceFile: `evidence/${FAILING}.json`, testStatus: 'failed' });
  expect(c.expectation).toMatch(/of <limit>\+1 calls sent together exactly <limit> are accepted/);
  expect(c.notes.map((n) => n.text).join('\n')).toMatch(/all 11 calls sent together were accepted/);
  // three checks accepted all 11; one a loaded machine bent (calls that left a bucket's refill apart) is repeated
  const checks = Object.entries(c.observation ?? {}).filter(([k]) => /^check \d+$/.test(k));
  expect(checks.filter(([, v]) => /^all 11 calls accepted/.test(String(v)))).toHaveLength(3);
  expect(c.exchanges).toHaveLength(11 * checks.length);
  const over = c.exchanges!.at(-1)!;
  expect(over.label).toMatch(new RegExp(`^check ${checks.length}, call \\d+ of 11, sent together$`));
  expect(over.response?.status).toBe(200);
  expect(over.request.headers.Authorization).toBe('Bearer «masked»');
  expect(over.request.headers.clientsecret).toBe('«masked»');
  expect(over.request.headers['X-Signature']).toBe('«masked»');
  expect(report.cases.filter((x) => x.verdict === 'PASS').every((x) => x.exchanges === undefined)).toBe(true);
  expect(report.cases.filter((x) => x.verdict !== 'PASS').every((x) => Array.isArray(x.exchanges))).toBe(true);
  const cell = report.matrix.cells.find((x) => x.operation === 'bill-enquiry' && x.family === 'rate-limit')!;
  expect(cell).toMatchObject({ verdict: 'FAIL', cases: 1 });
});

test('waivers: the one used, and those no longer needed (another verdict, or the case did not run)', () => {
  expect(report.waivers.used.map((w) => [w.case, w.expected, w.actual])).toEqual([[WAIVED, 'FAIL', 'FAIL']]);
  expect(report.waivers.notNeeded.map((w) => [w.case, w.expected, w.actual])).toEqual([
    ['bill-enquiry.res.schema', 'FAIL', 'WARN'],
    ['moi-payment.rate.limit', 'WARN', null],
  ]);
  expect(report.waivers.notNeeded[1]!.reason).toMatch(/did not run/);
  expect(report.cases.find((x) => x.id === WAIVED)!.waiver).toEqual({ verdict: 'FAIL', comment: WAIVERS[0]!.comment, status: 'used' });
});

test('the observations of unstated behaviour are gathered across the cases', () => {
  const o = report.observations;
  expect(Object.keys(o.rejectionForms['bill-enquiry'] ?? {})).toContain('HTTP 401');
  expect(Object.keys(o.rejectionForms['moi-enquiry'] ?? {})).toContain('HTTP 400');
  expect(o.rateLimit['bill-enquiry']).toMatchObject({ case: FAILING, verdict: 'FAIL', answer: expect.stringMatching(/^all 11 calls accepted/), limit: '10 calls per 1 s' });
  expect(o.duplicates).toEqual([expect.objectContaining({ case: 'moi-payment.dup.other-fee', handling: 'rejected' })]);
  expect(o.clientHeadersRequired['bill-enquiry']?.value).toMatch(/^no/);
  const shape = o.errorBodyShapes[0]!;
  expect(shape.form).toBe('object');
  expect(shape.keys.map((k) => k.name)).toEqual(expect.arrayContaining(['errorCode', 'errorMessage']));
  expect(shape.statuses.every((s) => s >= 400 && s < 500)).toBe(true);
});

test('the checksum file verifies with sha256sum -c, and catches a changed file', () => {
  const sums = readFileSync(join(run.reportsDir, 'certification.sha256'), 'utf8');
  for (const f of ['certification.json', 'certification.html', 'junit.xml', `evidence/${FAILING}.json`]) expect(sums).toMatch(new RegExp(`^[0-9a-f]{64}  ${f.replace(/\./g, '\\.')}$`, 'm'));
  const ok = spawnSync('sha256sum', ['-c', 'certification.sha256'], { cwd: run.reportsDir, encoding: 'utf8' });
  expect(ok.status, ok.stdout + ok.stderr).toBe(0);
  expect(ok.stdout.trim().split('\n').every((l) => l.endsWith(': OK'))).toBe(true);
  const copy = join(mkdtempSync(join(tmpdir(), 'sadad-tamper-')), 'reports');
  cpSync(run.reportsDir, copy, { recursive: true });
  writeFileSync(join(copy, 'evidence', `${FAILING}.json`), '{}');
  const bad = spawnSync('sha256sum', ['-c', 'certification.sha256'], { cwd: copy, encoding: 'utf8' });
  expect(bad.status).not.toBe(0);
  expect(bad.stdout).toContain(`evidence/${FAILING}.json: FAILED`);
});

test('no token, client secret or signature anywhere in the package, the test results or the console', () => {
  expect(mock.signatures.size, 'the suite signed its requests').toBeGreaterThan(5);
  const keyLine = readFileSync(join(ROOT, 'data/test-keys/signing-private.pem'), 'utf8').split('\n')[1]!;
  const secrets: [string, string][] = [[token, 'token'], [clientSecret, 'client secret'], [keyLine, 'signing key'], ...[...mock.signatures].map((s): [string, string] => [s, 'signature'])];
  const files = [...filesUnder(run.reportsDir), ...filesUnder(run.resultsDir)];
  expect(files.map((f) => f.slice(run.reportsDir.length + 1))).toEqual(expect.arrayContaining(['certification.json', 'certification.html', 'certification.sha256']));
  const leaks: string[] = [];
  for (const f of files) {
    const content = readFileSync(f).toString('latin1');
    for (const [s, what] of secrets) if (content.includes(s)) leaks.push(`${f}: ${what}`);
  }
  for (const [s, what] of secrets) if (run.output.includes(s)) leaks.push(`console: ${what}`);
  expect(leaks).toEqual([]);
  expect(readFileSync(join(run.reportsDir, 'certification.html'), 'utf8')).toContain('Bearer «masked»');
});

test('certification.html in Debian Chromium: summary, matrix, filters and the failing case\'s evidence, offline', async ({ page }) => {
  test.skip(!existsSync(CHROMIUM) && !process.env.CI, `${CHROMIUM} is missing (apt-get install chromium); .ci/run installs it`);
  const remote: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith('file:')) remote.push(r.url()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(`file://${join(run.reportsDir, 'certification.html')}`);

  // the summary says it in words
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Does not certify/);
  await expect(page.locator('header.banner')).toContainText(FAILING);
  await expect(page.locator('.tile[data-verdict="FAIL"] .n')).toHaveText('2');
  await expect(page.locator('#fingerprint')).toContainText(mock.url);
  await expect(page.locator('#fingerprint')).toContainText('4242');
  await expect(page.locator('#waivers')).toContainText('TICKET-1');
  await expect(page.locator('#waivers')).toContainText('did not run');
  // spec coverage: the count in the summary, and what no case of this narrowed run tests, listed as untested
  await expect(page.locator('#fingerprint')).toContainText(`${report.specCoverage!.covered} of ${report.specCoverage!.total} items of the document tested`);
  await expect(page.locator('#spec-coverage')).toContainText('rule 2.9.3');
  await expect(page.locator('#spec-coverage tr.untested', { hasText: 'rule 2.9.3' }).first()).toContainText('untested');
  mkdirSync(REPORTS_DIR, { recursive: true });
  await page.screenshot({ path: join(REPORTS_DIR, 'certification-test-summary.png') });

  // the matrix shows the verdict as a word, not only as a colour
  const cell = page.locator('.matrix button.cell[data-op="bill-enquiry"][data-family="rate-limit"]');
  await expect(cell).toContainText('FAIL');
  await expect(page.locator('.matrix button.cell[data-op="bill-enquiry"][data-family="headers"]')).toContainText(/OBSERVED/);
  await expect(page.locator('.matrix tr', { hasText: 'multi-entry' }).locator('td.na')).toHaveCount(4);

  // the failing case with its evidence, opened
  const failing = page.locator(`[id="case-${FAILING}"]`);
  await expect(failing.locator('.vcell')).toHaveText(/FAIL/);
  await expect(failing).toContainText('all 11 calls sent together were accepted');
  const evidence = failing.locator('tr.evidence > td > details');
  await expect(evidence).toHaveAttribute('open', '');
  await expect(evidence.locator('.exchange')).toHaveCount(report.cases.find((x) => x.id === FAILING)!.exchanges!.length);
  await expect(evidence.locator('.exchange').last()).toContainText('HTTP 200');
  await expect(evidence.locator('.exchange').last()).toContainText('Bearer «masked»');
  await expect(evidence.locator('.exchange').last()).toHaveAttribute('open', '');
  await failing.evaluate((el) => el.scrollIntoView());
  await page.screenshot({ path: join(REPORTS_DIR, 'certification-test-failing-case.png') });

  // filters: by verdict (a summary tile), by operation, by case id; a matrix cell lists its cases
  const shown = page.locator('#shown');
  await page.locator('.tile[data-verdict="FAIL"]').click();
  await expect(shown).toHaveText('2');
  await expect(page.locator('tbody.case:visible')).toHaveCount(2);
  await page.locator('#f-op').selectOption('moi-enquiry');
  await expect(page.locator('tbody.case:visible')).toHaveCount(1);
  await expect(page.locator(`[id="case-${WAIVED}"]`)).toBeVisible();
  await page.locator('#f-reset').click();
  await expect(shown).toHaveText(String(report.cases.length));
  await page.locator('#f-q').fill('bill-enquiry.res.*');
  await expect(page.locator('tbody.case:visible')).toHaveCount(6);
  await page.locator('#f-q').fill('Authorization');
  await expect(page.locator('tbody.case:visible')).toHaveCount(3);
  await page.locator('#f-reset').click();
  await cell.click();
  await expect(page.locator('tbody.case:visible')).toHaveCount(1);
  await expect(page.locator('#filter-desc')).toContainText('family rate-limit');

  // printing hides the controls
  await page.emulateMedia({ media: 'print' });
  await expect(page.locator('.filters')).toBeHidden();
  await expect(page.locator('nav.toc')).toBeHidden();

  expect(errors).toEqual([]);
  expect(remote, 'the page loads nothing from the network').toEqual([]);
});
