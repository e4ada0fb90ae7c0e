/**
 * The ways a gateway may count "limit calls per window" (MOCK_LIMITER), as a custom store of
 * @fastify/rate-limit: the plugin keeps the hook, the key, the headers and the 429; the store only
 * decides. The four windowed kinds (fixed, calendar, sliding, bucket) are each conformant: a client
 * that never has more than `limit` calls in any interval of the window's length is never refused by
 * any of them, so the suite must survive all four. The fifth, `spaced`, is stricter, as smoothing
 * gateways are (nginx `limit_req` without `burst`, Apigee SpikeArrest): it is conformant only for a
 * client that spaces its calls by at least W/limit: it refuses bursts the others accept, so a suite
 * facing one is told so (SADAD_RATE_SHAPE=spaced) instead of reading those refusals as a lower limit.
 *
 * The plugin reads a decision as `{ current, ttl }`: the call is refused when `current > max`,
 * `X-RateLimit-Remaining` is `max - current`, and `X-RateLimit-Reset` (and, on a 429, `Retry-After`)
 * is `ceil(ttl / 1000)`. Every kind therefore reports in `ttl` the time until one more call becomes
 * available (when Remaining next goes up): on a 429 that is exactly when a retry is accepted.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';

export const LIMITER_KINDS = ['fixed', 'calendar', 'sliding', 'bucket', 'spaced'] as const;
export type LimiterKind = (typeof LIMITER_KINDS)[number];

/** What the store answers the plugin; `ttl` in milliseconds, always positive. */
export interface Decision { current: number; ttl: number }

/** The budget of one key (an operation and a company). `now` is epoch milliseconds. */
export interface KeyLimiter {
  take(now: number, max: number, windowMs: number): Decision;
}

/** A refusal when `max` leaves no room at all (`rate-limit-one-short` on a limit of 1). */
const never = (windowMs: number): Decision => ({ current: 1, ttl: windowMs });

/** Window starting at the first call after the previous one ended: @fastify/rate-limit's LocalStore. */
export class FixedWindow implements KeyLimiter {
  private start = -Infinity;
  private count = 0;

  take(now: number, _max: number, windowMs: number): Decision {
    if (now >= this.start + windowMs) {
      this.start = now;
      this.count = 0;
    }
    // refused calls are counted too, as LocalStore does: Remaining stays 0 and the window unchanged
    this.count += 1;
    return { current: this.count, ttl: this.start + windowMs - now };
  }
}

/** Windows aligned to the clock: window k is [k*W, (k+1)*W) of epoch milliseconds. */
export class CalendarWindow implements KeyLimiter {
  private index = Number.NaN;
  private count = 0;

  take(now: number, _max: number, windowMs: number): Decision {
    const k = Math.floor(now / windowMs);
    if (k !== this.index) {
      this.index = k;
      this.count = 0;
    }
    this.count += 1;
    return { current: this.count, ttl: (k + 1) * windowMs - now };
  }
}

/** Sliding log: an accepted call counts for exactly W after it; refused calls do not count. */
export class SlidingLog implements KeyLimiter {
  /** Times of the accepted calls still counting, oldest first; never longer than `max`. */
  private log: number[] = [];

  take(now: number, max: number, windowMs: number): Decision {
    while (this.log.length > 0 && this.log[0]! + windowMs <= now) this.log.shift();
    if (max <= 0) return never(windowMs);
    if (this.log.length < max) {
      this.log.push(now);
      return { current: this.log.length, ttl: this.log[0]! + windowMs - now };
    }
    // the call that is accepted next is the one after the (length - max + 1)-th oldest leaves
    return { current: max + 1, ttl: this.log[this.log.length - max]! + windowMs - now };
  }
}

/** Float slack: a bucket refilled to 0.9999999999 tokens by rounding has a whole token. */
const EPSILON = 1e-9;

/** Whole milliseconds until `tokens` more have dripped in (at least 1; rounding noise is not a millisecond more). */
const msUntil = (tokens: number, perMs: number) => Math.max(1, Math.ceil(tokens / perMs - EPSILON * 1000));

/** Token bucket of capacity `max`, refilled continuously at `max` tokens per W; starts full. */
export class TokenBucket implements KeyLimiter {
  private tokens = Number.NaN;
  private last = 0;

