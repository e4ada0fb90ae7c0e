/**
 * SADAD_DATA_FILE: bills and fee subjects that exist on the target (a sandbox does not invent them
 * as the mock does). Validated when the run starts; payment cases claim entries one by one.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileSchemaFile } from '../contract/ajv.js';
import { ConfigError } from '../contract/prefix.js';
import { SCHEMAS_DIR } from '../paths.js';
import type { BillSubject, MoiSubject } from '../generators/requests.js';

export type DataBill = Pick<BillSubject, 'BillerId' | 'BillCategory' | 'SubscriberNumber' | 'AccountNumber'> & Partial<BillSubject>;
export type DataFee = Omit<MoiSubject, 'SponsorID' | 'JobCategory'> & Partial<MoiSubject>;
export interface TargetData { bills: DataBill[]; fees: DataFee[] }

export function loadTargetData(file: string | undefined): TargetData | undefined {
  if (!file) return undefined;
  let data: unknown;
  try { data = JSON.parse(readFileSync(file, 'utf8')); } catch (e) { throw new ConfigError('SADAD_DATA_FILE', `${file} is not readable JSON: ${(e as Error).message}`); }
  const validate = compileSchemaFile(join(SCHEMAS_DIR, 'target-data.schema.json'));
  if (!validate(data)) {
    const first = validate.errors!.slice(0, 3).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
    throw new ConfigError('SADAD_DATA_FILE', `${file} does not match schemas/target-data.schema.json: ${first}`);
  }
  const d = data as Partial<TargetData>;
  return { bills: d.bills ?? [], fees: d.fees ?? [] };
}
