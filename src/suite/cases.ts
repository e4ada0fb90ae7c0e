/**
 * The suite's case groups, one per spec file, each interleaving the operations' cases so the
 * workers spend the four budgets in parallel. The spec files register them as tests; the global
 * setup and the smoke profile read the same definitions (without running anything).
 */
import { operations, type OperationId } from '../contract/catalogue.js';
import { collectCases, interleave, type CaseSpec } from './case.js';

export { registrationOf, registrationWith, type Registration } from './registration.js';
import { processVariables, selectionOfVariables, type Settings } from '../config/settings.js';
import { ConfigError } from '../contract/prefix.js';
import { registrationOf, registrationWith, type Registration } from './registration.js';
import { caseFilter, type Selection } from '../vocabulary/selection.js';
import { registerDuplicateCases } from './rules/duplicates.js';
import { registerFlowCases } from './rules/flows.js';
import { registerHeaderCases } from './rules/headers.js';
import { registerMultiEntryCases } from './rules/multi-entry.js';
import { registerRateLimitCases } from './rules/rate-limit.js';
import { registerRequestFieldCases } from './rules/request-fields.js';
import { registerResponseCases } from './rules/response.js';
import { registerRobustnessCases } from './rules/robustness.js';

const perOperation = (register: (op: OperationId, reg: Registration) => void) => (reg: Registration) => operations.map((op) => collectCases(() => register(op.id, reg)));

/**
 * The payment operations' rate-limit cases, first in the run (specs/bursts.spec.ts sorts before the
 * other spec files, and Playwright hands tests out in file order): a burst needs its operation quiet
 * for longer than a window, which mid-run costs the busiest operations (MOI payment bounds a run) a
 * few seconds of a 1.5 s window, a few minutes of a 60 s one; at the start, while the workers come up
 * after the preflight's calls, it is quiet anyway (measured: 80.5 s to 75.5 s behind nginx, bound 67.5 s).
 * The enquiries' own rate-limit cases stay where they were: held at the start, they would hold back
 * the enquiries every payment case begins with.
 */
const BURSTS_FIRST = new Set<OperationId>(operations.filter((op) => op.kind === 'payment').map((op) => op.id));

/** Per spec file: its cases, as lists to interleave. */
export const CASE_GROUPS = {
  bursts: perOperation((op, reg) => { if (BURSTS_FIRST.has(op)) registerRateLimitCases(op, reg); }),
  response: perOperation(registerResponseCases),
  'request-fields': perOperation(registerRequestFieldCases),
  headers: perOperation(registerHeaderCases),
  'rate-limit': perOperation((op, reg) => { if (!BURSTS_FIRST.has(op)) registerRateLimitCases(op, reg); }),
  payments: (reg: Registration) => [collectCases(() => registerDuplicateCases(reg)), collectCases(registerFlowCases)],
  'multi-entry': perOperation(registerMultiEntryCases),
  robustness: perOperation(registerRobustnessCases),
} satisfies Record<string, (reg: Registration) => CaseSpec[][]>;

/** Every case definition of the suite, unselected. */
export function allCases(reg: Registration): CaseSpec[] {
  return Object.values(CASE_GROUPS).flatMap((group) => group(reg).flat());
}

/**
 * Every selected case as a run's manifest plans it, with the spec file that registers it: what a
 * run stopped before its first case (by the preflight) reports as not run. Playwright's own filters
 * (--grep, --shard) are not applied here; the suite's selection (SADAD_CASES, the profile) is.
 */
export function plannedCaseDefinitions(reg: Registration, keep: (id: string) => boolean): { def: CaseSpec[0]; file: string }[] {
  return (Object.keys(CASE_GROUPS) as Group[]).flatMap((group) => {
    const lists = CASE_GROUPS[group](reg);
    const files = filesOf(lists, group);
    return lists.flat().filter(([def]) => keep(def.id)).map(([def]) => ({ def, file: files.get(def.id)! }));
  });
}

type Group = keyof typeof CASE_GROUPS;

/**
 * The groups whose spec file is split in parts (`specs/<group>.<n>.spec.ts`, n from 1). For every
 * test it runs, a Playwright worker clones its file's whole suite and hashes the id of every test in
 * it (bindFileSuiteToProject, with each test a group of its own under fullyParallel): the 322
 * request-field cases in one file cost a full run about 0.3 CPU-s in each worker, a twentieth of
 * its CPU, and the project's tests make a few dozen runs. In parts of about 80 a quarter of that.
 */
export const SPEC_PARTS: Partial<Record<Group, number>> = { 'request-fields': 4 };

/** The spec file that registers a group's cases, or one part of it. */
export const specFileOf = (group: Group, part?: number) => `specs/${group}${part === undefined ? '' : `.${part}`}.spec.ts`;

/** The part of a split group (1..parts) that holds the `index`-th case of a list of `length`. */
const partOf = (length: number, index: number, parts: number) => Math.floor(index / Math.ceil(length / parts)) + 1;

/**
 * The spec file that registers each of a group's cases (its lists, one per operation). A split group's lists
 * are each cut in SPEC_PARTS consecutive runs, part n holding the n-th run of every list: which
 * part holds a case depends on the profile only, never on the selection (a resumed run's cases keep
 * their file), and each part interleaves every operation as the whole file did.
 */
function filesOf(lists: CaseSpec[][], group: Group): Map<string, string> {
  const parts = SPEC_PARTS[group];
  return new Map(lists.flatMap((list) => list.map(([def], i) => [def.id, specFileOf(group, parts ? partOf(list.length, i, parts) : undefined)] as const)));
}

/** A split group's lists, made once per registration in a process: each of its part files reads them. */
const splitLists = new Map<string, CaseSpec[][]>();

/**
 * A spec file's cases as this run registers and selects them (its settings, read once in the
 * process: the runner's, or the ones its global setup published for the workers), interleaved.
 */
export function specCases(settings: Settings | ConfigError, group: Group): CaseSpec[][] {
  const { reg, selected } = selectionOf(settings);
  return CASE_GROUPS[group](reg).map((l) => l.filter(([def]) => selected(def.id)));
}

/** One part of a split group's spec file (SPEC_PARTS): its cases as this run selects them, interleaved. */
export function specPart(settings: Settings | ConfigError, group: Group, part: number): CaseSpec[] {
  const { reg, selected } = selectionOf(settings);
  const key = JSON.stringify([group, reg]);
  const lists = splitLists.get(key) ?? CASE_GROUPS[group](reg);
  splitLists.set(key, lists);
  return interleave(lists.map((l) => l.filter(([def], i) => partOf(l.length, i, SPEC_PARTS[group] ?? 1) === part && selected(def.id))));
}

/** The registration and the selection of a run's settings, as the spec files read them. */
function selectionOf(settings: Settings | ConfigError): { reg: Registration; selected: (id: string) => boolean } {
  let reg: Registration;
  let selected: (id: string) => boolean;
  if (settings instanceof ConfigError) {
    // a configuration error stops the run in its global setup, naming the variable (the cases are
    // loaded first): as selected, when the selection itself is right, so that the dry run lists them
    let selection: Selection | null = null;
    try { selection = selectionOfVariables(processVariables()); } catch { /* every case */ }
    reg = registrationWith(selection?.profile ?? 'full');
    selected = selection ? caseFilter(selection) : () => true;
  } else {
    reg = registrationOf(settings);
    selected = caseFilter(settings.run.selection);
  }
  return { reg, selected };
}
