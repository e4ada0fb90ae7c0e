/**
 * Response bodies exactly per spec §2.2/2.4/2.6/2.8: the root tag at top level, MessageType equal to
 * TransactionType, one entry per request entry in order, every documented field present, also in
 * failed entries (filled with today's date, 0 and echoed or empty strings) so a rejected entry
 * still meets the response schema. Bodies are built in the tables' types and then, for the sample
 * style, retyped from the `sampleType` notes of data/field-tables.json rather than by hand.
 */
import { operation, tagsOf, type Operation, type OperationId } from '../contract/catalogue.js';
import { fieldName, messageTable, type FieldRow } from '../contract/field-tables.js';
import { isSpecTimestamp } from '../contract/formats.js';
import { specDate, specTimestamp } from '../contract/headers.js';
import type { Fields } from '../contract/message.js';
import { documentedOnly, responseRows } from '../contract/documented.js';
import type { Defects } from './defects.js';
import { isoWithOffset, statusDetailOf, type Rejection } from './errors.js';
import { MOI_PAID_STATUS_DETAIL, SUCCESS_STATUS_DETAIL } from './magic.js';
import type { ResponseStyle } from './options.js';
import type { BillReceipt, FeeReceipt, Outcome } from './rules.js';
import type { Bill, FeeSubject } from './state.js';

export type EntryOutcome = Outcome<unknown>;
export interface EntryResult { request: Fields; outcome: EntryOutcome }
export interface ItemResult { request: Fields; entries: EntryResult[] }

/** An echoed request value as the response's String: numbers keep their digits, anything else is empty. */
const echo = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : '');
const amount = (cents: number) => Math.round(cents) / 100;

function status(outcome: EntryOutcome, successDetail = SUCCESS_STATUS_DETAIL): { StatusCode: boolean; StatusDetail: string } {
  return outcome.ok ? { StatusCode: true, StatusDetail: successDetail } : { StatusCode: false, StatusDetail: statusDetailOf(outcome.rejection) };
}

/** `YYYYMMDD`, or `YYYY-MM-DD` under `dates-with-dashes`. */
function dateIn(ctx: RenderContext): (d: string) => string {
  return ctx.defects.has('dates-with-dashes') ? (d) => d.replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3') : (d) => d;
}

function billEnquiryEntry(req: Fields, outcome: EntryOutcome, ctx: RenderContext): Fields {
  const bill = outcome.value as Bill | undefined;
  const date = dateIn(ctx);
  const today = specDate();
  const due = amount(bill?.dueCents ?? 0);
  return {
    SequenceNumber: echo(req.SequenceNumber),
    BillerID: echo(req.BillerId),
    SubscriberNumber: echo(req.SubscriberNumber),
    ServiceType: bill?.serviceType ?? '',
    BillerDetail: bill?.billerDetail ?? '',
    BillAccountID: bill?.account ?? echo(req.AccountNumber),
    BillNo: bill?.billNo ?? '',
    BillCategory: echo(req.BillCategory),
    BillCategoryType: bill?.categoryType ?? '',
    AmountDue: ctx.style === 'table' && ctx.defects.has('table-style-amount-string') ? `${due.toFixed(2)} SAR` : due,
    BillPaid: bill ? (bill.dueCents === 0 ? 'Y' : bill.paidCents > 0 ? 'P' : 'N') : '',
    CustType: bill?.custType ?? '',
    BillStatus: bill?.status ?? '',
    Balance: amount(bill?.dueCents ?? 0),
    PaidDate: date(bill?.paidDate ?? today),
    OpenDate: date(bill?.openDate ?? today),
    CloseDate: date(bill?.closeDate ?? today),
    DueDate: date(bill?.dueDate ?? today),
    ExpiryDate: date(bill?.expiryDate ?? today),
    ...status(outcome),
  };
}

function billPaymentEntry(req: Fields, outcome: EntryOutcome): Fields {
  const r = outcome.ok ? (outcome.value as BillReceipt) : undefined;
  return {
    PaymentRefNumber: r?.paymentRefNumber ?? '',
    SADADRqUID: r?.sadadRqUid ?? '',
    SequenceNum: echo(req.SequenceNumber),
    BankReference: r?.bankReference ?? '',
    SadadReference: r?.sadadReference ?? '',
    BillerID: echo(req.BillerId),
    SubscriberNumber: echo(req.SubscriberNumber),
    PaidAmount: amount(r?.paidCents ?? 0),
    PaidDate: specDate(),
    envelopeDateTime: specTimestamp(),
    ...status(outcome),
  };
}

const feeDetailsOf = (fee: FeeSubject | undefined) =>
  fee ? fee.fees.map((f) => ({ Fees: { FeeType: f.type, FeeAmount: amount(f.cents) } })) : [{ Fees: { FeeType: '', FeeAmount: 0 } }];

