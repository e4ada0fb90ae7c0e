/**
 * Requests the target would accept, so that a rejection seen by a case can only be due to what the
 * case changed. Payments need state from an enquiry first (the amount due, the fee reference).
 */
import type { Fields, RequestBody } from '../contract/message.js';
import { requestEntries, requestItems } from '../contract/message.js';
import type { OperationId } from '../contract/catalogue.js';
import { uniqueId } from '../base/unique.js';
import type { BillSubject, MoiSubject, RequestGenerator } from '../generators/requests.js';
import type { CaseContext, SharedCalls } from './case.js';
import { viewResponse } from '../client/outcome.js';

/** Numbers the samples may show as strings. */
export function amount(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  return undefined;
}
export const cents = (n: number) => Math.round(n * 100);
export const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));

export interface BillState { subject: BillSubject; entry: Fields; due: number }
export interface FeeState { subject: MoiSubject; entry: Fields; due: number }

/** Bill enquiry for one or more bills; returns each bill's state as the target shows it. */
export async function enquireBills(c: CaseContext, subjects: BillSubject[], label = 'bill enquiry'): Promise<BillState[]> {
  const body = c.gen.build('bill-enquiry', {
    entries: subjects.map((s) => ({ BillerId: s.BillerId, BillCategory: s.BillCategory, SubscriberNumber: s.SubscriberNumber, AccountNumber: s.AccountNumber })),
  });
  await c.needs('bill-enquiry');
  const ex = await c.send({ op: 'bill-enquiry', body, label });
  c.requireAccepted(ex, label, 'bill-enquiry', { testedBy: 'bill-enquiry.res.schema' });
  const entries = viewResponse('bill-enquiry', ex.json, c.tagPrefix).entries;
  return subjects.map((subject, i) => {
    const entry = entries[i];
    const due = amount(entry?.AmountDue);
    // an answer the case cannot build on is a failed precondition, tested by the schema case: never an ERROR
    if (!entry || due === undefined) return c.inconclusive(`precondition not met: ${label}: entry ${i + 1} has no readable AmountDue, so the case cannot go on; bill-enquiry.res.schema tests the answer directly`, 'precondition: Bill Enquiry answers without a readable AmountDue', 'bill-enquiry.res.schema');
    return { subject, entry, due };
  });
}

export async function enquireFees(c: CaseContext, subjects: MoiSubject[], label = 'MOI fee enquiry'): Promise<FeeState[]> {
  const body = c.gen.build('moi-enquiry', {
    entries: subjects.map((s) => ({ POINum: s.POINum, POIType: s.POIType, AccountNumber: s.AccountNumber, BillerID: s.BillerID, BillCategory: s.BillCategory, ServiceCode: s.ServiceCode, BranchCode: s.BranchCode, RequestType: s.RequestType, ID: s.ID, Duration: s.Duration })),
  });
  await c.needs('moi-enquiry');
  const ex = await c.send({ op: 'moi-enquiry', body, label });
  c.requireAccepted(ex, label, 'moi-enquiry', { testedBy: 'moi-enquiry.res.schema' });
  const entries = viewResponse('moi-enquiry', ex.json, c.tagPrefix).entries;
  return subjects.map((subject, i) => {
    const entry = entries[i];
    const due = amount(entry?.DueAmount);
    if (!entry || due === undefined || !str(entry.FeeReferenceId)) return c.inconclusive(`precondition not met: ${label}: entry ${i + 1} has no readable DueAmount/FeeReferenceId, so the case cannot go on; moi-enquiry.res.schema tests the answer directly`, 'precondition: MOI Fee Enquiry answers without a readable DueAmount or FeeReferenceId', 'moi-enquiry.res.schema');
    return { subject, entry, due };
  });
}

/** A bill payment of `pay` (default: the whole due) for each bill; PayExactDue says whether that is the due amount unless forced. */
export function billPayment(gen: RequestGenerator, bills: BillState[], pay?: (b: BillState) => number, payExactDue?: boolean): RequestBody {
  const entries = bills.map((b) => {
    const value = pay ? pay(b) : b.due;
    return {
      SubscriberNumber: b.subject.SubscriberNumber, BillerId: b.subject.BillerId,
      BillAccountID: str(b.entry.BillAccountID) || b.subject.BillAccountID, BillNumber: str(b.entry.BillNo) || b.subject.BillNumber,
      PaymentType: b.subject.PaymentType, BillCategory: b.subject.BillCategory, Amount: value,
      PayExactDue: payExactDue ?? cents(value) === cents(b.due), ServiceType: b.subject.ServiceType,
    };
  });
  return gen.build('bill-payment', { item: { AccountNumber: bills[0]!.subject.AccountNumber }, entries });
}

