/**
 * Exactly-once under real concurrency: bursts of 50 payments written on 50 open keep-alive
 * connections in the same tick, so they arrive together. Identical payments (one SequenceNumber)
 * debit once and are refused as duplicates 49 times; partial payments with their own numbers are
 * all applied, and the bill's AmountDue moves by exactly their sum (no lost update, no double
 * count). In both error modes, on both stores (memory, and Redis with MOCK_REDIS_URL). A mock
 * with the `duplicate-when-concurrent` defect shows the bursts do overlap: there the same burst is
 * accepted more than once.
 */
import { expect, test } from '@playwright/test';
import { operation, tagsOf, type OperationId } from '../../src/contract/catalogue.js';
import type { Fields } from '../../src/contract/message.js';
import type { ErrorMode } from '../../src/mock/index.js';
import { freshAccount, freshId, MockClient, STORES, UNLIMITED, withMock, type Answer } from './helpers.js';
import { sendTogether, type Burst } from '../support/burst.js';

const BURST = 50;
const cents = (n: unknown) => Math.round(Number(n) * 100);
/** StatusCode of a successful entry: `true` in table style, `"OK"` in sample style. */
const succeeded = (e: Fields | undefined) => e?.StatusCode === true || e?.StatusCode === 'OK';

/** Sends every body at once (test/support/burst.ts). */
function burst(c: MockClient, opId: OperationId, bodies: unknown[]): Promise<Burst> {
  return sendTogether(c.mock.url, operation(opId).path, bodies.map((body) => ({ headers: c.headers(opId), body })));
}

/** accepted, duplicate, or what else the answer was. */
function verdict(c: MockClient, opId: OperationId, a: Answer): string {
  if (a.status === 409) return a.body?.errorCode === 'MW-409-DUPLICATE' ? 'duplicate' : `409 ${a.body?.errorCode}`;
  if (a.status !== 200) return `HTTP ${a.status} ${a.body?.errorCode ?? ''}`.trim();
  const entry = c.entries(opId, a)[0];
  if (succeeded(entry)) return 'accepted';
  const detail = String(entry?.StatusDetail ?? '');
  return detail.startsWith('MW-409-DUPLICATE') ? 'duplicate' : `in-band ${detail.split(' ')[0]}`;
}

function tally(verdicts: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of verdicts) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/** The SequenceNumber of a request's first entry. */
function sequenceOf(c: MockClient, body: unknown, opId: OperationId): string {
  const { requestRoot, listTag } = tagsOf(operation(opId), c.options.tagPrefix);
  return String((body as { Message: Record<string, Record<string, { TransactionData: Fields[] }[]>> }).Message[requestRoot]![listTag]![0]!.TransactionData[0]!.SequenceNumber);
}