function moiEnquiryEntry(req: Fields, outcome: EntryOutcome, ctx: RenderContext): Fields {
  const fee = outcome.value as FeeSubject | undefined;
  const paid = outcome.ok && fee !== undefined && fee.dueCents === 0;
  const s = status(outcome, paid ? MOI_PAID_STATUS_DETAIL : SUCCESS_STATUS_DETAIL);
  return {
    ID: echo(req.ID),
    BillerID: echo(req.BillerID ?? req.BillerId),
    GroupPayId: fee?.groupPayId ?? '',
    FeeReferenceId: fee?.feeReferenceId ?? '',
    SadadReferenceId: fee?.sadadReferenceId ?? '',
    BeneficiaryName: fee?.beneficiaryName ?? '',
    DueAmount: amount(fee?.dueCents ?? 0),
    PreviousAmount: amount(fee?.previousCents ?? 0),
    PmtIdType: 'SPTN',
    StatusDetail: s.StatusDetail,
    StatusCode: s.StatusCode,
    FeeDetails: feeDetailsOf(fee),
  };
}

function moiPaymentEntry(req: Fields, outcome: EntryOutcome, ctx: RenderContext): Fields {
  const r = outcome.ok ? (outcome.value as FeeReceipt) : undefined;
  const fee = (outcome.value as FeeReceipt | undefined)?.fee;
  const s = status(outcome);
  return {
    PaymentRefNumber: r?.paymentRefNumber ?? '',
    SADADRqUID: r?.sadadRqUid ?? '',
    SequenceNum: ctx.defects.has('sequence-not-echoed') ? `S${ctx.reference()}` : echo(req.SequenceNumber),
    BankReference: r?.bankReference ?? '',
    SadadReference: r?.sadadReference ?? '',
    BillerID: echo(req.BillerID ?? req.BillerId),
    SubscriberNumber: echo(req.ID),
    ServiceType: 'GOVT',
    PaidAmount: amount(r?.paidCents ?? 0),
    StatusCode: s.StatusCode,
    FeeReferenceId: echo(req.FeeReferenceId),
    StatusDetail: s.StatusDetail,
    CurrentAmount: amount(r?.paidCents ?? 0),
    PreviousAmount: amount(fee?.previousCents ?? 0),
    ID: echo(req.ID),
    VIsaNumber: fee?.visaNumber ?? '',
    BeneficiaryName: fee?.beneficiaryName ?? '',
    Fees: fee ? fee.fees.map((f) => ({ FeeAmount: amount(f.cents), FeeType: f.type })) : [{ FeeAmount: 0, FeeType: '' }],
  };
}

const ENTRY_BUILDERS: Record<OperationId, (req: Fields, outcome: EntryOutcome, ctx: RenderContext) => Fields> = {
  'bill-enquiry': billEnquiryEntry,
  'bill-payment': billPaymentEntry,
  'moi-enquiry': moiEnquiryEntry,
  'moi-payment': moiPaymentEntry,
};

/**
 * A value for a response field the tables document and the builders above do not know yet (one a
 * newer document added): empty in the row's type and format, like a failed entry's.
 */
function emptyOf(row: FieldRow): unknown {
  if (row.type === 'Object' || row.array) return undefined;
  if (row.format === 'YYYYMMDD') return specDate();
  if (row.format === 'YYYY-MM-DDTHH:MM:SS') return specTimestamp();
  return row.type === 'Numerical' ? 0 : row.type === 'Boolean' ? false : '';
}

function item(op: Operation, result: ItemResult, ctx: RenderContext): Fields {
  const req = result.request;
  // the fields the response table documents, no more (a removed row is not sent) and no fewer
  const entryRows = responseRows(op.id, 'entry');
  const entries = result.entries.map((e) => documentedOnly(ENTRY_BUILDERS[op.id](e.request, e.outcome, ctx), entryRows, emptyOf));
  if (ctx.defects.on('response-field-missing', op.id)) for (const e of entries) delete e.BeneficiaryName;
  if (entries.length >= 2 && ctx.defects.on('second-entry-sequence', op.id)) {
    // the second entry echoes the first entry's number (or, should they be equal, another one)
    const first = String(entries[0]!.SequenceNumber);
    entries[1]!.SequenceNumber = entries[1]!.SequenceNumber === first ? `${first}0` : first;
  }
  if (ctx.defects.on('entries-reversed', op.id)) entries.reverse();
  // a status mapping gone wrong: success reads as failure, whatever the entry's detail says
  if (ctx.defects.on('enquiry-success-failing', op.id)) for (const e of entries) if (e.StatusCode === true) e.StatusCode = false;
  const head: Fields = {
    BankCode: echo(req.BankCode),
    CompanyCode: echo(req.CompanyCode),
    TransactionReferenceNumber: ctx.defects.on('reference-not-echoed', op.id) ? `T${ctx.reference()}` : echo(req.TransactionReferenceNumber),
    MessageDescription: echo(req.MessageDescription),
  };
  // an XML-to-JSON habit: a list of one is answered as the element itself
  const list: unknown = entries.length === 1 && ctx.defects.on('list-as-object', op.id) ? entries[0] : entries;
  const itemRows = responseRows(op.id, 'item');
  if (op.kind === 'enquiry') return documentedOnly({ ...head, Status: result.entries.every((e) => e.outcome.ok), TransactionData: list }, itemRows, emptyOf);
  const accepted = result.entries.some((e) => e.outcome.ok);
  return documentedOnly({ ...head, AccountNumber: echo(req.AccountNumber), BankReferenceNumber: accepted ? ctx.bankReferenceNumber() : '', TransactionData: list }, itemRows, emptyOf);
}

