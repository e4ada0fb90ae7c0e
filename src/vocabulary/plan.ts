/**
 * The limits a run will pace at, known before anything is sent: the dry run's estimate and the
 * cases' planned calls both read them here.
 */
import { operations, type RateGroup } from '../contract/catalogue.js';

export interface Limits {
  windowSeconds: number;
  /** Calls per window, per operation. */
  perOperation: Record<string, number>;
  /** Where the limits come from, in words. */
  source: string;
}

/**
 * What a plan assumes of the run besides its limits: the worker count, whether a signer and
 * payments are configured, and whether the preflight's call per operation comes first.
 */
export interface PlanContext { workers: number; signer: boolean; payments: boolean; preflight?: boolean }

/** One group's limit, for the planned calls of a case: its operations share it, so the first of them says it. */
export function plannedLimit(limits: Pick<Limits, 'perOperation'>, group: RateGroup): number {
  return limits.perOperation[operations.find((o) => o.rateGroup === group)!.id]!;
}
