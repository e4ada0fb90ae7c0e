/**
 * `npm run certify -- --list` and `SADAD_DRY_RUN=1 npm run certify`: the planned cases, the calls per
 * operation and the estimated wall time, with nothing sent to the target and no report written.
 */
import { EMBEDDED_MOCK_WINDOW_SECONDS } from '../../src/config/index.js';
import { formatDuration } from '../../src/reporter/plan.js';
import { existsSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { certify, recordingMock } from './helpers.js';

/** `  <op>   <calls> calls at <limit> per <window> s` lines of the printout. */
function callLines(output: string): { op: string; calls: number; limit: number; window: number }[] {
  return [...output.matchAll(/^\s+([\w-]+)\s+(\d+) calls at (\d+) per ([\d.]+) s/gm)].map((m) => ({ op: m[1]!, calls: Number(m[2]), limit: Number(m[3]), window: Number(m[4]) }));
}

const estimate = (output: string) => /Estimated wall time: (.+?) \(bound by ([\w-]+)/.exec(output);

test('--list against a sandbox prints the plan at its limits and sends nothing', async () => {
  const target = await recordingMock({ accessToken: 'dry-run-token-0000', companyId: 'DRYRUN' });
  try {
    const run = await certify({
      SADAD_BASE_URL: target.url, SADAD_ACCESS_TOKEN: 'dry-run-token-0000', SADAD_COMPANY_ID: 'DRYRUN',
      SADAD_RATE_WINDOW_SECONDS: '60', SADAD_RATE_LIMIT_BILL: '10', SADAD_RATE_LIMIT_MOI: '3',
    }, ['--list']);
    expect(run.code, run.output.slice(-2000)).toBe(0);
    expect(target.requests, 'nothing was sent').toBe(0);
    expect(existsSync(run.reportsDir), 'nothing was written').toBe(false);
    const planned = Number(/Dry run: (\d+) planned cases; nothing was sent\./.exec(run.output)?.[1]);
    expect(planned).toBeGreaterThan(400);
    const caseLines = run.output.split('\n').filter((l) => /^ {2}(bill|moi)-(enquiry|payment)\.\S+\s+(MUST|SHOULD|OBSERVE)\s/.test(l));
    expect(caseLines, 'every planned case is listed once').toHaveLength(planned);
    expect(run.output).toMatch(/^ {2}bill-payment\.rate\.limit\s+MUST\s+rate-limit\s+bill-payment \d+, bill-enquiry \d+$/m);
    expect(run.output).toMatch(/Cases per rule family:\n(.|\n)*required-fields\s+\d+/);
    // the estimate is max over operations of ceil(calls / limit) x window, at the target's limits
    const lines = callLines(run.output);
    expect(lines.map((l) => l.op)).toEqual(['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment']);
    expect(lines.map((l) => [l.limit, l.window])).toEqual([[10, 60], [10, 60], [3, 60], [3, 60]]);
    const bound = Math.max(...lines.map((l) => Math.ceil(l.calls / l.limit) * l.window));
    const bounding = lines.find((l) => Math.ceil(l.calls / l.limit) * l.window === bound)!;
    const m = estimate(run.output);
    expect(m?.[2]).toBe(bounding.op);
    const [, h, min] = /(?:(\d+) h )?(\d+) min/.exec(m![1]!)!;
    expect(Number(h ?? 0) * 3600 + Number(min) * 60).toBe(Math.floor(bound / 60) * 60);
    expect(run.output).toContain(`the target ${target.url}`);
  } finally {
    await target.close();
  }
});

test('SADAD_DRY_RUN=1 lists a selection against the embedded mock, whose window is its own short one; calls are the sum of the cases\' calls', async () => {
  const run = await certify({ SADAD_DRY_RUN: '1', SADAD_CASES: '*.rate.limit,bill-payment.dup.*' });
  expect(run.code, run.output.slice(-2000)).toBe(0);
  expect(existsSync(run.reportsDir)).toBe(false);
  expect(run.output).toContain('Dry run: 7 planned cases; nothing was sent.');
  const w = EMBEDDED_MOCK_WINDOW_SECONDS;
  expect(run.output).toContain(`the embedded mock (no SADAD_BASE_URL), whose window is ${w} s`);
  const sums: Record<string, number> = {};
  for (const m of run.output.matchAll(/^ {2}\S+\s+MUST\s+[\w-]+\s+(.+)$/gm)) {
    for (const part of m[1]!.split(', ')) { const [op, n] = part.split(' '); sums[op!] = (sums[op!] ?? 0) + Number(n); }
  }
  const lines = callLines(run.output);
  expect(Object.fromEntries(lines.map((l) => [l.op, l.calls]))).toEqual(sums);
  expect(lines.map((l) => [l.limit, l.window])).toEqual([[10, w], [10, w], [3, w], [3, w]]);
  const bound = Math.max(...lines.map((l) => Math.ceil(l.calls / l.limit) * w));
  expect(estimate(run.output)?.[1]).toBe(formatDuration(bound));
});

test('a configuration error is reported by the dry run, which still lists the cases', async () => {
  const run = await certify({ SADAD_BASE_URL: 'http://127.0.0.1:9', SADAD_CASES: 'bill-enquiry.res.*' }, ['--list']);
  expect(run.code).toBe(0);
  expect(run.output).toMatch(/Configuration error: SADAD_ACCESS_TOKEN/);
  expect(run.output).toContain('Dry run: 6 planned cases; nothing was sent.');
});
