/**
 * Client-side pacing for the bill and MOI fee payment API: a sliding log of calls per operation.
 *
 * Rules it keeps (spec §4, §8: "N calls per window" per operation):
 * - never more than `limit` calls of an operation in any interval of the window's length;
 * - every call counts, also the ones the service refuses (401, 400, 429, ...), and a call keeps
 *   counting from the moment it is sent until the window (plus a safety margin) has passed since
 *   its answer arrived. That is a little stricter than "window after sending": the service counts a
 *   call when it arrives, somewhere between the two, so this holds whatever the latency was;
 * - after a 429, no call of that operation before `Retry-After` has passed since the answer.
 *
 * Standalone: node built-ins only, copy it as it is.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** One call's place in the log. `done()` is called when its answer (or its timeout) arrived. */
export interface PacerSlot {
  done(at?: number): void;
}

interface Entry {
  sentAt: number;
  /** When the answer arrived (or the call was given up); undefined while in flight. */
  endedAt?: number;
}

export interface PacerOptions {
  windowSeconds: number;
  /** Calls allowed per window, by key (an operation). */
  limitOf: (key: string) => number;
  /** Extra time a call keeps counting; default 50 ms + 2% of the window. */
  marginMs?: number;
  now?: () => number;
}

/** While every counting call is still in flight, check again this often. */
const IN_FLIGHT_POLL_MS = 25;

export class Pacer {
  readonly windowMs: number;
  readonly marginMs: number;
  private readonly logs = new Map<string, Entry[]>();
  private readonly blockedUntil = new Map<string, number>();
  /** One waiter at a time per key, so concurrent callers are served in order. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly now: () => number;

  constructor(private readonly options: PacerOptions) {
    this.windowMs = options.windowSeconds * 1000;
    this.marginMs = options.marginMs ?? 50 + 0.02 * this.windowMs;
    this.now = options.now ?? Date.now;
  }

  /** Waits until a call of `key` may be sent, and records it as sent. */
  acquire(key: string): Promise<PacerSlot> {
    const turn = (this.queues.get(key) ?? Promise.resolve()).then(() => this.waitForRoom(key));
    this.queues.set(key, turn.catch(() => undefined));
    return turn;
  }

  /**
   * Records a call sent without waiting. Only for calls that bypass the pacer on purpose (a test of
   * the service's limit): they still count for the calls after them.
   */
  record(key: string): PacerSlot {
    const entry: Entry = { sentAt: this.now() };
    const log = this.logs.get(key) ?? [];
    log.push(entry);
    this.logs.set(key, log);
    return { done: (at = this.now()) => { entry.endedAt = Math.max(at, entry.sentAt); } };
  }

  /** No call of `key` before `at` (epoch ms): after a 429, its answer's time + Retry-After. */
  blockUntil(key: string, at: number): void {
    this.blockedUntil.set(key, Math.max(this.blockedUntil.get(key) ?? 0, at));
  }

  /** Milliseconds until a call of `key` may be sent (0 or less: now). */
  delayFor(key: string): number {
    const now = this.now();
    const log = this.prune(key, now);
    let wait = (this.blockedUntil.get(key) ?? 0) - now;
    const limit = this.options.limitOf(key);
    if (log.length >= limit) {
      // room comes when all but limit-1 of the counting calls have stopped counting
      const freeAt = log.map((e) => (e.endedAt === undefined ? Infinity : e.endedAt + this.windowMs + this.marginMs)).sort((a, b) => a - b);
      const at = freeAt[log.length - limit] ?? Infinity;
      wait = Math.max(wait, at === Infinity ? IN_FLIGHT_POLL_MS : at - now);
    }
    return wait;
  }

  private async waitForRoom(key: string): Promise<PacerSlot> {
    for (;;) {
      const wait = this.delayFor(key);
      if (wait <= 0) return this.record(key);
      await sleep(Math.ceil(wait));
    }
  }

  private prune(key: string, now: number): Entry[] {
    const log = (this.logs.get(key) ?? []).filter((e) => e.endedAt === undefined || e.endedAt + this.windowMs + this.marginMs > now);
    this.logs.set(key, log);
    return log;
  }
}
