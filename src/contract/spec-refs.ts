/**
 * References into the API document: a row of a field table, a whole table, an endpoint, its rate
 * limit, a header, a numbered rule, a row of the limits table. A case names the references it tests
 * and the ones it is built from (src/suite/spec-refs.ts); a package records each with a digest of
 * what the document said there, so that a re-judge under a newer document knows which verdicts still
 * stand (the digest is unchanged) and which need a new run, and the report can say which rows and
 * rules no case tests. The grammar, one kind a line:
 *
 *   op:<operation>                  the endpoint: method, path, message roots, TransactionType
 *   limit:<operation>               the operation's sandbox rate limit and window
 *   table:<operation>.<direction>   a whole field table (what a schema or a generated body is made of)
 *   row:<operation>.<direction>:<path>   one row of it
 *   headers                         the header table's names (every call sends them all)
 *   header:<name>                   one header, spelled as the document spells it (SvcReferenceID)
 *   rule:<id>                       a numbered rule (4.2: section 4, item 2)
 *   limits:<name>                   a row of the limits table (§8)
 *   prefix                          the prefix the document writes its tags with
 */
import { createHash } from 'node:crypto';
import { fieldTables, type FieldRow, type FieldTables } from './field-tables.js';
import type { SpecFacts } from './spec-model.js';
import { specFacts } from './spec-facts.js';

export type SpecRef = string;

/** A version of the document as the project reads it: its field tables and its other facts. */
export interface SpecView { fieldTables: FieldTables; facts: SpecFacts }

/** The version of the document this project is built from (data/field-tables.json, data/spec.json). */
export const currentSpec = (): SpecView => ({ fieldTables, facts: specFacts });

/** What the document says at a reference, or undefined where it says nothing (the thing is gone). */
export function resolveRef(ref: SpecRef, spec: SpecView): unknown {
  const [kind, rest = ''] = splitOnce(ref, ':');
  const op = (id: string) => spec.facts.operations.find((o) => o.id === id);
  switch (kind) {
    case 'op': {
      const o = op(rest);
      return o && { method: o.method, path: o.path, requestRoot: o.requestRoot, responseRoot: o.responseRoot, listTag: o.listTag, transactionType: o.transactionType, responseSequenceField: o.responseSequenceField, clientHeaders: o.clientHeaders };
    }
    case 'limit': {
      const o = op(rest);
      return o && { rateLimit: o.rateLimit, windowSeconds: o.windowSeconds };
    }
    case 'table': return spec.fieldTables.messages[rest]?.fields;
    case 'row': {
      const [message, path] = splitOnce(rest, ':');
      return spec.fieldTables.messages[message]?.fields.find((f) => f.path === path);
    }
    case 'headers': return spec.facts.headers.map((h) => h.name);
    case 'header': return spec.facts.headers.find((h) => h.name === rest)?.name;
    case 'rule': return spec.facts.rules.find((r) => r.id === rest)?.digest;
    case 'limits': return spec.facts.limits.find((l) => l.name === rest)?.value;
    case 'prefix': return spec.facts.prefix;
    default: throw new Error(`unknown spec reference ${JSON.stringify(ref)}`);
  }
}

/** A short digest of what the document says at a reference; `absent` where it says nothing. */
export function refDigest(ref: SpecRef, spec: SpecView): string {
  // every case of a run digests the same few dozen references of one document: once each
  let memo = digests.get(spec.fieldTables);
  if (!memo) digests.set(spec.fieldTables, (memo = new Map()));
  let d = memo.get(ref);
  if (d === undefined) {
    const v = resolveRef(ref, spec);
    d = v === undefined ? 'absent' : createHash('sha256').update(stableJson(v)).digest('hex').slice(0, 16);
    memo.set(ref, d);
  }
  return d;
}
const digests = new WeakMap<object, Map<SpecRef, string>>();

export function refDigests(refs: readonly SpecRef[], spec: SpecView): Record<SpecRef, string> {
  return Object.fromEntries([...new Set(refs)].sort().map((r) => [r, refDigest(r, spec)]));
}

/** The references whose digest differs between what a case recorded and the document now. */
export function changedRefs(recorded: Record<SpecRef, string>, spec: SpecView): SpecRef[] {
  return Object.entries(recorded).filter(([ref, d]) => refDigest(ref, spec) !== d).map(([ref]) => ref);
}

/** The rows of an operation's table that `keep` picks, as references. */
export function rowRefs(spec: SpecView, op: string, direction: 'request' | 'response', keep: (r: FieldRow) => boolean): SpecRef[] {
  return (spec.fieldTables.messages[`${op}.${direction}`]?.fields ?? []).filter(keep).map((r) => `row:${op}.${direction}:${r.path}`);
}

/** The limits table's rows whose name mentions `word` (none where the document has no such row). */
export function limitRowRefs(spec: SpecView, word: string): SpecRef[] {
  return spec.facts.limits.filter((l) => l.name.includes(word)).map((l) => `limits:${l.name}`);
}

/** The limits table's rate row of an operation: the one naming the first word of its title (`Sandbox rate, MOI Enquiry and ...`). */
export function rateRowRefs(spec: SpecView, op: string): SpecRef[] {
  const first = spec.facts.operations.find((o) => o.id === op)?.title.split(' ')[0];
  return first ? spec.facts.limits.filter((l) => /rate/i.test(l.name) && l.name.includes(first)).map((l) => `limits:${l.name}`) : [];
}

/** A reference in words, for a note: `row AccountNumber of bill-enquiry.request`, `rule 4.2`. */
export function refText(ref: SpecRef): string {
  const [kind, rest = ''] = splitOnce(ref, ':');
  switch (kind) {
    case 'op': return `the ${rest} endpoint`;
    case 'limit': return `the ${rest} rate limit`;
    case 'table': return `the ${rest} field table`;
    case 'row': { const [m, p] = splitOnce(rest, ':'); return `row ${p} of ${m}`; }
    case 'headers': return 'the header table';
    case 'header': return `header ${rest}`;
    case 'rule': return `rule ${rest}`;
    case 'limits': return `limit "${rest}"`;
    default: return ref;
  }
}

function splitOnce(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, ''] : [s.slice(0, i), s.slice(i + sep.length)];
}

/** JSON with sorted keys: the same thing digests the same whatever order its keys were written in. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v);
}
