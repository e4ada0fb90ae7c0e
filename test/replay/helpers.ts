/** The check every suite run of the project's tests can make: its package, re-judged from its evidence, gives every verdict it records. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { preflightAccepted, rejudgePackage, type Rejudgement } from '../../src/replay/index.js';

export async function expectVerdictsReproduced(reportsDir: string): Promise<Rejudgement> {
  const file = join(reportsDir, 'certification.json');
  // a run with Playwright's own reporters only leaves evidence, no package: the evidence is what is compared then
  const pkg = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) as { cases: { id: string; verdict: string }[]; connection?: { accepted?: string[] } | null } : null;
  const r = await rejudgePackage(reportsDir);
  expect(r.cases.length, 'cases re-judged').toBeGreaterThan(0);
  expect(r.differing.map((d) => `${d.id}: recorded ${d.recorded}, re-judged ${d.rejudged}${d.divergence ? ` (${d.divergence})` : ''}`), 're-judged from the evidence, every verdict is the recorded one').toEqual([]);
  if (!pkg) return r;
  // the preflight's acceptance, judged again from its recorded calls, is what the package says
  if (pkg.connection) expect(preflightAccepted(reportsDir).sort()).toEqual([...(pkg.connection.accepted ?? [])].sort());
  // and the package says what its evidence says: every case of the package re-judged, to the same verdict
  const rejudged = new Map(r.cases.map((c) => [c.id, c.rejudged]));
  const withEvidence = pkg.cases.filter((c) => rejudged.has(c.id));
  expect(withEvidence.length, 'cases of the package with evidence').toBeGreaterThan(0);
  expect(withEvidence.filter((c) => rejudged.get(c.id) !== c.verdict).map((c) => `${c.id}: package ${c.verdict}, re-judged ${rejudged.get(c.id)}`)).toEqual([]);
  return r;
}
