/**
 * The check certify-against-mock.test.ts makes of each full run (plan-vs-sent.ts), on made-up
 * reports: it passes when the pacer's counts are the plan's, also when a case repeated a check or
 * carries a copy of another case's exchange, and fails, naming the case, when a case sent more.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { planVersusSent } from './plan-vs-sent.js';

let n = 0;
const exchange = (op: string, label = 'call') => ({ op, label, startedAt: `2026-01-01T00:00:00.${String(n++).padStart(3, '0')}Z`, request: { body: `{"n":${n}}` } });
type Ex = ReturnType<typeof exchange>;
interface Case { id: string; verdict?: string; calls: Record<string, number>; exchanges: Ex[]; observations?: Record<string, unknown> }

function reports(planned: Record<string, number>, sent: Record<string, number>, cases: Case[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'sadad-plan-vs-sent-'));
  mkdirSync(join(dir, 'evidence'));
  writeFileSync(join(dir, 'certification.json'), JSON.stringify({ plan: { calls: planned, estimatedSeconds: 1, bound: null } }));
  writeFileSync(join(dir, 'pacing.json'), JSON.stringify({ operations: Object.fromEntries(Object.entries(sent).map(([op, calls]) => [op, { calls }])) }));
  cases.forEach((c, i) => writeFileSync(join(dir, 'evidence', `${c.id}.json`), JSON.stringify({
    verdict: 'PASS', startedAt: `2026-01-01T00:00:0${i}.000Z`, transient: [], observations: {}, ...c,
  })));
  return dir;
}

test('a run that sent what its plan says, per operation, passes; copies of another case\'s exchange and the shared payment bases count once', () => {
  const accepted = exchange('bill-enquiry', 'accepted request');
  const dir = reports({ 'bill-enquiry': 3, 'bill-payment': 2 }, { 'bill-enquiry': 3, 'bill-payment': 2 }, [
    { id: 'bill-enquiry.res.schema', calls: { 'bill-enquiry': 1 }, exchanges: [accepted] },
    { id: 'bill-enquiry.res.echo', calls: {}, exchanges: [accepted] },
    { id: 'bill-payment.req.Amount.missing', calls: { 'bill-payment': 1 }, exchanges: [exchange('bill-enquiry', 'bill enquiry (payment base)'), exchange('bill-payment')] },
    { id: 'bill-payment.req.Amount.null', calls: { 'bill-payment': 1 }, exchanges: [exchange('bill-enquiry', 'bill enquiry (payment base)'), exchange('bill-payment')] },
    { id: 'bill-payment.hdr.signature.missing', verdict: 'NOT_APPLICABLE', calls: { 'bill-payment': 1 }, exchanges: [] },
  ]);
  expect(planVersusSent(dir).problems).toEqual([]);
});

test('the extra calls of a repeated check are no disagreement', () => {
  const burst = Array.from({ length: 23 }, () => exchange('bill-enquiry'));
  const dir = reports({ 'bill-enquiry': 12 }, { 'bill-enquiry': 23 }, [
    { id: 'bill-enquiry.rate.limit', calls: { 'bill-enquiry': 12 }, exchanges: burst, observations: { 'check 1': 'not judged: the burst took 53 ms', 'check 2': 'judged' } },
  ]);
  expect(planVersusSent(dir)).toMatchObject({ problems: [], repeated: { 'bill-enquiry': 11 } });
});

test('a case that sends a call its plan does not count is a disagreement naming the operation and the case', () => {
  const dir = reports({ 'bill-enquiry': 1, 'moi-enquiry': 1 }, { 'bill-enquiry': 2, 'moi-enquiry': 1 }, [
    { id: 'bill-payment.flow.exact-mismatch', calls: { 'bill-enquiry': 1 }, exchanges: [exchange('bill-enquiry'), exchange('bill-enquiry', 'enquiry after')] },
    { id: 'moi-enquiry.req.ID.missing', calls: { 'moi-enquiry': 1 }, exchanges: [exchange('moi-enquiry')] },
  ]);
  const { problems } = planVersusSent(dir);
  expect(problems[0]).toBe('bill-enquiry: planned 1, sent 2 (of which 0 shared payment bases)');
  expect(problems).toContain('  bill-payment.flow.exact-mismatch: bill-enquiry planned 1, sent 2');
  expect(problems.join('\n')).not.toContain('moi-enquiry');
  // and the other way: a plan that counts a call nobody sends
  expect(planVersusSent(reports({ 'moi-enquiry': 2 }, { 'moi-enquiry': 1 }, [])).problems).toEqual(['moi-enquiry: planned 2, sent 1 (of which 0 shared payment bases)']);
});
