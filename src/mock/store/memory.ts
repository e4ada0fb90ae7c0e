/**
 * The in-memory store: one process, everything synchronous. A payment's read, decision and write
 * happen in one tick, so no other request can come between them: that alone makes it atomic.
 * Bounded like the state it wraps (state.ts, docs/mock.md "Limits on state").
 */
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { limiterStore, type LimiterKind } from '../limiters.js';
import { MockState, type Bill, type FeeSubject } from '../state.js';
import { TokenIssuer } from '../token.js';
import type { Decide, MockStore, PayOptions } from './index.js';

/** Scenario keys remembered; past this the oldest are dropped (a long serve stays bounded). */
const MAX_REMEMBERED = 10_000;

/** True the first time a key is seen, remembering at most `max` keys. */
export function boundedOnce(max = MAX_REMEMBERED): (key: string) => boolean {
  const fired = new Set<string>();
  return (key) => {
    if (fired.has(key)) return false;
    if (fired.size >= max) fired.delete(fired.values().next().value as string);
    fired.add(key);
    return true;
  };
}

export class MemoryStore implements MockStore {
  readonly kind = 'memory' as const;
  readonly tokens = new TokenIssuer();
  readonly once = boundedOnce();

  constructor(readonly state: MockState = new MockState()) {}

  bill(company: string, billerId: string, account: string): Bill | null {
    const bill = this.state.bill(company, billerId, account);
    return bill && { ...bill };
  }

  fee(company: string, billerId: string, id: string, requestType: string): FeeSubject | null {
    const fee = this.state.fee(company, billerId, id, requestType);
    return fee && { ...fee };
  }

  sequenceUsed(company: string, sequence: string): boolean {
    return this.state.sequenceUsed(company, sequence);
  }

  payBill<R>(company: string, billerId: string, account: string, sequence: string, decide: Decide<Bill, R>, options: PayOptions = {}): R {
    const live = this.state.bill(company, billerId, account);
    const used = !options.ignoreSequence && this.state.sequenceUsed(company, sequence);
    const d = decide(live && { ...live }, used);
    if (d.record) this.state.recordSequence(company, sequence);
    if (d.next && live) Object.assign(live, d.next);
    return d.result;
  }

  payFee<R>(company: string, billerId: string, id: string, requestType: string, sequence: string, decide: Decide<FeeSubject, R>, options: PayOptions = {}): R {
    const live = this.state.fee(company, billerId, id, requestType);
    const used = !options.ignoreSequence && this.state.sequenceUsed(company, sequence);
    const d = decide(live && { ...live }, used);
    if (d.record) this.state.recordSequence(company, sequence);
    if (d.next && live) Object.assign(live, d.next);
    return d.result;
  }

  nextReference(): string {
    return this.state.nextReference();
  }

  limiterStore(kind: LimiterKind): FastifyRateLimitStoreCtor {
    return limiterStore(kind);
  }

  async ready(): Promise<boolean> {
    return true;
  }

  readonly notReadyReason = undefined;

  async close(): Promise<void> {}
}
