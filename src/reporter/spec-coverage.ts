/**
 * Spec coverage: every row of every field table, every endpoint and its rate limit, every header,
 * every numbered rule and every row of the limits table of the API document the package was judged
 * by, with the cases that test it (their evidence's `spec.tests`, src/suite/spec-refs.ts). What no
 * case tests is listed as such: mostly the document's prose rules, which no machine check covers.
 * The client judge's package has the same section, from what the client's traffic exercised.
 */
import type { SpecView } from '../contract/spec-refs.js';
import type { SpecDocument } from '../contract/spec-model.js';
import type { Verdict } from '../vocabulary/verdicts.js';

export type CoverageKind = 'endpoint' | 'rate-limit' | 'field' | 'header' | 'rule' | 'limit';

export interface CoverageItem {
  /** The reference (src/contract/spec-refs.ts): `row:bill-enquiry.request:Message...AccountNumber`, `rule:4.2`. */
  ref: string;
  kind: CoverageKind;
  /** The document's section (`2.1`, `4`, `5`, `8`). */
  section: string;
  /** The thing in the document's words: a path, a header name, a rule's text, `POST /api/...`. */
  what: string;
  /** The cases (or, for a client, the calls) that test it, with their verdicts. */
  tested: { id: string; verdict: Verdict }[];
}

export interface SpecCoverage {
  document: SpecDocument;
  total: number;
  covered: number;
  untested: number;
  /** Per kind: how many items, how many tested. */
  byKind: Record<CoverageKind, { total: number; covered: number }>;
  summary: string;
  items: CoverageItem[];
}

/** Every item of the document, in the document's order: endpoints and limits, field tables, headers, rules, limits table. */
export function specItems(spec: SpecView): Omit<CoverageItem, 'tested'>[] {
  const { facts, fieldTables } = spec;
  const items: Omit<CoverageItem, 'tested'>[] = [];
  for (const op of facts.operations) {
    items.push({ ref: `op:${op.id}`, kind: 'endpoint', section: op.sections.endpoint, what: `${op.method} ${op.path} (${op.title})` });
    items.push({ ref: `limit:${op.id}`, kind: 'rate-limit', section: op.sections.endpoint, what: `${op.title}: ${op.rateLimit} calls per ${op.windowSeconds} s` });
  }
  for (const [key, table] of Object.entries(fieldTables.messages)) {
    for (const row of table.fields) items.push({ ref: `row:${key}:${row.path}`, kind: 'field', section: table.section, what: `${key} ${row.path}` });
  }
  for (const h of facts.headers) items.push({ ref: `header:${h.name}`, kind: 'header', section: '5', what: h.name });
  for (const r of facts.rules) items.push({ ref: `rule:${r.id}`, kind: 'rule', section: r.section, what: `rule ${r.id}${r.values.length ? `: ${r.values.map((v) => `\`${v}\``).join(', ')}` : ''}` });
  for (const l of facts.limits) items.push({ ref: `limits:${l.name}`, kind: 'limit', section: '8', what: `${l.name}: ${l.value}` });
  return items;
}

/** The item a reference counts for: a whole table's reference counts for every row of it. */
function covers(itemRef: string, tested: string): boolean {
  if (itemRef === tested) return true;
  if (tested.startsWith('table:') && itemRef.startsWith('row:')) return itemRef.startsWith(`row:${tested.slice('table:'.length)}:`);
  return false;
}

export function specCoverage(cases: { id: string; verdict: Verdict; tests: readonly string[] | undefined }[], spec: SpecView): SpecCoverage {
  const items: CoverageItem[] = specItems(spec).map((i) => ({ ...i, tested: [] }));
  const byRef = new Map(items.map((i) => [i.ref, i]));
  for (const c of cases) {
    for (const t of c.tests ?? []) {
      const direct = byRef.get(t);
      if (direct) { direct.tested.push({ id: c.id, verdict: c.verdict }); continue; }
      for (const i of items) if (covers(i.ref, t)) i.tested.push({ id: c.id, verdict: c.verdict });
    }
  }
  const kinds: CoverageKind[] = ['endpoint', 'rate-limit', 'field', 'header', 'rule', 'limit'];
  const byKind = Object.fromEntries(kinds.map((k) => {
    const of = items.filter((i) => i.kind === k);
    return [k, { total: of.length, covered: of.filter((i) => i.tested.length).length }];
  })) as SpecCoverage['byKind'];
  const covered = items.filter((i) => i.tested.length).length;
  const untested = items.filter((i) => !i.tested.length);
  const names = untested.slice(0, 6).map((i) => (i.kind === 'rule' ? `rule ${i.ref.slice('rule:'.length)}` : i.kind === 'limit' ? `limit "${i.ref.slice('limits:'.length)}"` : i.ref));
  const summary = `${covered} of ${items.length} rows, endpoints, headers, rules and limits of the document are tested` +
    (untested.length ? `; untested: ${names.join(', ')}${untested.length > names.length ? ` and ${untested.length - names.length} more` : ''}` : '');
  return { document: spec.facts.document, total: items.length, covered, untested: untested.length, byKind, summary, items };
}
