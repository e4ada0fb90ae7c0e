/**
 * A sandbox that goes down mid-run (issue 18, item 3): redeploys and maintenance pages are common in
 * a 46-minute run. The whole run pauses while the target is away, one probe a window watches for
 * its return, and no case is ERROR because of it; past SADAD_MAX_OUTAGE_SECONDS the run stops,
 * resumable. The mock's outage fault (MOCK_FAULTS outage-after, outage-seconds, outage-kind) is the
 * target going down, after a set number of calls so that it lands mid-run however fast the run is.
 * Windows of 0.25 s (LOADED_WINDOW: these runs share the machine with npm test's others), the real
 * limits; 8 windows are 2 s, 16 windows 4 s.
 */
import { readSettingsOrError } from '../../src/config/settings.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startMock } from '../../src/mock/index.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import { certify } from '../reporter/helpers.js';
import { LOADED_WINDOW } from './run-suite.js';
import { expectVerdictsReproduced } from '../replay/helpers.js';
import { writeRejudgedPackage } from '../../src/replay/package.js';

test.describe.configure({ timeout: 240_000 });

const WINDOW = Number(LOADED_WINDOW.MOCK_RATE_WINDOW_SECONDS);
const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as CertificationReport;

// the longest test first (the files run in name order, a file's tests in this order): it ends sooner
test('an outage longer than SADAD_MAX_OUTAGE_SECONDS stops the run, resumable: the unfinished cases NOT_RUN, then --resume certifies', async () => {
  // one mock for both runs, reached as a configured target: down from its 350th call (late: the resume has
  // less to do) for 4 s, connections reset this time; the run gives up after 1 s
  const mock = await startMock({ port: 0, rateWindowSeconds: WINDOW, faults: { 'outage-after': 350, 'outage-seconds': 4, 'outage-kind': 'reset' } });
  const o = mock.options;
  const env = {
    SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: o.accessToken, SADAD_COMPANY_ID: o.companyId, SADAD_CLIENT_ID: o.clientId, SADAD_CLIENT_SECRET: o.clientSecret,
    SADAD_RATE_WINDOW_SECONDS: String(WINDOW), SADAD_PAYMENTS: 'on', SADAD_SEED: '18', SADAD_MAX_OUTAGE_SECONDS: '1',
  };
  try {
    const first = await certify(env);
    const r = readReport(first.reportsDir);
    expect(first.code, first.output.slice(-3000)).not.toBe(0);
    expect(r.counts.byVerdict.ERROR, 'the outage made no case ERROR').toBe(0);
    expect(r.counts.byVerdict.NOT_RUN).toBeGreaterThan(0);
    const outage = r.observations.availability.outages[0]!;
    expect(outage.gaveUp).toBe(true);
    expect(outage.end).toBeNull();
    expect(first.output).toMatch(/outage: the target went down at .* and is still down after .*SADAD_MAX_OUTAGE_SECONDS=1\): the run stops; .*npm run certify -- --resume. continues where it stopped/);
    const notRun = r.cases.find((c) => c.verdict === 'NOT_RUN')!;
    expect(r.outcome.reasons.join(' ')).toMatch(/the target went down at .* so the run stopped; once it is back, `npm run certify -- --resume` continues/);
    expect(notRun.notes[0]!.text).toMatch(/did not run|interrupted/);
    expect(r.outcome.certifies).toBe(false);

    // once the target is back, the resume finishes the run and the merged package certifies
    await expect.poll(() => mock.outage().endedAt !== null, { timeout: 30_000 }).toBe(true);
    const resumed = await certify(env, ['--resume'], join(first.reportsDir, '..'));
    const merged = readReport(resumed.reportsDir);
    expect(resumed.code, resumed.output.slice(-3000)).toBe(0);
    expect(merged.outcome.certifies).toBe(true);
    expect(merged.runs).toHaveLength(2);
    expect(merged.observations.availability.outages.map((x) => x.gaveUp), 'the merged package keeps the first run\'s outage').toEqual([true]);
    // a merged package of two runs, one of them stopped by an outage: re-judged, every verdict the same
    await expectVerdictsReproduced(resumed.reportsDir);
    // and the package re-judged from it keeps both runs and the first run's outage
    const out = join(mkdtempSync(join(tmpdir(), 'sadad-rejudged-')), 'reports');
    const { report: rejudged } = await writeRejudgedPackage(resumed.reportsDir, out, readSettingsOrError({}));
    expect([rejudged.runs, rejudged.observations.availability.outages, rejudged.outcome.certifies]).toEqual([merged.runs, merged.observations.availability.outages, true]);
  } finally {
    await mock.close();
  }
});

