/**
 * What payments have changed, per mock instance and per company: bills, fee subjects, the sequence
 * numbers of accepted payments, and the counters behind unique references. Every method is
 * synchronous on purpose: a check and the change it guards happen without yielding to another
 * request, which is what makes duplicate detection hold under concurrency.
 *
 * Bounded, so a mock that serves for weeks does not grow without end (docs/mock.md, "Limits on
 * state"): per company at most `maxBills` bills and `maxFees` fee subjects, the least recently used
 * dropped first (a dropped one is derived again from its identity on next sight, world.ts, so only
 * what payments did to it is forgotten); and the accepted SequenceNumbers beyond `maxSequences`,
 * oldest first, but never one accepted less than `duplicateHorizonMs` ago.
 */
import { randomInt } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { specDate } from '../contract/headers.js';
import { BILL_STATUS } from './magic.js';
import { billFacts, feeFacts, normalizeBillerId, type BillFacts, type FeeFacts } from './world.js';

export interface Bill extends BillFacts {
  billerId: string;
  account: string;
  paidCents: number;
  paidDate: string;
}

export interface FeeSubject extends FeeFacts {
  billerId: string;
  id: string;
  requestType: string;
  paidDate?: string;
}

/** Bills kept per company; past this the least recently used is dropped (and its payments forgotten). */
export const MAX_BILLS_PER_COMPANY = 10_000;
/** MOI fee subjects kept per company, likewise. */
export const MAX_FEES_PER_COMPANY = 10_000;
/**
 * Accepted SequenceNumbers kept per company before the oldest are dropped: more than a day of
 * single-entry payments at the sandbox limits it was sized for (10 bill + 3 MOI payments a minute = 18,720 a
 * day), so at those limits nothing inside the horizon ever presses against it.
 */
export const MAX_SEQUENCES_PER_COMPANY = 20_000;
/**
 * A SequenceNumber accepted less than this long ago is never forgotten, whatever the cap: within it
 * a replay is always a duplicate. The spec names no window ("unique for each transaction"); a day
 * covers any client's retries and a day's reconciliation.
 */
export const DUPLICATE_HORIZON_MS = 24 * 60 * 60 * 1000;

export interface StateLimits {
  /** Bills per company (least recently used dropped first). */
  maxBills: number;
  /** Fee subjects per company (least recently used dropped first). */
  maxFees: number;
  /** Accepted SequenceNumbers per company, a soft cap: entries inside the horizon are kept past it. */
  maxSequences: number;
  /** How long an accepted SequenceNumber is certainly remembered, in ms. */
  duplicateHorizonMs: number;
}

export const DEFAULT_STATE_LIMITS: Readonly<StateLimits> = Object.freeze({
  maxBills: MAX_BILLS_PER_COMPANY,
  maxFees: MAX_FEES_PER_COMPANY,
  maxSequences: MAX_SEQUENCES_PER_COMPANY,
  duplicateHorizonMs: DUPLICATE_HORIZON_MS,
});

export interface StateSizes {
  bills: number;
  fees: number;
  sequences: number;
}

export interface StateStats extends StateSizes {
  /** Sizes per company (a company appears once it has been seen). */
  companies: Record<string, StateSizes>;
  /** How much was dropped so far, over all companies. */
  evicted: StateSizes;
  limits: StateLimits;
}

interface CompanyState {
  /** In order of last use: the first is the least recently used. */
  bills: Map<string, Bill>;
  fees: Map<string, FeeSubject>;
  /** SequenceNumber -> when it was accepted (clock ms), in order of acceptance. */
  sequences: Map<string, number>;
}

function checkLimits(l: StateLimits): StateLimits {
  for (const k of ['maxBills', 'maxFees', 'maxSequences'] as const) {
    if (!Number.isSafeInteger(l[k]) || l[k] < 1) throw new RangeError(`state limit ${k} must be a positive integer, got ${l[k]}`);
  }
  if (!(l.duplicateHorizonMs >= 0)) throw new RangeError(`state limit duplicateHorizonMs must be a number >= 0, got ${l.duplicateHorizonMs}`);
  return l;
}

/** Looks a key up and marks it as just used (moved to the end of the map's order). */
function touch<V>(map: Map<string, V>, key: string): V | undefined {
  const v = map.get(key);
  if (v !== undefined) {
    map.delete(key);
    map.set(key, v);
  }
  return v;
}

/** Drops the least recently used entries past `max`; returns how many. */
function trim<V>(map: Map<string, V>, max: number): number {
  let dropped = 0;
  while (map.size > max) {
    map.delete(map.keys().next().value as string);
    dropped += 1;
  }
  return dropped;
}

export class MockState {
  private readonly companies = new Map<string, CompanyState>();
  /** Keeps references of different mock instances (e.g. parallel test workers) apart. */
  private readonly instanceTag = String(randomInt(100_000, 1_000_000));
  private counter = 0;
  private current: StateLimits;
  private readonly evicted: StateSizes = { bills: 0, fees: 0, sequences: 0 };

