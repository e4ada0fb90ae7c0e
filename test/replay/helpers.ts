/** The check every suite run of the project's tests can make: its package, re-judged from its evidence, gives every verdict it records. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { rejudgePackage, type Rejudgement } from '../../src/replay/index.js';

export async function expectVerdictsReproduced(reportsDir: string): Promise<Rejudgement> {
  const pkg = JSON.parse(readFileSync(join(reportsDir, 'certification.json'), 'utf8')) as { cases: { id: string; verdict: string }[]; connection?: { accepted?: string[] } | null };
  const r = await rejudgePackage(reportsDir, pkg.connection?.accepted);
  expect(r.differing.map((d) => `${d.id}: recorded ${d.recorded}, re-judged ${d.rejudged}${d.divergence ? ` (${d.divergence})` : ''}`), 're-judged from the evidence, every verdict is the recorded one').toEqual([]);
  // and the package says what its evidence says: every case of the package re-judged, to the same verdict
  const rejudged = new Map(r.cases.map((c) => [c.id, c.rejudged]));
  const withEvidence = pkg.cases.filter((c) => rejudged.has(c.id));
  expect(withEvidence.length, 'cases of the package with evidence').toBeGreaterThan(0);
  expect(withEvidence.filter((c) => rejudged.get(c.id) !== c.verdict).map((c) => `${c.id}: package ${c.verdict}, re-judged ${rejudged.get(c.id)}`)).toEqual([]);
  return r;
}
