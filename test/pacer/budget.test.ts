import { expect, test } from '@playwright/test';
import { LocalPacer, type Pacer } from '../../src/pacer/pacer.js';
import { startCoordinator } from '../../src/pacer/coordinator.js';
import { RemotePacer } from '../../src/pacer/remote.js';

const WINDOW_S = 0.3;
const limits = { 'bill-enquiry': 4, 'bill-payment': 4, 'moi-enquiry': 2, 'moi-payment': 2 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The most call starts inside any interval of one window: what a target's counter could see. */
function maxInAnyWindow(starts: number[], windowMs: number): number {
  const s = [...starts].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0; i < s.length; i++) best = Math.max(best, s.filter((t) => t >= s[i]! && t < s[i]! + windowMs).length);
  return best;
}

async function burst(pacers: Pacer[], op: 'bill-enquiry' | 'moi-enquiry', n: number) {
  const starts: number[] = [];
  await Promise.all(Array.from({ length: n }, (_, i) => pacers[i % pacers.length]!.call(op, async () => { starts.push(Date.now()); await sleep(15); })));
  return starts;
}

test('local budget: no window ever holds more than the limit, and calls keep flowing', async () => {
  const pacer = new LocalPacer({ windowSeconds: WINDOW_S, limits, marginMs: 10 });
  const t0 = Date.now();
  const [bill, moi] = await Promise.all([burst([pacer], 'bill-enquiry', 16), burst([pacer], 'moi-enquiry', 8)]);
  expect(maxInAnyWindow(bill, WINDOW_S * 1000)).toBeLessThanOrEqual(4);
  expect(maxInAnyWindow(moi, WINDOW_S * 1000)).toBeLessThanOrEqual(2);
  // the two budgets were spent in parallel: about 3-4 windows, not the 7-8 of one after the other
  expect(Date.now() - t0).toBeLessThan(WINDOW_S * 1000 * 6);
});

test('shared through the coordinator: three clients (as three workers) together respect one budget', async () => {
  const c = await startCoordinator({ windowSeconds: WINDOW_S, limits, marginMs: 10, leaseMs: 5000 });
  try {
    const pacers = [new RemotePacer(c.url), new RemotePacer(c.url), new RemotePacer(c.url)];
    const starts = await burst(pacers, 'bill-enquiry', 14);
    expect(starts).toHaveLength(14);
    expect(maxInAnyWindow(starts, WINDOW_S * 1000)).toBeLessThanOrEqual(4);
    const stats = await pacers[0]!.stats();
    expect(stats['bill-enquiry']!.calls).toBe(14);
    expect(stats['bill-enquiry']!.maxInWindow).toBeLessThanOrEqual(4);
  } finally {
    await c.close();
  }
});

test('an exclusive hold starts in a fresh window, may exceed the limit, and later calls wait for its calls to age out', async () => {
  const pacer = new LocalPacer({ windowSeconds: WINDOW_S, limits, marginMs: 10 });
  const before = await burst([pacer], 'moi-enquiry', 2);
  const lastBefore = Math.max(...before) + 15;
  const exclusiveStarts: number[] = [];
  const hold = pacer.exclusive('moi-enquiry', async (via) => {
    for (let i = 0; i < 3; i++) await via(async () => { exclusiveStarts.push(Date.now()); });
  });
  const waiting = pacer.call('moi-enquiry', async () => Date.now()); // queued behind the hold
  await hold;
  expect(exclusiveStarts[0]! - lastBefore).toBeGreaterThanOrEqual(WINDOW_S * 1000);
  expect(exclusiveStarts).toHaveLength(3); // over the limit of 2, on purpose
  const after = await waiting;
  expect(after - Math.max(...exclusiveStarts)).toBeGreaterThanOrEqual(WINDOW_S * 1000 - 5);
});
