/**
 * Where the mock keeps what must outlive a call (design.md §12): bills and fee subjects and what
 * payments did to them, the SequenceNumbers of accepted payments, issued tokens, the scenario
 * magic values already fired, and the rate-limit counters. One interface, two implementations:
 * `memory.ts` (the default: one process, synchronous, the embedded mock's speed) and `redis.ts`
 * (MOCK_REDIS_URL: any number of replicas share one sandbox); `open.ts` picks one from the options.
 *
 * A payment is a decision over the record it changes, applied atomically: the store reads the bill
 * (or fee subject) and whether the SequenceNumber was used, the rules decide in TypeScript, and the
 * store applies the decision only if neither changed meanwhile (memory: nothing yields in between;
 * Redis: a compare-and-set script, retried on conflict). So the rules live in one place, and no
 * process ever writes a value it read without that check.
 *
 * Methods answer synchronously where they can (`Maybe<T>`): the memory store never creates a
 * promise on the hot path, so the default mock stays as fast as it was.
 */
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { LimiterKind } from '../limiters.js';
import type { Bill, FeeSubject } from '../state.js';

export type Maybe<T> = T | Promise<T>;

/** Applies `f` to a value or a promise of it, staying synchronous for a plain value. */
export function then<T, U>(v: Maybe<T>, f: (t: T) => Maybe<U>): Maybe<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

/** What the rules decided about one payment entry. */
export interface PaymentDecision<S, R> {
  /** What the entry is answered with. */
  result: R;
  /** The record as it stands after the payment; absent when the payment changes nothing of it. */
  next?: S;
  /** Marks the entry's SequenceNumber as used by an accepted payment. */
  record?: boolean;
}

/**
 * The rules of one payment entry: pure, so a store may call them again on fresh data when the
 * record changed under it. `current` is a copy (null: the subject does not exist).
 */
export type Decide<S, R> = (current: S | null, sequenceUsed: boolean) => PaymentDecision<S, R>;

export interface PayOptions {
  /**
   * The decision does not look at the SequenceNumber (`duplicate-when-concurrent` checked it
   * earlier, on purpose outside the transaction): it is neither read nor guarded.
   */
  ignoreSequence?: boolean;
}

/** Bearer tokens from the token endpoint, each bound to the client credentials that obtained it. */
export interface TokenStore {
  issue(owner: string, lifetimeSeconds: number): Maybe<{ token: string; expiresIn: number }>;
  /** The owner (client id) of an active token; undefined for an unknown, expired or revoked one. */
  owner(token: string): Maybe<string | undefined>;
  /** Ends a token before its time, as a gateway may; false when it was not an active one. */
  revoke(token: string): Maybe<boolean>;
}

export interface MockStore {
  readonly kind: 'memory' | 'redis';
  /** The bill as it stands now (a copy), created from its facts on first sight; null when it does not exist. */
  bill(company: string, billerId: string, account: string): Maybe<Bill | null>;
  fee(company: string, billerId: string, id: string, requestType: string): Maybe<FeeSubject | null>;
  sequenceUsed(company: string, sequence: string): Maybe<boolean>;
  /** Decides and applies one bill payment entry atomically (see above). */
  payBill<R>(company: string, billerId: string, account: string, sequence: string, decide: Decide<Bill, R>, options?: PayOptions): Maybe<R>;
  payFee<R>(company: string, billerId: string, id: string, requestType: string, sequence: string, decide: Decide<FeeSubject, R>, options?: PayOptions): Maybe<R>;
  /** A fresh number for references that must never repeat, across replicas and restarts too. */
  nextReference(): string;
  readonly tokens: TokenStore;
  /** True the first time `key` is seen (the scenario magic values fire once). */
  once(key: string): Maybe<boolean>;
  /** The @fastify/rate-limit store that counts budgets of this kind here. */
  limiterStore(kind: LimiterKind): FastifyRateLimitStoreCtor;
  /** Whether calls can be served now (memory: always). */
  ready(): Promise<boolean>;
  /** Why calls could not be served, when the store knows (Redis: its last connection error), for /ready's answer. */
  readonly notReadyReason: string | undefined;
  /** Releases connections; the store is not used afterwards. */
  close(): Promise<void>;
}

/**
 * The shared store could not be reached or did not answer in time: the call is answered 503 with
 * Retry-After (server.ts), never 500 and never after a hang.
 */
export class StoreUnavailable extends Error {
  constructor(readonly why: string) {
    super(`the sandbox's store is unavailable: ${why}`);
    this.name = 'StoreUnavailable';
  }
}

/** Seconds a client is asked to wait after a StoreUnavailable (Redis reconnects within about a second). */
export const STORE_RETRY_AFTER_SECONDS = 1;
