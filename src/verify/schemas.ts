/**
 * The schemas a package's files are checked against: certification.json against the suite's own
 * schemas/certification.schema.json (JSON Schema 2020-12), ctrf.json against the CTRF schema
 * vendored in schemas/vendor/ctrf.schema.json (draft-07, so Ajv's draft-07 class, not Ajv2020).
 */
import { join } from 'node:path';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileSchemaFile } from '../contract/ajv.js';
import { SCHEMAS_DIR } from '../paths.js';

export const CTRF_SCHEMA_FILE = join(SCHEMAS_DIR, 'vendor', 'ctrf.schema.json');
export const CERTIFICATION_SCHEMA_FILE = join(SCHEMAS_DIR, 'certification.schema.json');

let certification: ValidateFunction | undefined;
let ctrf: ValidateFunction | undefined;

export function certificationValidator(): ValidateFunction {
  certification ??= compileSchemaFile(CERTIFICATION_SCHEMA_FILE, { strict: true });
  return certification;
}

export function ctrfValidator(): ValidateFunction {
  ctrf ??= compileSchemaFile(CTRF_SCHEMA_FILE, { dialect: 'draft-07', strict: true, formats: true });
  return ctrf;
}

/**
 * The case a JSON pointer into a package file lands in: an element of certification.json's `cases`
 * (its `id`), of ctrf.json's `results.tests` (its `name`, the case id), or any element naming a case
 * in `case` (`changed`, the waivers). A pointer alone (`/cases/6`) makes the bank count entries to
 * find which case is wrong; null when the pointer is in no case, or the case names itself badly.
 */
export function caseAt(document: unknown, pointer: string): string | null {
  let node = document;
  let key: string | null = null;
  let found: string | null = null;
  for (const raw of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') break;
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const next: unknown = Array.isArray(node) ? node[Number(seg)] : (node as Record<string, unknown>)[seg];
    if (Array.isArray(node) && next && typeof next === 'object' && !Array.isArray(next)) {
      const o = next as Record<string, unknown>;
      const id = key === 'cases' ? o.id : key === 'tests' ? o.name : o.case;
      if (typeof id === 'string' && id !== '') found = id;
    }
    key = seg;
    node = next;
  }
  if (found === null) return null;
  // a forged file may name a case anything: one plain line, never more than a case id needs
  return /^[\w.*:-]{1,200}$/.test(found) ? found : JSON.stringify(found.slice(0, 200));
}

/** Ajv's errors in one line each: `<pointer> <message>`, with the case the pointer is in when `document` is given. */
export function errorLines(errors: ErrorObject[] | null | undefined, max = 3, document?: unknown): string[] {
  const lines = (errors ?? []).map((e) => {
    const kase = document === undefined ? null : caseAt(document, e.instancePath);
    return `${e.instancePath || '/'}${kase ? ` (case ${kase})` : ''} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : ''}`;
  });
  return lines.length > max ? [...lines.slice(0, max), `and ${lines.length - max} more`] : lines;
}
