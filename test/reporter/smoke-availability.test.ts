/**
 * The package of a smoke run (SADAD_PROFILE=smoke) says plainly that it does not certify, and
 * records the profile; behind a flaky gateway (the embedded mock with MOCK_FAULTS) the package's
 * availability observation counts the faults the cases met, per operation and kind, against the calls.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { CertificationReport } from '../../src/reporter/model.js';
import { parseFaults } from '../../src/reporter/availability.js';
import { LOADED_WINDOW } from '../suite/run-suite.js';
import { certify } from './helpers.js';

test.setTimeout(180_000);
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));

test('a smoke run never certifies, and its package says so in the outcome, the banner and the fingerprint', async () => {
  // what is tested here is the package, not the pacing
  const run = await certify({ SADAD_PROFILE: 'smoke', ...LOADED_WINDOW });
  const report: CertificationReport = read(join(run.reportsDir, 'certification.json'));
  expect(report.counts.byVerdict.FAIL + report.counts.byVerdict.ERROR + report.counts.byVerdict.NOT_RUN, run.output.slice(-2000)).toBe(0);
  expect(report.outcome.certifies).toBe(false);
  expect(report.outcome.summary).toBe('Does not certify: smoke profile.');
  expect(report.outcome.reasons).toEqual(['the smoke profile (SADAD_PROFILE=smoke) runs a subset of the cases: a smoke run never certifies']);
  expect(report.fingerprint.profile).toBe('smoke');
  expect(report.identity.profile).toBe('smoke');
  expect(report.counts.cases).toBeLessThan(100);
  const html = readFileSync(join(run.reportsDir, 'certification.html'), 'utf8');
  expect(html).toContain('a smoke run never certifies');
  expect(html).toContain('<strong>smoke profile</strong>');
});

test('behind a flaky gateway: faults per operation and kind, recovered or not, in the JSON and the page; each case carries its own', async () => {
  const run = await certify({ SADAD_CASES: 'bill-enquiry.req.*,moi-enquiry.req.*', MOCK_FAULTS: '503=0.06,reset=0.03,seed=7' });
  const report: CertificationReport = read(join(run.reportsDir, 'certification.json'));
  const a = report.observations.availability;
  expect(a.faults, run.output.slice(-2000)).toBeGreaterThan(0);
  const fromCases = report.cases.flatMap((c) => c.transient.map((f) => ({ case: c.id, ...f })));
  expect(a.cases).toEqual(fromCases);
  for (const f of fromCases) expect(parseFaults(read(join(run.reportsDir, 'evidence', `${f.case}.json`)).transient)).toContainEqual({ op: f.op, kind: f.kind, recovered: f.recovered });
  const paced = read(join(run.reportsDir, 'pacing.json')).operations as Record<string, { calls: number }>;
  expect(a.calls).toBe(Object.values(paced).reduce((n, s) => n + s.calls, 0));
  for (const [op, o] of Object.entries(a.byOperation)) {
    expect(o.calls).toBe(paced[op]!.calls);
    expect(o.faults).toBe(fromCases.filter((f) => f.op === op).length);
    expect(Object.values(o.byKind).reduce((n, k) => n + k.faults, 0)).toBe(o.faults);
  }
  expect(a.summary).toBe(`${a.faults} transient fault${a.faults === 1 ? '' : 's'} in ${a.calls} calls (${a.recovered} recovered, ${a.faults - a.recovered} not)`);
  expect(Object.keys(a.byOperation['bill-enquiry']!.byKind).every((k) => ['HTTP 503', 'reset'].includes(k))).toBe(true);
  const html = readFileSync(join(run.reportsDir, 'certification.html'), 'utf8');
  expect(html).toContain(a.summary);
  expect(html).toMatch(/<table class="byop avail">/);
  expect(report.identity.target).toBe('embedded mock (MOCK_FAULTS=503=0.06,reset=0.03,seed=7)');
});
