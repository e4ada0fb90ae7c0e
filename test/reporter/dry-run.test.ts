/**
 * `npm run certify -- --list` and `SADAD_DRY_RUN=1 npm run certify`: the planned cases, the calls per
 * operation and the estimated wall time, with nothing sent to the target and no report written.
 */
import { EMBEDDED_MOCK_WINDOW_SECONDS } from '../../src/config/index.js';
import { formatDuration, planOf } from '../../src/reporter/plan.js';
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

test('the dry run\'s payment figures are the payments guard\'s for the same plan; its calls add the payable base once per worker', async () => {
  const target = await recordingMock({ accessToken: 'dry-run-token-0000', companyId: 'DRYRUN' });
  try {
    // SADAD_PAYMENTS unset against a target: the run stops at the guard, the dry run shows the same figures
    const env = { SADAD_BASE_URL: target.url, SADAD_ACCESS_TOKEN: 'dry-run-token-0000', SADAD_COMPANY_ID: 'DRYRUN', SADAD_PAYMENTS: '' };
    const [dry, guarded] = await Promise.all([certify({ ...env, SADAD_DRY_RUN: '1' }, ['--workers', '3']), certify(env)]);
    expect(dry.code, dry.output.slice(-2000)).toBe(0);
    expect(guarded.code, guarded.output.slice(-2000)).toBe(2);
    expect(target.requests, 'nothing was sent').toBe(0);
    const figures = (text: string) => /(\d+ payment calls \(bill \d+, MOI \d+\), of which about (\d+) are meant to take effect: .*? about (\d+) bills and MOI fees)/.exec(text);
    const [fromDry, fromGuard] = [figures(dry.output), figures(guarded.output)];
    expect(fromGuard?.[1], guarded.output.slice(-2000)).toBeDefined();
    expect(fromDry?.[1]).toBe(fromGuard![1]);
    expect(Number(fromDry![2]), 'payments meant to take effect').toBeGreaterThan(30);
    expect(Number(fromDry![3]), 'bills and fees they pay').toBeGreaterThan(30);

    // calls per operation: the cases' own (the signature cases send nothing without a signer), plus the shared ones per worker
    const sums: Record<string, number> = {};
    for (const m of dry.output.matchAll(/^ {2}\S+ +(?:MUST|SHOULD|OBSERVE) +[\w-]+ +(.*)$/gm)) {
      if (m[1]!.trim() === '' || m[1]!.startsWith('none')) continue;
      for (const part of m[1]!.split(', ')) { const [op, n] = part.split(' '); sums[op!] = (sums[op!] ?? 0) + Number(n); }
    }
    expect(dry.output).toContain('8 cases will send nothing (NOT_APPLICABLE: no signer is configured)');
    expect(dry.output).toContain('including calls made once per worker (3 workers) and shared by its cases:');
    expect(dry.output).toMatch(/^ {4}payable base: bill-payment: bill-enquiry 1 x 3$/m);
    expect(dry.output).toMatch(/^ {4}payable base: moi-payment: moi-enquiry 1 x 3$/m);
    // and, against a configured target, the preflight's call per operation before the first case
    expect(dry.output).toContain("including the preflight's call per operation before the first case");
    const lines = Object.fromEntries(callLines(dry.output).map((l) => [l.op, l.calls]));
    expect(lines).toEqual({ 'bill-enquiry': sums['bill-enquiry']! + 3 + 1, 'bill-payment': sums['bill-payment']! + 1, 'moi-enquiry': sums['moi-enquiry']! + 3 + 1, 'moi-payment': sums['moi-payment']! + 1 });
    const off = await certify({ ...env, SADAD_DRY_RUN: '1', SADAD_PREFLIGHT: 'off' }, ['--workers', '3']);
    expect(Object.fromEntries(callLines(off.output).map((l) => [l.op, l.calls]))).toEqual({ ...sums, 'bill-enquiry': sums['bill-enquiry']! + 3, 'moi-enquiry': sums['moi-enquiry']! + 3 });
  } finally {
    await target.close();
  }
});

test('planOf: a shared key\'s calls once per worker that can draw one of its cases; a case that cannot send plans nothing', () => {
  const limits = { windowSeconds: 60, perOperation: { 'bill-enquiry': 10, 'bill-payment': 10 }, source: 'test' };
  const base = [{ key: 'payable base: bill-payment', calls: { 'bill-enquiry': 1 } }];
  const cases = [
    { id: 'a', operation: 'bill-payment', family: 'headers', level: 'MUST', calls: { 'bill-payment': 1 }, shared: base, needs: ['payments'] },
    { id: 'b', operation: 'bill-payment', family: 'headers', level: 'MUST', calls: { 'bill-payment': 1 }, shared: base, needs: ['payments'] },
    { id: 'c', operation: 'bill-payment', family: 'headers', level: 'MUST', calls: { 'bill-payment': 1 }, shared: base, needs: ['signer', 'payments'], payments: { debits: 1, subjects: 1 } },
  ];
  const on = { signer: true, payments: true };
  const sent = (p: ReturnType<typeof planOf>) => Object.fromEntries(Object.entries(p.calls).filter(([, n]) => n));
  expect(sent(planOf(cases, limits, { workers: 4, ...on }))).toEqual({ 'bill-enquiry': 3, 'bill-payment': 3 });
  expect(sent(planOf(cases, limits, { workers: 2, ...on }))).toEqual({ 'bill-enquiry': 2, 'bill-payment': 3 });
  const unsigned = planOf(cases, limits, { workers: 4, signer: false, payments: true });
  expect(sent(unsigned)).toEqual({ 'bill-enquiry': 2, 'bill-payment': 2 });
  expect(unsigned).toMatchObject({ notApplicable: 1, payments: { debits: 0, subjects: 0 } });
  const unpaid = planOf(cases, limits, { workers: 4, signer: true, payments: false });
  expect(sent(unpaid)).toEqual({});
  expect(unpaid).toMatchObject({ notApplicable: 3, shared: [] });
  // without a context (an old manifest): one worker, every case
  expect(sent(planOf(cases, limits))).toEqual({ 'bill-enquiry': 1, 'bill-payment': 3 });
});
