/**
 * SADAD_CASES / SADAD_SKIP_CASES: select and exclude cases by id glob (`*` any run of characters).
 * SADAD_RUN_ONLY (internal, set by `npm run certify -- --resume`): a file of case ids, one a line;
 * only those run. It narrows this run to the cases a resume reruns, and is not part of the run's
 * selection: the merged package's selection is the one of the run it resumes. The settings
 * (src/config/settings.ts) read them; a selection is plain data, so a run's processes share it.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../contract/prefix.js';
import { profileFilter, type Profile } from './profile.js';

export interface Selection {
  /** SADAD_CASES's globs; every case when empty. */
  cases: string[];
  /** SADAD_SKIP_CASES's globs. */
  skip: string[];
  /** SADAD_RUN_ONLY's case ids, or null when it is unset. */
  runOnly: string[] | null;
  profile: Profile;
}

function globs(raw: string | undefined, variable: string): string[] {
  if (!raw) return [];
  return raw.split(',').map((g) => g.trim()).filter(Boolean).map((g) => {
    if (!/^[\w.*-]+$/.test(g)) throw new ConfigError(variable, `glob ${JSON.stringify(g)} may hold letters, digits, . - _ and * only`);
    return g;
  });
}

const regexOf = (g: string) => new RegExp(`^${g.replace(/[.-]/g, '\\$&').replace(/\*/g, '.*')}$`);

/** A selection from the variables' values (a ConfigError naming SADAD_CASES or SADAD_SKIP_CASES for a bad glob). */
export function selectionOf(input: { cases?: string | undefined; skip?: string | undefined; runOnly?: string[] | null; profile?: Profile }): Selection {
  return { cases: globs(input.cases, 'SADAD_CASES'), skip: globs(input.skip, 'SADAD_SKIP_CASES'), runOnly: input.runOnly ?? null, profile: input.profile ?? 'full' };
}

/** The case ids a SADAD_RUN_ONLY file names. */
export function readRunOnly(file: string, variable = 'SADAD_RUN_ONLY'): string[] {
  let text: string;
  try { text = readFileSync(file.trim(), 'utf8'); } catch (e) { throw new ConfigError(variable, `cannot read ${JSON.stringify(file)}: ${(e as Error).message}`); }
  const ids = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const bad = ids.find((id) => !/^[\w.\-[\]]+$/.test(id));
  if (bad) throw new ConfigError(variable, `${file}: ${JSON.stringify(bad)} is not a case id`);
  return ids;
}

/** Whether a case id is in the selection. */
export function caseFilter(selection: Selection): (id: string) => boolean {
  const include = selection.cases.map(regexOf);
  const exclude = selection.skip.map(regexOf);
  const inProfile = profileFilter(selection.profile);
  const only = selection.runOnly ? new Set(selection.runOnly) : null;
  return (id) => inProfile(id) && (!only || only.has(id)) && (!include.length || include.some((r) => r.test(id))) && !exclude.some((r) => r.test(id));
}
