/**
 * The schemas a package's files are checked against: certification.json against the suite's own
 * schemas/certification.schema.json (JSON Schema 2020-12), ctrf.json against the CTRF schema
 * vendored in schemas/vendor/ctrf.schema.json (draft-07, so Ajv's draft-07 class, not Ajv2020).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { SCHEMAS_DIR } from '../paths.js';

const addFormats = ajvFormats.default;
export const CTRF_SCHEMA_FILE = join(SCHEMAS_DIR, 'vendor', 'ctrf.schema.json');
export const CERTIFICATION_SCHEMA_FILE = join(SCHEMAS_DIR, 'certification.schema.json');

let certification: ValidateFunction | undefined;
let ctrf: ValidateFunction | undefined;

export function certificationValidator(): ValidateFunction {
  if (!certification) {
    const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
    certification = ajv.compile(JSON.parse(readFileSync(CERTIFICATION_SCHEMA_FILE, 'utf8')));
  }
  return certification;
}

export function ctrfValidator(): ValidateFunction {
  if (!ctrf) {
    const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
    addFormats(ajv);
    ctrf = ajv.compile(JSON.parse(readFileSync(CTRF_SCHEMA_FILE, 'utf8')));
  }
  return ctrf;
}

/** Ajv's errors in one line each: `<pointer> <message>`. */
export function errorLines(errors: ErrorObject[] | null | undefined, max = 3): string[] {
  const lines = (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : ''}`);
  return lines.length > max ? [...lines.slice(0, max), `and ${lines.length - max} more`] : lines;
}
