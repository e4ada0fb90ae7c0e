/**
 * How far apart the calls of a burst may have reached the target (suite/burst.ts): the figure the
 * rate-limit check compares with a token bucket's refill before it reads "all accepted" as a FAIL.
 */
import { expect, test } from '@playwright/test';
import { reachMs } from '../../src/suite/burst.js';
import type { Exchange } from '../../src/client/exchange.js';

const call = (startMs: number, durationMs: number) => ({ startedAt: new Date(1_000_000 + startMs).toISOString(), durationMs }) as Exchange;

test('calls sent together and answered together reached the target within milliseconds', () => {
  expect(reachMs([call(0, 20), call(1, 22), call(2, 25), call(3, 21)])).toBe(7);
});

test('a far target (every answer 200 ms late) does not make calls sent together look apart', () => {
  expect(reachMs([call(0, 200), call(1, 204), call(2, 207)])).toBe(9);
});

test('calls whose connections opened late on a loaded machine may have reached it hundreds of ms apart', () => {
  expect(reachMs([call(0, 18), call(5, 300), call(31, 301)])).toBe(314);
});
