/**
 * data/spec.json, read once: the facts of the API document other than its field tables (those are
 * field-tables.ts), as `npm run spec -- import <document>` wrote them. The shape is checked lightly
 * here so that a hand-edited or truncated file fails at load with its path and the key at fault,
 * not later as an undefined deep inside a run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR } from '../paths.js';
import type { SpecFacts } from './spec-model.js';

export const SPEC_FILE = join(DATA_DIR, 'spec.json');

/** Each list of the file and the keys every element must have, with their JSON types. */
const SHAPE: Record<'operations' | 'headers' | 'rules' | 'limits' | 'sections', Record<string, string>> = {
  operations: {
    id: 'string', title: 'string', method: 'string', path: 'string', transactionType: 'string', kind: 'string', rateGroup: 'string',
    rateLimit: 'number', windowSeconds: 'number', requestRoot: 'string', responseRoot: 'string', listTag: 'string',
    clientHeaders: 'boolean', sections: 'object', line: 'number',
  },
  headers: { name: 'string', digest: 'string', line: 'number' },
  rules: { id: 'string', section: 'string', digest: 'string', line: 'number' },
  limits: { name: 'string', value: 'string', line: 'number' },
  sections: { id: 'string', title: 'string', line: 'number' },
};

/** Throws naming the file and the first key that is missing or of the wrong type. */
export function checkSpecFacts(value: unknown, file = SPEC_FILE): SpecFacts {
  const fail = (what: string): never => { throw new Error(`${file}: ${what} (write it with npm run spec -- import <document>)`); };
  const v = value as Record<string, unknown> | null;
  if (!v || typeof v !== 'object') fail('not a JSON object');
  if (typeof v!.prefix !== 'string') fail('"prefix" is missing');
  const doc = v!.document as Record<string, unknown> | undefined;
  if (!doc || typeof doc.title !== 'string' || typeof doc.sha256 !== 'string') fail('"document" needs title and sha256');
  for (const [list, keys] of Object.entries(SHAPE)) {
    const items = v![list];
    if (!Array.isArray(items)) fail(`"${list}" is not a list`);
    (items as Record<string, unknown>[]).forEach((item, i) => {
      for (const [key, type] of Object.entries(keys)) {
        if (typeof item?.[key] !== type) fail(`${list}[${i}].${key} is not a ${type}`);
      }
    });
  }
  for (const [i, op] of (v!.operations as Record<string, unknown>[]).entries()) {
    if (op.responseSequenceField !== null && typeof op.responseSequenceField !== 'string') fail(`operations[${i}].responseSequenceField is neither a name nor null`);
  }
  if (!(v!.operations as unknown[]).length) fail('"operations" is empty');
  return v as unknown as SpecFacts;
}

export function loadSpecFacts(file = SPEC_FILE): SpecFacts {
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch (e) {
    throw new Error(`${file}: cannot read it (${(e as NodeJS.ErrnoException).code}); write it with npm run spec -- import <document>`);
  }
  let json: unknown;
  try { json = JSON.parse(text); } catch (e) { throw new Error(`${file}: not JSON (${(e as Error).message})`); }
  return checkSpecFacts(json, file);
}

export const specFacts: SpecFacts = loadSpecFacts();
