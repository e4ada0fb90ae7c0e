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
 * How long the calls may have taken to reach the target, at most: from the first one's start to the
 * last answer, less the quickest round trip among them (which every answer's time includes). Calls
 * sent together still reach a target apart when they open connections of their own on a loaded
 * machine; a token bucket frees a call every window / limit, so calls that reached it that far apart
 * may all be accepted by a conformant limiter.
 */
export function reachMs(answers: Exchange[]): number {
  const starts = answers.map((a) => Date.parse(a.startedAt));
  const ends = answers.map((a, i) => starts[i]! + a.durationMs);
  return Math.max(0, Math.max(...ends) - Math.min(...starts) - Math.min(...answers.map((a) => a.durationMs)));
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

