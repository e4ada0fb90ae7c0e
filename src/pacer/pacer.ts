/** What the client needs from pacing, whether the budgets live in this process or in the coordinator. */
import type { OperationId } from '../contract/catalogue.js';
import { Budget, defaultMarginMs, type BudgetStats } from './budget.js';
import type { Health, Outage } from './outage.js';

export type Limits = Record<OperationId, number>;

export interface Pacer {
  /**
   * Runs `send` inside the operation's budget. `health` says what the result meant for the
   * target's availability: the coordinator's outage watch sees every call that way.
   */
  call<T>(op: OperationId, send: () => Promise<T>, health?: (result: T) => Health | undefined): Promise<T>;
  /** Holds the operation alone from a fresh window on; `call` inside may exceed the limit on purpose. */
  exclusive<T>(op: OperationId, body: (call: <U>(send: () => Promise<U>) => Promise<U>) => Promise<T>): Promise<T>;
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

/** Budgets in this process: for a single process (tests, tools) or inside the coordinator. */
export class LocalPacer implements Pacer {
  readonly budgets: Map<OperationId, Budget>;
  constructor(plan: PacingPlan) { this.budgets = budgetsFor(plan); }

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

  async exclusive<T>(op: OperationId, body: (call: <U>(send: () => Promise<U>) => Promise<U>) => Promise<T>): Promise<T> {
    const b = this.budget(op);
    const holder = await b.acquireExclusive();
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

  /** A single process (a tool, a test) has no coordinator to watch the target: it never pauses. */
  async outages(_settle?: boolean): Promise<Outage[]> { return []; }
}
