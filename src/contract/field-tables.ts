import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR } from '../paths.js';

/** One row of a spec field table (api-spec §2.1-§2.8), as transcribed in data/field-tables.json. */
export interface FieldRow {
  /** Dotted path written with the spec prefix `Svc`; `[]` marks an array of objects. */
  path: string;
  required: boolean;
  type: 'String' | 'Numerical' | 'Boolean' | 'Object' | 'Alphanumeric';
  array?: boolean;
  /** JSON type a sample shows where the spec notes it differs from the table. */
  sampleType?: 'string' | 'number';
  const?: string;
  format?: 'YYYYMMDD' | 'YYYY-MM-DDTHH:MM:SS';
  sampleFormat?: string;
  maxLength?: number;
  pattern?: 'alphanumeric';
  aliases?: string[];
}

export interface MessageTable {
  section: string;
  message: string;
  direction: 'request' | 'response';
  fields: FieldRow[];
}

export interface FieldTables {
  prefix: string;
  messages: Record<string, MessageTable>;
}

export const fieldTables: FieldTables = JSON.parse(readFileSync(join(DATA_DIR, 'field-tables.json'), 'utf8'));

export function messageTable(opId: string, direction: 'request' | 'response'): MessageTable {
  const table = fieldTables.messages[`${opId}.${direction}`];
  if (!table) throw new Error(`data/field-tables.json has no ${opId}.${direction}`);
  return table;
}

/** Last segment of a table path without the array marker: the field's own name. */
export function fieldName(path: string): string {
  return path.split('.').pop()!.replace(/\[\]$/, '');
}
