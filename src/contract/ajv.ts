/**
 * The one place an Ajv is built, for every schema the suite checks a document against: the
 * contract's (validator.ts), SADAD_BASELINE's and SADAD_DATA_FILE's, and the package's and CTRF's
 * (verify-package). Every Ajv collects all errors, so a message can name the first few rather than
 * stop at one.
 *
 * - `dialect`: JSON Schema 2020-12 (the suite's own schemas), or draft-07 (CTRF's vendored schema,
 *   which Ajv2020 does not read).
 * - `strict`: Ajv's strict mode, with union types allowed (the lenient profile's `["boolean",
 *   "string"]`): an unknown keyword or format, or an ambiguous type, stops the schema compiling. The
 *   schemas the suite writes and ships are compiled strictly; the baseline's and the data file's
 *   keep Ajv's defaults, as they always had.
 * - `formats`: ajv-formats' `date-time`, `uri` and the rest (the contract and CTRF use them).
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';

// ajv-formats is CommonJS: under nodenext its callable export sits on `.default`.
const addFormats = ajvFormats.default;

export interface AjvSpec {
  dialect?: '2020-12' | 'draft-07';
  strict?: boolean;
  formats?: boolean;
}

function build(spec: AjvSpec): Ajv | Ajv2020 {
  const options = { allErrors: true, ...(spec.strict ? { strict: true, allowUnionTypes: true } : {}) };
  const ajv = spec.dialect === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
  if (spec.formats) addFormats(ajv);
  return ajv;
}

/** A new Ajv of this spec, for a caller that adds schemas and formats of its own (validator.ts). */
export function newAjv(spec: AjvSpec & { dialect: 'draft-07' }): Ajv;
export function newAjv(spec?: AjvSpec & { dialect?: '2020-12' }): Ajv2020;
export function newAjv(spec: AjvSpec = {}): Ajv | Ajv2020 {
  return build(spec);
}

/** The schema in `file` (JSON), compiled by a new Ajv of this spec. */
export function compileSchemaFile(file: string, spec: AjvSpec = {}): ValidateFunction {
  return build(spec).compile(JSON.parse(readFileSync(file, 'utf8')));
}
