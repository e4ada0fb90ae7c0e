/** The scenario magic values (magic.ts SCENARIO_MAGIC): each fires as documented, once, and then the bill is ordinary. */
import { expect, test } from '@playwright/test';
import { SCENARIO_MAGIC, SCENARIO_RETRY_AFTER_SECONDS } from '../../src/mock/index.js';
import { freshAccount, UNLIMITED, withMock } from './helpers.js';

const BILLER = '001';

test('9429: the first call of each operation gets 429 with Retry-After, the retry is answered', async () => {
  await withMock(UNLIMITED, async (c) => {
    const account = freshAccount(SCENARIO_MAGIC.rateLimited);
    const body = c.build('bill-enquiry', { entry: { BillerId: BILLER, AccountNumber: account } });
    const first = await c.post('bill-enquiry', body);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe(String(SCENARIO_RETRY_AFTER_SECONDS));
    expect((await c.post('bill-enquiry', body)).status).toBe(200);
    const due = Number((await c.enquireBill({ BillerId: BILLER, AccountNumber: account })).AmountDue);
    const pay = c.billPayment({ BillerId: BILLER, AccountNumber: account }, due, true);
    expect((await c.post('bill-payment', pay)).status).toBe(429);
    expect((await c.post('bill-payment', pay)).status).toBe(200);
  });
});

test('9503: the first payment gets 503 and debits nothing; the replay with the same SequenceNumber is accepted once', async () => {
  await withMock(UNLIMITED, async (c) => {
    const account = freshAccount(SCENARIO_MAGIC.unavailable);
    const subject = { BillerId: BILLER, AccountNumber: account };
    expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { BillerId: BILLER, AccountNumber: account } }))).status).toBe(503);
    const due = Number((await c.enquireBill(subject)).AmountDue);
    const pay = c.billPayment(subject, due, true);
    expect((await c.post('bill-payment', pay)).status).toBe(503);
    expect(Number((await c.enquireBill(subject)).AmountDue)).toBe(due);
    expect((await c.post('bill-payment', pay)).status).toBe(200);
    expect(Number((await c.enquireBill(subject)).AmountDue)).toBe(0);
  });
});

test('9500: HTTP 200 with a failing status, also in http error mode, and nothing debited', async () => {
  await withMock({ ...UNLIMITED, errors: 'http' }, async (c) => {
    const account = freshAccount(SCENARIO_MAGIC.inBandFailure);
    const a = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { BillerId: BILLER, AccountNumber: account } }));
    expect(a.status).toBe(200);
    const entry = c.entries('bill-enquiry', a)[0]!;
    expect(['false', 'FAILED']).toContain(String(entry.StatusCode));
    expect(String(entry.StatusDetail)).toMatch(/^MW-006/);
    const p = await c.post('bill-payment', c.billPayment({ BillerId: BILLER, AccountNumber: account }, 10, false));
    expect(p.status).toBe(200);
    expect(['false', 'FAILED']).toContain(String(c.entries('bill-payment', p)[0]!.StatusCode));
  });
});

test('9408: the first payment is debited and its answer held; a client that gives up finds it paid', async () => {
  await withMock({ ...UNLIMITED, lateAnswerMs: 1500 }, async (c) => {
    const subject = { BillerId: BILLER, AccountNumber: freshAccount(SCENARIO_MAGIC.lateAnswer) };
    const due = Number((await c.enquireBill(subject)).AmountDue);
    const started = Date.now();
    await expect(c.post('bill-payment', c.billPayment(subject, due, true), { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(1200);
    expect(Number((await c.enquireBill(subject)).AmountDue)).toBe(0);
    // only the first payment is held
    const other = { BillerId: BILLER, AccountNumber: subject.AccountNumber };
    const t = Date.now();
    expect((await c.post('bill-payment', c.billPayment(other, 1, false))).status).toBe(422); // already paid, answered at once
    expect(Date.now() - t).toBeLessThan(1000);
  });
});
