/**
 * The cases a change of the API document adds, removes and changes (`npm run spec -- diff`): the same
 * comparison a re-judge under a newer document makes (index.ts, applySpecChanges), made here between
 * two versions of the document for every case of the suite. A case changes when a reference it is
 * built from (src/suite/spec-refs.ts) reads otherwise in the new version; it is removed when nothing
 * it tests is left; it is added when what it tests is new. The suite's cases are those this project
 * is built from: where it is built from the old version, the cases a new row or header will bring
 * are named by their pattern (`moi-enquiry.req.Nationality.*`), the ids the next run gives them.
 */
import { fieldName } from '../contract/field-tables.js';
import { refDigest, refText, type SpecView } from '../contract/spec-refs.js';
import { allCases, registrationWith } from '../suite/cases.js';
import { specRefsOf } from '../suite/spec-refs.js';

export interface CasesChange {
  added: string[];
  removed: string[];
  changed: { id: string; because: string[] }[];
}

export function casesChange(old: SpecView, next: SpecView): CasesChange {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: CasesChange['changed'] = [];
  for (const [def] of allCases(registrationWith('full'))) {
    const { tests, builtFrom } = specRefsOf(def);
    const inOld = tests.filter((t) => refDigest(t, old) !== 'absent');
    const inNew = tests.filter((t) => refDigest(t, next) !== 'absent');
    if (tests.length && !inOld.length && inNew.length) { added.push(def.id); continue; }
    if (tests.length && inOld.length && !inNew.length) { removed.push(def.id); continue; }
    const because = builtFrom.filter((r) => refDigest(r, old) !== refDigest(r, next)).map(refText);
    if (because.length) changed.push({ id: def.id, because });
  }
  // what the next run brings that this project's suite does not have yet: new request rows, headers, operations
  const known = new Set(allCases(registrationWith('full')).map(([d]) => d.id));
  const has = (prefix: string) => [...known].some((id) => id.startsWith(prefix));
  for (const [key, table] of Object.entries(next.fieldTables.messages)) {
    const [op, direction] = key.split('.');
    if (direction !== 'request') continue;
    const before = new Set(old.fieldTables.messages[key]?.fields.map((f) => f.path) ?? []);
    for (const row of table.fields) {
      if (before.has(row.path) || !row.required) continue;
      const pattern = `${op}.req.${fieldName(row.path)}.`;
      if (!has(pattern)) added.push(`${pattern}*`);
    }
  }
  const oldHeaders = new Set(old.facts.headers.map((h) => h.name));
  for (const h of next.facts.headers) {
    if (oldHeaders.has(h.name)) continue;
    for (const op of next.facts.operations) if (!has(`${op.id}.hdr.${h.name}.`)) added.push(`${op.id}.hdr.${h.name}.*`);
  }
  const oldOps = new Set(old.facts.operations.map((o) => o.id));
  for (const op of next.facts.operations) if (!oldOps.has(op.id) && !has(`${op.id}.`)) added.push(`${op.id}.*`);
  return { added, removed, changed };
}
