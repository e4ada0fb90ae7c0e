/**
 * One Ajv (draft 2020-12, strict mode) per tag prefix, compiling every schema once, and the two
 * validation entry points. Findings are structured so a report can print them as they are.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { SCHEMAS_DIR } from '../paths.js';
import { operation, operations, type OperationId } from './catalogue.js';
import { isSpecDate, isSpecTimestamp } from './formats.js';
import { SPEC_PREFIX } from './prefix.js';
import { SCHEMA_BASE, schemaFileName, type Profile } from './schema-files.js';
import { newAjv } from './ajv.js';

export interface Finding {
  /** JSON pointer (RFC 6901) into the validated body; for a missing field, the pointer it should have. */
  pointer: string;
  /** What the contract expects there. */
  expected: string;
  /** What the body holds there (`missing` when absent). */
  found: string;
  /** The JSON Schema keyword that failed. */
  keyword: string;
}

export interface ValidationResult {
  valid: boolean;
  findings: Finding[];
}

export type ResponseProfile = Exclude<Profile, 'request'>;

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function valueAt(data: unknown, pointer: string): { present: boolean; value?: unknown } {
  let node: unknown = data;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, key)) return { present: false };
    node = (node as Record<string, unknown>)[key];
  }
  return { present: true, value: node };
}

