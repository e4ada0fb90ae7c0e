import { randomInt } from 'node:crypto';
import { ConfigError } from '../contract/prefix.js';

/** SADAD_SEED as an integer, or a fresh random one (the caller prints it so a run can be replayed). */
export function seedFrom(env: NodeJS.ProcessEnv = process.env): { seed: number; fromEnv: boolean } {
  const raw = env.SADAD_SEED;
  if (raw === undefined || raw === '') return { seed: randomInt(1, 2 ** 31 - 1), fromEnv: false };
  if (!/^\d{1,15}$/.test(raw)) throw new ConfigError('SADAD_SEED', `must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return { seed: Number(raw), fromEnv: true };
}
