/**
 * Single-defect variants of a valid request, one per required field and kind of defect, plus the
 * table limits (e.g. AccountNumber at its maxLength, one over, non-alphanumeric) and TransactionType pairing. Ids are
 * stable across runs and prefixes: they use the field names as the spec writes them.
 */
import { fieldName, messageTable, type FieldRow } from '../contract/field-tables.js';
import { operation, operations, type OperationId } from '../contract/catalogue.js';
import { withTagPrefix } from '../contract/prefix.js';

export type MutationKind = 'missing' | 'wrong-type' | 'null' | 'empty' | 'at-limit' | 'over-limit' | 'non-alphanumeric' | 'foreign' | 'unknown';

export interface Mutation {
  /** `<field>.<kind>`, e.g. `Amount.missing`; prefix it with the operation id for a rule id. */
  id: string;
  field: string;
  /** Field-table path (spec prefix). */
  path: string;
  /** JSON pointer of the mutated field in `body` (deployment prefix, first item / first entry). */
  pointer: string;
  kind: MutationKind;
  /** Whether the mutated request is still valid (e.g. an AccountNumber of exactly its table's maxLength). */
  valid: boolean;
  description: string;
  body: unknown;
}

interface Located { parent: Record<string, unknown>; key: string; pointer: string }

/** Finds a table path in a body, taking index 0 of every array on the way. */
function locate(body: unknown, path: string, tagPrefix: string): Located {
  const segs = path.split('.');
  let node = body as Record<string, unknown>;
  let pointer = '';
  for (let i = 0; i < segs.length; i++) {
    const array = segs[i]!.endsWith('[]');
    const key = withTagPrefix(segs[i]!.replace(/\[\]$/, ''), tagPrefix);
    if (i === segs.length - 1) return { parent: node, key, pointer: `${pointer}/${key}` };
    pointer += `/${key}`;
    node = node[key] as Record<string, unknown>;
    if (array) { node = (node as unknown as unknown[])[0] as Record<string, unknown>; pointer += '/0'; }
    if (node === null || typeof node !== 'object') throw new Error(`valid body lacks ${path} at ${pointer}`);
  }
  throw new Error(`empty path`);
}

function wrongType(row: FieldRow, value: unknown): unknown {
  if (row.array) return Array.isArray(value) ? value[0] : {};   // an object where an array belongs
  switch (row.type) {
    case 'Object': return [value];                                // an array where an object belongs
    case 'Numerical': return String(value);                      // "150.5": the subtle one, a numeric string
    case 'Boolean': return String(value);                        // "true"
    default: return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : 12345; // a number where a string belongs
  }
}

function emptyValue(row: FieldRow): unknown | undefined {
  if (row.array) return [];
  if (row.type === 'Object') return {};
  if (row.type === 'String' || row.type === 'Alphanumeric') return '';
  return undefined;                                               // numbers and booleans have no empty form; null covers them
}

/** `only`: just the mutation with that id (a case needs one; cloning the body for all cost more than the case). */
export function mutationsOf(opId: OperationId, validBody: unknown, tagPrefix: string, only?: string): Mutation[] {
  const out: Mutation[] = [];
  const add = (row: FieldRow, kind: MutationKind, valid: boolean, description: string, change: (l: Located) => void) => {
    if (only !== undefined && `${fieldName(row.path)}.${kind}` !== only) return;
    const body = structuredClone(validBody);
    const at = locate(body, row.path, tagPrefix);
    change(at);
    const field = fieldName(row.path);
    out.push({ id: `${field}.${kind}`, field, path: row.path, pointer: at.pointer, kind, valid, description, body });
  };
  for (const row of messageTable(opId, 'request').fields) {
    if (!row.required) continue;
    const names = (at: Located) => [at.key, ...(row.aliases ?? [])];
    add(row, 'missing', false, `${fieldName(row.path)} omitted`, (at) => { for (const n of names(at)) delete at.parent[n]; });
    add(row, 'wrong-type', false, `${fieldName(row.path)} of the wrong JSON type`, (at) => { at.parent[at.key] = wrongType(row, at.parent[at.key]); });
    add(row, 'null', false, `${fieldName(row.path)} null`, (at) => { at.parent[at.key] = null; });
    const empty = emptyValue(row);
    if (empty !== undefined) add(row, 'empty', false, `${fieldName(row.path)} empty`, (at) => { at.parent[at.key] = empty; });
    if (row.maxLength !== undefined) {
      const max = row.maxLength;
      add(row, 'at-limit', true, `${fieldName(row.path)} of exactly ${max} characters`, (at) => { at.parent[at.key] = lengthOf(String(at.parent[at.key]), max); });
      add(row, 'over-limit', false, `${fieldName(row.path)} of ${max + 1} characters`, (at) => { at.parent[at.key] = lengthOf(String(at.parent[at.key]), max + 1); });
    }
    if (row.pattern === 'alphanumeric') {
      add(row, 'non-alphanumeric', false, `${fieldName(row.path)} with a hyphen and a space`, (at) => { at.parent[at.key] = `${String(at.parent[at.key]).slice(0, 6)}-12 34`; });
    }
    if (row.const !== undefined && fieldName(row.path) === 'TransactionType') {
      const foreign = operations.find((o) => o.transactionType !== operation(opId).transactionType)!.transactionType;
      add(row, 'foreign', false, `TransactionType ${foreign} of another operation`, (at) => { at.parent[at.key] = foreign; });
      add(row, 'unknown', false, 'TransactionType not defined by the spec', (at) => { at.parent[at.key] = 'SADADXXX'; });
    }
  }
  return out;
}

/** Pads (with digits) or cuts an alphanumeric value to an exact length. */
function lengthOf(value: string, length: number): string {
  const base = value.replace(/[^A-Za-z0-9]/g, '') || 'A';
  return (base + '0123456789'.repeat(Math.ceil(length / 10))).slice(0, length);
}
