/**
 * Two versions of the API document compared (`npm run spec -- diff <old> <new>`, design.md §13):
 * every change once, per operation, message and field, in the document's order, each classified
 * for clients and for the service by the one table of classify.ts. Pure: it reads two imported
 * specs and returns data; src/cli/spec-diff.ts reads the inputs and renders the result.
 *
 * What is compared, and how things are matched across the versions:
 * - operations by id (the kebab case of the endpoints table's title); a title changed on the same
 *   method and path is one `operation-renamed`, and its messages are compared with each other;
 * - fields by path within their message, with the root and list tags and the prefix taken out, so
 *   that a renamed tag or prefix is one change rather than every field removed and added again; a
 *   field renamed is `field-removed` plus `field-added` (nothing says two names are one field);
 * - headers by name, case-insensitively (HTTP header names are), the prefix taken out;
 * - numbered rules by id (`4.2`); a rule inserted in the middle shows as the later ones changed and
 *   the last one added;
 * - rows of the limits table by name. A row that states a number the field tables or the endpoints
 *   table already carry (the rate limits, the AccountNumber length) is not reported twice: the
 *   structured change names the row's section in `alsoIn`, and only a row whose change no
 *   structured change explains is a `limit-changed` to review.
 * Facts derived from others are reported through their source: an operation's TransactionType
 * through the `const` of its rows (and the wording of the rule that states it), its client headers
 * through the rules, its kind and rate group through its title and the limits; section titles and
 * line numbers are not compared.
 */
import type { FieldRow, MessageTable } from '../contract/field-tables.js';
import type { SpecDocument, SpecFacts, SpecOperation } from '../contract/spec-model.js';
import {
  CHANGE_CLASSES, classesOf, classificationOf, reasonOf,
  type ChangeClass, type ChangeKind, type Direction, type Impact, type ReasonValues,
} from './classify.js';
import type { ImportedSpec } from './import.js';

/** What diffSpecs compares: an import's result, or data/field-tables.json and data/spec.json read back. */
export type SpecVersion = ImportedSpec;

export interface SpecChange {
  kind: ChangeKind;
  /** The operation's id (the new document's, or the old one's where it is gone). */
  op?: string;
  /** The field tables' key of the message: `bill-enquiry.request`. */
  message?: string;
  direction?: Direction;
  /** The field's path as its document writes it (the new one's; the old one's for a removed field). */
  path?: string;
  header?: string;
  /** A numbered rule's id: `4.2` is rule 2 of section 4. */
  rule?: string;
  /** A row of the limits table, by its name. */
  limit?: string;
  before: unknown;
  after: unknown;
  /** The section of the document the change is in (`2.1`, `4`); '' for the title and the naming note. */
  section: string;
  /** Other sections that state the same fact and changed with it (the limits table). */
  alsoIn?: string[];
  clients: Impact;
  service: Impact;
  /** Why, in plain words, for both sides. */
  reason: string;
}

export type ChangeCounts = { changes: number } & Record<ChangeClass, number>;

export interface SpecDiff {
  format: 'sadad-spec-diff';
  formatVersion: 1;
  old: SpecDocument;
  new: SpecDocument;
  /** The operations of either version, in the endpoints table's order (a removed one where it was). */
  operations: { id: string; title: string }[];
  /** In the document's order: by section, then as the section lists them. */
  changes: SpecChange[];
  counts: ChangeCounts;
}

/** What the lead's case mapping says a change does to the suite's cases (rendered where given). */
export interface CaseChanges {
  added: string[];
  removed: string[];
  changed: { id: string; because: string[] }[];
}

// ---------------------------------------------------------------------------------------------

/** Section ids compared part by part as numbers: 2.9 before 4, 4 before 10, '' (the heading) first. */
export function compareSections(a: string, b: string): number {
  const pa = a ? a.split('.') : [];
  const pb = b ? b.split('.') : [];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    if (pa[i] === undefined) return -1;
    if (pb[i] === undefined) return 1;
    const na = Number(pa[i]);
    const nb = Number(pb[i]);
    const d = Number.isNaN(na) || Number.isNaN(nb) ? pa[i]!.localeCompare(pb[i]!) : na - nb;
    if (d) return d;
  }
  return 0;
}

