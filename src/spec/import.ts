/**
 * The API document read into the machine-readable spec (design.md §13): the field tables
 * (data/field-tables.json) and the other facts (data/spec.json: operations, headers, numbered
 * rules, limits). What the document says in tables is read from the tables; what only its prose
 * says comes from the overrides file (overrides.ts), each decision with its reason. Anything the
 * importer cannot read is a SpecImportError naming the line and section; nothing is guessed.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import type { FieldRow, FieldTables, MessageTable } from '../contract/field-tables.js';
import type { SpecFacts, SpecHeader, SpecLimit, SpecOperation, SpecRule } from '../contract/spec-model.js';
import { DATA_DIR } from '../paths.js';
import { SpecImportError } from './errors.js';
import { parseMarkdown, type MdDocument, type MdRow, type MdTable } from './markdown.js';
import { checkEntry, entryLabel, loadOverrides, type AddedRow, type OverrideEntry, type SpecOverrides } from './overrides.js';
import { FORMATS, isFieldType, isFormat, orderedRow, TYPES, type FieldType } from './vocabulary.js';
import { wordToMarkdown } from './word.js';

export { SpecImportError } from './errors.js';

export interface ImportedSpec {
  fieldTables: FieldTables;
  facts: SpecFacts;
}

/** The project's overrides file, used unless another is named. */
export const DEFAULT_OVERRIDES = join(DATA_DIR, 'spec-overrides.json');

/** How each kind of document becomes Markdown. */
const READERS: Record<string, (file: string) => Promise<string>> = {
  '.md': (file) => readFile(file, 'utf8'),
  '.markdown': (file) => readFile(file, 'utf8'),
  '.docx': (file) => wordToMarkdown(file),
  '.odt': (file) => wordToMarkdown(file),
};

