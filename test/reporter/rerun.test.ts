/**
 * `npm run certify -- --rerun-failed`: a run with a deliberately failing case (the suite's rate
 * limits are lower than the target's, so the over-limit call is accepted: FAIL), then the target
 * fixed (same address, limits as the suite's) and only the failed case run again. The merged
 * package shows the attempt history and the changed verdict, in the JSON and in Debian Chromium.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPORTS_DIR, SCHEMAS_DIR } from '../../src/paths.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import { certify, recordingMock, type CertifyRun } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
test.describe.configure({ mode: 'serial' });
// the page fixture opens Debian Chromium: test/playwright.config.ts's `use` (one for every file, so that they share workers)

const FAILING = 'bill-enquiry.rate.limit';
const CASES = `${FAILING},bill-enquiry.res.*,bill-enquiry.hdr.Authorization.*`;
const token = 'rerun-token-0123456789';
const env = (url: string) => ({
  SADAD_BASE_URL: url, SADAD_ACCESS_TOKEN: token, SADAD_COMPANY_ID: 'RERUN', SADAD_CLIENT_ID: 'mock-client', SADAD_CLIENT_SECRET: 'mock-client-secret',
  SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '10', SADAD_RATE_LIMIT_MOI: '3', SADAD_CASES: CASES, SADAD_PAYMENTS: 'on',
});
const mockOptions = { accessToken: token, companyId: 'RERUN', clientId: 'mock-client', clientSecret: 'mock-client-secret', rateWindowSeconds: 1 };

let dir: string;
let failed: CertifyRun;
let rerun: CertifyRun;
let before: CertificationReport;
let merged: CertificationReport;
let secondRequests = 0;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  dir = mkdtempSync(join(tmpdir(), 'sadad-rerun-'));
  const lax = await recordingMock({ ...mockOptions, rateLimits: { bill: 100, moi: 100 } });
  const port = Number(new URL(lax.url).port);
  try { failed = await certify(env(lax.url), [], dir); } finally { await lax.close(); }
  if (!existsSync(join(failed.reportsDir, 'certification.json'))) throw new Error(`no certification.json; the run said:\n${failed.output.slice(-4000)}`);
  before = JSON.parse(readFileSync(join(failed.reportsDir, 'certification.json'), 'utf8'));
  // the target fixed, at the same address: its limits are the suite's now
  const fixed = await recordingMock({ ...mockOptions, rateLimits: { bill: 10, moi: 3 } }, port);
  try { rerun = await certify(env(fixed.url), ['--rerun-failed'], dir); } finally { secondRequests = fixed.requests; await fixed.close(); }
  merged = JSON.parse(readFileSync(join(rerun.reportsDir, 'certification.json'), 'utf8'));
});

test('the first run fails on the rate-limit case; --rerun-failed runs that case alone, and it passes', () => {
  expect(failed.code, failed.output.slice(-2000)).toBe(1);
  expect(before.outcome.unexpected).toEqual([FAILING]);
  expect(rerun.code, rerun.output.slice(-3000)).toBe(0);
  expect(rerun.output).toContain(`--rerun-failed: running 1 case (1 FAIL) of the package of run ${before.runs[0]!.runId}; the other ${before.cases.length - 1} keep their verdicts.`);
  // the rerun checks the path first: its preflight's call per operation, recorded in the package's Connection
  const preflight = Object.values(merged.connection?.calls ?? {}).reduce((a, b) => a + b, 0);
  expect(preflight).toBe(4);
  const planned = Object.values(before.cases.find((c) => c.id === FAILING)!.calls).reduce((a, b) => a + b, 0) + preflight;
  expect(secondRequests, 'only the failed case was sent again').toBeGreaterThanOrEqual(planned);
  expect(secondRequests).toBeLessThanOrEqual(planned + 2);
});

test('certification.json: the attempt history, the changed verdict, both runs; it validates', () => {
  const c = merged.cases.find((x) => x.id === FAILING)!;
  expect(c.verdict).toBe('PASS');
  expect(c.attempts.map((a) => [a.runId, a.verdict])).toEqual([[before.runs[0]!.runId, 'FAIL'], [merged.runs[1]!.runId, 'PASS']]);
  expect(merged.changed).toEqual([{ case: FAILING, verdicts: ['FAIL', 'PASS'] }]);
  expect(merged.runs.map((r) => r.cases)).toEqual([before.cases.length, 1]);
  expect(merged.cases.filter((x) => x.id !== FAILING).every((x) => x.attempts.length === 1 && x.runId === before.runs[0]!.runId)).toBe(true);
  expect(merged.outcome).toMatchObject({ unexpected: [], notRun: [], summary: 'Does not certify: partial case selection.' });
  expect(merged.identity).toEqual(before.identity);
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, 'certification.schema.json'), 'utf8')));
  expect(validate(merged) ? [] : validate.errors).toEqual([]);
});

test('certification.html in Debian Chromium: the runs merged and the changed verdict in the banner, the attempts on the case', async ({ page }) => {
  test.skip(!existsSync(CHROMIUM) && !process.env.CI, `${CHROMIUM} is missing (apt-get install chromium)`);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(`file://${join(rerun.reportsDir, 'certification.html')}`);
  const banner = page.locator('header.banner');
  await expect(banner.locator('.merged')).toContainText(`Merged from 2 runs: ${before.runs[0]!.runId}`);
  await expect(banner.locator('.merged')).toContainText(merged.runs[1]!.runId);
  await expect(banner.locator('.changed')).toContainText(`Verdicts that changed between attempts: ${FAILING}`);
  await expect(banner.locator('.changed .v')).toHaveText([/FAIL/, /PASS/]);
  const row = page.locator(`[id="case-${FAILING}"]`);
  await expect(row.locator('.vcell')).toHaveText(/PASS/);
  await expect(row.locator('.attempts')).toContainText(`Attempts: ✖ FAIL run ${before.runs[0]!.runId}`);
  await expect(row.locator('.attempts .v')).toHaveText([/FAIL/, /PASS/]);
  await expect(page.locator('#fingerprint')).toContainText('Runs');
  await expect(page.locator('#fingerprint .runs li')).toHaveCount(2);
  await expect(page.locator('#availability')).toBeVisible();
  await expect(page.locator('#observations')).toContainText('no transient fault seen in');
  await banner.locator(`a[href="#case-${FAILING}"]`).click();
  await expect(row).toBeInViewport();
  mkdirSync(REPORTS_DIR, { recursive: true });
  await page.goto(`file://${join(rerun.reportsDir, 'certification.html')}`);
  await page.screenshot({ path: join(REPORTS_DIR, 'rerun-test-banner.png') });
  expect(errors).toEqual([]);
});
