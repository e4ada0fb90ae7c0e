/**
 * The business rules of each operation, applied to one schema-valid TransactionData entry at a
 * time. A payment's rules are a pure decision over the bill or fee subject and whether its
 * SequenceNumber was used; the store applies it atomically (store/index.ts), so concurrent
 * payments cannot both pass the duplicate check, on one process or across replicas. The duplicate
 * and flow defects bend them here.
 */
import { randomUUID } from 'node:crypto';
import { specDate } from '../contract/headers.js';
import type { Fields } from '../contract/message.js';
import type { Defects } from './defects.js';
import { REJECTIONS, type Rejection } from './errors.js';
import { BILL_STATUS, scenarioOf } from './magic.js';
import type { Bill, FeeSubject } from './state.js';
import { then, type Maybe, type MockStore, type PaymentDecision } from './store/index.js';

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
  store: MockStore;
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

function receipt(store: MockStore, paidCents: number): Receipt {
  return {
    paidCents,
    paymentRefNumber: `PRN${store.nextReference()}`,
    sadadRqUid: randomUUID(),
    bankReference: store.nextReference(),
    sadadReference: store.nextReference(),
  };
}

export function billEnquiry(ctx: EntryContext, entry: Fields): Maybe<Outcome<Bill>> {
  const account = str(entry, 'AccountNumber');
  if (scenarioOf(account) === 'inBandFailure') return reject(REJECTIONS.billerUnavailable(), `${ctx.pointer}/AccountNumber`, 'a biller that answers', 'the biller system is unavailable');
  return then(ctx.store.bill(ctx.company, str(entry, 'BillerId'), account), (bill): Outcome<Bill> => (
    bill ? { ok: true, value: bill } : reject(REJECTIONS.notFound('Bill'), `${ctx.pointer}/AccountNumber`, 'an existing bill account', JSON.stringify(account))
  ));
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

type BillDecision = PaymentDecision<Bill, Outcome<BillReceipt>>;
type FeeDecision = PaymentDecision<FeeSubject, Outcome<FeeReceipt>>;

/**
 * A bill payment entry. Under `duplicate-when-concurrent` the SequenceNumber is read first, then
 * the rule yields, then pays without the store guarding the number: concurrent copies all pass.
 */
export function billPayment(ctx: EntryContext, entry: Fields): Maybe<Outcome<BillReceipt>> {
  const { store, company, pointer } = ctx;
  const sequence = str(entry, 'SequenceNumber');
  const [billerId, account] = [str(entry, 'BillerId'), str(entry, 'BillAccountID')];
  if (ctx.defects.has('duplicate-when-concurrent')) {
    return Promise.resolve(store.sequenceUsed(company, sequence)).then(async (used) => {
      await new Promise((r) => setTimeout(r, DUPLICATE_CHECK_GAP_MS));
      if (used) return duplicate(pointer, sequence);
      return store.payBill(company, billerId, account, sequence, (bill) => decideBill(ctx, entry, bill), { ignoreSequence: true });
    });
  }
  const replayPartial = ctx.defects.has('duplicate-when-partial');
  return store.payBill(company, billerId, account, sequence, (bill, used): BillDecision => {
    if (used && !(replayPartial && isPartial(bill, entry))) return { result: duplicate(pointer, sequence) };
    return decideBill(ctx, entry, bill);
  });
}

/** `duplicate-when-partial`: whether a replay pays less than the bill's whole due amount. */
function isPartial(bill: Bill | null, entry: Fields): boolean {
  if (entry.PayExactDue === false) return true;
  const cents = typeof entry.Amount === 'number' ? toCents(entry.Amount) : null;
  return bill !== null && cents !== null && cents < bill.dueCents;
}

/** The bill after a debit of `cents`. */
function debited(bill: Bill, cents: number): Bill {
  const dueCents = bill.dueCents - cents;
  return { ...bill, dueCents, paidCents: bill.paidCents + cents, paidDate: specDate(), status: dueCents === 0 ? BILL_STATUS.paid : BILL_STATUS.partiallyPaid };
}

/** The rules after the duplicate check, and the debit. */
function decideBill(ctx: EntryContext, entry: Fields, bill: Bill | null): BillDecision {
  const { pointer } = ctx;
  const account = str(entry, 'BillAccountID');
  const refuse = (o: Outcome<BillReceipt>): BillDecision => ({ result: o });
  if (scenarioOf(account) === 'inBandFailure') return refuse(reject(REJECTIONS.billerUnavailable(), `${pointer}/BillAccountID`, 'a biller that answers', 'the biller system is unavailable'));
  if (!bill) return refuse(reject(REJECTIONS.notFound('Bill'), `${pointer}/BillAccountID`, 'an existing bill account', JSON.stringify(account)));
  const snapshot = (): BillReceipt => ({ bill: { ...bill }, paidCents: 0, paymentRefNumber: '', sadadRqUid: '', bankReference: '', sadadReference: '' });
  if (bill.expired) return refuse(reject(REJECTIONS.expired('Bill'), `${pointer}/BillAccountID`, 'a bill that has not expired', `expired on ${bill.expiryDate}`, snapshot()));
  if (bill.dueCents === 0) return refuse(reject(REJECTIONS.alreadyPaid('Bill'), `${pointer}/BillAccountID`, 'a bill with an amount due', 'AmountDue 0', snapshot()));
  const amount = entry.Amount as number;
  const exact = entry.PayExactDue === true;
  const cents = toCents(amount);
  const due = money(bill.dueCents);
  const amountAt = `${pointer}/Amount`;
  const amountRejection = (why: string, expected: string) => refuse(reject(REJECTIONS.amountNotAllowed(why), amountAt, expected, String(amount), snapshot()));
  if (cents === null) return amountRejection('a positive amount with at most two decimals', 'an amount with at most two decimals');
  if (cents <= 0) return amountRejection('must be positive', `0 < Amount <= ${due}`);
  if (exact && cents !== bill.dueCents) return amountRejection('PayExactDue requires the exact due amount', `exactly ${due}`);
  if (cents > bill.dueCents) return amountRejection('over-payment', `at most ${due}`);
  if (bill.exactOnly && cents !== bill.dueCents) return amountRejection('exact due amount required', `exactly ${due}`);
  // defect: answered as paid, bill untouched
  if (ctx.defects.has('payment-without-effect')) return { result: { ok: true, value: { ...receipt(ctx.store, cents), bill: { ...bill } } }, record: true };
  const next = debited(bill, !exact && ctx.defects.has('partial-debits-full') ? bill.dueCents : cents);
  return { result: { ok: true, value: { ...receipt(ctx.store, cents), bill: next } }, next, record: true };
}

const feeKeyOf = (entry: Fields) => [str(entry, 'BillerID', 'BillerId'), str(entry, 'ID'), str(entry, 'RequestType')] as const;

export function moiEnquiry(ctx: EntryContext, entry: Fields): Maybe<Outcome<FeeSubject>> {
  const [billerId, id, requestType] = feeKeyOf(entry);
  return then(ctx.store.fee(ctx.company, billerId, id, requestType), (fee): Outcome<FeeSubject> => {
    if (!fee) return reject(REJECTIONS.notFound('Fee subject'), `${ctx.pointer}/ID`, 'an existing fee subject', JSON.stringify(id));
    if (fee.expired) return reject(REJECTIONS.expired('Fee'), `${ctx.pointer}/ID`, 'a fee that has not expired', 'expired', fee);
    return { ok: true, value: fee };
  });
}

export function moiPayment(ctx: EntryContext, entry: Fields): Maybe<Outcome<FeeReceipt>> {
  const { store, company, pointer } = ctx;
  const sequence = str(entry, 'SequenceNumber');
  const unchecked = ctx.defects.has('duplicate-moi-unchecked');
  const [billerId, id, requestType] = feeKeyOf(entry);
  return store.payFee(company, billerId, id, requestType, sequence, (fee, used) => {
    if (used) return { result: duplicate(pointer, sequence) };
    return decideFee(ctx, entry, fee);
  }, { ignoreSequence: unchecked });
}

function decideFee(ctx: EntryContext, entry: Fields, fee: FeeSubject | null): FeeDecision {
  const { pointer } = ctx;
  const refuse = (o: Outcome<FeeReceipt>): FeeDecision => ({ result: o });
  if (!fee) return refuse(reject(REJECTIONS.notFound('Fee subject'), `${pointer}/ID`, 'an existing fee subject', JSON.stringify(str(entry, 'ID'))));
  const snapshot = (): FeeReceipt => ({ fee: { ...fee }, paidCents: 0, paymentRefNumber: '', sadadRqUid: '', bankReference: '', sadadReference: '' });
  if (fee.expired) return refuse(reject(REJECTIONS.expired('Fee'), `${pointer}/ID`, 'a fee that has not expired', 'expired', snapshot()));
  if (fee.dueCents === 0) return refuse(reject(REJECTIONS.alreadyPaid('Fee'), `${pointer}/ID`, 'a fee with an amount due', 'DueAmount 0', snapshot()));
  const reference = str(entry, 'FeeReferenceId');
  if (reference !== fee.feeReferenceId) {
    return refuse(reject(REJECTIONS.feeMismatch('FeeReferenceId differs from the enquiry'), `${pointer}/FeeReferenceId`, `the enquiry's FeeReferenceId ${fee.feeReferenceId}`, JSON.stringify(reference), snapshot()));
  }
  const amount = entry.DueAmount as number;
  const cents = toCents(amount);
  if (cents !== fee.dueCents) {
    return refuse(reject(REJECTIONS.feeMismatch('DueAmount differs from the amount due'), `${pointer}/DueAmount`, `the enquiry's DueAmount ${money(fee.dueCents)}`, String(amount), snapshot()));
  }
  // defect: answered as paid, fee still due
  if (ctx.defects.has('moi-payment-without-effect')) return { result: { ok: true, value: { ...receipt(ctx.store, cents), fee: { ...fee } } }, record: true };
  const next: FeeSubject = { ...fee, dueCents: fee.dueCents - cents, paidDate: specDate() };
  return { result: { ok: true, value: { ...receipt(ctx.store, cents), fee: next } }, next, record: true };
}
