/**
 * How far apart the calls of a burst left for the target (suite/burst.ts): the figure the rate-limit
 * check compares with a token bucket's refill before it reads "all accepted" as a FAIL.
 */
import { expect, test } from '@playwright/test';
import { reachMs } from '../../src/suite/burst.js';
import type { Exchange } from '../../src/client/exchange.js';

const call = (startMs: number, durationMs: number, sentAfterMs?: number) => ({ startedAt: new Date(1_000_000 + startMs).toISOString(), durationMs, ...(sentAfterMs === undefined ? {} : { sentAfterMs }) }) as Exchange;

test('calls written together are together, however late and however spread their answers (a far or busy target)', () => {
  expect(reachMs([call(0, 200, 1), call(1, 260, 1), call(2, 420, 2)])).toBe(3);
});

test('calls whose connections opened late on a loaded machine left hundreds of ms apart', () => {
  expect(reachMs([call(0, 18, 1), call(5, 300, 290), call(31, 301, 280)])).toBe(310);
});

test('calls never seen leaving (evidence of earlier suites, a refused connection) excuse nothing', () => {
  expect(reachMs([call(0, 18), call(5, 300), call(31, 301, 280)])).toBe(0);
});