  take(now: number, max: number, windowMs: number): Decision {
    if (max <= 0) return never(windowMs);
    const perMs = max / windowMs;
    // a clock stepping back must not drain the bucket
    this.tokens = Number.isNaN(this.tokens) ? max : Math.min(max, this.tokens + Math.max(0, now - this.last) * perMs);
    this.last = now;
    if (this.tokens + EPSILON >= 1) {
      this.tokens = Math.max(0, this.tokens - 1);
      const whole = Math.floor(this.tokens + EPSILON);
      return { current: max - whole, ttl: msUntil(whole + 1 - this.tokens, perMs) };
    }
    return { current: max + 1, ttl: msUntil(1 - this.tokens, perMs) };
  }
}

/**
 * One call per W/limit, measured from the last accepted call (the first is always accepted);
 * refused calls do not count, as nginx does not: a client retrying too early is not pushed back.
 * Calls sent together: only the first passes. The interval need not be whole milliseconds
 * (1000 ms / 3), so it is kept exact, and every call is measured from an accepted call's own time,
 * never from a sum of intervals: nothing accumulates rounding. Remaining is 0 after an accepted
 * call, since nothing more is accepted until the interval has passed.
 */
export class SpacedInterval implements KeyLimiter {
  private last = Number.NaN;

  take(now: number, max: number, windowMs: number): Decision {
    if (max <= 0) return never(windowMs);
    const interval = windowMs / max;
    // the slack: 300.00000000000006 ms (a 0.3 s window) over 3 is 100 ms, not a millisecond more
    if (Number.isNaN(this.last) || now - this.last >= interval - EPSILON) {
      this.last = now;
      return { current: max, ttl: Math.max(1, Math.ceil(interval - EPSILON)) };
    }
    // a clock stepping back makes the wait longer, never shorter: two accepted calls are never
    // closer than the interval on the clock that measures them
    return { current: max + 1, ttl: Math.max(1, Math.ceil(this.last + interval - now - EPSILON)) };
  }
}

/**
 * `rate-limit-no-reset`: once a key is refused it stays refused for `windows` windows, whatever
 * the kind counts meanwhile; then the inner limiter, long since refilled, decides again.
 */
export class StaysBlocked implements KeyLimiter {
  private until = 0;

  constructor(private readonly inner: KeyLimiter, private readonly windows: number) {}

  take(now: number, max: number, windowMs: number): Decision {
    if (now < this.until) return { current: max + 1, ttl: this.until - now };
    const d = this.inner.take(now, max, windowMs);
    if (d.current <= max) return d;
    this.until = now + this.windows * windowMs;
    return { current: d.current, ttl: this.until - now };
  }
}

export function keyLimiter(kind: LimiterKind): KeyLimiter {
  switch (kind) {
    case 'fixed': return new FixedWindow();
    case 'calendar': return new CalendarWindow();
    case 'sliding': return new SlidingLog();
    case 'bucket': return new TokenBucket();
    case 'spaced': return new SpacedInterval();
  }
}

/** What a route's rate-limit config may add for the store (the plugin passes unknown keys through to `child`). */
export interface LimiterRouteOptions {
  /** Windows a key stays refused once refused (`rate-limit-no-reset`); 0 or absent: never. */
  blockWindows?: number;
}

/**
 * The plugin builds its root store with `new Store(pluginOptions)`, from which it drops unknown
 * keys, so the kind is bound into the class; per-route settings reach `child`.
 */
export function limiterStore(kind: LimiterKind, now: () => number = Date.now): FastifyRateLimitStoreCtor {
  class LimiterStore implements FastifyRateLimitStore {
    // Keys are (operation, company) and companies are configured, so this map stays small.
    private readonly keys = new Map<string, KeyLimiter>();

    constructor(_options?: unknown, private readonly blockWindows = 0) {}

    incr(key: string, callback: (error: Error | null, result?: Decision) => void, timeWindow: number, max: number): void {
      let limiter = this.keys.get(key);
      if (limiter === undefined) {
        limiter = this.blockWindows > 0 ? new StaysBlocked(keyLimiter(kind), this.blockWindows) : keyLimiter(kind);
        this.keys.set(key, limiter);
      }
      callback(null, limiter.take(now(), max, Math.max(1, timeWindow)));
    }

    /** Typed as the route's options, but at run time the route's rate-limit config merged over the plugin's. */
    child(routeOptions: object): FastifyRateLimitStore {
      return new LimiterStore(undefined, (routeOptions as LimiterRouteOptions).blockWindows ?? 0);
    }
  }
  return LimiterStore as unknown as FastifyRateLimitStoreCtor;
}
