/** SADAD_CASES / SADAD_SKIP_CASES: select and exclude cases by id glob (`*` any run of characters). */
import { ConfigError } from '../contract/prefix.js';
import { profileFilter } from './profile.js';

function globs(env: NodeJS.ProcessEnv, name: string): RegExp[] {
  const raw = env[name];
  if (!raw) return [];
  return raw.split(',').map((g) => g.trim()).filter(Boolean).map((g) => {
    if (!/^[\w.*-]+$/.test(g)) throw new ConfigError(name, `glob ${JSON.stringify(g)} may hold letters, digits, . - _ and * only`);
    return new RegExp(`^${g.replace(/[.-]/g, '\\$&').replace(/\*/g, '.*')}$`);
  });
}

export function caseFilter(env: NodeJS.ProcessEnv = process.env): (id: string) => boolean {
  const include = globs(env, 'SADAD_CASES');
  const exclude = globs(env, 'SADAD_SKIP_CASES');
  const inProfile = profileFilter(env);
  return (id) => inProfile(id) && (!include.length || include.some((r) => r.test(id))) && !exclude.some((r) => r.test(id));
}
