/** Loads `.env` (or the file named by SADAD_ENV_FILE) into process.env without overriding what is set. */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import dotenv from 'dotenv';
import { ConfigError } from '../contract/prefix.js';

/** Internal: the run's variables, published by its global setup for its workers and reporter (settings.ts). */
export const SETTINGS_ENV = 'SADAD_SETTINGS';

/**
 * The variables a child process is given: these (the process's own by default), without the run's
 * published settings: a run a child starts publishes its own.
 */
export function childEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { [SETTINGS_ENV]: _published, ...own } = env;
  return own;
}

export function loadEnvFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  const named = env.SADAD_ENV_FILE;
  const file = resolve(cwd, named || '.env');
  if (!existsSync(file)) {
    if (named) throw new ConfigError('SADAD_ENV_FILE', `file ${JSON.stringify(named)} does not exist`);
    return undefined;
  }
  const result = dotenv.config({ path: file, processEnv: env as Record<string, string>, quiet: true });
  if (result.error) throw new ConfigError('SADAD_ENV_FILE', `cannot read ${file}: ${result.error.message}`);
  return file;
}