/** Field-table rows of the response keyed by their path below the list tag, e.g. `TransactionData[].PaidAmount`. */
const rowsBelowList = new Map<OperationId, Map<string, FieldRow>>();
function rowsOf(op: Operation): Map<string, FieldRow> {
  let rows = rowsBelowList.get(op.id);
  if (!rows) {
    const prefix = `${op.responseRoot}.${op.listTag}[].`;
    rows = new Map(messageTable(op.id, 'response').fields.filter((r) => r.path.startsWith(prefix)).map((r) => [r.path.slice(prefix.length).replace(/\[\]/g, ''), r]));
    rowsBelowList.set(op.id, rows);
  }
  return rows;
}

/** The JSON type a sample shows for a table-typed value (spec §2.9 note 1 and the per-field notes). */
function sampleValue(row: FieldRow, value: unknown): unknown {
  if (row.sampleType === 'string') {
    if (typeof value === 'boolean') return value ? (fieldName(row.path) === 'Status' ? 'SUCCESS' : 'OK') : 'FAILED';
    if (typeof value === 'number') return value.toFixed(2);
  }
  if (row.sampleType === 'number' && typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  if (row.sampleFormat === 'YYYYMMDD' && typeof value === 'string' && isSpecTimestamp(value)) return value.slice(0, 10).replace(/-/g, '');
  return value;
}

function toSampleStyle(node: unknown, path: string, rows: Map<string, FieldRow>): unknown {
  if (Array.isArray(node)) return node.map((n) => toSampleStyle(n, path, rows));
  if (node === null || typeof node !== 'object') {
    const row = rows.get(path);
    return row ? sampleValue(row, node) : node;
  }
  const out: Fields = {};
  for (const [k, v] of Object.entries(node)) out[k] = toSampleStyle(v, path === '' ? k : `${path}.${k}`, rows);
  return out;
}

export interface RenderContext {
  style: ResponseStyle;
  tagPrefix: string;
  defects: Defects;
  /** A fresh bank reference for a payment request with at least one accepted entry. */
  bankReferenceNumber: () => string;
  /** A fresh unique number (digits), for values a defect makes up instead of echoing. */
  reference: () => string;
}

export function renderResponse(op: Operation, items: ItemResult[], ctx: RenderContext): Fields {
  const { responseRoot, listTag } = tagsOf(op, ctx.tagPrefix);
  let list: unknown = items.map((r) => item(op, r, ctx));
  if (ctx.style === 'sample') list = toSampleStyle(list, '', rowsOf(op));
  // `message-type-wrong`: bill payment's MessageType (the defect's documented one) on another operation's answer
  const messageType = ctx.defects.on('message-type-wrong', op.id) ? operation('bill-payment').transactionType : op.transactionType;
  // `timestamp-with-zone`: the local time with its offset, e.g. 2026-11-21T17:24:04+03:00
  const timeStamp = ctx.defects.on('timestamp-with-zone', op.id) ? isoWithOffset().replace(/\.\d{3}(?=[+-])/, '') : specTimestamp();
  const body = { [responseRoot]: { MessageType: messageType, TimeStamp: timeStamp, [listTag]: list } };
  return ctx.defects.on('message-wrapper', op.id) || ctx.defects.on('message-wrapper-everywhere', op.id) ? { Message: body } : body;
}

/** Every entry failed with the same rejection (e.g. a request that failed validation), answered in-band. */
export function failedEntries(entries: Fields[], rejectionFor: (index: number) => Rejection): EntryResult[] {
  return entries.map((request, i) => ({ request, outcome: { ok: false, rejection: rejectionFor(i) } }));
}
