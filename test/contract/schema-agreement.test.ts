/**
 * The schemas and data/field-tables.json must say the same thing, path by path, in both
 * directions: required flag, table type, sample type (lenient), format, limits, spellings.
 * The schemas are read back here on their own terms (walking properties, required, alias groups
 * and the shared definitions they reference), not regenerated, so a drift on either side fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { SCHEMAS_DIR } from '../../src/paths.js';
import { fieldTables, type FieldRow } from '../../src/contract/field-tables.js';
import { operations } from '../../src/contract/catalogue.js';
import { schemaFileName, type Profile } from '../../src/contract/schema-files.js';

type Schema = Record<string, any>;
const readSchema = (file: string): Schema => JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8'));
const common = readSchema('common.schema.json');

/** What each shared definition stands for in table terms. */
const DEF_MEANING: Record<string, Partial<FieldRow>> = {
  RequestString: { type: 'String' },
  String: { type: 'String' },
  Number: { type: 'Numerical' },
  Boolean: { type: 'Boolean' },
  Alphanumeric: { type: 'Alphanumeric', pattern: 'alphanumeric' },
  Date: { type: 'String', format: 'YYYYMMDD' },
  TimeStamp: { type: 'String', format: 'YYYY-MM-DDTHH:MM:SS' },
  StringOrNumber: { type: 'String', sampleType: 'number' },
  NumberOrNumericString: { type: 'Numerical', sampleType: 'string' },
  StatusFlag: { type: 'Boolean', sampleType: 'string' },
};
const LENIENT_ONLY = new Set(['StringOrNumber', 'NumberOrNumericString', 'StatusFlag']);

/** Comparable form of a row: only what both sides can state. */
interface Row { path: string; required: boolean; type: string; array: boolean; sampleType?: string; format?: string; const?: string; maxLength?: number; pattern?: string; aliases?: string[] }

function schemaRows(schema: Schema, profile: Profile): { rows: Row[]; defsUsed: Set<string> } {
  const rows: Row[] = [];
  const defsUsed = new Set<string>();
  const walkObject = (node: Schema, prefix: string) => {
    expect(node.type, `${prefix || '(root)'} is an object`).toBe('object');
    const groups: string[][] = [node.anyOf, ...(node.allOf ?? []).map((g: Schema) => g.anyOf)]
      .filter(Boolean).map((branches: Schema[]) => branches.map((b) => { expect(b.required).toHaveLength(1); return b.required[0]; }));
    const aliasOf = new Map<string, string>();
    for (const g of groups) for (const alias of g.slice(1)) aliasOf.set(alias, g[0]!);
    for (const [name, child] of Object.entries<Schema>(node.properties ?? {})) {
      if (aliasOf.has(name)) { expect(child, `${name} has the same schema as ${aliasOf.get(name)}`).toEqual(node.properties[aliasOf.get(name)!]); continue; }
      const group = groups.find((g) => g[0] === name);
      const required = (node.required ?? []).includes(name) || !!group;
      walkField(child, prefix ? `${prefix}.${name}` : name, required, group?.slice(1));
    }
    for (const name of node.required ?? []) expect(node.properties, `required ${name} is defined`).toHaveProperty(name);
  };
  const walkField = (node: Schema, path: string, required: boolean, aliases?: string[]) => {
    const row: Row = { path, required, type: '', array: false };
    if (aliases?.length) row.aliases = aliases;
    if (node.type === 'array') {
      expect(node.minItems, `${path} has at least one entry`).toBe(1);
      row.array = true;
      row.path += '[]';
      node = node.items;
    }
    if (node.type === 'object') {
      row.type = 'Object';
      rows.push(row);
      walkObject(node, row.path);
      return;
    }
    const def = /^common\.schema\.json#\/\$defs\/(\w+)$/.exec(node.$ref ?? '')?.[1];
    expect(def, `${path} references a shared leaf type`).toBeTruthy();
    expect(common.$defs).toHaveProperty(def!);
    defsUsed.add(def!);
    Object.assign(row, DEF_MEANING[def!]);
    if (node.const !== undefined) row.const = node.const;
    if (node.maxLength !== undefined) row.maxLength = node.maxLength;
    if (profile === 'request') expect(['RequestString', 'Number', 'Boolean', 'Alphanumeric'], `${path}: request leaf type`).toContain(def);
    rows.push(row);
  };
  walkObject(schema, '');
  return { rows, defsUsed };
}

function tableRows(fields: FieldRow[], profile: Profile): Row[] {
  return fields.map((f) => {
    const row: Row = { path: f.path, required: f.required, type: f.type, array: !!f.array };
    if (f.format) row.format = f.format;
    if (f.const !== undefined) row.const = f.const;
    if (f.maxLength !== undefined) row.maxLength = f.maxLength;
    if (f.pattern) row.pattern = f.pattern;
    if (profile !== 'strict' && f.sampleType) row.sampleType = f.sampleType;
    if (profile !== 'strict' && f.aliases) row.aliases = f.aliases;
    return row;
  });
}

test('the shared leaf definitions have the JSON types the tables name', () => {
  const jsonType: Record<string, string> = { String: 'string', Numerical: 'number', Boolean: 'boolean', Alphanumeric: 'string' };
  for (const [def, meaning] of Object.entries(DEF_MEANING)) {
    const types = [common.$defs[def].type].flat();
    expect(types[0], `${def} is first of all a ${meaning.type}`).toBe(jsonType[meaning.type!]);
    expect(types.length > 1, `${def}: a second JSON type only where a sample shows one`).toBe(LENIENT_ONLY.has(def));
    if (meaning.sampleType) expect(types).toContain(meaning.sampleType);
  }
  expect(common.$defs.RequestString.minLength).toBe(1);
  expect(common.$defs.Alphanumeric.pattern).toBe('^[A-Za-z0-9]+$');
});

for (const op of operations) {
  for (const profile of ['request', 'lenient', 'strict'] as const) {
    const file = schemaFileName(op.id, profile);
    test(`${file} agrees with the field table, both directions`, () => {
      const table = fieldTables.messages[`${op.id}.${profile === 'request' ? 'request' : 'response'}`]!;
      const { rows, defsUsed } = schemaRows(readSchema(file), profile);
      const fromTable = tableRows(table.fields, profile);
      const byPath = (rs: Row[]) => new Map(rs.map((r) => [r.path, r]));
      const s = byPath(rows), t = byPath(fromTable);
      expect([...s.keys()].filter((p) => !t.has(p)), 'paths in the schema but not in the table').toEqual([]);
      expect([...t.keys()].filter((p) => !s.has(p)), 'paths in the table but not in the schema').toEqual([]);
      for (const [path, row] of t) expect(s.get(path), path).toEqual(row);
      if (profile === 'strict') expect([...defsUsed].filter((d) => LENIENT_ONLY.has(d)), 'strict uses only the tables\' types').toEqual([]);
    });
  }
}
