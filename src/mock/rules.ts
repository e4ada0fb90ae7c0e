/**
 * The business rules of each operation, applied to one schema-valid TransactionData entry at a
 * time. Synchronous from the duplicate check to the debit, so concurrent payments cannot both pass
 * the check (see state.ts); the duplicate and flow defects bend them here.
 */
import { randomUUID } from 'node:crypto';
import type { Fields } from '../contract/message.js';
import type { Defects } from './defects.js';
import { REJECTIONS, type Rejection } from './errors.js';
import { scenarioOf } from './magic.js';
import type { Bill, FeeSubject, MockState } from './state.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; rejection: Rejection; value?: T };

export interface Receipt {
  paidCents: number;
  paymentRefNumber: string;
  sadadRqUid: string;
  bankReference: string;
  sadadReference: string;
}

export interface BillReceipt extends Receipt { bill: Bill }
export interface FeeReceipt extends Receipt { fee: FeeSubject }

export interface EntryContext {
  state: MockState;
  defects: Defects;
  company: string;
  /** JSON pointer of the entry in the request body. */
  pointer: string;
}

const str = (entry: Fields, ...names: string[]): string => {
  for (const n of names) if (typeof entry[n] === 'string') return entry[n] as string;
  return '';
};

function reject<T>(r: Rejection, pointer: string, expected: string, found: string, value?: T): Outcome<T> {
  return { ok: false, rejection: { ...r, detail: { pointer, expected, found } }, ...(value === undefined ? {} : { value }) };
}

/** Amount in cents, or null when it has more than two decimals (halalas are the smallest unit). */
function toCents(amount: number): number | null {
  const cents = Math.round(amount * 100);
  return Number.isSafeInteger(cents) && Math.abs(amount * 100 - cents) < 1e-6 ? cents : null;
}

const money = (cents: number) => (cents / 100).toFixed(2);

function receipt(state: MockState, paidCents: number): Receipt {
  return {
    paidCents,
    paymentRefNumber: `PRN${state.nextReference()}`,
    sadadRqUid: randomUUID(),
    bankReference: state.nextReference(),
    sadadReference: state.nextReference(),
  };
}

export function billEnquiry(ctx: EntryContext, entry: Fields): Outcome<Bill> {
  const account = str(entry, 'AccountNumber');
  if (scenarioOf(account) === 'inBandFailure') return reject(REJECTIONS.billerUnavailable(), `${ctx.pointer}/AccountNumber`, 'a biller that answers', 'the biller system is unavailable');
  const bill = ctx.state.bill(ctx.company, str(entry, 'BillerId'), account);
  if (!bill) return reject(REJECTIONS.notFound('Bill'), `${ctx.pointer}/AccountNumber`, 'an existing bill account', JSON.stringify(account));
  return { ok: true, value: { ...bill } };
}

/**
 * How long `duplicate-when-concurrent` yields between the duplicate check and the debit. Narrow on
 * purpose (a real core-system round trip is longer): the suite must land two copies inside it. The
 * mock is one thread, so under CI load it serializes a burst of copies at several ms each; 15 ms
 * was missed once that way, and the suite now sends several bursts.
 */
export const DUPLICATE_CHECK_GAP_MS = 50;

const duplicate = (pointer: string, sequence: string) =>
  reject<never>(REJECTIONS.duplicate(), `${pointer}/SequenceNumber`, 'a SequenceNumber not used by an accepted payment', JSON.stringify(sequence));

/**
 * A bill payment entry. Synchronous (no yield between the duplicate check and the debit), except
 * under `duplicate-when-concurrent`, which reads the sequence numbers, awaits, then debits: a
 * promise then, which the server awaits.
 */
export function billPayment(ctx: EntryContext, entry: Fields): Outcome<BillReceipt> | Promise<Outcome<BillReceipt>> {
  const { state, company, pointer } = ctx;
  const sequence = str(entry, 'SequenceNumber');
  const used = state.sequenceUsed(company, sequence);
  if (ctx.defects.has('duplicate-when-concurrent')) {
    return new Promise((r) => setTimeout(r, DUPLICATE_CHECK_GAP_MS)).then(() => (used ? duplicate(pointer, sequence) : payBill(ctx, entry, sequence)));
  }
  if (used && !(ctx.defects.has('duplicate-when-partial') && isPartial(ctx, entry))) return duplicate(pointer, sequence);
  return payBill(ctx, entry, sequence);
}

/** `duplicate-when-partial`: whether a replay pays less than the bill's whole due amount. */
function isPartial(ctx: EntryContext, entry: Fields): boolean {
  if (entry.PayExactDue === false) return true;
  const bill = ctx.state.bill(ctx.company, str(entry, 'BillerId'), str(entry, 'BillAccountID'));
  const cents = typeof entry.Amount === 'number' ? toCents(entry.Amount) : null;
  return bill !== null && cents !== null && cents < bill.dueCents;
}