export function describeValue(value: unknown): string {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  let text: string;
  try {
    // a long string is cut before it is quoted: a megabyte value is not copied to show 80 characters
    text = typeof value === 'string' && value.length > 80 ? JSON.stringify(value.slice(0, 80)) : JSON.stringify(value) ?? String(value);
  } catch {
    text = kind === 'array' ? '[...]' : '{...}'; // RangeError: nested thousands deep, past what JSON.stringify can walk
  }
  return `${kind} ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
}

function toFindings(errors: ErrorObject[] | null | undefined, data: unknown): Finding[] {
  if (!errors) return [];
  // An alias group (anyOf of `required`) reports each branch too; keep only the group's own error.
  // Linear in the errors: a request of thousands of bad entries must not take seconds to describe.
  const aliasGroups = [...new Set(errors.filter((e) => e.keyword === 'anyOf').map((e) => e.schemaPath))];
  const groupsOf = (e: ErrorObject) => aliasGroups.filter((p) => e.schemaPath !== p && e.schemaPath.startsWith(`${p}/`));
  /** The names each group's branches found missing, by `<group schemaPath> <instancePath>`. */
  const branchNames = new Map<string, string[]>();
  for (const b of errors) {
    if (b.keyword !== 'required') continue;
    for (const p of groupsOf(b)) {
      const key = `${p} ${b.instancePath}`;
      const names = branchNames.get(key);
      if (names) names.push((b.params as { missingProperty: string }).missingProperty);
      else branchNames.set(key, [(b.params as { missingProperty: string }).missingProperty]);
    }
  }
  const findings: Finding[] = [];
  for (const e of errors) {
    if (groupsOf(e).length > 0) continue;
    if (e.keyword === 'required') {
      const missing = (e.params as { missingProperty: string }).missingProperty;
      findings.push({ pointer: `${e.instancePath}/${escapePointer(missing)}`, expected: 'field present', found: 'missing', keyword: 'required' });
    } else if (e.keyword === 'anyOf') {
      const names = branchNames.get(`${e.schemaPath} ${e.instancePath}`) ?? [];
      findings.push({ pointer: `${e.instancePath}/${escapePointer(names[0] ?? '')}`, expected: `one of ${names.join(', ')} present`, found: 'missing', keyword: 'anyOf' });
    } else {
      const at = valueAt(data, e.instancePath);
      findings.push({ pointer: e.instancePath, expected: expectation(e), found: at.present ? describeValue(at.value) : 'missing', keyword: e.keyword });
    }
  }
  // allErrors can report the same pointer twice (e.g. type and pattern of a union); keep the first.
  const seen = new Set<string>();
  return findings.filter((f) => (seen.has(`${f.pointer} ${f.keyword}`) ? false : (seen.add(`${f.pointer} ${f.keyword}`), true)));
}

function expectation(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type': return `type ${String(p.type).replace(/,/g, ' or ')}`;
    case 'const': return `exactly ${JSON.stringify(p.allowedValue)}`;
    case 'minLength': return `at least ${p.limit} character(s)`;
    case 'maxLength': return `at most ${p.limit} characters`;
    case 'minItems': return `an array with at least ${p.limit} entr${p.limit === 1 ? 'y' : 'ies'}`;
    case 'pattern': return `matching ${p.pattern}`;
    case 'format': return `format ${p.format === 'sadad-date' ? 'YYYYMMDD (a real date)' : p.format === 'sadad-timestamp' ? 'YYYY-MM-DDTHH:MM:SS (no zone, no fraction)' : String(p.format)}`;
    default: return e.message ?? e.keyword;
  }
}

/** Reads every schema file with its `SvcSadad...` tags renamed to the deployment's tag prefix. */
function loadSchemaTexts(tagPrefix: string): object[] {
  return readdirSync(SCHEMAS_DIR)
    .filter((f) => f.endsWith('.schema.json'))
    .map((f) => {
      const text = readFileSync(join(SCHEMAS_DIR, f), 'utf8');
      return JSON.parse(tagPrefix === SPEC_PREFIX ? text : text.replaceAll(`"${SPEC_PREFIX}Sadad`, `"${tagPrefix}Sadad`));
    });
}

export class Contract {
  readonly ajv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly tagPrefix: string) {
    this.ajv = newAjv({ strict: true, formats: true });
    this.ajv.addFormat('sadad-date', { type: 'string', validate: isSpecDate });
    this.ajv.addFormat('sadad-timestamp', { type: 'string', validate: isSpecTimestamp });
    const ids = new Set<string>();
    for (const schema of loadSchemaTexts(tagPrefix)) {
      this.ajv.addSchema(schema);
      ids.add(String((schema as { $id?: unknown }).$id));
    }
    // a missing schema stops the process here; each is compiled on first use (a process that uses a
    // few, like a short suite run's worker or the mock, skips most of about 300 ms of compiling)
    for (const op of operations) {
      for (const profile of ['request', 'lenient', 'strict'] as const) {
        const key = schemaFileName(op.id, profile);
        if (!ids.has(`${SCHEMA_BASE}${key}`)) throw new Error(`schema ${key} is missing from schemas/`);
      }
    }
  }

  validatorFor(opId: OperationId, profile: Profile): ValidateFunction {
    const key = schemaFileName(operation(opId).id, profile);
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.getSchema(`${SCHEMA_BASE}${key}`);
      if (!fn) throw new Error(`schema ${key} is missing from schemas/`);
      this.compiled.set(key, fn);
    }
    return fn;
  }

  validate(opId: OperationId, profile: Profile, body: unknown): ValidationResult {
    const fn = this.validatorFor(opId, profile);
    const valid = fn(body) as boolean;
    return { valid, findings: valid ? [] : toFindings(fn.errors, body) };
  }
}

const contracts = new Map<string, Contract>();

/** The contract for a tag prefix (the spec's `Svc`, or a deployment's SADAD_TAG_PREFIX), built once per process. */
export function getContract(tagPrefix: string): Contract {
  let c = contracts.get(tagPrefix);
  if (!c) contracts.set(tagPrefix, (c = new Contract(tagPrefix)));
  return c;
}

export function validateRequest(opId: OperationId, body: unknown, tagPrefix: string): ValidationResult {
  return getContract(tagPrefix).validate(opId, 'request', body);
}

export function validateResponse(opId: OperationId, body: unknown, profile: ResponseProfile, tagPrefix: string): ValidationResult {
  return getContract(tagPrefix).validate(opId, profile, body);
}