/**
 * The keys of both versions in one order: the new one's, each key the new version dropped put back
 * after the key it followed in the old one. A removed field is listed where it was.
 */
export function mergeOrder(oldKeys: readonly string[], newKeys: readonly string[]): string[] {
  const out = [...newKeys];
  const inNew = new Set(newKeys);
  let at = -1;
  for (const k of oldKeys) {
    if (inNew.has(k)) at = out.indexOf(k);
    else out.splice(++at, 0, k);
  }
  return out;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** A tag without the document's prefix (`SvcSadadBillEnquiry` -> `SadadBillEnquiry`). */
function withoutPrefix(name: string, prefix: string): string {
  return prefix && name.startsWith(prefix) && /^[A-Z]/.test(name.slice(prefix.length)) ? name.slice(prefix.length) : name;
}

/**
 * A field's path as both versions can share it: the message's root tag and the operation's list
 * tag by their role, any other prefixed segment without the prefix, no array markers (whether a
 * field is an array is compared as its own attribute).
 */
function canonicalPath(path: string, roles: Map<string, string>, prefix: string): string {
  return path.split('.').map((seg) => {
    const bare = seg.replace(/\[\]$/, '');
    return roles.get(bare) ?? withoutPrefix(bare, prefix);
  }).join('.');
}

/** The field's path under its message's root: what a reader looks for in the table. */
function shortPath(path: string, root: string): string {
  const parts = path.split('.');
  const i = parts.findIndex((p) => p.replace(/\[\]$/, '') === root);
  return i >= 0 && i < parts.length - 1 ? parts.slice(i + 1).join('.') : path;
}

/** `§4 rule 2` for rule `4.2` of section 4. */
export function ruleLabel(id: string, section: string): string {
  return section && id.startsWith(`${section}.`) ? `§${section} rule ${id.slice(section.length + 1)}` : `rule ${id}`;
}

/** The words two texts do not share, in order: what a rule's rewording changed, in a few words. */
export function changedWords(before: string, after: string, max = 6): { removed: string[]; added: string[] } {
  const a = squash(before).split(' ');
  const b = squash(after).split(' ');
  // the longest common subsequence of words; the rest of each side is what changed
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const removed: string[] = [];
  const added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) { i++; j++; }
    else if (j < b.length && (i >= a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) added.push(b[j++]!);
    else removed.push(a[i++]!);
  }
  const cap = (xs: string[]) => (xs.length > max ? [...xs.slice(0, max), '…'] : xs);
  return { removed: cap(removed), added: cap(added) };
}

// ---------------------------------------------------------------------------------------------

/** The optional attributes of a row that are added, removed or changed as a whole: a table. */
const ATTRIBUTES: { attr: 'sampleType' | 'format' | 'sampleFormat' | 'const' | 'pattern'; added: ChangeKind; removed: ChangeKind; changed: ChangeKind }[] = [
  { attr: 'sampleType', added: 'sample-type-added', removed: 'sample-type-removed', changed: 'sample-type-changed' },
  { attr: 'format', added: 'format-added', removed: 'format-removed', changed: 'format-changed' },
  { attr: 'sampleFormat', added: 'sample-format-added', removed: 'sample-format-removed', changed: 'sample-format-changed' },
  { attr: 'const', added: 'const-added', removed: 'const-removed', changed: 'const-changed' },
  { attr: 'pattern', added: 'pattern-added', removed: 'pattern-removed', changed: 'pattern-changed' },
];

/** Changes whose numbers a limits-table row may restate (see the module comment). */
const NUMERIC_KINDS: readonly ChangeKind[] = ['rate-limit-lower', 'rate-limit-higher', 'rate-window-longer', 'rate-window-shorter', 'max-length-shorter', 'max-length-longer', 'max-length-added', 'max-length-removed'];

