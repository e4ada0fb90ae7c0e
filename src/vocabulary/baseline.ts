/**
 * SADAD_BASELINE: a file of accepted deviations (case id, expected verdict, comment). A case whose
 * verdict equals its waiver's does not fail the run; the report lists each waiver used and each
 * waiver no longer needed (design.md §4).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compileSchemaFile } from '../contract/ajv.js';
import { ConfigError } from '../contract/prefix.js';
import { SCHEMAS_DIR } from '../paths.js';
import type { Verdict } from './verdicts.js';

export interface Waiver { case: string; verdict: Verdict; comment: string }

/** The waivers of a SADAD_BASELINE file, checked against schemas/baseline.schema.json. */
export function readBaseline(file: string): Waiver[] {
  let data: unknown;
  try { data = JSON.parse(readFileSync(resolve(file), 'utf8')); } catch (e) { throw new ConfigError('SADAD_BASELINE', `${file} is not readable JSON: ${(e as Error).message}`); }
  const validate = compileSchemaFile(join(SCHEMAS_DIR, 'baseline.schema.json'));
  if (!validate(data)) throw new ConfigError('SADAD_BASELINE', `${file} does not match schemas/baseline.schema.json: ${validate.errors!.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`);
  const waivers = (data as { waivers: Waiver[] }).waivers;
  const dup = waivers.find((w, i) => waivers.findIndex((x) => x.case === w.case) !== i);
  if (dup) throw new ConfigError('SADAD_BASELINE', `case ${dup.case} is listed twice`);
  return waivers;
}
