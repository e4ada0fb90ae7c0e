/**
 * Writes schemas/*.schema.json from data/field-tables.json.
 * The schemas are committed and reviewed like code; test/contract/schema-agreement.test.ts reads them
 * back independently, so a hand edit to either side, or a table change not regenerated, fails CI.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../src/paths.js';
import { fieldTables, type FieldRow } from '../src/contract/field-tables.js';
import { SCHEMA_BASE, schemaFileName, type Profile } from '../src/contract/schema-files.js';

type Json = Record<string, unknown>;
const ref = (def: string): Json => ({ $ref: `common.schema.json#/$defs/${def}` });

/** The shared definition a leaf uses; the agreement test maps these names back to table types. */
function leafDef(row: FieldRow, direction: 'request' | 'response', profile: Profile): string {
  if (row.type === 'Alphanumeric') return 'Alphanumeric';
  if (direction === 'request') return ({ String: 'RequestString', Numerical: 'Number', Boolean: 'Boolean' } as const)[row.type as 'String'];
  const lenient = profile === 'lenient';
  if (row.format === 'YYYYMMDD') return 'Date';
  if (row.format === 'YYYY-MM-DDTHH:MM:SS') return 'TimeStamp';
  if (row.type === 'String') return lenient && row.sampleType === 'number' ? 'StringOrNumber' : 'String';
  if (row.type === 'Numerical') return lenient && row.sampleType === 'string' ? 'NumberOrNumericString' : 'Number';
  if (row.type === 'Boolean') return lenient && row.sampleType === 'string' ? 'StatusFlag' : 'Boolean';
  throw new Error(`no schema type for ${row.path} (${row.type})`);
}

interface Node { row?: FieldRow; children: Map<string, Node> }

function tree(rows: FieldRow[]): Node {
  const root: Node = { children: new Map() };
  for (const row of rows) {
    let node = root;
    for (const seg of row.path.split('.')) {
      const key = seg.replace(/\[\]$/, '');
      if (!node.children.has(key)) node.children.set(key, { children: new Map() });
      node = node.children.get(key)!;
    }
    node.row = row;
  }
  return root;
}

function objectSchema(node: Node, direction: 'request' | 'response', profile: Profile): Json {
  const properties: Json = {};
  const required: string[] = [];
  const anyOf: Json[] = [];
  for (const [name, child] of node.children) {
    const row = child.row!;
    const schema = fieldSchema(child, direction, profile);
    properties[name] = schema;
    const aliases = direction === 'request' || profile === 'lenient' ? row.aliases ?? [] : [];
    for (const alias of aliases) properties[alias] = schema;
    if (!row.required) continue;
    if (aliases.length) anyOf.push({ anyOf: [name, ...aliases].map((n) => ({ required: [n], properties: { [n]: true } })) });
    else required.push(name);
  }
  const out: Json = { type: 'object', required, properties };
  if (anyOf.length === 1) Object.assign(out, anyOf[0]);
  else if (anyOf.length > 1) out.allOf = anyOf;
  return out;
}

function fieldSchema(node: Node, direction: 'request' | 'response', profile: Profile): Json {
  const row = node.row!;
  let schema: Json;
  if (row.type === 'Object') schema = objectSchema(node, direction, profile);
  else {
    schema = ref(leafDef(row, direction, profile));
    if (row.const !== undefined) schema.const = row.const;
    if (row.maxLength !== undefined) Object.assign(schema, { type: 'string', maxLength: row.maxLength });
  }
  return row.array ? { type: 'array', minItems: 1, items: schema } : schema;
}

for (const [key, table] of Object.entries(fieldTables.messages)) {
  const [op, direction] = key.split('.') as [string, 'request' | 'response'];
  const profiles: Profile[] = direction === 'request' ? ['request'] : ['lenient', 'strict'];
  for (const profile of profiles) {
    const file = schemaFileName(op, profile);
    const body = objectSchema(tree(table.fields), direction, profile);
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: `${SCHEMA_BASE}${file}`,
      title: `${table.message} (${profile === 'request' ? 'request' : `${profile} profile`}), api-spec §${table.section}`,
      ...body,
    };
    // the project's schemas/, wherever it is run from (the importer runs this script as a child process)
    writeFileSync(join(SCHEMAS_DIR, file), JSON.stringify(schema, null, 2) + '\n');
  }
}
console.log('schemas written');