const rowWords = (r: FieldRow) => `${r.required ? 'required' : 'optional'} ${r.type}${r.array ? ' (array)' : ''}`;

/** A change as a comparison finds it, before the classification adds its impacts and reason. */
type Draft = Omit<SpecChange, 'clients' | 'service' | 'reason' | 'alsoIn'> & {
  /** The values the reason's template reads; `before`/`after` default to the raw values. */
  words?: ReasonValues;
  /** Said after the classification's reason (a rule's changed words). */
  note?: string;
};

class Collector {
  readonly drafts: (Draft & { seq: number; alsoIn?: string[] })[] = [];
  add(d: Draft) { this.drafts.push({ ...d, seq: this.drafts.length }); }
}

const show = (v: unknown): string => (v === null || v === undefined ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));

function finish(d: Draft & { alsoIn?: string[] }): SpecChange {
  const row = classificationOf(d.kind, d.direction ?? null);
  const values: ReasonValues = { before: show(d.before), after: show(d.after), ...d.words };
  const reason = reasonOf(row, values) + (d.note ? ` ${d.note}` : '');
  // the keys in one order, and only those that apply, so the JSON reads the same every time
  return {
    kind: d.kind,
    ...(d.op !== undefined ? { op: d.op } : {}),
    ...(d.message !== undefined ? { message: d.message } : {}),
    ...(d.direction !== undefined ? { direction: d.direction } : {}),
    ...(d.path !== undefined ? { path: d.path } : {}),
    ...(d.header !== undefined ? { header: d.header } : {}),
    ...(d.rule !== undefined ? { rule: d.rule } : {}),
    ...(d.limit !== undefined ? { limit: d.limit } : {}),
    before: d.before ?? null,
    after: d.after ?? null,
    section: d.section,
    ...(d.alsoIn?.length ? { alsoIn: d.alsoIn } : {}),
    clients: row.clients,
    service: row.service,
    reason,
  };
}

// ---------------------------------------------------------------------------------------------

function compareRows(c: Collector, base: Omit<Draft, 'kind' | 'before' | 'after'>, o: FieldRow, n: FieldRow, field: string) {
  const add = (kind: ChangeKind, before: unknown, after: unknown, words?: ReasonValues) => c.add({ ...base, kind, before, after, words: { field, ...words } });
  if (o.required !== n.required) add(n.required ? 'field-now-required' : 'field-now-optional', o.required, n.required);
  if (o.type !== n.type) add('type-changed', o.type, n.type);
  if (!!o.array !== !!n.array) add('array-changed', !!o.array, !!n.array, { before: o.array ? 'an array' : 'one value', after: n.array ? 'an array' : 'one value' });
  for (const a of ATTRIBUTES) {
    const before = o[a.attr];
    const after = n[a.attr];
    if (before === after) continue;
    add(before === undefined ? a.added : after === undefined ? a.removed : a.changed, before ?? null, after ?? null);
  }
  if (o.maxLength !== n.maxLength) {
    const kind: ChangeKind = o.maxLength === undefined ? 'max-length-added' : n.maxLength === undefined ? 'max-length-removed'
      : n.maxLength < o.maxLength ? 'max-length-shorter' : 'max-length-longer';
    add(kind, o.maxLength ?? null, n.maxLength ?? null);
  }
  const oldAliases = o.aliases ?? [];
  const newAliases = n.aliases ?? [];
  for (const a of oldAliases) if (!newAliases.includes(a)) add('alias-removed', a, null);
  for (const a of newAliases) if (!oldAliases.includes(a)) add('alias-added', null, a);
}

interface Side { spec: SpecVersion; op: SpecOperation | undefined; id: string }

