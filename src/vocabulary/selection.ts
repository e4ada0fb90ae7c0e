/**
 * SADAD_CASES / SADAD_SKIP_CASES: select and exclude cases by id glob (`*` any run of characters).
 * SADAD_RUN_ONLY (internal, set by `npm run certify -- --resume`): a file of case ids, one a line;
 * only those run. It narrows this run to the cases a resume reruns, and is not part of the run's
 * selection: the merged package's selection is the one of the run it resumes.
 */
import { readFileSync } from 'node:fs';
import { ConfigError } from '../contract/prefix.js';
import { profileFilter } from './profile.js';

export const RUN_ONLY_ENV = 'SADAD_RUN_ONLY';
/** Internal, set by `--resume` with SADAD_RUN_ONLY: the folder of the package this run continues. */
export const RESUME_FROM_ENV = 'SADAD_RESUME_FROM';

function globs(env: NodeJS.ProcessEnv, name: string): RegExp[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((g) => g.trim()).filter(Boolean).map((g) => {
    if (!/^[\w.*-]+$/.test(g)) throw new ConfigError(name, `glob ${JSON.stringify(g)} may hold letters, digits, . - _ and * only`);
    return new RegExp(`^${g.replace(/[.-]/g, '\\$&').replace(/\*/g, '.*')}$`);
  });
}

/** The case ids SADAD_RUN_ONLY names, or null when it is unset. */
export function runOnlyIds(env: NodeJS.ProcessEnv = process.env): Set<string> | null {
  const file = env[RUN_ONLY_ENV];
  if (!file?.trim()) return null;
  let text: string;
  try { text = readFileSync(file.trim(), 'utf8'); } catch (e) { throw new ConfigError(RUN_ONLY_ENV, `cannot read ${JSON.stringify(file)}: ${(e as Error).message}`); }
  const ids = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const bad = ids.find((id) => !/^[\w.\-[\]]+$/.test(id));
  if (bad) throw new ConfigError(RUN_ONLY_ENV, `${file}: ${JSON.stringify(bad)} is not a case id`);
  return new Set(ids);
}

export function caseFilter(env: NodeJS.ProcessEnv = process.env): (id: string) => boolean {
  const include = globs(env, 'SADAD_CASES');
  const exclude = globs(env, 'SADAD_SKIP_CASES');
  const inProfile = profileFilter(env);
  const only = runOnlyIds(env);
  return (id) => inProfile(id) && (!only || only.has(id)) && (!include.length || include.some((r) => r.test(id))) && !exclude.some((r) => r.test(id));
}
