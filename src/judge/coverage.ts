/**
 * Spec coverage of a client's package: which rows, endpoints, headers, rules and limits of the API
 * document the client's traffic exercised, each with the client rules that judged it. A request row
 * counts only where some request of the client carried it (a Postman collection that never sends a
 * field leaves its row untested, whatever the schema rule says of the calls it did send); a rule of
 * the client's side counts for what it judges (RULE_REFS), once it reached a verdict of its own.
 */
import { operations } from '../contract/catalogue.js';
import { fieldName } from '../contract/field-tables.js';
import { limitRowRefs, rateRowRefs, rowRefs, type SpecView } from '../contract/spec-refs.js';
import { specCoverage, type SpecCoverage } from '../reporter/spec-coverage.js';
import type { Verdict } from '../vocabulary/verdicts.js';
import type { ClientCase } from './model.js';
import type { TrafficRecord } from './traffic.js';

/** A client rule (judge/rules.ts, by name) and what of the document it judges, for the operation it is judged on. */
const RULE_REFS: Record<string, (op: string, spec: SpecView) => string[]> = {
  'req.schema': (op) => [`op:${op}`],
  'req.transaction-type': (op, spec) => [...rowsNamed(spec, op, 'TransactionType'), 'rule:4.2'],
  'headers.required': (_op, spec) => [...spec.facts.headers.map((h) => `header:${h.name}`), 'rule:4.1'],
  'headers.timestamp-current': (_op, spec) => spec.facts.headers.filter((h) => h.name === 'DateTimeStamp').map((h) => `header:${h.name}`),
  'headers.signature': () => ['rule:5.1', 'rule:5.3'],
  'ids.sequence-unique': (op, spec) => [...rowsNamed(spec, op, 'SequenceNumber'), 'rule:7.2', ...limitRowRefs(spec, 'SequenceNumber')],
  'ids.transaction-reference-unique': (op, spec) => rowsNamed(spec, op, 'TransactionReferenceNumber'),
  'pacing.limit': (op, spec) => [`limit:${op}`, ...rateRows(spec, op)],
  'pacing.retry-after': (op) => [`limit:${op}`],
  'safety.amount': (op) => (op === 'bill-payment' ? ['rule:4.4'] : []),
};

const rowsNamed = (spec: SpecView, op: string, name: string) => rowRefs(spec, op, 'request', (r) => fieldName(r.path) === name);
const rateRows = rateRowRefs;

/** Whether a body carries a table path: any element of each array, tags compared without the document's prefix. */
function carries(body: unknown, path: string, prefix: string): boolean {
  const segs = path.split('.').map((s) => s.replace(/\[\]$/, ''));
  let nodes: unknown[] = [body];
  for (const seg of segs) {
    const bare = seg.startsWith(prefix) ? seg.slice(prefix.length) : null;
    const next: unknown[] = [];
    for (const n of nodes) {
      for (const item of Array.isArray(n) ? n : [n]) {
        if (!item || typeof item !== 'object') continue;
        for (const [k, v] of Object.entries(item as Record<string, unknown>)) if (k === seg || (bare !== null && k.endsWith(bare))) next.push(v);
      }
    }
    if (!next.length) return false;
    nodes = next;
  }
  return true;
}

export function clientSpecCoverage(cases: ClientCase[], records: TrafficRecord[], spec: SpecView): SpecCoverage {
  const entries: { id: string; verdict: Verdict; tests: string[] }[] = [];
  const ruleOf = (c: ClientCase) => c.id.slice(`client.${c.operation}.`.length);
  for (const c of cases) {
    if (c.side !== 'client' || !c.id.startsWith('client.') || ['NOT_RUN', 'NOT_APPLICABLE', 'SKIPPED'].includes(c.verdict)) continue;
    const refs = RULE_REFS[ruleOf(c)]?.(c.operation, spec) ?? [];
    if (refs.length) entries.push({ id: c.id, verdict: c.verdict, tests: refs });
  }
  // the request rows the client's calls carried, judged by the operation's request-schema rule
  for (const op of operations) {
    const schemaCase = cases.find((c) => c.id === `client.${op.id}.req.schema`);
    const bodies = records.filter((r) => r.op === op.id && r.body !== null).map((r) => { try { return JSON.parse(r.body!) as unknown; } catch { return null; } }).filter((b) => b !== null);
    if (!schemaCase || !bodies.length) continue;
    const rows = (spec.fieldTables.messages[`${op.id}.request`]?.fields ?? []).filter((row) => bodies.some((b) => carries(b, row.path, spec.facts.prefix)));
    entries.push({ id: schemaCase.id, verdict: schemaCase.verdict, tests: rows.map((row) => `row:${op.id}.request:${row.path}`) });
  }
  return specCoverage(entries, spec);
}
