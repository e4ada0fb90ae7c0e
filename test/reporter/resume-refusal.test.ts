/**
 * When `--resume` must not run: no previous run, another target, another selection (exit 2,
 * nothing sent, the difference named); and when there is nothing left to run (exit 0, said so).
 * `--report` without a run journal is an error in words too.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { certify, recordingMock, type CertifyRun } from './helpers.js';

test.describe.configure({ mode: 'serial' });
const CASES = 'bill-enquiry.res.*';
let done: CertifyRun;
let dir: string;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  done = await certify({ SADAD_CASES: CASES });
  dir = dirname(done.reportsDir);
});

const runId = () => JSON.parse(readFileSync(join(done.reportsDir, 'run.json'), 'utf8')).runId as string;

test('no previous run: --resume and --report refuse, nothing sent', async () => {
  const resume = await certify({ SADAD_CASES: CASES }, ['--resume']);
  expect(resume.code).toBe(2);
  expect(resume.output).toMatch(/--resume: nothing to resume in .*: no previous run there \(no run\.json, no certification\.json\)\. Run `npm run certify` first\. Nothing was sent\./);
  expect(existsSync(join(resume.reportsDir, 'run.json'))).toBe(false);
  const report = await certify({}, ['--report']);
  expect(report.code).toBe(2);
  expect(report.output).toMatch(/certify --report: no run to report on in .*: it holds no run\.json/);
});

test('another target is refused, naming it, and the target is sent nothing', async () => {
  expect(done.code, done.output.slice(-2000)).toBe(0);
  const before = runId();
  const other = await recordingMock({ accessToken: 'refusal-token-0000', companyId: 'REFUSE' });
  try {
    const run = await certify({ SADAD_CASES: CASES, SADAD_BASE_URL: other.url, SADAD_ACCESS_TOKEN: 'refusal-token-0000', SADAD_COMPANY_ID: 'REFUSE', SADAD_PAYMENTS: 'on' }, ['--resume'], dir);
    expect(run.code).toBe(2);
    expect(run.output).toContain('--resume refused: this run would not match the package it resumes');
    expect(run.output).toContain(`- target: the previous run's was embedded mock, this one's is ${other.url}`);
    expect(run.output).toContain('Nothing was sent.');
    expect(other.requests).toBe(0);
  } finally {
    await other.close();
  }
  expect(runId(), 'the package stays as it was').toBe(before);
  expect(existsSync(join(done.reportsDir, 'previous'))).toBe(false);
});

test('another selection is refused, naming it: SADAD_CASES, and Playwright filters', async () => {
  const cases = await certify({ SADAD_CASES: 'bill-enquiry.*' }, ['--rerun-failed'], dir);
  expect(cases.code).toBe(2);
  expect(cases.output).toContain(`--rerun-failed refused`);
  expect(cases.output).toContain(`- selection SADAD_CASES: the previous run's was ${CASES}, this one's is bill-enquiry.*`);
  const grep = await certify({ SADAD_CASES: CASES }, ['--resume', '--grep', 'schema'], dir);
  expect(grep.code).toBe(2);
  expect(grep.output).toContain("- selection by Playwright arguments (--grep, --shard, spec files): the previous run's was none, this one's is --grep schema");
  const smoke = await certify({ SADAD_CASES: CASES, SADAD_PROFILE: 'smoke' }, ['--resume'], dir);
  expect(smoke.code).toBe(2);
  expect(smoke.output).toContain("- profile (SADAD_PROFILE): the previous run's was full, this one's is smoke");
});

test('a package with every verdict final: nothing to resume, said plainly, exit 0', async () => {
  const run = await certify({ SADAD_CASES: CASES }, ['--resume'], dir);
  expect(run.code, run.output).toBe(0);
  expect(run.output).toMatch(/^Nothing to resume: every case of the package in .* has a final verdict \(\d+ \w+/m);
  expect(run.output).toContain('Does not certify: partial case selection.');
  expect(runId()).toBe(JSON.parse(readFileSync(join(done.reportsDir, 'run.json'), 'utf8')).runId);
});