for (const kind of ['maintenance', 'reset'] as const) {
  // 16 windows: longer than a rate-limit check holds its operation (the check's burst, the window it
  // waits out, its retries of the reset), so that an outage that begins inside one is still on when
  // the watch's probe, which waits for that hold, goes out (a shorter one may be over by then: the run
  // met it only as faults it got past, and recorded no outage). The smoke profile (every family on
  // every operation, the bill operations' rate limits; 94 calls, down from the 40th): the pause is the
  // pacer's, the same whichever case meets it, and a full run costs 4 times the CPU in npm test; the
  // full run's own outage is the resume test's below
  test(`a conformant target down for 16 windows mid-run (${kind === 'maintenance' ? 'a 503 maintenance page' : 'connections reset'}): 0 ERROR, nothing but the smoke profile keeps it from certifying; the outage is in the package`, async () => {
    const run = await certify({ ...LOADED_WINDOW, SADAD_PROFILE: 'smoke', MOCK_FAULTS: `outage-after=40,outage-seconds=${16 * WINDOW},outage-kind=${kind}`, SADAD_SEED: '18' });
    const r = readReport(run.reportsDir);
    expect(r.counts.byVerdict.ERROR, run.output.slice(-3000)).toBe(0);
    expect(r.outcome.reasons, r.outcome.summary).toEqual([expect.stringMatching(/smoke profile/)]);
    expect(r.counts.cases).toBeGreaterThan(50);
    expect(run.code).toBe(0);
    const outages = r.observations.availability.outages;
    expect(outages, 'the run saw one outage, and it ended').toHaveLength(1);
    const o = outages[0]!;
    expect(o.end).not.toBeNull();
    expect(o.gaveUp).toBe(false);
    expect(o.probes, 'probed until it answered').toBeGreaterThanOrEqual(2);
    expect(Object.keys(o.kinds)).toEqual(kind === 'maintenance' ? ['HTTP 503'] : ['reset']);
    // it lasted about as long as the mock was down (its start is the first failure, its end the first answered probe)
    expect(o.durationMs).toBeGreaterThanOrEqual(16 * WINDOW * 1000 - 300);
    expect(o.durationMs).toBeLessThan(16 * WINDOW * 1000 + 5_000);
    expect(r.observations.availability.summary).toMatch(/1 outage \(\d+ s\)/);
    expect(run.output).toMatch(/outage: the target has been down since/);
    expect(run.output).toMatch(/outage: the target is back at .* the run goes on where it stopped/);
    // failures inside the outage were not counted against any case: every fault a case met was got past
    const faults = r.cases.flatMap((c) => c.transient);
    expect(faults.length).toBeGreaterThan(0);
    expect(faults.filter((f) => !f.recovered)).toEqual([]);
    const html = readFileSync(join(run.reportsDir, 'certification.html'), 'utf8');
    expect(html).toContain('<h4>Outages</h4>');
    await expectVerdictsReproduced(run.reportsDir);
  });
}

test('a maintenance page that begins on the call over the limit is the outage\'s answer, not the limiter\'s: the check is repeated once the target is back, and the case passes', async () => {
  // the 11th call of the burst (limit 10) is the first the mock answers with its maintenance page, the
  // one more call and the call after the window too: read alone, a limiter answering 503 that never
  // resets (FAIL before the outage watch was asked)
  const run = await certify({ ...LOADED_WINDOW, SADAD_CASES: 'bill-enquiry.rate.limit', MOCK_FAULTS: `outage-after=11,outage-seconds=${8 * WINDOW},outage-kind=maintenance`, SADAD_SEED: '18' });
  const r = readReport(run.reportsDir);
  const c = r.cases.find((x) => x.id === 'bill-enquiry.rate.limit')!;
  expect(c.verdict, JSON.stringify(c.notes)).toBe('PASS');
  const ev = JSON.parse(readFileSync(join(run.reportsDir, 'evidence', 'bill-enquiry.rate.limit.json'), 'utf8')) as { observations: Record<string, unknown> };
  // a 5xx on the call over the limit and on the one more call after it is believed only when a second
  // check meets it there too (src/suite/rules/rate-limit.ts): the first check is not judged, and the
  // checks go on once the target is back
  expect(String(ev.observations['check 1'])).toMatch(/not judged: HTTP 503 on the call over the limit and on one more call at once/);
  expect(ev.observations['rate-limit answer'], 'the limiter\'s own answer, from the repeated check').toBe('HTTP 429');
  expect(r.observations.availability.pacing?.overLimit ?? [], 'no outage answer learned as the limiter\'s').toEqual([]);
  await expectVerdictsReproduced(run.reportsDir);
});
