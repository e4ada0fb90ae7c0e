/**
 * What the judge reads off one recorded call: the operation's items and entries, the identifiers a
 * client chooses (SequenceNumber, TransactionReferenceNumber, the reference-id header), the bill or
 * fee it is about, and what the answer meant (client/outcome.ts: one reading of answers for both
 * packages).
 */
import { operation, tagsOf, type Operation } from '../contract/catalogue.js';
import { referenceIdHeader } from '../contract/headers.js';
import type { Fields } from '../contract/message.js';
import type { Exchange } from '../client/exchange.js';
import { classify, viewResponse, type Outcome } from '../client/outcome.js';
import { unseenAnswer, type TrafficRecord } from './traffic.js';

export interface Entry {
  fields: Fields;
  /** The bill (`BillerId|account`) or fee subject (`BillerID|ID|RequestType`) the entry is about; null when unreadable. */
  subject: string | null;
  /** The subject as the client wrote it (`bill 002/...`), for messages; `subject` is the key, billers compared as numbers. */
  shown: string | null;
  sequence: string | null;
  /** Canonical JSON of the entry: two requests are "the same" when these are equal. */
  canonical: string;
}

export interface CallFacts {
  rec: TrafficRecord;
  op: Operation;
  /** The parsed body; undefined when it is not JSON (or was not read: `rec.body` null). */
  json: unknown;
  transactionType: unknown;
  /** TransactionReferenceNumber of each item, with the item's canonical JSON. */
  items: { trn: string | null; canonical: string }[];
  entries: Entry[];
  referenceId: string | null;
  /** Canonical JSON of the whole body ('' when not JSON): an identical replay has the same. */
  canonical: string;
  outcome: Outcome;
  /** Response entries, in order, where the answer is readable. */
  answerEntries: Fields[];
}

const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

/** JSON with object keys sorted, so that key order never makes two equal requests differ. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isRecord(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

export function subjectOf(op: Operation, e: Fields, asSent = false): string | null {
  const raw = str(e.BillerId) ?? str(e.BillerID);
  // billers are numeric codes that samples write as numbers: "001" and "1" are one biller (the key); a message shows what was sent
  const biller = raw === null ? '?' : asSent ? raw : raw.replace(/^0+(?=\d)/, '');
  if (op.rateGroup === 'bill') {
    const account = str(op.kind === 'enquiry' ? e.AccountNumber : e.BillAccountID);
    return account === null ? null : `bill ${biller}/${account}`;
  }
  const id = str(e.ID);
  return id === null ? null : `fee ${biller}/${id}/${str(e.RequestType) ?? '?'}`;
}

/** The record as an Exchange, to read its answer with the service suite's classify(). */
function asExchange(r: TrafficRecord): Exchange {
  let json: unknown;
  let parseError: string | undefined;
  try { json = r.responseBody === '' ? undefined : JSON.parse(r.responseBody); } catch (e) { parseError = String(e); }
  const ex: Exchange = { label: '', op: r.op ?? undefined, request: { method: r.method, url: r.path, headers: {}, body: '' }, startedAt: r.startedAt, durationMs: 0 };
  if (r.status === null || !r.delivered) ex.error = { kind: 'network', message: unseenAnswer(r) };
  if (r.status !== null) {
    ex.response = { status: r.status, headers: r.responseHeaders, body: r.responseBody };
    if (json !== undefined) ex.json = json;
    if (parseError !== undefined) ex.parseError = parseError;
  }
  return ex;
}

export function factsOf(r: TrafficRecord, tagPrefix: string, headerPrefix: string): CallFacts | null {
  if (r.op === null) return null;
  const op = operation(r.op);
  let json: unknown;
  try { json = r.body === null ? undefined : JSON.parse(r.body); } catch { json = undefined; }
  const { requestRoot, listTag } = tagsOf(op, tagPrefix);
  const root = isRecord(json) && isRecord(json.Message) && isRecord(json.Message[requestRoot]) ? json.Message[requestRoot] : undefined;
  const list = root?.[listTag];
  const items = (Array.isArray(list) ? list : []).filter(isRecord);
  const entries: Entry[] = items.flatMap((it) => (Array.isArray(it.TransactionData) ? it.TransactionData : []).filter(isRecord).map((e) => ({
    fields: e, subject: subjectOf(op, e), shown: subjectOf(op, e, true), sequence: str(e.SequenceNumber), canonical: canonical(e),
  })));
  const exchange = asExchange(r);
  // what the client could read: an answer it did not wait for means nothing to it
  const outcome: Outcome = exchange.error ? { kind: 'no-answer', detail: exchange.error.message } : classify(op.id, exchange, tagPrefix);
  let answerJson: unknown;
  try { answerJson = JSON.parse(r.responseBody); } catch { answerJson = undefined; }
  return {
    rec: r, op, json, transactionType: root?.TransactionType,
    items: items.map((it) => ({ trn: str(it.TransactionReferenceNumber), canonical: canonical(it) })),
    entries, referenceId: r.headers[referenceIdHeader(headerPrefix).toLowerCase()] ?? null,
    canonical: json === undefined ? '' : canonical(json), outcome,
    answerEntries: viewResponse(op.id, answerJson, tagPrefix).entries,
  };
}

/** What the judge produced, whether or not the client waited for it (a held answer, a payment that took effect). */
export function producedOutcome(f: CallFacts, tagPrefix: string): Outcome {
  const r = f.rec;
  if (r.status === null) return { kind: 'no-answer', detail: r.upstreamError ?? 'no answer' };
  return classify(f.op.id, asExchange({ ...r, delivered: true }), tagPrefix);
}

/** A number the answer gives as a number or a numeric string. */
export function amountOf(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
}
