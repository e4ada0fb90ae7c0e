/**
 * What each case tests in the API document, and what it is built from (src/contract/spec-refs.ts
 * has the grammar). `tests`: the rows, endpoints, headers and rules whose requirement the case checks
 * (the report's spec coverage). `builtFrom`: those, plus what every call of the case is made of: the
 * endpoint, the request table (its valid body), the header table, the prefix, and the status rows of
 * the answer it reads. A case whose `builtFrom` reads the same in two versions of the document keeps
 * its verdict across them (a re-judge under the newer one); any other needs a new run.
 *
 * Why the whole request table: a request field added or a length shortened changes the valid body
 * every case of the operation sends, so what the target answered to the old body says nothing of the
 * new one. Why not the whole response table: a case that judges a rejection reads the answer's status
 * rows only; the response cases test the table itself.
 */
import { operation, operations, type OperationId } from '../contract/catalogue.js';
import { fieldName, messageTable, type FieldRow } from '../contract/field-tables.js';
import { currentSpec, limitRowRefs, rateRowRefs, rowRefs, type SpecRef } from '../contract/spec-refs.js';
import type { RuleFamily } from '../vocabulary/verdicts.js';

/** What of a case definition (case.ts) its references follow from; case.ts records them, so this module does not import it. */
export interface RefSubject {
  id: string;
  family: RuleFamily;
  op: OperationId;
  calls?: Partial<Record<OperationId, number>>;
  shared?: { calls: Partial<Record<OperationId, number>> }[];
}
type CaseDefinition = RefSubject;

export interface CaseSpecRefs { tests: SpecRef[]; builtFrom: SpecRef[] }

const rows = (op: OperationId, direction: 'request' | 'response', keep: (r: FieldRow) => boolean): SpecRef[] => rowRefs(currentSpec(), op, direction, keep);
/** The answer's status rows: what a case reads to tell an in-band refusal from an acceptance. */
const STATUS_FIELDS = new Set(['Status', 'StatusCode', 'StatusDetail']);
const limitRow = (word: string): SpecRef[] => limitRowRefs(currentSpec(), word);
const rateRow = (op: OperationId): SpecRef[] => rateRowRefs(currentSpec(), op);
const rule = (...ids: string[]): SpecRef[] => ids.filter((id) => currentSpec().facts.rules.some((r) => r.id === id)).map((id) => `rule:${id}`);

/** The request row a mutation case (`<op>.req.<field>.<kind>`, generators/mutations.ts) changes: field names are unique within a table. */
function mutatedRow(def: CaseDefinition): SpecRef[] {
  const field = def.id.slice(`${def.op}.req.`.length).split('.')[0];
  const found = rows(def.op, 'request', (r) => fieldName(r.path) === field);
  return found.length ? found : [`table:${def.op}.request`];
}

/** The header a header case (`<op>.hdr.<Name>.<kind>`) is about, as the document spells it. */
function headerOf(def: CaseDefinition): SpecRef[] {
  const name = def.id.split('.')[2] ?? '';
  return currentSpec().facts.headers.some((h) => h.name === name) ? [`header:${name}`] : [];
}

/** Per rule family: the references its cases test. */
const TESTS: Record<RuleFamily, (def: CaseDefinition) => SpecRef[]> = {
  'response-schema': (d) => [`table:${d.op}.response`, ...rule('2.9.1', '7.1')],
  'message-type': (d) => [...rows(d.op, 'response', (r) => fieldName(r.path) === 'MessageType'), ...rule('4.2')],
  // the response rows that echo a request row of the same name (the identification fields, the sequence number)
  echo: (d) => {
    const sent = new Set(messageTable(d.op, 'request').fields.map((r) => fieldName(r.path)));
    const seq = operation(d.op).responseSequenceField;
    return rows(d.op, 'response', (r) => r.type !== 'Object' && (sent.has(fieldName(r.path)) || fieldName(r.path) === seq));
  },
  'root-tag': (d) => [`op:${d.op}`, ...rows(d.op, 'response', (r) => r.path === operation(d.op).responseRoot)],
  lists: (d) => rows(d.op, 'response', (r) => !!r.array),
  formats: (d) => rows(d.op, 'response', (r) => !!r.format),
  'required-fields': (d) => [...mutatedRow(d), ...rule('2.9.2')],
  'transaction-type': (d) => [...mutatedRow(d), ...rule('4.2')],
  'account-number': (d) => [...mutatedRow(d), ...limitRow('AccountNumber')],
  headers: (d) => {
    if (d.id.includes('.hdr.signature.')) return rule('5.1', '5.3');
    if (d.id.includes('.hdr.client-headers.')) return rule('4.3', '5.2');
    return [...headerOf(d), ...rule('4.1')];
  },
  'rate-limit': (d) => [`limit:${d.op}`, ...rateRow(d.op)],
  duplicates: (d) => [...rows(d.op, 'request', (r) => fieldName(r.path) === 'SequenceNumber'), ...rule('7.2'), ...limitRow('SequenceNumber')],
  flows: (d) => [`op:${d.op}`, ...(operation(d.op).kind === 'payment' ? rule('4.4').filter(() => operation(d.op).rateGroup === 'bill') : [])],
  'multi-entry': (d) => [...rows(d.op, 'request', (r) => fieldName(r.path) === 'TransactionData'), ...rows(d.op, 'response', (r) => fieldName(r.path) === 'TransactionData')],
  robustness: (d) => [`op:${d.op}`, ...(currentSpec().facts.headers.some((h) => h.name === 'Content-Type') ? ['header:Content-Type'] : [])],
};

/**
 * The operations a case calls: its own, those it plans calls on, and those of the calls it shares. A
 * case that plans no call of its own (`calls: {}`) reads its operation's shared accepted answer
 * (case.ts), which is made as the schema case makes it: a payment's on an enquiry of its group.
 */
function opsCalled(def: CaseDefinition): OperationId[] {
  const own = operation(def.op);
  const readsAccepted = def.calls !== undefined && !Object.keys(def.calls).length && own.kind === 'payment'
    ? operations.filter((o) => o.rateGroup === own.rateGroup && o.kind === 'enquiry').map((o) => o.id) : [];
  const ids = new Set<string>([def.op, ...readsAccepted, ...Object.keys(def.calls ?? {}), ...(def.shared ?? []).flatMap((s) => Object.keys(s.calls))]);
  return operations.filter((o) => ids.has(o.id)).map((o) => o.id);
}

const cache = new Map<string, CaseSpecRefs>();

export function specRefsOf(def: CaseDefinition): CaseSpecRefs {
  const hit = cache.get(def.id);
  if (hit) return hit;
  const tests = [...new Set(TESTS[def.family](def))].sort();
  const context = opsCalled(def).flatMap((op) => [`op:${op}`, `table:${op}.request`, ...rows(op, 'response', (r) => STATUS_FIELDS.has(fieldName(r.path)))]);
  const builtFrom = [...new Set([...tests, ...context, 'headers', 'prefix'])].sort();
  const refs = { tests, builtFrom };
  cache.set(def.id, refs);
  return refs;
}