export function feePayment(gen: RequestGenerator, fees: FeeState[]): RequestBody {
  const entries = fees.map((f) => ({
    ID: f.subject.ID, GroupPayId: str(f.entry.GroupPayId) || undefined, FeeReferenceId: str(f.entry.FeeReferenceId),
    SADADReferenceId: str(f.entry.SadadReferenceId) || undefined, DueAmount: f.due, BillerID: f.subject.BillerID,
    RequestType: f.subject.RequestType, NationalID: f.subject.ID, SponsorID: f.subject.SponsorID, JobCategory: f.subject.JobCategory,
    Duration: String(f.subject.Duration),
  }));
  // undefined overrides would drop the generated values: remove them first
  for (const e of entries) for (const k of Object.keys(e) as (keyof typeof e)[]) if (e[k] === undefined) delete e[k];
  return gen.build('moi-payment', { item: { AccountNumber: fees[0]!.subject.AccountNumber }, entries });
}

/** A copy with fresh SequenceNumber and TransactionReferenceNumber (the same payment, a new transaction). */
export function freshIds(opId: OperationId, body: RequestBody, tagPrefix: string): RequestBody {
  const copy = structuredClone(body);
  for (const item of requestItems(opId, copy, tagPrefix)) item.TransactionReferenceNumber = uniqueId('T');
  for (const e of requestEntries(opId, copy, tagPrefix)) e.SequenceNumber = uniqueId('S');
  return copy;
}

/**
 * A request of the operation that the target would accept. Payments are built on state fetched
 * once per worker (and target) and reused until a payment is accepted (then the subject is spent and a new one
 * is fetched), so a case's rejection is never due to a stale amount or fee reference.
 */
/** A payment the target would accept, and the enquiry state it was built on. */
export interface PayableBase { body: RequestBody; bill?: BillState; fee?: FeeState }

export async function acceptableRequest(c: CaseContext, opId: OperationId = c.def.op): Promise<RequestBody> {
  // a request of an operation the target has refused again and again is not built on: nothing is sent
  await c.needs(opId);
  if (opId === 'bill-enquiry' || opId === 'moi-enquiry') {
    // a subject the target knows, when the data file lists some; enquiries change nothing, so any will do
    const s = await c.knownSubject(opId === 'bill-enquiry' ? 'bills' : 'fees');
    if (!s) return c.gen.build(opId);
    const fields = opId === 'bill-enquiry' ? ['BillerId', 'BillCategory', 'SubscriberNumber', 'AccountNumber'] : ['POINum', 'POIType', 'AccountNumber', 'BillerID', 'BillCategory', 'ServiceCode', 'BranchCode', 'RequestType', 'ID', 'Duration'];
    return c.gen.build(opId, { entry: Object.fromEntries(fields.map((f) => [f, s[f]])) });
  }
  return (await acceptablePaymentBase(c, opId)).body;
}

/** What the payable base costs: one enquiry per worker (and target), shared by the cases that mutate it. */
export function payableBaseCalls(opId: OperationId): SharedCalls[] {
  if (opId === 'bill-payment') return [{ key: 'payable base: bill-payment', calls: { 'bill-enquiry': 1 } }];
  if (opId === 'moi-payment') return [{ key: 'payable base: moi-payment', calls: { 'moi-enquiry': 1 } }];
  return [];
}

/** A payment the target would accept (fresh ids), with the state it pays. */
export async function acceptablePaymentBase(c: CaseContext, opId: OperationId = c.def.op): Promise<PayableBase> {
  const payable = c.rt.kept<PayableBase>('payable');
  let base = payable.get(opId);
  if (!base) {
    base = await payableSubject(c, opId, 'payment base');
    payable.set(opId, base);
  }
  return { ...base, body: freshIds(opId, base.body, c.tagPrefix) };
}

/**
 * A payment of a subject of its own, enquired for it and kept by no one: for a case that means its
 * payment to be accepted. Paying the worker's base instead would spend it, and the worker's next
 * case would enquire again, a call no plan can place (it depends on which cases share a worker).
 */
export async function payableSubject(c: CaseContext, opId: OperationId = c.def.op, purpose = 'its own subject'): Promise<PayableBase> {
  if (opId === 'bill-payment') {
    // the exact amount due, the one payment every biller accepts
    const [bill] = await enquireBills(c, await c.bills(1), `bill enquiry (${purpose})`);
    return { body: billPayment(c.gen, [bill!]), bill };
  }
  const [fee] = await enquireFees(c, await c.fees(1), `MOI fee enquiry (${purpose})`);
  return { body: feePayment(c.gen, [fee!]), fee };
}

/** The subject behind the payable base was spent (a payment went through): fetch another next time. */
export function spendPayable(c: CaseContext, opId: OperationId): void {
  c.rt.kept<PayableBase>('payable').delete(opId);
}
