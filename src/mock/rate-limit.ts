/**
 * Sandbox rate limits (spec §4, §8): a budget per operation and per company, sized by the
 * operation's group. @fastify/rate-limit's local store keeps a fixed window that starts at the
 * first counted call and takes the window in milliseconds, so fractional windows work. The check
 * runs at preValidation, after authentication (headers at onRequest, signature at preValidation
 * before it): every authenticated call counts, including ones then rejected by validation or the
 * business rules; unauthenticated calls do not spend a company's budget.
 */
import rateLimit, { type RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Operation } from '../contract/catalogue.js';
import { MockError } from './errors.js';
import type { MockOptions } from './options.js';

export async function registerRateLimiter(app: FastifyInstance): Promise<void> {
  // Not global: only the API routes are limited, each with its own budget (the token endpoint is not).
  await app.register(rateLimit, { global: false, hook: 'preValidation' });
}

const companyOf = (req: FastifyRequest) => String(req.headers.companyid ?? '');

/** Route config of one operation; the plugin gives each route its own store. */
export function rateLimitFor(op: Operation, options: MockOptions): RateLimitOptions {
  const max = options.rateLimits[op.rateGroup];
  return {
    max,
    timeWindow: Math.max(1, Math.round(options.rateWindowSeconds * 1000)),
    hook: 'preValidation',
    keyGenerator: (req) => JSON.stringify([op.id, companyOf(req)]),
    // The plugin has already set Retry-After (whole seconds, rounded up, at least 1) and the
    // X-RateLimit-* headers on the reply when this runs.
    errorResponseBuilder: () => new MockError(429, 'MW-429', `Rate limit exceeded: ${max} calls per ${options.rateWindowSeconds} s for ${op.title}`),
  };
}
