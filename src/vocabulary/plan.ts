/**
 * The limits a run will pace at, known before anything is sent: the dry run's estimate and the
 * cases' planned calls both read them here.
 */
import { operations, type RateGroup } from '../contract/catalogue.js';
import { configFromEnv, EMBEDDED_MOCK_WINDOW_SECONDS } from '../config/index.js';

export interface Limits {
  windowSeconds: number;
  /** Calls per window, per operation. */
  perOperation: Record<string, number>;
  /** Where the limits come from, in words. */
  source: string;
}

function positive(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * The limits a run will pace at, as the environment says before the run. Without SADAD_BASE_URL the
 * embedded mock is the target: its own MOCK_* settings win, else it follows the suite's settings
 * (window EMBEDDED_MOCK_WINDOW_SECONDS unless SADAD_RATE_WINDOW_SECONDS says otherwise), as the global setup does.
 */
export function plannedLimits(env: NodeJS.ProcessEnv = process.env): Limits {
  const config = configFromEnv(env);
  const embedded = config.baseUrl === undefined;
  const windowSeconds = (embedded ? positive(env.MOCK_RATE_WINDOW_SECONDS) : undefined) ?? config.rateWindowSeconds;
  const bill = (embedded ? positive(env.MOCK_RATE_LIMIT_BILL) : undefined) ?? config.rateLimits.bill;
  const moi = (embedded ? positive(env.MOCK_RATE_LIMIT_MOI) : undefined) ?? config.rateLimits.moi;
  const perOperation = Object.fromEntries(operations.map((op) => [op.id, op.rateGroup === 'bill' ? bill : moi]));
  const source = embedded
    ? `the embedded mock (no SADAD_BASE_URL)${windowSeconds === EMBEDDED_MOCK_WINDOW_SECONDS ? `, whose window is ${EMBEDDED_MOCK_WINDOW_SECONDS} s` : ''}`
    : `the target ${config.baseUrl}`;
  return { windowSeconds, perOperation, source };
}

/**
 * What a plan assumes of the run besides its limits: the worker count, whether a signer and
 * payments are configured, and whether the preflight's call per operation comes first.
 */
export interface PlanContext { workers: number; signer: boolean; payments: boolean; preflight?: boolean }

/** The plan's context for a run of `workers` workers, as the environment configures it (a ConfigError like `plannedLimits`). */
export function plannedContext(workers: number, env: NodeJS.ProcessEnv = process.env): PlanContext {
  const config = configFromEnv(env);
  return { workers, signer: !!(config.signer || config.signingKey), payments: config.payments, preflight: config.preflight };
}

/** One group's limit, for the planned calls of a case; the defaults when the configuration is broken (the global setup reports it). */
export function plannedLimit(group: RateGroup, env: NodeJS.ProcessEnv = process.env): number {
  try {
    return plannedLimits(env).perOperation[group === 'bill' ? 'bill-enquiry' : 'moi-enquiry']!;
  } catch {
    return group === 'bill' ? 10 : 3;
  }
}

/** SADAD_RATE_SHAPE as planned (the rate-limit cases send one call more to check a spaced limit); burst when the configuration is broken. */
export function plannedShape(env: NodeJS.ProcessEnv = process.env): 'burst' | 'spaced' {
  try {
    return configFromEnv(env).rateShape;
  } catch {
    return 'burst';
  }
}
