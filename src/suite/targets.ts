/**
 * Multi-target runs, for `npm run prove`: one Playwright run puts the suite to many targets at once
 * (the conformant mock in each style, error form and limiter kind, and the mock with each defect).
 * SADAD_TARGETS names a JSON file of targets; each selected case is registered once per target,
 * titled `[<target>] <case id>` and annotated `target`, and runs on that target's runtime (its mock,
 * pacer and evidence folder). Any worker serves any target, so a target costs its cases and its
 * mock, not a Playwright run of its own (a process start, the modules, the schemas: about 3 CPU-s).
 */
import { readFileSync } from 'node:fs';
import type { TestInfo } from '@playwright/test';
import { ConfigError } from '../contract/prefix.js';
import { runtime, type Runtime } from './runtime.js';
import { caseFilter, selectionOf } from '../vocabulary/selection.js';
import { processSettings, readSettings, TARGETS_ENV, TARGETS_RUNTIME_ENV, type Settings } from '../config/settings.js';

export { TARGETS_ENV, TARGETS_RUNTIME_ENV } from '../config/settings.js';

export interface Target {
  /** Unique; `[` and `]` are not allowed (titles carry it in brackets). */
  name: string;
  /** MOCK_* for the target's mock, SADAD_* for the suite (a window, limits, retries). */
  env: Record<string, string>;
  /** Where its evidence goes (SADAD_REPORTS_DIR of a run of its own). */
  reportsDir: string;
  /** Case id globs, SADAD_CASES syntax; every case when absent. */
  cases?: string;
  /** Case id globs left out, SADAD_SKIP_CASES syntax. */
  skip?: string;
  /** Only the cases of this rule family. */
  family?: string;
}

/** Variables a target may not set: they are read at registration or by the runner, once for all targets. */
const SHARED = /^(SADAD_(TAG_PREFIX|HEADER_PREFIX|PROFILE|SEED|BASE_URL|TOKEN_URL|REPORTS_DIR|RESULTS_DIR|CASES|SKIP_CASES|RUN_ONLY|ENV_FILE|DATA_FILE)|MOCK_PORT)$/;

/** The targets of the run's SADAD_TARGETS file, or null for a run of one target. */
export function targetsOf(settings: Settings): Target[] | null {
  const file = settings.run.targetsFile;
  if (!file) return null;
  let targets: Target[];
  try { targets = JSON.parse(readFileSync(file, 'utf8')) as Target[]; } catch (e) { throw new ConfigError(TARGETS_ENV, `cannot read ${JSON.stringify(file)}: ${(e as Error).message}`); }
  const names = new Set<string>();
  for (const t of targets) {
    if (!t.name || /[[\]]/.test(t.name) || names.has(t.name)) throw new ConfigError(TARGETS_ENV, `target name ${JSON.stringify(t.name)} is empty, repeated or holds a bracket`);
    names.add(t.name);
    const shared = Object.keys(t.env).find((k) => SHARED.test(k));
    if (shared) throw new ConfigError(TARGETS_ENV, `target ${t.name}: ${shared} is one for the whole run, not per target`);
  }
  return targets;
}

/**
 * Every target's cases, in the order a run of its own would take them, merged by progress: each
 * target's cases are spread evenly over the queue, so a target bound by its window (a token bucket at
 * 1 s) is fed at a steady pace from the start instead of waiting behind the quick ones.
 */
// generic in the case's type (case.ts's CaseSpec): case.ts imports this module for its runtime
export function targetCases<S extends [{ id: string; family: string }, unknown]>(targets: Target[], groups: (() => S[][])[]): [Target, S][] {
  const perTarget = targets.map((t) => {
    const selected = caseFilter(selectionOf({ cases: t.cases, skip: t.skip }));
    return groups.flatMap((group) => roundRobin(group().map((l) => l.filter(([def]) => selected(def.id) && (!t.family || def.family === t.family)))));
  });
  const keyed = perTarget.flatMap((list, ti) => list.map((c, i) => ({ key: (i + 0.5) / list.length, ti, pair: [targets[ti]!, c] as [Target, S] })));
  return keyed.sort((a, b) => a.key - b.key || a.ti - b.ti).map((k) => k.pair);
}

/**
 * Round-robin over lists, so that the cases of the four operations alternate in the queue and the
 * workers spend the four operations' rate budgets in parallel.
 */
export function roundRobin<T>(lists: T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (l[i]) out.push(l[i]!);
  return out;
}

/**
 * The runtime of the target a test is annotated with, or the run's own: from the settings the run
 * published for its workers, read once in the worker (a target's are the run's with its variables over them).
 */
export function runtimeOf(testInfo: Pick<TestInfo, 'annotations'>, settings: Settings = processSettings()): Promise<Runtime> {
  const name = testInfo.annotations.find((a) => a.type === 'target')?.description;
  if (!name) return runtime(settings);
  const vars = settings.run.targetsRuntime[name];
  if (!vars) throw new Error(`target ${name} was not started by the global setup (${TARGETS_RUNTIME_ENV})`);
  return runtime(readSettings({ ...settings.variables, ...vars }), name);
}
