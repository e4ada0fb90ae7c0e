/**
 * The importer's own vocabulary: the words of the field tables' Type column and the date formats it
 * knows, with what each means. Written into data/field-tables.json (`types`, `formats`) so that a
 * reader of that file needs no code to know what a type stands for. A document that uses a word
 * not listed here is refused (an unknown type is a question for a person, never a guess).
 */
import type { FieldRow } from '../contract/field-tables.js';

export type FieldType = FieldRow['type'];
export type FieldFormat = NonNullable<FieldRow['format']>;

export const TYPES: Record<FieldType, { meaning: string; pattern?: FieldRow['pattern'] }> = {
  String: { meaning: 'string' },
  Numerical: { meaning: 'number' },
  Boolean: { meaning: 'boolean' },
  Object: { meaning: 'object' },
  Alphanumeric: { meaning: 'string of letters and digits', pattern: 'alphanumeric' },
};

export const FORMATS: Record<FieldFormat, string> = {
  YYYYMMDD: '^\\d{8}$ and a real calendar date',
  'YYYY-MM-DDTHH:MM:SS': 'ISO 8601 local date-time without zone or fraction',
};

export const SAMPLE_TYPES: readonly NonNullable<FieldRow['sampleType']>[] = ['string', 'number'];

/**
 * The order of a field row's keys in data/field-tables.json: the order the hand transcription
 * used, so that the first import changed nothing in the file.
 */
export const FIELD_KEY_ORDER: readonly (keyof FieldRow)[] = [
  'path', 'required', 'type', 'array', 'sampleType', 'const', 'format', 'maxLength', 'pattern', 'aliases', 'sampleFormat',
];

export const isFieldType = (s: string): s is FieldType => Object.hasOwn(TYPES, s);
export const isFormat = (s: string): s is FieldFormat => Object.hasOwn(FORMATS, s);

/** A row with its keys in FIELD_KEY_ORDER, absent ones left out. */
export function orderedRow(row: FieldRow): FieldRow {
  const out: Record<string, unknown> = {};
  for (const key of FIELD_KEY_ORDER) if (row[key] !== undefined) out[key] = row[key];
  return out as unknown as FieldRow;
}