  /**
   * `limits` default to the constants above; `clock` (ms, monotonic by default) is for tests of the
   * horizon.
   */
  constructor(limits: Partial<StateLimits> = {}, private readonly clock: () => number = () => performance.now()) {
    this.current = checkLimits({ ...DEFAULT_STATE_LIMITS, ...limits });
  }

  get limits(): Readonly<StateLimits> {
    return { ...this.current };
  }

  /** Changes the bounds of a running state (e.g. small ones in a soak test) and applies them at once. */
  configure(limits: Partial<StateLimits>): void {
    this.current = checkLimits({ ...this.current, ...limits });
    for (const c of this.companies.values()) {
      this.evicted.bills += trim(c.bills, this.current.maxBills);
      this.evicted.fees += trim(c.fees, this.current.maxFees);
      this.trimSequences(c.sequences);
    }
  }

  private of(company: string): CompanyState {
    let c = this.companies.get(company);
    if (!c) this.companies.set(company, (c = { bills: new Map(), fees: new Map(), sequences: new Map() }));
    return c;
  }

  /** The bill as it stands now, created from its facts on first sight; null when it does not exist. */
  bill(company: string, billerId: string, account: string): Bill | null {
    const bills = this.of(company).bills;
    const key = JSON.stringify([normalizeBillerId(billerId), account]);
    let bill = touch(bills, key);
    if (!bill) {
      const facts = billFacts(billerId, account);
      if (!facts) return null;
      bill = { ...facts, billerId, account, paidCents: 0, paidDate: facts.lastPaidDate };
      bills.set(key, bill);
      this.evicted.bills += trim(bills, this.current.maxBills);
    }
    return bill;
  }

  fee(company: string, billerId: string, id: string, requestType: string): FeeSubject | null {
    const fees = this.of(company).fees;
    const key = JSON.stringify([normalizeBillerId(billerId), id, requestType]);
    let fee = touch(fees, key);
    if (!fee) {
      const facts = feeFacts(billerId, id, requestType);
      if (!facts) return null;
      fee = { ...facts, billerId, id, requestType };
      fees.set(key, fee);
      this.evicted.fees += trim(fees, this.current.maxFees);
    }
    return fee;
  }

  sequenceUsed(company: string, sequenceNumber: string): boolean {
    return this.companies.get(company)?.sequences.has(sequenceNumber) ?? false;
  }

  /** Records an accepted payment's SequenceNumber (payBill and payFee do it with the debit). */
  recordSequence(company: string, sequenceNumber: string): void {
    const used = this.of(company).sequences;
    // re-recorded (only where a defect lets a duplicate through): its horizon starts again
    used.delete(sequenceNumber);
    used.set(sequenceNumber, this.clock());
    this.trimSequences(used);
  }

  /**
   * Drops the oldest accepted SequenceNumbers past the cap, stopping at the first one still inside
   * the horizon: the map is in order of acceptance, so every later one is inside it too.
   */
  private trimSequences(used: Map<string, number>): void {
    if (used.size <= this.current.maxSequences) return;
    const now = this.clock();
    for (const [sequence, at] of used) {
      if (used.size <= this.current.maxSequences || now - at < this.current.duplicateHorizonMs) return;
      used.delete(sequence);
      this.evicted.sequences += 1;
    }
  }

  /** Applies an accepted bill payment; the caller has checked every rule in the same tick. */
  payBill(company: string, bill: Bill, cents: number, sequenceNumber: string): void {
    this.recordSequence(company, sequenceNumber);
    bill.dueCents -= cents;
    bill.paidCents += cents;
    bill.paidDate = specDate();
    bill.status = bill.dueCents === 0 ? BILL_STATUS.paid : BILL_STATUS.partiallyPaid;
  }

  payFee(company: string, fee: FeeSubject, cents: number, sequenceNumber: string): void {
    this.recordSequence(company, sequenceNumber);
    fee.dueCents -= cents;
    fee.paidDate = specDate();
  }

  /** A fresh number for references that must never repeat: instance tag, then a counter. */
  nextReference(): string {
    this.counter += 1;
    return `${this.instanceTag}${String(this.counter).padStart(9, '0')}`;
  }

  /** How much is held: totals, per company, what was dropped so far, and the bounds. */
  stats(): StateStats {
    const companies: Record<string, StateSizes> = {};
    const total: StateSizes = { bills: 0, fees: 0, sequences: 0 };
    for (const [name, c] of this.companies) {
      const s = { bills: c.bills.size, fees: c.fees.size, sequences: c.sequences.size };
      companies[name] = s;
      total.bills += s.bills;
      total.fees += s.fees;
      total.sequences += s.sequences;
    }
    return { ...total, companies, evicted: { ...this.evicted }, limits: this.limits };
  }

  /** Entries held over all companies (bills + fee subjects + sequence numbers). */
  size(): number {
    const s = this.stats();
    return s.bills + s.fees + s.sequences;
  }
}
