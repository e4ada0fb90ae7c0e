/**
 * The spec files and the case groups (src/suite/cases.ts): one file per group, a split group's parts
 * (SPEC_PARTS) one file each; together they register every case once, each operation's in its order, and
 * the file the plan names for a case (what the package's `file` says) is the one that registers it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from '../../src/paths.js';
import { readSettings } from '../../src/config/settings.js';
import { interleave } from '../../src/suite/case.js';
import { CASE_GROUPS, plannedCaseDefinitions, registrationOf, SPEC_PARTS, specCases, specFileOf, specPart } from '../../src/suite/cases.js';
import { caseFilter } from '../../src/vocabulary/selection.js';

type Group = keyof typeof CASE_GROUPS;
const GROUPS = Object.keys(CASE_GROUPS) as Group[];
const partsOf = (g: Group) => Array.from({ length: SPEC_PARTS[g] ?? 0 }, (_, i) => i + 1);

test('specs/ holds one file per case group, or one per part of a split group, and each part file registers its own part', () => {
  const expected = GROUPS.flatMap((g) => (SPEC_PARTS[g] ? partsOf(g).map((p) => specFileOf(g, p)) : [specFileOf(g)])).sort();
  expect(readdirSync(join(ROOT, 'specs')).filter((f) => f.endsWith('.spec.ts')).map((f) => `specs/${f}`).sort()).toEqual(expected);
  expect(Object.keys(SPEC_PARTS).length, 'at least one group is split (request-fields)').toBeGreaterThan(0);
  for (const g of GROUPS) {
    for (const p of partsOf(g)) expect(readFileSync(join(ROOT, specFileOf(g, p)), 'utf8'), specFileOf(g, p)).toContain(`specPart(processSettingsOrError(), '${g}', ${p})`);
    if (!SPEC_PARTS[g]) expect(readFileSync(join(ROOT, specFileOf(g)), 'utf8'), specFileOf(g)).toContain(`specCases(processSettingsOrError(), '${g}')`);
  }
});

for (const [name, vars] of [
  ['the full profile', {}],
  ['the smoke profile', { SADAD_PROFILE: 'smoke' }],
  ['a selection', { SADAD_CASES: 'bill-payment.req.*,moi-enquiry.req.ID.*,*.hdr.Authorization.*' }],
] as const) {
  test(`${name}: the parts register every selected case of their group once, each operation's in its order, each where the plan says`, () => {
    const settings = readSettings(vars);
    const reg = registrationOf(settings);
    const keep = caseFilter(settings.run.selection);
    const planned = new Map(plannedCaseDefinitions(reg, keep).map(({ def, file }) => [def.id, file]));
    let registered = 0;
    for (const g of GROUPS) {
      const whole = interleave(specCases(settings, g)).map(([def]) => def.id);
      if (!SPEC_PARTS[g]) {
        for (const id of whole) expect(planned.get(id), id).toBe(specFileOf(g));
        registered += whole.length;
        continue;
      }
      const parts = partsOf(g).map((p) => specPart(settings, g, p).map(([def]) => def.id));
      // no case in two parts, none left out
      expect(parts.flat().sort()).toEqual([...whole].sort());
      parts.forEach((ids, i) => { for (const id of ids) expect(planned.get(id), id).toBe(specFileOf(g, i + 1)); });
      for (const list of CASE_GROUPS[g](reg)) {
        const own = new Set(list.map(([def]) => def.id));
        // each operation's cases in their order, the parts one after another
        expect(parts.flat().filter((id) => own.has(id))).toEqual(whole.filter((id) => own.has(id)));
        // and every part holds a share of every operation (each interleaves them all), none more than its share
        if (name === 'the full profile') {
          for (const ids of parts) expect(ids.filter((id) => own.has(id)).length).toBeGreaterThan(0);
          for (const ids of parts) expect(ids.filter((id) => own.has(id)).length).toBeLessThanOrEqual(Math.ceil(list.length / SPEC_PARTS[g]!));
        }
      }
      registered += parts.flat().length;
    }
    expect(registered).toBe(planned.size);
  });
}
