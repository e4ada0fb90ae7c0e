/**
 * Stateful flows: an accepted payment changes what the next enquiry shows (bill: AmountDue by the
 * amount paid, status and paid date observed; MOI: the fee is no longer due). PayExactDue true with
 * another amount must not pay that other amount.
 */
import { summarize } from '../../client/exchange.js';
import { specDate } from '../../contract/headers.js';
import { defineCase } from '../case.js';
import { amount, billPayment, cents, enquireBills, enquireFees, feePayment } from '../prepare.js';
import { viewResponse } from '../../client/outcome.js';
import { onBills, onFees, payAccepted } from '../payments.js';

export function registerFlowCases(): void {
  defineCase({ id: 'bill-payment.flow.partial', family: 'flows', op: 'bill-payment', sections: ['2.2', '2.3', '4'], level: 'MUST', pays: true, calls: { 'bill-enquiry': 2, 'bill-payment': 1 }, payments: { debits: 1, subjects: 1 },
    expectation: 'after a partial payment (PayExactDue false) the enquiry shows AmountDue lower by exactly the amount paid' }, async (c) => {
    const [before] = await enquireBills(c, await c.bills(1), 'enquiry before');
    const part = Math.max(0.01, Math.floor(before!.due * 100 / 3) / 100);
    await payAccepted(c, billPayment(c.gen, [before!], () => part), onBills(c, [before!], () => part), `partial payment of ${part}`, 'the partial payment');
    const [after] = await enquireBills(c, [before!.subject], 'enquiry after');
    c.observe('BillStatus', `${String(before!.entry.BillStatus)} -> ${String(after!.entry.BillStatus)}`, `${String(before!.entry.BillStatus)} -> ${String(after!.entry.BillStatus)}`);
    c.observe('PaidDate after', String(after!.entry.PaidDate));
    c.observe('Balance', `${String(before!.entry.Balance)} -> ${String(after!.entry.Balance)}`);
    if (cents(before!.due) - cents(after!.due) !== cents(part)) c.violated(`AmountDue went from ${before!.due} to ${after!.due} after paying ${part}`);
  });

  defineCase({ id: 'bill-payment.flow.exact', family: 'flows', op: 'bill-payment', sections: ['2.2', '2.3', '4'], level: 'MUST', pays: true, calls: { 'bill-enquiry': 2, 'bill-payment': 1 }, payments: { debits: 1, subjects: 1 },
    expectation: 'after paying exactly the amount due (PayExactDue true) the enquiry shows nothing due' }, async (c) => {
    const [before] = await enquireBills(c, await c.bills(1), 'enquiry before');
    const { ex, answerLost } = await payAccepted(c, billPayment(c.gen, [before!]), onBills(c, [before!]), `exact payment of ${before!.due}`, 'the exact payment');
    const paid = answerLost ? undefined : viewResponse('bill-payment', ex.json, c.tagPrefix).entries[0];
    if (paid && amount(paid.PaidAmount) !== undefined && cents(amount(paid.PaidAmount)!) !== cents(before!.due)) c.violated(`PaidAmount ${String(paid.PaidAmount)} differs from the ${before!.due} paid`);
    if (paid && paid.PaidDate !== specDate()) c.observe('PaidDate in the payment answer', `${String(paid.PaidDate)} (today is ${specDate()})`, 'not today');
    const [after] = await enquireBills(c, [before!.subject], 'enquiry after');
    c.observe('BillStatus', `${String(before!.entry.BillStatus)} -> ${String(after!.entry.BillStatus)}`, `${String(before!.entry.BillStatus)} -> ${String(after!.entry.BillStatus)}`);
    if (cents(after!.due) !== 0) c.violated(`AmountDue is ${after!.due} after paying the full ${before!.due}`);
  });

  // the enquiry after is sent only when the target accepts; the plan follows the reference mock, which refuses
  defineCase({ id: 'bill-payment.flow.exact-mismatch', family: 'flows', op: 'bill-payment', sections: ['2.3', '4'], level: 'SHOULD', pays: true, calls: { 'bill-enquiry': 1, 'bill-payment': 1 }, payments: { debits: 1, subjects: 1 },
    expectation: 'PayExactDue true with an Amount other than the amount due is rejected, or pays exactly the amount due' }, async (c) => {
    const [before] = await enquireBills(c, await c.bills(1), 'enquiry before');
    const wrong = Math.max(0.01, Math.round((before!.due - 1) * 100) / 100);
    const body = billPayment(c.gen, [before!], () => wrong, true);
    // either answer a conformant target may give leaves the bill paid at most once: safe to repeat
    const ex = await c.send({ body, label: `PayExactDue true, Amount ${wrong} of ${before!.due}`, retry: 'safe' });
    const o = c.classify(ex);
    c.observe('answer', o.detail);
    if (o.kind === 'no-answer' || o.status === 429) return c.error(`the payment got no usable answer: ${summarize(ex)}`);
    if (o.kind === 'rejected') return c.pass('rejected');
    const [after] = await enquireBills(c, [before!.subject], 'enquiry after');
    const debited = (cents(before!.due) - cents(after!.due)) / 100;
    c.observe('debited', debited);
    if (cents(after!.due) !== 0) c.violated(`accepted, and debited ${debited} of ${before!.due} due: neither a rejection nor the exact amount`);
  });

  defineCase({ id: 'moi-payment.flow.pay', family: 'flows', op: 'moi-payment', sections: ['2.6', '2.7'], level: 'MUST', pays: true, calls: { 'moi-enquiry': 2, 'moi-payment': 1 }, payments: { debits: 1, subjects: 1 },
    expectation: 'after paying a fee with the FeeReferenceId and DueAmount its enquiry gave, the enquiry shows nothing due' }, async (c) => {
    const [before] = await enquireFees(c, await c.fees(1), 'enquiry before');
    await payAccepted(c, feePayment(c.gen, [before!]), onFees(c, [before!]), `payment of ${before!.due}`, 'the fee payment');
    const [after] = await enquireFees(c, [before!.subject], 'enquiry after');
    c.observe('StatusDetail after', String(after!.entry.StatusDetail));
    if (cents(after!.due) !== 0) c.violated(`DueAmount is ${after!.due} after paying the full ${before!.due}`);
  });
}