function compareMessage(c: Collector, o: Side, n: Side, direction: Direction) {
  const oldT: MessageTable | undefined = o.spec.fieldTables.messages[`${o.id}.${direction}`];
  const newT: MessageTable | undefined = n.spec.fieldTables.messages[`${n.id}.${direction}`];
  const key = `${n.id}.${direction}`;
  const op = n.id;
  if (!oldT && !newT) return;
  if (!oldT || !newT) {
    const t = (newT ?? oldT)!;
    c.add({ kind: newT ? 'message-added' : 'message-removed', direction, section: t.section, op, message: key, path: t.message, before: oldT ? t.message : null, after: newT ? t.message : null, words: { op } });
    return;
  }
  const oldPrefix = o.spec.facts.prefix || o.spec.fieldTables.prefix;
  const newPrefix = n.spec.facts.prefix || n.spec.fieldTables.prefix;
  const base = { direction, section: newT.section, op, message: key };
  // a root tag renamed beyond its prefix (which prefix-changed reports, once)
  if (withoutPrefix(oldT.message, oldPrefix) !== withoutPrefix(newT.message, newPrefix)) {
    c.add({ ...base, kind: 'tag-changed', path: newT.message, before: oldT.message, after: newT.message, words: { op } });
  }
  const roles = (t: MessageTable, side: Side) => new Map([[t.message, '{root}'], ...(side.op ? [[side.op.listTag, '{list}'] as [string, string]] : [])]);
  const oldRoles = roles(oldT, o);
  const newRoles = roles(newT, n);
  const oldRows = new Map(oldT.fields.map((r) => [canonicalPath(r.path, oldRoles, oldPrefix), r]));
  const newRows = new Map(newT.fields.map((r) => [canonicalPath(r.path, newRoles, newPrefix), r]));
  for (const k of mergeOrder([...oldRows.keys()], [...newRows.keys()])) {
    const a = oldRows.get(k);
    const b = newRows.get(k);
    if (a && b) {
      compareRows(c, { ...base, path: b.path }, a, b, shortPath(b.path, newT.message));
    } else if (b) {
      c.add({ ...base, kind: b.required ? 'field-added' : 'optional-field-added', path: b.path, before: null, after: b, words: { field: shortPath(b.path, newT.message), after: rowWords(b) } });
    } else if (a) {
      c.add({ ...base, section: oldT.section, kind: a.required ? 'field-removed' : 'optional-field-removed', path: a.path, before: a, after: null, words: { field: shortPath(a.path, oldT.message), before: rowWords(a) } });
    }
  }
}

function compareOperation(c: Collector, o: Side, n: Side) {
  const a = o.op;
  const b = n.op;
  if (a && b) {
    const section = b.sections.endpoint;
    const base = { section, op: b.id };
    const words = { op: b.title };
    if (a.title !== b.title) c.add({ ...base, kind: 'operation-renamed', before: a.title, after: b.title, words });
    if (a.method.toUpperCase() !== b.method.toUpperCase()) c.add({ ...base, kind: 'method-changed', before: a.method, after: b.method, words });
    if (a.path !== b.path) c.add({ ...base, kind: 'path-changed', before: a.path, after: b.path, words });
    if (a.rateLimit !== b.rateLimit) c.add({ ...base, kind: b.rateLimit < a.rateLimit ? 'rate-limit-lower' : 'rate-limit-higher', before: a.rateLimit, after: b.rateLimit, words });
    if (a.windowSeconds !== b.windowSeconds) c.add({ ...base, kind: b.windowSeconds > a.windowSeconds ? 'rate-window-longer' : 'rate-window-shorter', before: a.windowSeconds, after: b.windowSeconds, words });
    const oldPrefix = o.spec.facts.prefix;
    const newPrefix = n.spec.facts.prefix;
    if (withoutPrefix(a.listTag, oldPrefix) !== withoutPrefix(b.listTag, newPrefix)) {
      // the list tag sits in the request and the response alike: one change, in the request's section
      c.add({ kind: 'tag-changed', direction: 'request', section: b.sections.request, op: b.id, message: `${b.id}.request`, path: b.listTag, before: a.listTag, after: b.listTag, words });
    }
  }
  compareMessage(c, o, n, 'request');
  compareMessage(c, o, n, 'response');
}