for (const store of STORES) for (const errors of ['http', 'in-band'] as const satisfies readonly ErrorMode[]) {
  const options = { ...UNLIMITED, style: 'table' as const, errors, store };

  test(`bill payment (${store} store, ${errors}): ${BURST} identical concurrent payments -> one accepted, ${BURST - 1} duplicates, one debit`, async () => {
    await withMock(options, async (c) => {
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const due = cents((await c.enquireBill(subject)).AmountDue);
      const body = c.billPayment(subject, 12.34, false);
      const { answers, inFlightAtFirstAnswer } = await burst(c, 'bill-payment', Array.from({ length: BURST }, () => body));
      const verdicts = answers.map((a) => verdict(c, 'bill-payment', a));
      console.log(`bill ${store} ${errors}: ${JSON.stringify(tally(verdicts))}; ${inFlightAtFirstAnswer} of ${BURST} written before the first answer`);
      expect(tally(verdicts)).toEqual({ accepted: 1, duplicate: BURST - 1 });
      if (errors === 'http') expect(answers.filter((a) => a.status === 409)).toHaveLength(BURST - 1);
      const accepted = c.entries('bill-payment', answers[verdicts.indexOf('accepted')]!)[0]!;
      expect(accepted).toMatchObject({ SequenceNum: sequenceOf(c, body, 'bill-payment'), PaidAmount: 12.34 });
      const after = await c.enquireBill(subject);
      expect(cents(after.AmountDue), 'exactly one debit').toBe(due - 1234);
      expect(after.BillStatus).toBe('BillPartialPd');
    });
  });

  test(`MOI payment (${store} store, ${errors}): ${BURST} identical concurrent payments -> one accepted, ${BURST - 1} duplicates, one debit`, async () => {
    await withMock(options, async (c) => {
      const fee = { BillerID: '090', ID: freshId(), RequestType: '04' };
      const enquiry = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
      const due = cents(enquiry.DueAmount);
      expect(due).toBeGreaterThan(0);
      const body = c.feePayment(fee, enquiry);
      const { answers, inFlightAtFirstAnswer } = await burst(c, 'moi-payment', Array.from({ length: BURST }, () => body));
      const verdicts = answers.map((a) => verdict(c, 'moi-payment', a));
      console.log(`moi ${store} ${errors}: ${JSON.stringify(tally(verdicts))}; ${inFlightAtFirstAnswer} of ${BURST} written before the first answer`);
      expect(tally(verdicts)).toEqual({ accepted: 1, duplicate: BURST - 1 });
      const receipt = c.entries('moi-payment', answers[verdicts.indexOf('accepted')]!)[0]!;
      expect(cents(receipt.PaidAmount)).toBe(due);
      const after = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
      expect(cents(after.DueAmount), 'paid once, in full').toBe(0);
    });
  });

  test(`MOI payment (${store} store, ${errors}): ${BURST} concurrent payments of one fee with their own SequenceNumbers -> exactly one accepted`, async () => {
    await withMock(options, async (c) => {
      const fee = { BillerID: '091', ID: freshId(), RequestType: '02' };
      const enquiry = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
      const bodies = Array.from({ length: BURST }, () => c.feePayment(fee, enquiry));
      expect(new Set(bodies.map((b) => sequenceOf(c, b, 'moi-payment'))).size).toBe(BURST);
      const { answers } = await burst(c, 'moi-payment', bodies);
      const verdicts = answers.map((a) => verdict(c, 'moi-payment', a));
      // the first pays the fee in full; every other one finds it paid (MW-003), none debits again
      expect(tally(verdicts)).toEqual({ accepted: 1, [errors === 'http' ? 'HTTP 422 MW-003' : 'in-band MW-003']: BURST - 1 });
      expect(cents(c.entries('moi-enquiry', await c.enquireFee(fee))[0]!.DueAmount)).toBe(0);
    });
  });

  test(`bill payment (${store} store, ${errors}): ${BURST} concurrent partial payments with their own SequenceNumbers -> all applied, AmountDue moves by their exact sum`, async () => {
    await withMock(options, async (c) => {
      for (const leave of [101, 0]) {
        const subject = { BillerId: '001', AccountNumber: freshAccount() };
        const due = cents((await c.enquireBill(subject)).AmountDue);
        // integer cents: the total split into 50 parts differing by at most a cent
        const total = due - leave;
        const parts = Array.from({ length: BURST }, (_, i) => Math.floor(total / BURST) + (i < total % BURST ? 1 : 0));
        expect(parts.reduce((s, p) => s + p, 0)).toBe(total);
        const bodies = parts.map((p) => c.billPayment(subject, p / 100, false));
        expect(new Set(bodies.map((b) => sequenceOf(c, b, 'bill-payment'))).size).toBe(BURST);
        const { answers, inFlightAtFirstAnswer } = await burst(c, 'bill-payment', bodies);
        const verdicts = answers.map((a) => verdict(c, 'bill-payment', a));
        console.log(`partial ${store} ${errors} leave ${leave}: ${JSON.stringify(tally(verdicts))}; ${inFlightAtFirstAnswer} of ${BURST} written before the first answer`);
        expect(tally(verdicts)).toEqual({ accepted: BURST });
        const paid = answers.map((a) => cents(c.entries('bill-payment', a)[0]!.PaidAmount)).sort((x, y) => x - y);
        expect(paid).toEqual([...parts].sort((x, y) => x - y));
        const after = await c.enquireBill(subject);
        expect(cents(after.AmountDue), 'original minus the exact sum').toBe(leave);
        expect(after.BillStatus).toBe(leave === 0 ? 'BillPaid' : 'BillPartialPd');
        // and the bill refuses what would now be an over-payment
        const over = await c.post('bill-payment', c.billPayment(subject, (leave + 1) / 100, false));
        expect(verdict(c, 'bill-payment', over)).not.toBe('accepted');
      }
    });
  });
}

for (const store of STORES) test(`the bursts overlap (${store} store): with the duplicate-when-concurrent defect the same burst is accepted more than once`, async () => {
  await withMock({ ...UNLIMITED, style: 'table', defects: ['duplicate-when-concurrent'], store }, async (c) => {
    const subject = { BillerId: '002', AccountNumber: freshAccount() };
    const due = cents((await c.enquireBill(subject)).AmountDue);
    const body = c.billPayment(subject, 1, false);
    const { answers } = await burst(c, 'bill-payment', Array.from({ length: BURST }, () => body));
    const accepted = answers.filter((a) => verdict(c, 'bill-payment', a) === 'accepted').length;
    console.log(`duplicate-when-concurrent: ${accepted} of ${BURST} identical payments accepted`);
    expect(accepted).toBeGreaterThan(1);
    expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(due - 100 * accepted);
  });
});
