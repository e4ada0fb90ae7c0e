// Slices of a multi-target run (suite/targets.ts). The run writes one file per slice of its merged
// case list (slice-NNN.spec.ts, next to its targets file): Playwright's worker re-binds a test's
// whole file before each test, so one file of 3,000 tests would cost that 3,000 times over.
import { asTest, test, type CaseSpec } from '../suite/case.js';
import { CASE_GROUPS, registrationOf, type Registration } from '../suite/cases.js';
import { targetCases, targetsOf, type Target } from '../suite/targets.js';
import { processSettings } from '../config/settings.js';

/** The groups in the order a run of its own takes them (its spec files, by name), registered as `reg` says. */
export const groupsFor = (reg: Registration) => Object.entries(CASE_GROUPS).sort(([a], [b]) => a.localeCompare(b)).map(([, g]) => () => g(reg));

/** Registers the `index`-th of `count` consecutive slices of the targets' merged cases. */
let merged: [Target, CaseSpec][] | undefined;

export function registerSlice(index: number, count: number): void {
  // the run's settings, as its global setup published them for the workers
  const settings = processSettings();
  const all = (merged ??= targetCases(targetsOf(settings) ?? [], groupsFor(registrationOf(settings))));
  const from = Math.floor((index * all.length) / count);
  const to = Math.floor(((index + 1) * all.length) / count);
  for (const [target, c] of all.slice(from, to)) test(...asTest(c, target.name));
}