export async function importDocument(file: string, opts: { overrides?: string } = {}): Promise<ImportedSpec> {
  const read = READERS[extname(file).toLowerCase()];
  const name = basename(file);
  if (!read) throw new SpecImportError({ source: name }, `cannot import a ${extname(file) || 'file without extension'}: give a Markdown (${Object.keys(READERS).filter((e) => e.startsWith('.m')).join(', ')}) or Word (.docx, .odt) document`);
  let bytes: Buffer;
  try { bytes = await readFile(file); } catch (e) {
    throw new SpecImportError({ source: name }, `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const text = await read(file);
  const overrides = await loadOverrides(opts.overrides ?? DEFAULT_OVERRIDES);
  return importMarkdown(text, { name, sha256: createHash('sha256').update(bytes).digest('hex') }, overrides);
}

// ---------------------------------------------------------------------------------------------
// The tables the importer looks for, each found by its section and its columns.

interface Column { label: string; match: RegExp; optional?: boolean }
type Columns = Record<string, Column>;

const FIELD_COLUMNS = {
  path: { label: 'Path', match: /^path$/i },
  required: { label: 'Required', match: /^required$/i, optional: true },
  type: { label: 'Type', match: /^type$/i },
  meaning: { label: 'Meaning', match: /^(meaning|description)$/i },
} satisfies Columns;

/** The document's parts other than the field tables: the section each sits in and its columns. */
const PARTS = {
  endpoints: {
    section: '4', what: 'the endpoints table',
    columns: {
      operation: { label: 'Operation', match: /^operation$/i },
      method: { label: 'Method', match: /^method$/i },
      path: { label: 'Path', match: /^path$/i },
      request: { label: 'Request body', match: /^request( body)?$/i },
      response: { label: 'Response body', match: /^response( body)?$/i },
      rate: { label: 'Sandbox rate limit', match: /rate limit/i },
    },
  },
  headers: {
    section: '5', what: 'the header table',
    columns: { name: { label: 'Header', match: /^header$/i }, meaning: { label: 'Meaning', match: /^meaning$/i } },
  },
  limits: {
    section: '8', what: 'the limits table',
    columns: { name: { label: 'Limit', match: /^limit$/i }, value: { label: 'Value', match: /^value$/i } },
  },
} satisfies Record<string, { section: string; what: string; columns: Columns }>;

/** The Required column's words. */
const REQUIRED_WORDS: Record<string, boolean> = { yes: true, no: false, mandatory: true, optional: false };

/** A rate as the document writes it (`10 calls per minute`) and the window's length per unit. */
const RATE = /^(\d+)\s+calls?\s+per\s+(second|minute|hour)$/i;
const WINDOW_SECONDS: Record<string, number> = { second: 1, minute: 60, hour: 3600 };

/** An operation's kind, from a word of its title. */
const KINDS: { word: RegExp; kind: SpecOperation['kind'] }[] = [
  { word: /\benquiry\b/i, kind: 'enquiry' },
  { word: /\bpayment\b/i, kind: 'payment' },
];

/** The fields whose fixed value is the operation's transaction type (§4 rule 2), per direction. */
const TRANSACTION_TYPE_FIELD = { request: 'TransactionType', response: 'MessageType' } as const;
/** The echoed sequence field of a response item, in the spellings the document uses. */
const SEQUENCE_FIELDS = ['SequenceNumber', 'SequenceNum'];

/**
 * Notes in a Type cell after the type's word, read left to right; separators (`;`, `,`) between
 * them are skipped. A note not listed here stops the import.
 */
const TYPE_NOTES: { pattern: RegExp; apply: (row: Draft, m: RegExpExecArray) => string | void }[] = [
  // `Object (array)`: an array of objects, as `[]` on the path says
  { pattern: /^\(array\)/i, apply: (row) => { row.array = true; } },
  // `Boolean (table)`: the word is the table's type; a note on the samples follows
  { pattern: /^\(table\)/i, apply: () => {} },
  { pattern: /^\(?sample shows an? (string|number)\)?/i, apply: (row, m) => { row.sampleType = m[1]!.toLowerCase() as 'string' | 'number'; } },
  { pattern: /^\(sample format `([^`]+)`\)/i, apply: (row, m) => { row.sampleFormat = m[1]!; } },
  { pattern: /^`([^`]+)`/, apply: (row, m) => (isFormat(m[1]!) ? void (row.format = m[1]) : `unknown format "${m[1]}" (known: ${Object.keys(FORMATS).join(', ')})`) },
];

/** What a Meaning cell fixes about a field. */
const MEANING_NOTES: { pattern: RegExp; apply: (row: Draft, m: RegExpExecArray) => void }[] = [
  { pattern: /\bat most (\d+) characters\b/i, apply: (row, m) => { row.maxLength = Number(m[1]); } },
  { pattern: /^(?:must be\s+)?`([^`]+)`\.?$/i, apply: (row, m) => { row.const = m[1]!; } },
];

/** Where the document states its tag prefix, first found wins. */
const PREFIX_SOURCES: { what: string; find: (doc: MdDocument, headers: SpecHeader[]) => string | undefined }[] = [
  { what: 'the naming note', find: (doc) => doc.paragraphs.map((p) => /\bprefix\b[^`]*`([A-Za-z][A-Za-z0-9]*)`/i.exec(p.text)?.[1]).find(Boolean) },
  { what: 'the reference header', find: (_doc, headers) => headers.map((h) => /^([A-Za-z]+)ReferenceID$/.exec(h.name)?.[1]).find(Boolean) },
];

const FIELD_TABLES_COMMENT = (first: string, last: string, prefix: string) =>
  `Machine-readable transcription of the field tables of api-spec.md §${first}-§${last}. Paths use the spec prefix ${prefix}; [] marks an array of objects. type is the table type; sampleType is the JSON type a sample shows where the spec notes a difference; aliases are accepted alternative spellings; response fields carry required=true because every documented response field must be present.`;

const SPEC_COMMENT = 'Written by `npm run spec -- import <document>` (src/spec/import.ts) from the API document and data/spec-overrides.json; do not edit by hand. The field tables are in data/field-tables.json.';

// ---------------------------------------------------------------------------------------------

/** A field row while the table is read: its line, for errors and overrides. */
type Draft = Omit<FieldRow, 'type'> & { type: FieldType; line: number };

interface Ctx {
  source: string;
  doc: MdDocument;
  fail(line: number | undefined, section: string | null | undefined, detail: string): never;
}

const stripTicks = (s: string) => s.replace(/^`(.*)`$/, '$1').trim();
const kebab = (title: string) => title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const nameOf = (path: string) => path.split('.').pop()!.replace(/\[\]$/, '');
const parentOf = (path: string) => path.split('.').slice(0, -1).join('.');

function headingOf(ctx: Ctx, section: string) {
  return ctx.doc.headings.find((h) => h.id === section);
}

/** The line where a missing section would have stood: the next numbered heading, or the end. */
function whereMissing(ctx: Ctx, section: string): number {
  const order = (id: string) => id.split('.').map(Number);
  const after = ctx.doc.headings.find((h) => {
    if (!h.id) return false;
    const [a, b] = [order(h.id), order(section)];
    for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? -1) !== (b[i] ?? -1)) return (a[i] ?? -1) > (b[i] ?? -1);
    return false;
  });
  return after?.line ?? ctx.doc.lastLine;
}

function columnsOf<C extends Columns>(ctx: Ctx, table: MdTable, columns: C, what: string): Record<keyof C, number> {
  const out = {} as Record<keyof C, number>;
  for (const [key, col] of Object.entries(columns) as [keyof C, Column][]) {
    const i = table.header.findIndex((h) => col.match.test(h));
    if (i < 0 && !col.optional) ctx.fail(table.line, table.section, `${what} has no "${col.label}" column (its columns: ${table.header.join(', ')})`);
    out[key] = i;
  }
  return out;
}

function findPart<K extends keyof typeof PARTS>(ctx: Ctx, key: K) {
  const part = PARTS[key];
  if (!headingOf(ctx, part.section)) ctx.fail(whereMissing(ctx, part.section), part.section, `required section ${part.section} (${part.what}) is missing`);
  const tables = ctx.doc.tables.filter((t) => t.section === part.section);
  if (!tables.length) ctx.fail(headingOf(ctx, part.section)!.line, part.section, `section ${part.section} has no table: expected ${part.what} (${Object.values(part.columns).map((c) => c.label).join(' | ')})`);
  const table = tables[0]!;
  const cols = columnsOf(ctx, table, part.columns as Columns, part.what) as Record<keyof (typeof PARTS)[K]['columns'], number>;
  const cell = (row: MdRow, c: keyof (typeof PARTS)[K]['columns']) => row.cells[cols[c]] ?? '';
  return { table, cell };
}

// ---------------------------------------------------------------------------------------------
// Field tables

interface ReadTable {
  section: string;
  message: string;
  direction: 'request' | 'response';
  /** The row of the message itself (`Message.SvcX...Request`, `SvcX...Response`). */
  root: string;
  fields: Draft[];
  table: MdTable;
}

function readType(ctx: Ctx, row: Draft, cell: string, line: number, section: string): void {
  const m = /^([A-Za-z]+)\s*(.*)$/.exec(cell);
  if (!m || !isFieldType(m[1]!)) ctx.fail(line, section, `unknown type "${m?.[1] ?? cell}" in "${cell}" (known: ${Object.keys(TYPES).join(', ')})`);
  row.type = m[1] as FieldType;
  const pattern = TYPES[row.type].pattern;
  if (pattern) row.pattern = pattern;
  let rest = m[2]!;
  while ((rest = rest.replace(/^[\s;,]+/, ''))) {
    const note = TYPE_NOTES.map((n) => ({ n, m: n.pattern.exec(rest) })).find((x) => x.m);
    if (!note) ctx.fail(line, section, `unknown note "${rest}" in the type "${cell}"`);
    const wrong = note.n.apply(row, note.m!);
    if (wrong) ctx.fail(line, section, wrong);
    rest = rest.slice(note.m![0].length);
  }
}

function readFieldTable(ctx: Ctx, table: MdTable, section: string, message: string, direction: 'request' | 'response'): ReadTable {
  const what = `the field table of §${section}`;
  const cols = columnsOf(ctx, table, FIELD_COLUMNS, what);
  if (direction === 'request' && cols.required < 0) ctx.fail(table.line, section, `${what} is a request's and has no "Required" column (its columns: ${table.header.join(', ')})`);
  const fields: Draft[] = [];
  let root: string | undefined;
  /** containers[d]: the last Object row at depth d below the root (0: the root itself). */
  let containers: (string | undefined)[] = [];
  for (const r of table.rows) {
    const cell = (c: number) => (c >= 0 ? r.cells[c] ?? '' : '');
    const required = direction === 'response' ? true : REQUIRED_WORDS[cell(cols.required).toLowerCase()];
    if (required === undefined) ctx.fail(r.line, section, `Required is "${cell(cols.required)}": expected ${Object.keys(REQUIRED_WORDS).join(', ')}`);
    // `..A, ..B, ..C`: one row of the table for several fields alike
    for (const written of cell(cols.path).split(/\s*,\s*/)) {
      const m = /^(\.*)([A-Za-z_]\w*(?:\[\])?(?:\.[A-Za-z_]\w*(?:\[\])?)*)$/.exec(written);
      if (!m) ctx.fail(r.line, section, `cannot read the path "${written}"`);
      const depth = m[1]!.length;
      let path: string;
      if (depth === 0) {
        path = m[2]!;
        const parent = parentOf(path);
        if (parent && !fields.some((f) => f.path === parent)) ctx.fail(r.line, section, `"${written}" has no parent: no row "${parent}" above it`);
      } else {
        if (m[2]!.includes('.')) ctx.fail(r.line, section, `"${written}": a path below the root is one name after its dots`);
        const parent = containers[depth - 1];
        if (!parent) ctx.fail(r.line, section, `"${written}" has no parent: no Object row at depth ${depth - 1} stands above it${root ? '' : ` (and no row for the message ${message} yet)`}`);
        path = `${parent}.${m[2]}`;
      }
      const row: Draft = { path, required, type: 'String', line: r.line };
      readType(ctx, row, cell(cols.type), r.line, section);
      if (path.endsWith('[]')) row.array = true;
      if (row.array && !path.endsWith('[]')) row.path = path = `${path}[]`;
      if (row.array && row.type !== 'Object') ctx.fail(r.line, section, `"${written}" is an array of ${row.type}: only arrays of objects are known`);
      for (const note of MEANING_NOTES) {
        const found = note.pattern.exec(cell(cols.meaning));
        if (found) note.apply(row, found);
      }
      if (fields.some((f) => f.path === path)) ctx.fail(r.line, section, `"${written}" appears twice (${path})`);
      fields.push(row);
      // the rows that follow hang under the last Object at each depth; a row closes deeper ones
      if (depth === 0) containers = nameOf(path) === message ? [path] : [];
      else containers = containers.slice(0, depth);
      if (nameOf(path) === message && depth === 0) root = path;
      else if (row.type === 'Object' && depth > 0) containers[depth] = path;
    }
  }
  if (!root) ctx.fail(table.line, section, `${what} has no row for its message ${message}`);
  return { section, message, direction, root, fields, table };
}

// ---------------------------------------------------------------------------------------------
// Overrides

function applyFieldOverride(ctx: Ctx, e: OverrideEntry, t: ReadTable, target: string, overridesName: string): void {
  const where = `${overridesName} ${entryLabel(e)}`;
  const heading = headingOf(ctx, t.section)!;
  const matches = t.fields.filter((f) => f.path === target || f.path.endsWith(`.${target}`));
  if (!matches.length) ctx.fail(heading.line, t.section, `${where}: the table has no row "${target}" any more (the document changed: decide again, then edit or remove the entry)`);
  if (matches.length > 1) ctx.fail(heading.line, t.section, `${where}: "${target}" names ${matches.length} rows (${matches.map((f) => f.path).join(', ')}): give more of the path`);
  const row = matches[0]!;
  if (e.set) Object.assign(row, e.set);
  const subtree = (r: Draft) => {
    let end = t.fields.indexOf(r) + 1;
    while (end < t.fields.length && t.fields[end]!.path.startsWith(`${r.path}.`)) end++;
    return [t.fields.indexOf(r), end] as const;
  };
  if (e.moveAfter) {
    const sibling = t.fields.find((f) => parentOf(f.path) === parentOf(row.path) && nameOf(f.path) === e.moveAfter!.replace(/\[\]$/, ''));
    if (!sibling || sibling === row) ctx.fail(row.line, t.section, `${where}: ${row.path} has no sibling ${e.moveAfter} any more`);
    const [from, to] = subtree(row);
    const moved = t.fields.splice(from, to - from);
    t.fields.splice(subtree(sibling)[1], 0, ...moved);
  }
  if (!e.add) return;
  if (row.type !== 'Object') ctx.fail(row.line, t.section, `${where}: rows can be added only under an Object row; ${row.path} is ${row.type}`);
  const at = subtree(row)[1];
  const added = (e.add as unknown as AddedRow[]).map((a): Draft => {
    const { name, required, ...rest } = a;
    const path = `${row.path}.${name}`;
    if (t.fields.some((f) => f.path === path)) ctx.fail(row.line, t.section, `${where}: the table now has ${path} itself: remove the entry`);
    const req = t.direction === 'response' ? true : required;
    if (req === undefined) ctx.fail(row.line, t.section, `${where}: a row added to a request needs "required"`);
    return { path, required: req, ...rest, ...(name.endsWith('[]') ? { array: true } : {}), line: row.line };
  });
  t.fields.splice(at, 0, ...added);
}

// ---------------------------------------------------------------------------------------------

interface Endpoint {
  op: Omit<SpecOperation, 'transactionType' | 'kind' | 'rateGroup' | 'requestRoot' | 'responseRoot' | 'listTag' | 'responseSequenceField'>;
  documentTitle: string;
}

/**
 * A digest of a sentence of the document, its spacing evened out: data/spec.json records the
 * document's prose (a rule, a header's meaning) by this and by the values in code it names, never its
 * words (the document is the bank's; the project keeps facts of it). The words stay in memory, for a
 * diff of two documents.
 */
export function proseDigest(text: string): string {
  return createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('hex').slice(0, 16);
}
/** The values a sentence gives in code (`SADADENQ`, `clientid`), in order, each once. */
const codeValues = (text: string): string[] => [...new Set([...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!))];

/** A part of the document a step reads (findPart): its table and a reader of its cells. */
type Part<K extends keyof typeof PARTS> = { table: MdTable; cell: (row: MdRow, c: keyof (typeof PARTS)[K]['columns']) => string };

/** What the import has read so far: each step below reads the document into it, in order. */
interface ImportState {
  ctx: Ctx;
  overrides: SpecOverrides;
  endpoints: Part<'endpoints'>;
  ops: Endpoint[];
  /** The field table of each body section the endpoints table names. */
  tables: Map<string, ReadTable>;
  opOverrides: { e: OverrideEntry; target: string }[];
  headers: SpecHeader[];
  limitPart: Part<'limits'>;
  limits: SpecLimit[];
  rules: SpecRule[];
  operations: SpecOperation[];
}

export function importMarkdown(text: string, source: { name: string; sha256: string }, overrides: SpecOverrides): ImportedSpec {
  const doc = parseMarkdown(text);
  const ctx: Ctx = {
    source: source.name, doc,
    fail(line, section, detail) { throw new SpecImportError({ source: source.name, line, section }, detail); },
  };
  const endpoints = findPart(ctx, 'endpoints');
  const st: ImportState = {
    ctx, overrides, endpoints, ops: readEndpoints(ctx, endpoints), tables: new Map(), opOverrides: [],
    headers: [], limitPart: findPart(ctx, 'limits'), limits: [], rules: [], operations: [],
  };
  for (const step of IMPORT_STEPS) step(st);
  const prefix = documentPrefix(st);
  return { fieldTables: fieldTablesOf(st, prefix), facts: factsOf(st, prefix, source) };
}

/** The import's steps, in order: each reads a part of the document, and may refuse it (SpecImportError). */
const IMPORT_STEPS: ((st: ImportState) => void)[] = [readBodies, applyOverrides, readProse, readOperations, checkValueRule, applyOperationOverrides, readRateGroups];

/** §4: the operations, and which sections hold their bodies. */
function readEndpoints(ctx: Ctx, endpoints: Part<'endpoints'>): Endpoint[] {
  const ops: Endpoint[] = endpoints.table.rows.map((r) => {
    const sec = endpoints.table.section;
    const title = endpoints.cell(r, 'operation');
    const method = endpoints.cell(r, 'method').toUpperCase();
    const path = stripTicks(endpoints.cell(r, 'path'));
    const rate = RATE.exec(endpoints.cell(r, 'rate'));
    const section = (c: 'request' | 'response') => {
      const s = endpoints.cell(r, c).replace(/^§\s*/, '');
      if (!/^\d+(\.\d+)*$/.test(s)) ctx.fail(r.line, sec, `${title}: the ${c} body "${s}" is not a section number`);
      return s;
    };
    if (!kebab(title)) ctx.fail(r.line, sec, 'an operation without a title');
    if (!/^[A-Z]+$/.test(method)) ctx.fail(r.line, sec, `${title}: cannot read the method "${method}"`);
    if (!path.startsWith('/')) ctx.fail(r.line, sec, `${title}: the path "${path}" does not start with /`);
    if (!rate) ctx.fail(r.line, sec, `${title}: cannot read the rate limit "${endpoints.cell(r, 'rate')}" (expected like "10 calls per minute")`);
    return {
      documentTitle: title,
      op: {
        id: kebab(title), title, method, path, rateLimit: Number(rate[1]), windowSeconds: WINDOW_SECONDS[rate[2]!.toLowerCase()]!,
        clientHeaders: false, sections: { request: section('request'), response: section('response'), endpoint: sec! }, line: r.line,
      },
    };
  });
  for (const [i, e] of ops.entries()) {
    if (ops.findIndex((o) => o.op.id === e.op.id) !== i) ctx.fail(e.op.line, endpoints.table.section, `two operations are called ${e.op.id}`);
  }
  return ops;
}

/** §2.x: the field table of each body the endpoints table names; a field table no endpoint uses is refused, not dropped. */
function readBodies(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { ops, tables } = st;
  for (const { op } of ops) {
    for (const direction of ['request', 'response'] as const) {
      const section = op.sections[direction];
      const heading = headingOf(ctx, section);
      if (!heading) ctx.fail(op.line, op.sections.endpoint, `${op.title}: its ${direction} body is §${section}, which the document does not have`);
      const table = ctx.doc.tables.find((t) => t.section === section);
      if (!table) ctx.fail(heading.line, section, `${op.title}'s ${direction} body (endpoints table, line ${op.line}): §${section} has no field table`);
      const message = /`([A-Za-z_]\w*)`/.exec(heading.title)?.[1];
      if (!message) ctx.fail(heading.line, section, `the heading of §${section} names no message in backticks (like (\`${'Svc'}...Request\`))`);
      if (tables.has(section)) ctx.fail(op.line, op.sections.endpoint, `§${section} is the body of two operations`);
      tables.set(section, readFieldTable(ctx, table, section, message, direction));
    }
  }
  for (const t of ctx.doc.tables) {
    if (!t.section || tables.has(t.section) || !FIELD_COLUMNS.path.match.test(t.header[0] ?? '') || !t.header.some((h) => FIELD_COLUMNS.type.match.test(h))) continue;
    ctx.fail(t.line, t.section, `a field table that is no operation's request or response body in the endpoints table (§${PARTS.endpoints.section})`);
  }
}

/** The overrides: each entry's sections are all field tables (applied now), or all the endpoints section (applied to the operations' facts below). */
function applyOverrides(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { overrides, tables, endpoints } = st;
  for (const e of overrides.entries) {
    const kinds = e.section.map((s) => (tables.has(s) ? 'field' : s === endpoints.table.section ? 'operation' : null));
    const bad = e.section.find((_s, i) => !kinds[i]);
    if (bad !== undefined) {
      const h = headingOf(ctx, bad);
      ctx.fail(h?.line ?? whereMissing(ctx, bad), bad, `${overrides.name} ${entryLabel(e)}: §${bad} ${h ? 'holds neither a field table nor the endpoints table' : 'is not in the document any more'}`);
    }
    if (new Set(kinds).size > 1) ctx.fail(undefined, null, `${overrides.name} ${entryLabel(e)}: mixes field tables and the endpoints table: split it`);
    const kind = kinds[0]!;
    checkEntry(e, kind, (d) => ctx.fail(headingOf(ctx, e.section[0]!)!.line, e.section[0], `${overrides.name} ${d}`));
    for (const s of e.section) for (const target of e.target) {
      if (kind === 'field') applyFieldOverride(ctx, e, tables.get(s)!, target, overrides.name);
      else st.opOverrides.push({ e, target });
    }
  }
}

/** §5, §8, the numbered rules: the document's prose kept by digest and values (data/spec.json keeps no sentence). */
function readProse(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { limitPart } = st;
  const headerPart = findPart(ctx, 'headers');
  st.headers = headerPart.table.rows.map((r) => ({ name: stripTicks(headerPart.cell(r, 'name')), digest: proseDigest(headerPart.cell(r, 'meaning')), meaning: headerPart.cell(r, 'meaning'), line: r.line }));
  st.limits = limitPart.table.rows.map((r) => ({ name: limitPart.cell(r, 'name'), value: limitPart.cell(r, 'value'), line: r.line }));
  st.rules = ctx.doc.items.filter((i) => i.section).map((i) => ({ id: `${i.section}.${i.number}`, section: i.section!, digest: proseDigest(i.text), values: codeValues(i.text), text: i.text, line: i.line }));
}

/** The operations' facts from their tables: TransactionType (request and answer agree), list tag, kind, sequence field. */
function readOperations(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { tables } = st;
  st.operations = st.ops.map(({ op }) => {
    const req = tables.get(op.sections.request)!;
    const res = tables.get(op.sections.response)!;
    const valueOf = (t: ReadTable) => {
      const field = TRANSACTION_TYPE_FIELD[t.direction];
      const row = t.fields.find((f) => f.path === `${t.root}.${field}`);
      if (!row?.const) ctx.fail(row?.line ?? t.table.line, t.section, `${op.title}: no fixed ${field} value in ${t.message} (a meaning like "Must be \`X\`")`);
      return row.const;
    };
    const transactionType = valueOf(req);
    if (valueOf(res) !== transactionType) ctx.fail(res.table.line, res.section, `${op.title}: ${res.message} answers ${TRANSACTION_TYPE_FIELD.response} ${valueOf(res)}, its request sends ${TRANSACTION_TYPE_FIELD.request} ${transactionType}`);
    const listOf = (t: ReadTable) => {
      const lists = t.fields.filter((f) => f.array && parentOf(f.path) === t.root);
      if (lists.length !== 1) ctx.fail(t.table.line, t.section, `${op.title}: ${t.message} has ${lists.length} arrays right under its root; expected one list of items`);
      return nameOf(lists[0]!.path);
    };
    const listTag = listOf(req);
    if (listOf(res) !== listTag) ctx.fail(res.table.line, res.section, `${op.title}: the response's list ${listOf(res)} is not the request's ${listTag}`);
    const kind = KINDS.find((k) => k.word.test(op.title))?.kind;
    if (!kind) ctx.fail(op.line, op.sections.endpoint, `${op.title}: its title says neither ${KINDS.map((k) => k.word.source.replace(/\\b/g, '')).join(' nor ')}`);
    const sequence = res.fields.find((f) => SEQUENCE_FIELDS.includes(nameOf(f.path)));
    const { line, ...rest } = op;
    return {
      id: op.id, title: op.title, method: op.method, path: op.path, transactionType, kind, rateGroup: '',
      rateLimit: op.rateLimit, windowSeconds: op.windowSeconds, requestRoot: req.message, responseRoot: res.message, listTag,
      responseSequenceField: sequence ? nameOf(sequence.path) : null, clientHeaders: rest.clientHeaders, sections: rest.sections, line,
    };
  });
}

/** §4's rule on TransactionType values must agree with the tables' fixed values. */
function checkValueRule(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { ops, endpoints } = st;
  const titled = (name: string) => {
    const words = name.trim().replace(/\s+/g, ' ');
    const both = /^(?:both|all)\s+(.+?)\s+operations$/i.exec(words) ?? /^(.+?)\s+operations$/i.exec(words);
    if (both) return ops.filter((o) => o.documentTitle.toLowerCase().startsWith(`${both[1]!.toLowerCase()} `)).map((o) => o.op.id);
    return ops.filter((o) => o.documentTitle.toLowerCase() === words.toLowerCase()).map((o) => o.op.id);
  };
  const valueRule = st.rules.find((r) => r.section === endpoints.table.section && r.text!.includes(`\`${TRANSACTION_TYPE_FIELD.request}\``));
  if (!valueRule) return;
  const stated = new Map<string, string>();
  for (const m of valueRule.text!.matchAll(/`([A-Z0-9_]+)`\s+for\s+(.+?)(?=\s*(?:,\s*|\s+and\s+)?`|\.(?:\s|$)|$)/g)) {
    for (const name of m[2]!.split(/\s*,\s*|\s+and\s+(?!.*operations$)/)) {
      const ids = titled(name);
      if (!ids.length) ctx.fail(valueRule.line, valueRule.section, `rule ${valueRule.id} gives ${m[1]} for "${name}", which is no operation of the endpoints table`);
      for (const id of ids) stated.set(id, m[1]!);
    }
  }
  for (const o of st.operations) {
    const said = stated.get(o.id);
    if (said !== o.transactionType) {
      ctx.fail(valueRule.line, valueRule.section, `rule ${valueRule.id} ${said ? `gives ${said}` : 'gives no value'} for ${o.title}; its tables (§${o.sections.request}, §${o.sections.response}) fix ${o.transactionType}`);
    }
  }
}

/** Operation overrides: the project's titles, facts the prose gives. */
function applyOperationOverrides(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { endpoints, overrides, operations } = st;
  for (const { e, target } of st.opOverrides) {
    const o = operations.find((x) => x.id === target);
    if (!o) ctx.fail(endpoints.table.line, endpoints.table.section, `${overrides.name} ${entryLabel(e)}: the endpoints table has no operation ${target} any more (its operations: ${operations.map((x) => x.id).join(', ')})`);
    Object.assign(o, e.set);
  }
}

/** §8: operations named in one rate row share a budget group, and the row agrees with §4. */
function readRateGroups(st: ImportState): void {
  const ctx: Ctx = st.ctx;
  const { ops, limits, limitPart, operations, overrides } = st;
  const grouped = new Map<string, SpecLimit>();
  for (const limit of limits) {
    const rate = RATE.exec(limit.value);
    if (!rate) continue;
    const named = ops.filter((o) => new RegExp(`\\b${o.documentTitle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'i').test(limit.name));
    if (!named.length) continue;
    const group = named[0]!.op.id.split('-')[0]!;
    for (const { op } of named) {
      const o = operations.find((x) => x.id === op.id)!;
      const before = grouped.get(o.id);
      if (before) ctx.fail(limit.line, limitPart.table.section, `${op.title} is named by two rate rows (lines ${before.line} and ${limit.line})`);
      grouped.set(o.id, limit);
      if (Number(rate[1]) !== o.rateLimit || WINDOW_SECONDS[rate[2]!.toLowerCase()] !== o.windowSeconds) {
        ctx.fail(limit.line, limitPart.table.section, `${op.title}: the limits table says ${limit.value}, the endpoints table (line ${o.line}) says ${o.rateLimit} per ${o.windowSeconds} s`);
      }
      if (!o.rateGroup) o.rateGroup = group;
    }
  }
  for (const o of operations) {
    if (!o.rateGroup) ctx.fail(limitPart.table.line, limitPart.table.section, `${o.title}: no rate row of the limits table names it, so its rate group is unknown (name it in a row, or set rateGroup in ${overrides.name})`);
  }
}

/** The prefix the document writes tags with; every message name must start with it. */
function documentPrefix(st: ImportState): string {
  const ctx: Ctx = st.ctx;
  const found = PREFIX_SOURCES.map((p) => p.find(ctx.doc, st.headers)).find(Boolean);
  if (!found) ctx.fail(1, null, `cannot tell the tag prefix: neither ${PREFIX_SOURCES.map((p) => p.what).join(' nor ')} gives it`);
  for (const t of st.tables.values()) {
    if (!t.message.startsWith(found)) ctx.fail(headingOf(ctx, t.section)!.line, t.section, `the message ${t.message} does not start with the document's prefix ${found}`);
  }
  return found;
}

/** data/field-tables.json: each operation's two messages, in the endpoints table's order. */
function fieldTablesOf(st: ImportState, prefix: string) {
  const messages: Record<string, MessageTable> = {};
  for (const o of st.operations) {
    for (const direction of ['request', 'response'] as const) {
      const t = st.tables.get(o.sections[direction])!;
      messages[`${o.id}.${direction}`] = { section: t.section, message: t.message, direction, fields: t.fields.map(({ line: _line, ...row }) => orderedRow(row)) };
    }
  }
  const sectionIds = Object.values(messages).map((m) => m.section);
  return {
    $comment: FIELD_TABLES_COMMENT(sectionIds[0] ?? '', sectionIds[sectionIds.length - 1] ?? '', prefix),
    prefix,
    types: Object.fromEntries(Object.entries(TYPES).map(([k, v]) => [k, v.meaning])),
    formats: { ...FORMATS },
    messages,
  };
}

/** data/spec.json: the document itself (title, source, hash, the version it states) and its facts. */
function factsOf(st: ImportState, prefix: string, source: { name: string; sha256: string }): SpecFacts {
  const ctx: Ctx = st.ctx;
  const doc = ctx.doc;
  const versionSection = doc.headings.find((h) => h.id && /version/i.test(h.title))?.id;
  const version = [...doc.paragraphs, ...doc.items]
    .filter((p) => p.section === null || p.section === versionSection)
    .map((p) => /\bversion\b\s*:?\s*`?v?(\d+(?:\.\d+)*)`?/i.exec(p.text)?.[1])
    .find(Boolean) ?? null;
  return {
    $comment: SPEC_COMMENT,
    document: {
      title: doc.title ?? ctx.fail(1, null, 'the document has no title (a level-1 heading)'),
      source: source.name,
      sha256: source.sha256.startsWith('sha256:') ? source.sha256 : `sha256:${source.sha256}`,
      version,
    },
    prefix,
    sections: doc.headings.filter((h) => h.id).map((h) => ({ id: h.id!, title: h.title, line: h.line })),
    operations: st.operations,
    headers: st.headers,
    rules: st.rules,
    limits: st.limits,
  };
}
