import { expect, test } from '@playwright/test';
import { operation, type OperationId } from '../../src/contract/catalogue.js';
import { requestEntries, requestItems } from '../../src/contract/message.js';
import { validateResponse } from '../../src/contract/validator.js';
import { BILL_MAGIC, MOI_MAGIC, type ResponseStyle } from '../../src/mock/index.js';
import { freshAccount, freshId, UNLIMITED, withMock, type Answer, type MockClient } from './helpers.js';

function expectContract(c: MockClient, opId: OperationId, answer: Answer, label: string) {
  expect(validateResponse(opId, answer.body, 'lenient', c.options.tagPrefix).findings, `${label}: lenient`).toEqual([]);
  if (c.options.style === 'table') expect(validateResponse(opId, answer.body, 'strict', c.options.tagPrefix).findings, `${label}: strict`).toEqual([]);
  expect(answer.body.Message, `${label}: no Message wrapper`).toBeUndefined();
}

const FAILED = { sample: 'FAILED', table: false } as const;
const OK = { sample: 'OK', table: true } as const;

for (const style of ['sample', 'table'] as const satisfies readonly ResponseStyle[]) {
  test(`${style} style: every operation's success and in-band rejections meet the response schemas`, async () => {
    await withMock({ ...UNLIMITED, style, errors: 'in-band' }, async (c) => {
      const seen: string[] = [];
      const check = (opId: OperationId, a: Answer, label: string, ok: boolean) => {
        expect(a.status, label).toBe(200);
        expectContract(c, opId, a, label);
        const entries = c.entries(opId, a);
        for (const e of entries) expect(e.StatusCode, label).toBe(ok ? OK[style] : FAILED[style]);
        seen.push(`${opId} ${ok ? 'ok' : 'rejected'}`);
      };

      // bills: ordinary, expired, already paid, exact-only enquiries answer; not found is rejected
      for (const suffix of ['', BILL_MAGIC.expired, BILL_MAGIC.alreadyPaid, BILL_MAGIC.exactPaymentOnly]) {
        check('bill-enquiry', await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: freshAccount(suffix) } })), `bill enquiry ${suffix}`, true);
      }
      check('bill-enquiry', await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: freshAccount(BILL_MAGIC.notFound) } })), 'bill enquiry not found', false);
      const validationFailure = c.build('bill-enquiry', { entry: { AccountNumber: 'A'.repeat(25) } });
      check('bill-enquiry', await c.post('bill-enquiry', validationFailure), 'bill enquiry invalid', false);

      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const bill = await c.enquireBill(subject);
      const due = Number(bill.AmountDue);
      check('bill-payment', await c.post('bill-payment', c.billPayment(subject, due + 1, false)), 'bill over-payment', false);
      check('bill-payment', await c.post('bill-payment', c.billPayment(subject, 10, false)), 'bill partial payment', true);
      check('bill-payment', await c.post('bill-payment', c.billPayment({ ...subject, AccountNumber: freshAccount(BILL_MAGIC.expired) }, 10, false)), 'bill payment expired', false);
      check('bill-payment', await c.post('bill-payment', c.billPayment(subject, 'ten' as unknown as number, false)), 'bill payment invalid', false);

      const fee = { BillerID: '090', ID: freshId(), RequestType: '03' };
      const enquiry = await c.enquireFee(fee);
      check('moi-enquiry', enquiry, 'moi enquiry', true);
      const feeEntry = c.entries('moi-enquiry', enquiry)[0]!;
      check('moi-payment', await c.post('moi-payment', c.feePayment(fee, feeEntry, { FeeReferenceId: 'FR000000' })), 'moi payment wrong reference', false);
      check('moi-payment', await c.post('moi-payment', c.feePayment(fee, feeEntry)), 'moi payment', true);
      check('moi-enquiry', await c.enquireFee(fee), 'moi enquiry after payment', true);
      check('moi-enquiry', await c.enquireFee({ ...fee, ID: freshId(MOI_MAGIC.alreadyPaid) }), 'moi enquiry already paid', true);
      for (const suffix of [MOI_MAGIC.notFound, MOI_MAGIC.expired]) check('moi-enquiry', await c.enquireFee({ ...fee, ID: freshId(suffix) }), `moi enquiry ${suffix}`, false);
      check('moi-payment', await c.post('moi-payment', c.feePayment({ ...fee, ID: freshId(MOI_MAGIC.notFound) }, feeEntry)), 'moi payment not found', false);
      check('moi-enquiry', await c.post('moi-enquiry', c.build('moi-enquiry', { entry: { Duration: '12' } })), 'moi enquiry invalid', false);
      check('moi-payment', await c.post('moi-payment', c.build('moi-payment', { entry: { VisaCount: null } })), 'moi payment invalid', false);

      for (const op of ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment']) {
        expect(seen, op).toContain(`${op} ok`);
        expect(seen, op).toContain(`${op} rejected`);
      }
    });
  });

  test(`${style} style: root tag, MessageType, TimeStamp, echoed identification and the sample/table types`, async () => {
    await withMock({ ...UNLIMITED, style }, async (c) => {
      for (const opId of ['bill-enquiry', 'moi-enquiry'] as const) {
        const body = c.build(opId);
        const a = await c.post(opId, body);
        expectContract(c, opId, a, opId);
        const op = operation(opId);
        expect(Object.keys(a.body)).toEqual([op.responseRoot]);
        const root = a.body[op.responseRoot];
        expect(root.MessageType).toBe(op.transactionType);
        expect(root.TimeStamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
        const reqItem = requestItems(opId, body, 'Svc')[0]!;
        const item = c.items(opId, a)[0]!;
        for (const f of ['BankCode', 'CompanyCode', 'TransactionReferenceNumber', 'MessageDescription']) expect(item[f], f).toBe(reqItem[f]);
        expect(item.Status).toBe(style === 'sample' ? 'SUCCESS' : true);
        const entry = c.entries(opId, a)[0]!;
        expect(entry.StatusCode).toBe(OK[style]);
        expect(entry.StatusDetail).toBe('Success');
        if (opId === 'bill-enquiry') {
          const reqEntry = requestEntries(opId, body, 'Svc')[0]!;
          expect(entry.SequenceNumber).toBe(reqEntry.SequenceNumber);
          expect(entry.BillAccountID).toBe(reqEntry.AccountNumber);
          expect(entry.BillNo).toMatch(/^\d{13}$/);
          expect(entry.BillerID).toEqual(style === 'sample' ? Number(reqEntry.BillerId) : reqEntry.BillerId);
          expect(typeof entry.AmountDue).toBe('number');
          for (const d of ['PaidDate', 'OpenDate', 'CloseDate', 'DueDate', 'ExpiryDate']) expect(entry[d], d).toMatch(/^\d{8}$/);
        } else {
          expect(entry.FeeReferenceId).toMatch(/^FR\d{6}$/);
          expect(typeof entry.GroupPayId).toBe(style === 'sample' ? 'number' : 'string');
          expect(entry.PreviousAmount).toEqual(style === 'sample' ? '0.00' : 0);
          const fees = (entry.FeeDetails as { Fees: { FeeAmount: number } }[]).map((f) => f.Fees.FeeAmount);
          expect(fees.length).toBeGreaterThanOrEqual(1);
          expect(fees.length).toBeLessThanOrEqual(3);
          expect(Math.round(fees.reduce((a, b) => a + b, 0) * 100)).toBe(Math.round(Number(entry.DueAmount) * 100));
        }
      }
      const subject = { BillerId: '001', AccountNumber: freshAccount() };
      const due = Number((await c.enquireBill(subject)).AmountDue);
      const pay = await c.post('bill-payment', c.billPayment(subject, due, true));
      expectContract(c, 'bill-payment', pay, 'bill payment');
      const entry = c.entries('bill-payment', pay)[0]!;
      expect(entry.PaidAmount).toEqual(style === 'sample' ? due.toFixed(2) : due);
      expect(entry.envelopeDateTime).toMatch(style === 'sample' ? /^\d{8}$/ : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
      expect(c.items('bill-payment', pay)[0]!.BankReferenceNumber).toMatch(/^BRN\d+$/);
    });
  });
}

test('several TransactionData entries are answered one for one, in order, each echoing its sequence number', async () => {
  await withMock({ ...UNLIMITED, style: 'table' }, async (c) => {
    const accounts = [freshAccount(), freshAccount(BILL_MAGIC.alreadyPaid), freshAccount(), freshAccount(BILL_MAGIC.expired)];
    const body = c.build('bill-enquiry', { entries: accounts.map((AccountNumber) => ({ AccountNumber, BillerId: '002' })) });
    const a = await c.post('bill-enquiry', body);
    expectContract(c, 'bill-enquiry', a, 'four entries');
    const entries = c.entries('bill-enquiry', a);
    expect(entries.map((e) => e.BillAccountID)).toEqual(accounts);
    expect(entries.map((e) => e.SequenceNumber)).toEqual(requestEntries('bill-enquiry', body, 'Svc').map((e) => e.SequenceNumber));
    expect(entries.map((e) => e.BillStatus)).toEqual(['BillUnpaid', 'BillPaid', 'BillUnpaid', 'BillExpired']);

    // payments: each entry on its own, in order; the response echoes SequenceNum
    const subjects = [{ BillerId: '002', AccountNumber: freshAccount() }, { BillerId: '001', AccountNumber: freshAccount() }];
    const dues: number[] = [];
    for (const s of subjects) dues.push(Number((await c.enquireBill(s)).AmountDue));
    const payBody = c.build('bill-payment', { entries: subjects.map((s, i) => ({ BillerId: s.BillerId, BillAccountID: s.AccountNumber, Amount: dues[i], PayExactDue: true })) });
    const pay = await c.post('bill-payment', payBody);
    expect(pay.status).toBe(200);
    expect(c.entries('bill-payment', pay).map((e) => e.SequenceNum)).toEqual(requestEntries('bill-payment', payBody, 'Svc').map((e) => e.SequenceNumber));
    expect(c.entries('bill-payment', pay).map((e) => e.PaidAmount)).toEqual(dues);

    // MOI enquiry responses carry no sequence field: order alone tells the entries apart
    const ids = [freshId(), freshId(MOI_MAGIC.alreadyPaid), freshId()];
    const moi = await c.post('moi-enquiry', c.build('moi-enquiry', { entries: ids.map((ID) => ({ ID, POINum: ID, BillerID: '090', RequestType: '03' })) }));
    expect(c.entries('moi-enquiry', moi).map((e) => e.ID)).toEqual(ids);
    expect(c.entries('moi-enquiry', moi)[1]!.DueAmount).toBe(0);
  });
});

test('the same identity always starts from the same bill and fee, across mock instances', async () => {
  const subject = { BillerId: '002', AccountNumber: '1234567890' };
  const fee = { BillerID: '092', ID: '2123456789', RequestType: '37' };
  const look = () => withMock(UNLIMITED, async (c) => {
    const bill = await c.enquireBill(subject);
    const f = c.entries('moi-enquiry', await c.enquireFee(fee))[0]!;
    return [bill.AmountDue, bill.BillNo, f.FeeReferenceId, f.DueAmount, f.BeneficiaryName, f.FeeDetails];
  });
  const [a, b] = [await look(), await look()];
  expect(a).toEqual(b);
  const due = Number(a[0]);
  expect(due).toBeGreaterThanOrEqual(50);
  expect(due).toBeLessThanOrEqual(1500);
  expect(Math.round(due * 100)).toBe(due * 100);
});

test('a deployment prefix renames the response tags', async () => {
  await withMock({ ...UNLIMITED, tagPrefix: 'OSV', headerPrefix: 'SV', style: 'table' }, async (c) => {
    const a = await c.post('bill-enquiry', c.build('bill-enquiry'));
    expect(a.status).toBe(200);
    expect(Object.keys(a.body)).toEqual(['OSVSadadBillEnquiryResponse']);
    expect(validateResponse('bill-enquiry', a.body, 'strict', 'OSV').findings).toEqual([]);
  });
});
