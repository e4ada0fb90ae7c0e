/** Calls released together: the rate-limit and concurrent-duplicate cases send their bursts this way. */
import type { Exchange } from '../client/exchange.js';

export type Via = <U>(send: () => Promise<U>) => Promise<U>;

/** How far apart the copies went out and how long their answers took: evidence of a real overlap. */
export function spreadOf(answers: Exchange[]): string {
  const starts = answers.map((a) => Date.parse(a.startedAt));
  const ends = answers.map((a, i) => starts[i]! + a.durationMs);
  return `sent within ${Math.max(...starts) - Math.min(...starts)} ms, all answered ${Math.max(...ends) - Math.min(...starts)} ms after the first was sent`;
}

/**
 * How far apart the calls reached the target, as far as this side can tell: from the first request
 * written on its connection to the last (client/client.ts notes when each left). Calls sent together
 * still leave apart when each opens a connection of its own on a loaded machine, and a token bucket
 * frees a call every window / limit, so calls that left that far apart may all be accepted by a
 * conformant limiter. 0 when fewer than two calls were seen leaving (evidence of earlier suites).
 */
export function reachMs(answers: Exchange[]): number {
  const left = answers.filter((a) => a.sentAfterMs !== undefined).map((a) => Date.parse(a.startedAt) + a.sentAfterMs!);
  return left.length < 2 ? 0 : Math.max(...left) - Math.min(...left);
}

/**
 * Holds every send until all `n` have their pacer grant and headers, then lets them go in the same
 * tick: the copies reach the target as close together as the network allows, which is what a race
 * between a duplicate check and a debit needs to show.
 */
export function startTogether(via: Via, n: number): Via {
  let ready = 0;
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  return (send) => via(async () => {
    if (++ready === n) go();
    await gate;
    return send();
  });
}