/** Every operation of a version: the endpoints table's, and any the field tables alone name. */
function operationIds(spec: SpecVersion): string[] {
  const ids = spec.facts.operations.map((o) => o.id);
  for (const key of Object.keys(spec.fieldTables.messages)) {
    const id = key.replace(/\.(request|response)$/, '');
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Compares every operation; returns the operations in the order it went through them (a renamed one once, by its new id). */
function compareOperations(c: Collector, old: SpecVersion, next: SpecVersion): string[] {
  const opOf = (s: SpecVersion, id: string) => s.facts.operations.find((o) => o.id === id);
  const oldIds = operationIds(old);
  const newIds = operationIds(next);
  const gone = oldIds.filter((id) => !newIds.includes(id));
  const came = newIds.filter((id) => !oldIds.includes(id));
  // a title changed on the same method and path: the same operation, renamed
  const renamedTo = new Map<string, string>();
  for (const g of gone) {
    const a = opOf(old, g);
    const match = a && came.find((id) => { const b = opOf(next, id); return b && !renamedTo.has(g) && ![...renamedTo.values()].includes(id) && b.path === a.path && b.method.toUpperCase() === a.method.toUpperCase(); });
    if (match) renamedTo.set(g, match);
  }
  const renamedFrom = new Map([...renamedTo].map(([a, b]) => [b, a]));
  const order = mergeOrder(oldIds.filter((id) => !renamedTo.has(id)), newIds);
  for (const id of order) {
    const oldId = renamedFrom.get(id) ?? id;
    const a = opOf(old, oldId);
    const b = opOf(next, id);
    const inOld = oldIds.includes(oldId);
    const inNew = newIds.includes(id);
    if (inOld && inNew) { compareOperation(c, { spec: old, op: a, id: oldId }, { spec: next, op: b, id }); continue; }
    const op = (b ?? a);
    const section = op?.sections.endpoint ?? (next.fieldTables.messages[`${id}.request`] ?? old.fieldTables.messages[`${id}.request`])?.section ?? '';
    const summary = op ? `${op.method} ${op.path}` : id;
    c.add({ kind: inNew ? 'operation-added' : 'operation-removed', section, op: id, before: inNew ? null : summary, after: inNew ? summary : null, words: { op: op ? `${op.title} (${summary})` : id } });
  }
  return order;
}

function compareHeaders(c: Collector, old: SpecVersion, next: SpecVersion) {
  const key = (name: string, prefix: string) => withoutPrefix(name, prefix).toLowerCase();
  const oldH = new Map(old.facts.headers.map((h) => [key(h.name, old.facts.prefix), h]));
  const newH = new Map(next.facts.headers.map((h) => [key(h.name, next.facts.prefix), h]));
  const section = (s: SpecVersion, line: number | undefined) => sectionOfLine(s.facts, line) ?? '';
  for (const k of mergeOrder([...oldH.keys()], [...newH.keys()])) {
    const a = oldH.get(k);
    const b = newH.get(k);
    if (a && b) {
      if (a.digest !== b.digest) c.add({ kind: 'header-meaning-changed', section: section(next, b.line), header: b.name, before: wordsOf(a.meaning, a.digest), after: wordsOf(b.meaning, b.digest), words: { header: b.name } });
    } else if (b) c.add({ kind: 'header-added', section: section(next, b.line), header: b.name, before: null, after: wordsOf(b.meaning, b.digest), words: { header: b.name } });
    else if (a) c.add({ kind: 'header-removed', section: section(old, a.line), header: a.name, before: wordsOf(a.meaning, a.digest), after: null, words: { header: a.name } });
  }
}

/** A sentence of the document where it was just read, else its digest (data/spec.json keeps no sentence). */
const wordsOf = (words: string | undefined, digest: string): string => words ?? `(words not kept; digest ${digest})`;

function compareRules(c: Collector, old: SpecVersion, next: SpecVersion) {
  const oldR = new Map(old.facts.rules.map((r) => [r.id, r]));
  const newR = new Map(next.facts.rules.map((r) => [r.id, r]));
  for (const id of mergeOrder([...oldR.keys()], [...newR.keys()])) {
    const a = oldR.get(id);
    const b = newR.get(id);
    const r = (b ?? a)!;
    const base = { section: r.section, rule: id, words: { rule: ruleLabel(id, r.section) } };
    if (a && b) {
      if (a.digest === b.digest) continue;
      // the words where both versions were read just now; an imported folder keeps a rule's digest and values only
      const w = a.text !== undefined && b.text !== undefined ? changedWords(a.text, b.text) : changedWords(a.values.join(' '), b.values.join(' '));
      const note = a.text !== undefined && b.text !== undefined
        ? `Words changed: ${w.removed.length ? `«${w.removed.join(' ')}»` : 'nothing'} -> ${w.added.length ? `«${w.added.join(' ')}»` : 'nothing'}.`
        : `Reworded${w.removed.length || w.added.length ? `; values in code: ${w.removed.length ? `«${w.removed.join(' ')}»` : 'none'} -> ${w.added.length ? `«${w.added.join(' ')}»` : 'none'}` : ''} (an imported folder keeps no sentence of the document: diff the documents for the words).`;
      c.add({ ...base, kind: 'rule-changed', before: wordsOf(a.text, a.digest), after: wordsOf(b.text, b.digest), note });
    } else if (b) c.add({ ...base, kind: 'rule-added', before: null, after: wordsOf(b.text, b.digest) });
    else if (a) c.add({ ...base, kind: 'rule-removed', before: wordsOf(a.text, a.digest), after: null });
  }
}

/** The section a line of the document is in: the last heading at or before it. */
function sectionOfLine(facts: SpecFacts, line: number | undefined): string | undefined {
  if (line === undefined) return undefined;
  let found: { id: string; line: number } | undefined;
  for (const s of facts.sections) if (s.line <= line && (!found || s.line >= found.line)) found = s;
  return found?.id;
}

const numbersIn = (s: string) => s.match(/\d+(?:\.\d+)?/g) ?? [];

function compareLimits(c: Collector, old: SpecVersion, next: SpecVersion) {
  const key = (name: string) => squash(name).toLowerCase();
  const oldL = new Map(old.facts.limits.map((l) => [key(l.name), l]));
  const newL = new Map(next.facts.limits.map((l) => [key(l.name), l]));
  for (const k of mergeOrder([...oldL.keys()], [...newL.keys()])) {
    const a = oldL.get(k);
    const b = newL.get(k);
    const section = (b ? sectionOfLine(next.facts, b.line) : sectionOfLine(old.facts, a!.line)) ?? '';
    const limit = (b ?? a)!.name;
    if (a && b) {
      if (squash(a.value) === squash(b.value)) continue;
      // the row restates a number a structured change already reports: name the section there
      const na = numbersIn(a.value);
      const nb = numbersIn(b.value);
      const pairs = na.length === nb.length ? na.map((x, i) => [x, nb[i]!] as const).filter(([x, y]) => x !== y) : [];
      const textSame = squash(a.value.replace(/\d+(?:\.\d+)?/g, '#')) === squash(b.value.replace(/\d+(?:\.\d+)?/g, '#'));
      const explaining = textSame && pairs.length
        ? c.drafts.filter((d) => NUMERIC_KINDS.includes(d.kind) && pairs.some(([x, y]) => String(d.before) === x && String(d.after) === y))
        : [];
      const explained = pairs.length > 0 && pairs.every(([x, y]) => explaining.some((d) => String(d.before) === x && String(d.after) === y));
      if (explained) {
        for (const d of explaining) if (!(d.alsoIn ??= []).includes(section)) d.alsoIn.push(section);
        continue;
      }
      c.add({ kind: 'limit-changed', section, limit, before: a.value, after: b.value });
    } else if (b) c.add({ kind: 'limit-added', section, limit, before: null, after: b.value });
    else if (a) c.add({ kind: 'limit-removed', section, limit, before: a.value, after: null });
  }
}

function compareDocument(c: Collector, old: SpecVersion, next: SpecVersion) {
  const a = old.facts.document;
  const b = next.facts.document;
  if (squash(a.title) !== squash(b.title)) c.add({ kind: 'title-changed', section: '', before: a.title, after: b.title });
  if ((a.version ?? null) !== (b.version ?? null)) c.add({ kind: 'version-changed', section: '', before: a.version ?? null, after: b.version ?? null });
  const pa = old.facts.prefix || old.fieldTables.prefix;
  const pb = next.facts.prefix || next.fieldTables.prefix;
  if (pa !== pb) c.add({ kind: 'prefix-changed', section: '', before: pa, after: pb });
}

/**
 * A rule whose rewording changes a value the tables carry too (TransactionType in §4 rule 2 and
 * the rows' const): its reason names the structured changes of that value, each reported on its own.
 */
function relateRuleWords(c: Collector) {
  const bare = (w: string) => w.replace(/^[`'"«(]+|[`'"»),.;:]+$/g, '');
  for (const d of c.drafts) {
    if (d.kind !== 'rule-changed') continue;
    const w = changedWords(String(d.before), String(d.after), Infinity);
    const removed = new Set(w.removed.map(bare));
    const added = new Set(w.added.map(bare));
    const same = c.drafts.filter((x) => x !== d && typeof x.before === 'string' && typeof x.after === 'string' && removed.has(x.before) && added.has(x.after));
    if (!same.length) continue;
    const where = [...new Set(same.map((x) => `${x.path ? fieldLabel(x.path) : x.header ?? x.limit ?? x.op ?? x.kind} (§${x.section})`))];
    d.note = `${d.note ?? ''} The same value changed, each reported on its own, in: ${where.join(', ')}.`.trim();
  }
}

export function countChanges(changes: readonly Pick<SpecChange, 'clients' | 'service'>[]): ChangeCounts {
  const counts = { changes: changes.length, ...Object.fromEntries(CHANGE_CLASSES.map((k) => [k, 0])) } as ChangeCounts;
  for (const ch of changes) for (const k of classesOf(ch)) counts[k]++;
  return counts;
}

/** Every change between two versions of the document, once, classified, in the document's order. */
export function diffSpecs(old: SpecVersion, next: SpecVersion): SpecDiff {
  const c = new Collector();
  compareDocument(c, old, next);
  const order = compareOperations(c, old, next);
  compareHeaders(c, old, next);
  compareRules(c, old, next);
  compareLimits(c, old, next);
  relateRuleWords(c);
  const ordered = [...c.drafts].sort((x, y) => compareSections(x.section, y.section) || x.seq - y.seq);
  const changes = ordered.map(finish);
  const operations = order.map((id) => ({
    id, title: (next.facts.operations.find((o) => o.id === id) ?? old.facts.operations.find((o) => o.id === id))?.title ?? id,
  }));
  return { format: 'sadad-spec-diff', formatVersion: 1, old: old.facts.document, new: next.facts.document, operations, changes, counts: countChanges(changes) };
}

/** A part of a group: the endpoint row, or one of the operation's messages. */
export interface ChangePart { key: string; label: string; section: string; changes: SpecChange[] }
export interface ChangeGroup { op: string | null; title: string; parts: ChangePart[] }

/**
 * The changes as the console and the page show them: what concerns the whole document first, then
 * each operation in the endpoints table's order, its endpoint row, its request, its response.
 */
export function groupChanges(d: SpecDiff): ChangeGroup[] {
  const groups: ChangeGroup[] = [];
  const whole = d.changes.filter((c) => c.op === undefined);
  if (whole.length) groups.push({ op: null, title: 'The whole document', parts: [{ key: 'document', label: 'document', section: '', changes: whole }] });
  for (const op of d.operations) {
    const mine = d.changes.filter((c) => c.op === op.id);
    if (!mine.length) continue;
    const parts: ChangePart[] = [];
    const endpoint = mine.filter((c) => c.message === undefined);
    if (endpoint.length) parts.push({ key: `${op.id}.endpoint`, label: 'endpoint', section: endpoint[0]!.section, changes: endpoint });
    for (const direction of ['request', 'response'] as const) {
      const msg = mine.filter((c) => c.message !== undefined && c.message.endsWith(`.${direction}`));
      if (msg.length) parts.push({ key: `${op.id}.${direction}`, label: direction, section: msg[0]!.section, changes: msg });
    }
    groups.push({ op: op.id, title: `${op.title} (${op.id})`, parts });
  }
  return groups;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** One change in a few words: where, and what became of it. */
export function describeChange(c: SpecChange): string {
  const field = c.path ? fieldLabel(c.path) : '';
  const v = (x: unknown) => clip(valueWords(x), 60);
  switch (c.kind) {
    case 'title-changed': case 'version-changed': case 'prefix-changed':
      return `${c.kind.replace('-changed', '')}: ${v(c.before)} -> ${v(c.after)}`;
    case 'operation-added': return `operation added: ${v(c.after)}`;
    case 'operation-removed': return `operation removed: ${v(c.before)}`;
    case 'operation-renamed': return `title: ${v(c.before)} -> ${v(c.after)}`;
    case 'path-changed': return `path: ${v(c.before)} -> ${v(c.after)}`;
    case 'method-changed': return `method: ${v(c.before)} -> ${v(c.after)}`;
    case 'rate-limit-lower': case 'rate-limit-higher': return `rate limit: ${v(c.before)} -> ${v(c.after)} calls per window`;
    case 'rate-window-longer': case 'rate-window-shorter': return `rate window: ${v(c.before)} s -> ${v(c.after)} s`;
    case 'tag-changed': return `tag: ${v(c.before)} -> ${v(c.after)}`;
    case 'message-added': case 'message-removed': return `message ${c.kind.endsWith('added') ? 'added' : 'removed'}: ${c.path ?? ''}`;
    case 'field-added': case 'optional-field-added': return `${field}: added (${v(c.after)})`;
    case 'field-removed': case 'optional-field-removed': return `${field}: removed (was ${v(c.before)})`;
    case 'header-added': return `header ${c.header}: added`;
    case 'header-removed': return `header ${c.header}: removed`;
    case 'header-meaning-changed': return `header ${c.header}: its meaning reworded`;
    case 'rule-added': return `${ruleLabel(c.rule!, c.section)}: added: ${v(c.after)}`;
    case 'rule-removed': return `${ruleLabel(c.rule!, c.section)}: removed: ${v(c.before)}`;
    case 'rule-changed': {
      const w = changedWords(String(c.before), String(c.after));
      return `${ruleLabel(c.rule!, c.section)}: ${w.removed.join(' ') || '(nothing)'} -> ${w.added.join(' ') || '(nothing)'}`;
    }
    case 'limit-added': case 'limit-removed': case 'limit-changed':
      return `limit "${c.limit}": ${v(c.before)} -> ${v(c.after)}`;
    default:
      return `${field || c.path || c.op || ''}: ${v(c.before)} -> ${v(c.after)}`;
  }
}

/** A change's before or after in words: a field row as `required String`, `none` for nothing. */
export function valueWords(x: unknown): string {
  return x && typeof x === 'object' && 'type' in x && 'path' in x ? rowWords(x as FieldRow) : show(x);
}

/** A field's path without `Message` and the root tag: `SvcSadadBillEnquiry[].TransactionData[].AccountNumber`. */
export function fieldLabel(path: string): string {
  const parts = path.split('.');
  const start = parts[0] === 'Message' ? 2 : 1;
  return parts.length > start ? parts.slice(start).join('.') : path;
}
