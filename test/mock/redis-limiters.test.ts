/**
 * The rate-limit counting in Redis (one Lua script per call, store/redis.ts) decides exactly as the
 * in-process limiters (limiters.ts) do: every kind, with and without the `rate-limit-no-reset`
 * block, over seeded random call times on a fake clock, gives the same `current` and `ttl` call by
 * call. So the limiter tests of the in-process kinds hold for the shared budgets too.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect, test } from '@playwright/test';
import { LIMITER_KINDS } from '../../src/mock/index.js';
import { keyLimiter, StaysBlocked, type KeyLimiter } from '../../src/mock/limiters.js';
import { RedisStore, uniquePrefix } from '../../src/mock/store/redis.js';
import { sharedRedis } from './helpers.js';
import { mulberry32 } from '../../src/generators/prng.js';

/** The same sequence for a seed (mulberry32, as the mock's faults draw). */
const random = mulberry32;

for (const kind of LIMITER_KINDS) {
  test(`${kind}: Redis decides like the in-process limiter, call by call`, async () => {
    const store = await RedisStore.connect({ url: (await sharedRedis()).url, prefix: uniquePrefix('limiters') });
    try {
      let compared = 0;
      for (let seed = 1; seed <= 12; seed++) {
        const r = random(seed * 7919);
        const max = 1 + Math.floor(r() * 5);
        const windowMs = [100, 250, 1000, 3000][Math.floor(r() * 4)]!;
        const blocks = seed % 3 === 0 ? 3 : 0;
        const local: KeyLimiter = blocks > 0 ? new StaysBlocked(keyLimiter(kind), blocks) : keyLimiter(kind);
        let now = 1_700_000_000_000 + Math.floor(r() * 1e6);
        const key = `seed-${seed}`;
        for (let i = 0; i < 80; i++) {
          // bursts, pauses of about a window, now and then a clock stepping back a little
          const step = r() < 0.5 ? Math.floor(r() * 5) : r() < 0.9 ? Math.floor(r() * windowMs) : r() < 0.5 ? -Math.floor(r() * 50) : Math.floor(r() * windowMs * 4);
          now += step;
          const want = local.take(now, max, windowMs);
          const got = await store.take(kind, key, max, windowMs, blocks, now);
          // asserted only on a difference: Playwright records every expect as a step, at a cost that grows
          // with the test's steps so far (docs/architecture.md, Developing); the first difference fails here
          if (!isDeepStrictEqual(got, want)) expect(got, `${kind} seed ${seed} call ${i} at ${now} (max ${max}, W ${windowMs}, blocks ${blocks})`).toEqual(want);
          compared += 1;
        }
      }
      expect(compared).toBe(12 * 80);
    } finally {
      await store.flush();
      await store.close();
    }
  });
}

test('spaced: Redis decides like the in-process limiter at the edges: fractional intervals, a limit of 0, intervals under 1 ms', async () => {
  const store = await RedisStore.connect({ url: (await sharedRedis()).url, prefix: uniquePrefix('limiters') });
  try {
    // W/max of 1000/3, 250/7 and 100/6 are not whole milliseconds; 3/5 is under one; 0 refuses everything
    const cases = [[3, 1000, 0], [7, 250, 0], [6, 100, 2], [5, 3, 0], [0, 1000, 0], [0, 250, 3], [1, 1, 0]] as const;
    for (const [n, [max, windowMs, blocks]] of cases.entries()) {
      const r = random(n + 1);
      const local: KeyLimiter = blocks > 0 ? new StaysBlocked(keyLimiter('spaced'), blocks) : keyLimiter('spaced');
      let now = 1_700_000_000_000 + n;
      const key = `edge-${n}`;
      for (let i = 0; i < 120; i++) {
        // steps around the interval, where the rounding decides
        now += Math.floor(r() * (2 * windowMs / Math.max(1, max) + 2));
        const want = local.take(now, max, windowMs);
        const got = await store.take('spaced', key, max, windowMs, blocks, now);
        if (!isDeepStrictEqual(got, want)) expect(got, `call ${i} at ${now} (max ${max}, W ${windowMs}, blocks ${blocks})`).toEqual(want);
      }
    }
  } finally {
    await store.flush();
    await store.close();
  }
});
