/**
 * SADAD_PROFILE: `full` (default) runs every case; `smoke` runs a fixed, documented subset (every
 * rule family on every operation at least once, the payment flows and the duplicate cases) that
 * plans at most 12 calls on each MOI operation. A smoke run never certifies.
 */
import { oneOf } from '../config/env-values.js';

export type Profile = 'full' | 'smoke';

export function profileOf(env: NodeJS.ProcessEnv = process.env): Profile {
  return oneOf(env, 'SADAD_PROFILE', ['full', 'smoke'] as const, 'full');
}

/** The smoke subset (filled in below); `full` keeps every case. */
export function profileFilter(env: NodeJS.ProcessEnv = process.env): (id: string) => boolean {
  const profile = profileOf(env);
  if (profile === 'full') return () => true;
  return (id) => SMOKE_CASES.has(id);
}

export const SMOKE_CASES = new Set<string>();
