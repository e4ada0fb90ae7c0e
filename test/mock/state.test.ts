import { expect, test } from '@playwright/test';
import { specDate } from '../../src/contract/headers.js';
import { BILL_MAGIC, MOI_MAGIC, MOI_PAID_STATUS_DETAIL } from '../../src/mock/index.js';
import { freshAccount, freshId, STORES, UNLIMITED, withMock } from './helpers.js';

const TABLE = { ...UNLIMITED, style: 'table' } as const;
const cents = (n: unknown) => Math.round(Number(n) * 100);

for (const store of STORES) {
test.describe(`${store} store`, () => {
  test('bill: enquiry -> partial payment -> enquiry shows the effect; exact payment -> BillPaid; then already paid', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const before = await c.enquireBill(subject);
      expect(before).toMatchObject({ BillStatus: 'BillUnpaid', BillPaid: 'N', StatusCode: true, BillAccountID: subject.AccountNumber });
      const due = cents(before.AmountDue);

      const partial = await c.post('bill-payment', c.billPayment(subject, 20.5, false));
      expect(partial.status).toBe(200);
      expect(c.entries('bill-payment', partial)[0]).toMatchObject({ StatusCode: true, PaidAmount: 20.5, PaidDate: specDate() });
      const after = await c.enquireBill(subject);
      expect(cents(after.AmountDue)).toBe(due - 2050);
      expect(cents(after.Balance)).toBe(due - 2050);
      expect(after).toMatchObject({ BillStatus: 'BillPartialPd', BillPaid: 'P', PaidDate: specDate(), BillNo: before.BillNo });

      // PayExactDue true with another amount is refused; with the current due it settles the bill
      const wrongExact = await c.post('bill-payment', c.billPayment(subject, 1, true));
      expect(wrongExact.status).toBe(422);
      expect(wrongExact.body.errorCode).toBe('MW-004');
      expect(wrongExact.body.details[0].pointer).toMatch(/\/TransactionData\/0\/Amount$/);
      const exact = await c.post('bill-payment', c.billPayment(subject, after.AmountDue as number, true));
      expect(exact.status).toBe(200);
      const paid = await c.enquireBill(subject);
      expect(paid).toMatchObject({ AmountDue: 0, Balance: 0, BillStatus: 'BillPaid', BillPaid: 'Y' });

      const again = await c.post('bill-payment', c.billPayment(subject, 1, false));
      expect(again.status).toBe(422);
      expect(again.body.errorCode).toBe('MW-003');
    });
  });

  test('bill amounts: over-payment, zero, negative and sub-halala amounts are refused; the full due with PayExactDue false is fine', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const subject = { BillerId: '001', AccountNumber: freshAccount() };
      const due = (await c.enquireBill(subject)).AmountDue as number;
      for (const amount of [due + 0.01, 0, -5, 1.005]) {
        const a = await c.post('bill-payment', c.billPayment(subject, amount, false));
        expect(a.status, String(amount)).toBe(422);
        expect(a.body.errorCode, String(amount)).toBe('MW-004');
      }
      expect(cents((await c.enquireBill(subject)).AmountDue), 'refused payments had no effect').toBe(cents(due));
      expect((await c.post('bill-payment', c.billPayment(subject, due, false))).status).toBe(200);
    });
  });

  test('bill magic values: not found, expired, already paid, exact payment only', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const at = (suffix: string) => ({ BillerId: '002', AccountNumber: freshAccount(suffix) });

      const missing = at(BILL_MAGIC.notFound);
      const e404 = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: missing }));
      expect(e404.status).toBe(422);
      expect(e404.body).toMatchObject({ errorCode: 'MW-001' });
      expect(e404.body.details[0].pointer).toMatch(/\/TransactionData\/0\/AccountNumber$/);
      expect((await c.post('bill-payment', c.billPayment(missing, 10, false))).body.errorCode).toBe('MW-001');

      const expired = at(BILL_MAGIC.expired);
      const exp = await c.enquireBill(expired);
      expect(exp.BillStatus).toBe('BillExpired');
      expect(Number(exp.ExpiryDate)).toBeLessThan(Number(specDate()));
      const expPay = await c.post('bill-payment', c.billPayment(expired, exp.AmountDue as number, true));
      expect(expPay.status).toBe(422);
      expect(expPay.body.errorCode).toBe('MW-002');

      const paid = at(BILL_MAGIC.alreadyPaid);
      expect(await c.enquireBill(paid)).toMatchObject({ AmountDue: 0, BillStatus: 'BillPaid' });
      expect((await c.post('bill-payment', c.billPayment(paid, 10, false))).body.errorCode).toBe('MW-003');

      const exactOnly = at(BILL_MAGIC.exactPaymentOnly);
      const bill = await c.enquireBill(exactOnly);
      expect(bill.BillStatus).toBe('BillUnpaid');
      const part = await c.post('bill-payment', c.billPayment(exactOnly, 10, false));
      expect(part.status).toBe(422);
      expect(part.body.errorCode).toBe('MW-004');
      expect((await c.post('bill-payment', c.billPayment(exactOnly, bill.AmountDue as number, false))).status).toBe(200);
      expect((await c.enquireBill(exactOnly)).BillStatus).toBe('BillPaid');
    });
  });

  test('MOI: enquiry -> payment with the enquiry\'s FeeReferenceId and DueAmount -> enquiry shows due 0; mismatches are MW-005', async () => {
    await withMock({ ...UNLIMITED, style: 'sample', store }, async (c) => {
      const fee = { BillerID: '090', ID: freshId(), RequestType: '02' };
      const first = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
      expect(first.StatusCode).toBe('OK');
      expect(Number(first.DueAmount)).toBeGreaterThan(0);
      expect(first.PreviousAmount).toBe('0.00');

      const wrongRef = await c.post('moi-payment', c.feePayment(fee, first, { FeeReferenceId: 'FR000001' }));
      expect(wrongRef.status).toBe(422);
      expect(wrongRef.body.errorCode).toBe('MW-005');
      expect(wrongRef.body.details[0].pointer).toMatch(/\/FeeReferenceId$/);
      const wrongDue = await c.post('moi-payment', c.feePayment(fee, first, { DueAmount: Number(first.DueAmount) - 1 }));
      expect(wrongDue.status).toBe(422);
      expect(wrongDue.body.errorCode).toBe('MW-005');
      expect(wrongDue.body.details[0].pointer).toMatch(/\/DueAmount$/);

      const pay = await c.post('moi-payment', c.feePayment(fee, first));
      expect(pay.status).toBe(200);
      const receipt = c.entries('moi-payment', pay)[0]!;
      expect(receipt).toMatchObject({ StatusCode: 'OK', FeeReferenceId: first.FeeReferenceId, PaidAmount: Number(first.DueAmount).toFixed(2), BeneficiaryName: first.BeneficiaryName });
      expect(receipt.PaymentRefNumber).toMatch(/^PRN\d+$/);

      const after = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
      expect(after).toMatchObject({ DueAmount: 0, StatusCode: 'OK', StatusDetail: MOI_PAID_STATUS_DETAIL, FeeReferenceId: first.FeeReferenceId });
      const again = await c.post('moi-payment', c.feePayment(fee, first));
      expect(again.body.errorCode).toBe('MW-003');

      // another service for the same person is another fee subject
      expect(Number(c.entries('moi-enquiry', await c.enquireFee({ ...fee, RequestType: '03' }))[0]!.DueAmount)).toBeGreaterThan(0);
    });
  });

  test('MOI magic values: not found, expired, already paid', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const fee = (suffix: string) => ({ BillerID: '092', ID: freshId(suffix), RequestType: '37' });
      const nf = await c.enquireFee(fee(MOI_MAGIC.notFound));
      expect([nf.status, nf.body.errorCode]).toEqual([422, 'MW-001']);
      const ex = fee(MOI_MAGIC.expired);
      const exq = await c.enquireFee(ex);
      expect([exq.status, exq.body.errorCode]).toEqual([422, 'MW-002']);
      const exPay = await c.post('moi-payment', c.feePayment(ex, { FeeReferenceId: 'FR123456', GroupPayId: '1', SadadReferenceId: '1', DueAmount: 100 }));
      expect([exPay.status, exPay.body.errorCode]).toEqual([422, 'MW-002']);
      const paid = fee(MOI_MAGIC.alreadyPaid);
      const entry = c.entries('moi-enquiry', await c.enquireFee(paid))[0]!;
      expect(entry).toMatchObject({ DueAmount: 0, StatusCode: true, StatusDetail: MOI_PAID_STATUS_DETAIL });
      const payPaid = await c.post('moi-payment', c.feePayment(paid, entry));
      expect([payPaid.status, payPaid.body.errorCode]).toEqual([422, 'MW-003']);
    });
  });

  test('state is kept per company', async () => {
    await withMock({ ...TABLE, extraCompanyIds: ['SECONDCO'], store }, async (c) => {
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const due = cents((await c.enquireBill(subject)).AmountDue);
      expect((await c.post('bill-payment', c.billPayment(subject, 10, false))).status).toBe(200);
      const other = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: subject }), { headers: { CompanyId: 'SECONDCO' } });
      expect(cents(c.entries('bill-enquiry', other)[0]!.AmountDue)).toBe(due);
      expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(due - 1000);
    });
  });

  test('duplicate SequenceNumber: a second payment is 409 and has no effect; a rejected payment does not use up its number', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const due = cents((await c.enquireBill(subject)).AmountDue);
      const body = c.billPayment(subject, 10, false);
      expect((await c.post('bill-payment', body)).status).toBe(200);
      const dup = await c.post('bill-payment', body);
      expect(dup.status).toBe(409);
      expect(dup.body.errorCode).toBe('MW-409-DUPLICATE');
      expect(dup.body.details[0].pointer).toMatch(/\/TransactionData\/0\/SequenceNumber$/);
      // the same number on another bill, and on an MOI payment, is still a duplicate for this company
      const seq = { SequenceNumber: (body.Message.SvcSadadBillPaymentRequest!.SvcSadadBillPayment as { TransactionData: { SequenceNumber: string }[] }[])[0]!.TransactionData[0]!.SequenceNumber };
      expect((await c.post('bill-payment', c.billPayment({ BillerId: '001', AccountNumber: freshAccount() }, 5, false, seq))).status).toBe(409);
      expect((await c.post('moi-payment', c.build('moi-payment', { entry: seq }))).status).toBe(409);
      expect(cents((await c.enquireBill(subject)).AmountDue), 'exactly one debit').toBe(due - 1000);

      // a refused payment (over-payment) leaves its SequenceNumber free for a good one
      const refused = c.billPayment(subject, 99999, false);
      expect((await c.post('bill-payment', refused)).status).toBe(422);
      const retry = c.billPayment(subject, 5, false, { SequenceNumber: (refused.Message.SvcSadadBillPaymentRequest!.SvcSadadBillPayment as { TransactionData: { SequenceNumber: string }[] }[])[0]!.TransactionData[0]!.SequenceNumber });
      expect((await c.post('bill-payment', retry)).status).toBe(200);
      expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(due - 1500);

      // two entries with one SequenceNumber in one request: the first pays, the second is a duplicate, reported in-band
      const pair = c.build('bill-payment', { entries: [{}, {}], entry: { BillerId: subject.BillerId, BillAccountID: subject.AccountNumber, Amount: 1, PayExactDue: false, SequenceNumber: 'S-PAIR-1' } });
      const both = await c.post('bill-payment', pair);
      expect(both.status).toBe(200);
      expect(c.entries('bill-payment', both).map((e) => [e.SequenceNum, e.StatusCode])).toEqual([['S-PAIR-1', true], ['S-PAIR-1', false]]);
      expect(String(c.entries('bill-payment', both)[1]!.StatusDetail)).toMatch(/^MW-409-DUPLICATE /);
      expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(due - 1600);
    });
  });

  test('50 identical payments sent concurrently: exactly one accepted and exactly one debit', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const due = cents((await c.enquireBill(subject)).AmountDue);
      const body = c.billPayment(subject, 12.34, false);
      const answers = await Promise.all(Array.from({ length: 50 }, () => c.post('bill-payment', body)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(49);
      expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(due - 1234);

      const fee = { BillerID: '090', ID: freshId(), RequestType: '04' };
      const entry = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
      const feeBody = c.feePayment(fee, entry);
      const feeAnswers = await Promise.all(Array.from({ length: 50 }, () => c.post('moi-payment', feeBody)));
      expect(feeAnswers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(feeAnswers.filter((a) => a.status === 409)).toHaveLength(49);
    });
  });

  test('payment references are unique', async () => {
    await withMock({ ...TABLE, store }, async (c) => {
      const refs = new Set<string>();
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const bodies = Array.from({ length: 20 }, () => c.billPayment(subject, 1, false));
      for (const a of await Promise.all(bodies.map((b) => c.post('bill-payment', b)))) {
        const e = c.entries('bill-payment', a)[0]!;
        for (const r of [e.PaymentRefNumber, e.BankReference, e.SadadReference, e.SADADRqUID, c.items('bill-payment', a)[0]!.BankReferenceNumber]) refs.add(String(r));
      }
      expect(refs.size).toBe(100);
    });
  });
});
}