/** The rules after the duplicate check, and the debit. */
function payBill(ctx: EntryContext, entry: Fields, sequence: string): Outcome<BillReceipt> {
  const { state, company, pointer } = ctx;
  const account = str(entry, 'BillAccountID');
  if (scenarioOf(account) === 'inBandFailure') return reject(REJECTIONS.billerUnavailable(), `${pointer}/BillAccountID`, 'a biller that answers', 'the biller system is unavailable');
  const bill = state.bill(company, str(entry, 'BillerId'), account);
  if (!bill) return reject(REJECTIONS.notFound('Bill'), `${pointer}/BillAccountID`, 'an existing bill account', JSON.stringify(account));
  const snapshot = (): BillReceipt => ({ bill: { ...bill }, paidCents: 0, paymentRefNumber: '', sadadRqUid: '', bankReference: '', sadadReference: '' });
  if (bill.expired) return reject(REJECTIONS.expired('Bill'), `${pointer}/BillAccountID`, 'a bill that has not expired', `expired on ${bill.expiryDate}`, snapshot());
  if (bill.dueCents === 0) return reject(REJECTIONS.alreadyPaid('Bill'), `${pointer}/BillAccountID`, 'a bill with an amount due', 'AmountDue 0', snapshot());
  const amount = entry.Amount as number;
  const exact = entry.PayExactDue === true;
  const cents = toCents(amount);
  const due = money(bill.dueCents);
  const amountAt = `${pointer}/Amount`;
  const amountRejection = (why: string, expected: string) => reject(REJECTIONS.amountNotAllowed(why), amountAt, expected, String(amount), snapshot());
  if (cents === null) return amountRejection('a positive amount with at most two decimals', 'an amount with at most two decimals');
  if (cents <= 0) return amountRejection('must be positive', `0 < Amount <= ${due}`);
  if (exact && cents !== bill.dueCents) return amountRejection('PayExactDue requires the exact due amount', `exactly ${due}`);
  if (cents > bill.dueCents) return amountRejection('over-payment', `at most ${due}`);
  if (bill.exactOnly && cents !== bill.dueCents) return amountRejection('exact due amount required', `exactly ${due}`);
  if (ctx.defects.has('payment-without-effect')) state.recordSequence(company, sequence); // answered as paid, bill untouched
  else state.payBill(company, bill, !exact && ctx.defects.has('partial-debits-full') ? bill.dueCents : cents, sequence);
  return { ok: true, value: { ...receipt(state, cents), bill: { ...bill } } };
}

const feeKeyOf = (entry: Fields) => [str(entry, 'BillerID', 'BillerId'), str(entry, 'ID'), str(entry, 'RequestType')] as const;

export function moiEnquiry(ctx: EntryContext, entry: Fields): Outcome<FeeSubject> {
  const [billerId, id, requestType] = feeKeyOf(entry);
  const fee = ctx.state.fee(ctx.company, billerId, id, requestType);
  if (!fee) return reject(REJECTIONS.notFound('Fee subject'), `${ctx.pointer}/ID`, 'an existing fee subject', JSON.stringify(id));
  if (fee.expired) return reject(REJECTIONS.expired('Fee'), `${ctx.pointer}/ID`, 'a fee that has not expired', 'expired', { ...fee });
  return { ok: true, value: { ...fee } };
}

export function moiPayment(ctx: EntryContext, entry: Fields): Outcome<FeeReceipt> {
  const { state, company, pointer } = ctx;
  const sequence = str(entry, 'SequenceNumber');
  if (state.sequenceUsed(company, sequence) && !ctx.defects.has('duplicate-moi-unchecked')) return duplicate(pointer, sequence);
  const [billerId, id, requestType] = feeKeyOf(entry);
  const fee = state.fee(company, billerId, id, requestType);
  if (!fee) return reject(REJECTIONS.notFound('Fee subject'), `${pointer}/ID`, 'an existing fee subject', JSON.stringify(id));
  const snapshot = (): FeeReceipt => ({ fee: { ...fee }, paidCents: 0, paymentRefNumber: '', sadadRqUid: '', bankReference: '', sadadReference: '' });
  if (fee.expired) return reject(REJECTIONS.expired('Fee'), `${pointer}/ID`, 'a fee that has not expired', 'expired', snapshot());
  if (fee.dueCents === 0) return reject(REJECTIONS.alreadyPaid('Fee'), `${pointer}/ID`, 'a fee with an amount due', 'DueAmount 0', snapshot());
  const reference = str(entry, 'FeeReferenceId');
  if (reference !== fee.feeReferenceId) {
    return reject(REJECTIONS.feeMismatch('FeeReferenceId differs from the enquiry'), `${pointer}/FeeReferenceId`, `the enquiry's FeeReferenceId ${fee.feeReferenceId}`, JSON.stringify(reference), snapshot());
  }
  const amount = entry.DueAmount as number;
  const cents = toCents(amount);
  if (cents !== fee.dueCents) {
    return reject(REJECTIONS.feeMismatch('DueAmount differs from the amount due'), `${pointer}/DueAmount`, `the enquiry's DueAmount ${money(fee.dueCents)}`, String(amount), snapshot());
  }
  if (ctx.defects.has('moi-payment-without-effect')) state.recordSequence(company, sequence); // answered as paid, fee still due
  else state.payFee(company, fee, cents, sequence);
  return { ok: true, value: { ...receipt(state, cents), fee: { ...fee } } };
}
