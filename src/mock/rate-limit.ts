/**
 * Sandbox rate limits (spec §4, §8): a budget per operation and per company, sized by the
 * operation's group. How a budget is counted is the limiter kind (limiters.ts, MOCK_LIMITER); the
 * default `fixed` window starts at the first counted call. Windows are in milliseconds, so
 * fractional windows work. The check runs at preValidation, after authentication (headers at
 * onRequest, signature at preValidation before it): every authenticated call counts, including
 * ones then rejected by validation or the business rules; unauthenticated calls, and the faults
 * injected before authentication (faults.ts), do not spend a company's budget.
 */
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Operation } from '../contract/catalogue.js';
import { MockError } from './errors.js';
import type { Defects } from './defects.js';
import type { CompanyRegistry } from './companies.js';
import { limiterStore, type LimiterKind, type LimiterRouteOptions } from './limiters.js';
import type { MockOptions } from './options.js';
import type { MockStore } from './store/index.js';

/** `store`: where the budgets are counted (in this process without one; in Redis with the shared store). */
export async function registerRateLimiter(app: FastifyInstance, kind: LimiterKind = 'fixed', store?: MockStore): Promise<void> {
  // Not global: only the API routes are limited, each with its own budget (the token endpoint is not).
  await app.register(rateLimit, { global: false, hook: 'preValidation', store: store ? store.limiterStore(kind) : limiterStore(kind) });
}

/** The company a call is attributed to (set by authentication, which runs first). */
const companyOf = (req: FastifyRequest) => req.company || String(req.headers.companyid ?? '');

/** How long `rate-limit-no-reset` keeps an exceeded budget blocked, in windows (bounded, so a run recovers). */
export const NO_RESET_WINDOWS = 10;
/**
 * ... and at least this long: Retry-After is whole seconds, so with a sub-second window a client
 * honouring it waits longer than 10 windows, and a shorter block would look like a reset.
 */
export const NO_RESET_MIN_MS = 5_000;

/** The windows `rate-limit-no-reset` keeps an exceeded budget blocked, for a window of `windowMs`. */
export const noResetWindows = (windowMs: number) => Math.max(NO_RESET_WINDOWS, Math.ceil(NO_RESET_MIN_MS / Math.max(1, Math.round(windowMs))));

/**
 * Route config of one operation; the plugin gives each route its own store. The rate-limit defects
 * bend it here: the budget one more or one less than the limit, no limit at all, or a budget that
 * stays refused once exceeded. They bend the budget, not the counting, so they work with every kind.
 */
export function rateLimitFor(op: Operation, options: MockOptions, defects: Defects, companies?: CompanyRegistry): (RateLimitOptions & LimiterRouteOptions) | false {
  if (defects.on('rate-limit-off', op.id)) return false;
  const bend = defects.on('rate-limit-one-extra', op.id) ? 1 : defects.on('rate-limit-one-short', op.id) ? -1 : 0;
  const budget = (limit: number) => Math.max(0, limit + bend);
  // a company's own limit (MOCK_COMPANIES) when it has one; a number when none has, as before
  const separate = companies?.separate === true;
  const limitOf = (req: FastifyRequest) => (separate ? companies!.limit(companyOf(req), op.rateGroup) : options.rateLimits[op.rateGroup]);
  const limit = options.rateLimits[op.rateGroup];
  return {
    max: separate ? (req: FastifyRequest) => budget(limitOf(req)) : budget(limit),
    timeWindow: Math.max(1, Math.round(options.rateWindowSeconds * 1000)),
    hook: 'preValidation',
    keyGenerator: (req) => JSON.stringify([op.id, companyOf(req)]),
    // The plugin has already set Retry-After (whole seconds, rounded up, at least 1) and the
    // X-RateLimit-* headers on the reply when this runs.
    errorResponseBuilder: (req) => new MockError(429, 'MW-429', `Rate limit exceeded: ${limitOf(req)} calls per ${options.rateWindowSeconds} s for ${op.title}`),
    blockWindows: defects.on('rate-limit-no-reset', op.id) ? noResetWindows(options.rateWindowSeconds * 1000) : 0,
  };
}
