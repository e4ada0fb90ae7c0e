/**
 * Writes an import's result: data/field-tables.json and data/spec.json, both rendered first and
 * then each renamed into place (writeFileAtomic), so a failed import leaves the old files whole.
 * Both keep the reviewed layout of field-tables.json, one field row (rule, header, limit) per line
 * (a row with a list in it, its aliases, spread over lines), so that a change of the document shows
 * in a diff as a change of its rows.
 */
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic.js';
import type { SpecFacts } from '../contract/spec-model.js';
import type { ImportedSpec } from './import.js';

export const FILES = { fieldTables: 'field-tables.json', facts: 'spec.json' } as const;

const isFlat = (v: unknown): v is Record<string, unknown> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every((x) => x === null || typeof x !== 'object');

/**
 * JSON.stringify's two-space layout, except that an object in a list whose values are all plain
 * (a field row, a rule, a header) stands on one line: `{ "path": "...", "required": true }`.
 */
export function renderJson(value: unknown, pad = ''): string {
  const inner = `${pad}  `;
  if (Array.isArray(value)) {
    if (!value.length) return '[]';
    return `[\n${value.map((v) => inner + (isFlat(v) ? inline(v) : renderJson(v, inner))).join(',\n')}\n${pad}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (!entries.length) return '{}';
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${renderJson(v, inner)}`).join(',\n')}\n${pad}}`;
  }
  return JSON.stringify(value);
}

const inline = (o: Record<string, unknown>) => {
  const entries = Object.entries(o).filter(([, v]) => v !== undefined);
  return entries.length ? `{ ${entries.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')} }` : '{}';
};

export const renderFieldTables = (tables: ImportedSpec['fieldTables']): string => `${renderJson(tables)}\n`;
export const renderFacts = (facts: SpecFacts): string => `${renderJson(asWritten(facts))}\n`;

/** The facts as data/spec.json keeps them: the document's prose by its digest and values, never its words. */
export function asWritten(facts: SpecFacts): SpecFacts {
  return {
    ...facts,
    headers: facts.headers.map(({ meaning: _words, ...h }) => h),
    rules: facts.rules.map(({ text: _words, ...r }) => r),
  };
}

/** Writes both files into `dir`; returns the paths written. Call only with a whole import. */
export function writeSpec(dir: string, spec: ImportedSpec): string[] {
  const files: [string, string][] = [
    [join(dir, FILES.fieldTables), renderFieldTables(spec.fieldTables)],
    [join(dir, FILES.facts), renderFacts(spec.facts)],
  ];
  for (const [file, text] of files) writeFileAtomic(file, text);
  return files.map(([file]) => file);
}
