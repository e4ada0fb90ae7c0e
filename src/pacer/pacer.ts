/** What the client needs from pacing, whether the budgets live in this process or in the coordinator. */
import type { OperationId } from '../contract/catalogue.js';
import { Budget, defaultMarginMs, type BudgetStats } from './budget.js';
import type { Health, Outage } from './outage.js';
import { OverLimitAnswers, type OverLimitAnswer, type Refusal } from './over-limit.js';

export type Limits = Record<OperationId, number>;

/**
 * The run is stopping (Ctrl-C, SIGTERM, an outage past SADAD_MAX_OUTAGE_SECONDS): the coordinator
 * grants nothing more, and a case waiting for a grant ends at once instead of at its test timeout.
 * The case records no verdict of its own: Playwright stopped it, and the reporter says NOT_RUN.
 */
export class RunStopping extends Error {
  constructor() { super('the run is stopping: no more calls are granted'); this.name = 'RunStopping'; }
}

export interface Pacer {
  /**
   * Runs `send` inside the operation's budget. `health` says what the result meant for the
   * target's availability: the coordinator's outage watch sees every call that way.
   */
  call<T>(op: OperationId, send: () => Promise<T>, health?: (result: T) => Health | undefined): Promise<T>;
  /**
   * A call outside a burst was refused (a 429, a 403 or a 5xx). When that was the gateway's limiter
   * (a 429, or the over-limit answer a rate-limit case identified: over-limit.ts), the operation
   * slows down (budget.ts) and this resolves true: the caller sends the call again, through the
   * pacer, without counting it against the case's retries.
   */
  refused(op: OperationId, refusal: Refusal): Promise<boolean>;
  /** A rate-limit case saw exactly the calls over the limit refused with this answer (not a 429): it is the limiter's. */
  learnOverLimit(answer: OverLimitAnswer): Promise<void>;
  /**
   * Holds the operation alone once it is quiet enough for `size` calls sent together (default: more
   * than the limit, as the rate-limit cases send); `call` inside may exceed the limit on purpose.
   */
  exclusive<T>(op: OperationId, body: (call: <U>(send: () => Promise<U>) => Promise<U>) => Promise<T>, size?: number): Promise<T>;
  stats(): Promise<Record<string, BudgetStats>>;
  /** A call made inside an exclusive hold (a burst), whose outcome the outage watch sees too. */
  report(health: Health): Promise<void>;
  /**
   * The outages the run has met so far (the current one included); none without a coordinator.
   * `settle`: first wait until a probe in flight has decided, or the current outage is over.
   */
  outages(settle?: boolean): Promise<Outage[]>;
}

export interface PacingPlan { windowSeconds: number; limits: Limits; marginMs?: number }

export function budgetsFor(plan: PacingPlan): Map<OperationId, Budget> {
  const windowMs = plan.windowSeconds * 1000;
  const margin = plan.marginMs ?? defaultMarginMs(windowMs);
  return new Map(Object.entries(plan.limits).map(([op, limit]) => [op as OperationId, new Budget(limit, windowMs, margin)]));
}

/**
 * How long a Retry-After holds an operation back: as the gateway asks, but at most two windows (or
 * 5 s): a longer one would stall the run, and the slowed spacing guards the budget anyway.
 */
export const retryAfterCapMs = (windowSeconds: number) => Math.max(5_000, 2 * windowSeconds * 1000);

/** The refusal as a budget reads it: slows it down when it was the limiter's (shared by the local pacer and the coordinator). */
export function applyRefusal(budget: Budget, answers: OverLimitAnswers, refusal: Refusal, windowSeconds: number): boolean {
  if (!answers.isOverLimit(refusal)) return false;
  const after = refusal.retryAfterMs === undefined ? undefined : Math.min(refusal.retryAfterMs, retryAfterCapMs(windowSeconds));
  budget.refused(refusal.sentAt, after);
  return true;
}

/** Budgets in this process: for a single process (tests, tools) or inside the coordinator. */
export class LocalPacer implements Pacer {
  readonly budgets: Map<OperationId, Budget>;
  private readonly answers = new OverLimitAnswers();
  constructor(private readonly plan: PacingPlan) { this.budgets = budgetsFor(plan); }

  private budget(op: OperationId): Budget {
    const b = this.budgets.get(op);
    if (!b) throw new Error(`no budget for operation ${op}`);
    return b;
  }

  async call<T>(op: OperationId, send: () => Promise<T>, _health?: (result: T) => Health | undefined): Promise<T> {
    const b = this.budget(op);
    const slot = await b.acquire();
    try { return await send(); } finally { b.release(slot); }
  }

  async exclusive<T>(op: OperationId, body: (call: <U>(send: () => Promise<U>) => Promise<U>) => Promise<T>, size?: number): Promise<T> {
    const b = this.budget(op);
    const holder = await b.acquireExclusive(size);
    const call = async <U>(send: () => Promise<U>): Promise<U> => {
      const slot = b.recordExclusiveCall(holder);
      try { return await send(); } finally { b.release(slot); }
    };
    try { return await body(call); } finally { b.releaseExclusive(holder); }
  }

  async stats(): Promise<Record<string, BudgetStats>> {
    return Object.fromEntries([...this.budgets].map(([op, b]) => [op, { ...b.stats }]));
  }

  async report(_health: Health): Promise<void> { /* nothing watches the target here */ }

  async refused(op: OperationId, refusal: Refusal): Promise<boolean> {
    return applyRefusal(this.budget(op), this.answers, refusal, this.plan.windowSeconds);
  }

  async learnOverLimit(answer: OverLimitAnswer): Promise<void> { this.answers.learn(answer); }

  /** A single process (a tool, a test) has no coordinator to watch the target: it never pauses. */
  async outages(_settle?: boolean): Promise<Outage[]> { return []; }
}
