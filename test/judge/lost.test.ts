/**
 * What the client saw is what counts (issue 27): an answer the mock dropped (MOCK_FAULTS=lost) is
 * recorded as none, and a payment retried after it is judged by no-double-pay, never by an amount due
 * the client could not know.
 */
import { expect, test } from '@playwright/test';
import { judge, record, verdict } from './traffic-fixtures.js';
import { toExchange } from '../../src/judge/traffic.js';
import { summarizeTraffic } from '../../src/judge/package.js';
import { freshAccount } from '../mock/helpers.js';
import { SCENARIO_MAGIC } from '../../src/mock/index.js';

test('a payment whose answer was lost: recorded as no answer (reset); paying again under a new SequenceNumber without an enquiry FAILs no-double-pay, and no rule speaks of an amount due', async () => {
  const b = { BillerId: '002', AccountNumber: freshAccount('') };
  // every answer is dropped once the call took effect: the client sees a reset each time
  const records = await record(async (c) => {
    await c.post('bill-enquiry', c.build('bill-enquiry', { entry: b })).catch(() => undefined);
    await c.post('bill-payment', c.billPayment(b, 10, false)).catch(() => undefined);
    await c.post('bill-payment', c.billPayment(b, 10, false)).catch(() => undefined);
  }, { faults: { lost: 1, seed: 3 } });
  const paying = records.filter((r) => r.op === 'bill-payment');
  expect(paying.map((r) => [r.status, r.delivered, r.clientSaw])).toEqual([[200, false, 'reset'], [200, false, 'reset']]);
  const first = toExchange(paying[0]!);
  expect(first.response, 'no answer reached the client').toBeUndefined();
  expect(first.error).toMatchObject({ kind: 'reset', message: expect.stringMatching(/reset before the answer, HTTP 200, reached it/) });
  expect(summarizeTraffic(records).byOperation['bill-payment']!.statuses).toEqual({ 'no answer (reset)': 2 });
  expect(summarizeTraffic(records)).toMatchObject({ lost: 3, abandoned: 0 });
  const cases = judge(records);
  expect(verdict(cases, 'client.bill-payment.safety.no-double-pay')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/pays bill 002\/\S+ under a new SequenceNumber .* ended without a clear answer/) });
  expect(verdict(cases, 'client.bill-payment.safety.amount').notes).not.toMatch(/is due/);
});

test('the traffic counts every answer a scenario gave: the rate-limited scenario\'s 429, the unavailable one\'s 503', async () => {
  const records = await record(async (c) => {
    expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { BillerId: '002', AccountNumber: freshAccount(SCENARIO_MAGIC.rateLimited) } }))).status).toBe(429);
    expect((await c.post('bill-payment', c.billPayment({ BillerId: '002', AccountNumber: freshAccount(SCENARIO_MAGIC.unavailable) }, 10, false))).status).toBe(503);
  });
  const t = summarizeTraffic(records);
  expect([t.scenarioAnswers, t.rateLimited, t.lost]).toEqual([{ 429: 1, 503: 1 }, 0, 0]);
});
