/**
 * Preconditions the whole run shares (design.md §10: "a run never spends calls on a precondition
 * it has already seen fail"). Many cases build on one step: every payment case on an accepted
 * enquiry, every response rule on an accepted answer. Once that step has been refused `threshold`
 * times in a row (by any worker), the cases that need it end INCONCLUSIVE at once, naming the case
 * that tests the step, instead of each spending its calls to find the same thing again: against a
 * target that flags every success as failed, that cost 1.6 times a clean run at the real limits.
 *
 * A step is known by a key (`accepted:bill-enquiry`). The coordinator holds the shared state; a
 * single process (a tool, a test) keeps its own.
 */
import { post } from './remote.js';

export interface PreconditionFailure {
  /** What was refused, in words (masked by the reporter), from the refusal that tipped it. */
  detail: string;
  /** The case that tests the step directly. */
  testedBy: string;
  /** The cause signature the cases that needed it share. */
  cause: string;
  /** Refusals in a row seen before it was given up. */
  refusals: number;
}

export interface PreconditionReport { ok: boolean; detail?: string; testedBy?: string; cause?: string }

export interface RunFacts {
  /** The failure of a precondition, once shown; null while it holds or is unknown. */
  failed(key: string): Promise<PreconditionFailure | null>;
  /** The step was tried: accepted (`ok`), or refused (with what the cases that need it will say). */
  report(key: string, r: PreconditionReport): Promise<void>;
}

/** Refusals in a row of a step before the cases that need it stop trying. */
export const PRECONDITION_THRESHOLD = 3;

/** The shared state itself: in the coordinator, or in a single process. */
export class Preconditions {
  private readonly streak = new Map<string, number>();
  private readonly failures = new Map<string, PreconditionFailure>();
  private readonly seen = new Set<string>();

  constructor(private readonly threshold = PRECONDITION_THRESHOLD) {}

  failed(key: string): PreconditionFailure | null {
    return this.failures.get(key) ?? null;
  }

  report(key: string, r: PreconditionReport): void {
    if (r.ok) {
      // a step the target has accepted in this run is not failing: the refusals were of their own making
      this.seen.add(key);
      this.streak.set(key, 0);
      return;
    }
    if (this.seen.has(key) || this.failures.has(key)) return;
    const n = (this.streak.get(key) ?? 0) + 1;
    this.streak.set(key, n);
    if (n >= this.threshold) this.failures.set(key, { detail: r.detail ?? 'refused', testedBy: r.testedBy ?? 'unknown', cause: r.cause ?? `precondition: ${key}`, refusals: n });
  }

  /** Every failed precondition (for the run's statistics). */
  all(): Record<string, PreconditionFailure> {
    return Object.fromEntries(this.failures);
  }
}

export class LocalFacts implements RunFacts {
  constructor(private readonly state = new Preconditions()) {}
  async failed(key: string) { return this.state.failed(key); }
  async report(key: string, r: PreconditionReport) { this.state.report(key, r); }
}

/** The coordinator's shared preconditions, as every worker sees them. */
export class RemoteFacts implements RunFacts {
  constructor(private readonly base: string) {}
  async failed(key: string): Promise<PreconditionFailure | null> {
    return (await post<{ failure: PreconditionFailure | null }>(this.base, '/precondition', { key })).failure;
  }
  async report(key: string, r: PreconditionReport): Promise<void> {
    await post(this.base, '/precondition-report', { key, ...r });
  }
}
