/**
 * Runs that end the hard ways, against the embedded mock with a narrowed selection:
 * - SIGKILL to the whole process group: no reporter runs; `--report` builds the package from the
 *   run journal (run.json and the evidence), and `--resume` finishes it;
 * - SIGTERM to the certify process alone, as a CI runner cancelling a job does: the package is written;
 * - a worker killed under a running case: that case is NOT_RUN with the reason, and the run goes on.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { CertificationReport } from '../../src/reporter/model.js';
import { LOADED_WINDOW } from '../suite/run-suite.js';
import { certify, evidenceCount, startCertify, whenEvidence, runsYieldCpu } from './helpers.js';

// beside the timing tests: this file's runs give way to them (helpers.ts, runsYieldCpu)
runsYieldCpu();

test.setTimeout(240_000);
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
// what is tested here is what a kill leaves, not the pacing
// (with the payment's schema case: a rejection means something once the target has accepted a payment in the run)
const SELECTION = { SADAD_CASES: 'bill-enquiry.*,bill-payment.req.*,bill-payment.res.schema', ...LOADED_WINDOW };

// the longest first: the signals project runs two at a time, and Playwright hands tests out in file order
test('a worker killed under a running case: that case is NOT_RUN with the reason, not ERROR, and the other cases finish', async () => {
  // 14 one-call rejection cases and the case that shows the target accepts bill enquiries at all (fewer
  // than 60: one worker, one after the other), each answer held 400 ms. The
  // kill comes 150 ms after the 10th evidence file appeared (seen within 50 ms): the next case
  // started at once, and its answer is still 200 ms or more away, so the worker dies mid-case.
  // (A case that already wrote its evidence when its worker died keeps its verdict: finished work is
  // never thrown away, and there would be no case to be NOT_RUN.)
  const run = startCertify({ SADAD_CASES: 'bill-enquiry.req.*.missing,bill-enquiry.res.schema', MOCK_FAULTS: 'latency=400' });
  await whenEvidence(run, 10);
  await new Promise((r) => setTimeout(r, 150));
  const workers = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' }).split('\n')
    .map((l) => l.trim().split(/\s+/)).filter((f) => f[1] === String(run.child.pid) && f.join(' ').includes('workerProcessEntry'));
  expect(workers.length).toBeGreaterThan(0);
  process.kill(Number(workers[0]![0]), 'SIGKILL');
  const done = await run.done;
  expect(done.code).toBe(1);
  expect(done.output).toMatch(/worker process exited unexpectedly \(code=null, signal=SIGKILL\)/);
  const report: CertificationReport = read(join(done.reportsDir, 'certification.json'));
  const killed = /› (\S+) §[^\n]*\n\s*\n?\s*Error: worker process exited unexpectedly/.exec(done.output)?.[1];
  const notRun = report.cases.filter((c) => c.verdict === 'NOT_RUN');
  expect(notRun.map((c) => c.id), 'the case the worker was running').toEqual([killed]);
  expect(notRun[0]!.notes[0]!.text).toBe('did not finish: the worker process running it exited unexpectedly (code=null, signal=SIGKILL)');
  expect(report.counts.byVerdict.ERROR).toBe(0);
  expect(report.counts.byVerdict.PASS + report.counts.byVerdict.NOT_RUN + report.counts.byVerdict.WARN + report.counts.byVerdict.OBSERVED + report.counts.byVerdict.NOT_APPLICABLE).toBe(report.counts.cases);
  expect(report.outcome.reasons[0]).toMatch(/a worker process died/);
});

test('SIGKILL to the run\'s process group: --report builds the package from what finished, --resume finishes it', async () => {
  const run = startCertify(SELECTION);
  await whenEvidence(run, 40);
  process.kill(-run.child.pid!, 'SIGKILL');
  const killed = await run.done;
  expect(killed.code).toBe(-1);
  const finished = evidenceCount(killed.reportsDir);
  const manifest = read(join(killed.reportsDir, 'run.json'));
  expect(manifest.end, 'the reporter never ran').toBeUndefined();

  const rebuilt = await certify({}, ['--report'], dirname(killed.reportsDir));
  expect(rebuilt.code, rebuilt.output).toBe(1);
  expect(rebuilt.output).toContain('nothing was sent');
  const report: CertificationReport = read(join(killed.reportsDir, 'certification.json'));
  const planned = manifest.cases.length;
  expect(report.counts.cases).toBe(planned);
  expect(report.counts.byVerdict.NOT_RUN).toBe(planned - finished);
  expect(report.runs).toEqual([expect.objectContaining({ runId: manifest.runId, status: 'killed', cases: planned, finished, callsFrom: 'evidence' })]);
  expect(report.outcome.summary).toBe(`Does not certify: ${planned - finished} NOT_RUN (incomplete run); partial case selection.`);
  expect(report.cases.find((c) => c.verdict === 'NOT_RUN')!.notes[0]!.text).toMatch(/killed, or crashed/);
  const sums = spawnSync('sha256sum', ['-c', 'certification.sha256'], { cwd: killed.reportsDir, encoding: 'utf8' });
  expect(sums.status, sums.stdout + sums.stderr).toBe(0);

  const resumed = await certify(SELECTION, ['--resume'], dirname(killed.reportsDir));
  expect(resumed.code, resumed.output.slice(-3000)).toBe(0);
  const merged: CertificationReport = read(join(resumed.reportsDir, 'certification.json'));
  expect(merged.counts.byVerdict.NOT_RUN).toBe(0);
  expect(merged.runs.map((r) => [r.status, r.cases])).toEqual([['killed', planned], ['passed', planned - finished]]);
  expect(merged.cases.filter((c) => c.attempts.length === 1 && c.runId === manifest.runId)).toHaveLength(finished);
  // narrowed, so it cannot certify; but nothing else stands in the way
  expect(merged.outcome.summary).toBe('Does not certify: partial case selection.');
});

// npm runs a script through `sh -c`, and Debian's dash forks rather than execs it: npm passes a
// SIGTERM on to the shell, the shell dies, and the run went on to its end unsignalled while npm
// exited 143. The scripts start with `exec` so the signal reaches the certify process itself.
for (const [what, viaNpm] of [['the certify process', false], ['`npm run certify`', true]] as const) {
  test(`SIGTERM to ${what} (a CI runner cancelling the job): Playwright stops gracefully and the package is written`, async () => {
    const run = startCertify(SELECTION, [], undefined, viaNpm);
    await whenEvidence(run, 30);
    process.kill(run.child.pid!, 'SIGTERM');
    const stopped = await run.done;
    expect(stopped.code, stopped.output.slice(-2000)).toBe(130);
    const report: CertificationReport = read(join(stopped.reportsDir, 'certification.json'));
    expect(report.fingerprint.playwright.status).toBe('interrupted');
    expect(report.counts.byVerdict.NOT_RUN).toBeGreaterThan(10);
    expect(report.outcome.reasons[0]).toMatch(/NOT_RUN: the run was interrupted/);
    expect(read(join(stopped.reportsDir, 'pacing.json')).operations, 'the global teardown ran').toBeTruthy();
  });
}
