/**
 * The fields an answer's item and TransactionData entry carry, as the response tables document them
 * (§2.2, §2.4, §2.6, §2.8): what the mock sends and the OpenAPI examples show, so that both follow an
 * imported document without a code change. A field the tables dropped is no longer sent; one they
 * added is sent with a value its row allows (the caller's `fill`), until code gives it a realistic one.
 */
import type { OperationId } from './catalogue.js';
import { fieldName, messageTable, type FieldRow } from './field-tables.js';
import type { Fields } from './message.js';

/** The response rows of one level, keyed by every spelling (name and aliases). */
export type LevelRows = ReadonlyMap<string, FieldRow>;

/** Path depth of a response item's fields (`Root.List[].Field`) and of an entry's (`Root.List[].TransactionData[].Field`). */
const DEPTH = { item: 3, entry: 4 } as const;

const cache = new Map<string, LevelRows>();

/** The response table's rows at the item or entry level of the operation's answer (read once). */
export function responseRows(opId: OperationId, level: keyof typeof DEPTH): LevelRows {
  const key = `${opId} ${level}`;
  let rows = cache.get(key);
  if (!rows) {
    const map = new Map<string, FieldRow>();
    for (const row of messageTable(opId, 'response').fields) {
      if (row.path.split('.').length !== DEPTH[level]) continue;
      for (const name of [fieldName(row.path), ...(row.aliases ?? [])]) map.set(name, row);
    }
    rows = map;
    cache.set(key, rows);
  }
  return rows;
}

/**
 * The fields the rows document, in the order given, and after them every documented field that is
 * missing in all its spellings, with `fill(row)` (left out when `fill` gives undefined: an Object or
 * a list whose content only its own rows could say).
 */
export function documentedOnly(fields: Fields, rows: LevelRows, fill: (row: FieldRow) => unknown): Fields {
  const out: Fields = {};
  for (const [k, v] of Object.entries(fields)) if (rows.has(k)) out[k] = v;
  for (const row of new Set(rows.values())) {
    const name = fieldName(row.path);
    if (name in out || row.aliases?.some((a) => a in out)) continue;
    const value = fill(row);
    if (value !== undefined) out[name] = value;
  }
  return out;
}
