/** Planning figures known before anything is sent (the dry run's call counts). */
import type { RateGroup } from '../contract/catalogue.js';

/** The limit a run will pace at, as far as the environment says before the run starts. */
export function plannedLimit(group: RateGroup, env: NodeJS.ProcessEnv = process.env): number {
  const v = Number(group === 'bill' ? env.SADAD_RATE_LIMIT_BILL || env.MOCK_RATE_LIMIT_BILL : env.SADAD_RATE_LIMIT_MOI || env.MOCK_RATE_LIMIT_MOI);
  return Number.isInteger(v) && v > 0 ? v : group === 'bill' ? 10 : 3;
}
