/**
 * What payments have changed, per mock instance and per company: bills, fee subjects, the sequence
 * numbers of accepted payments, and the counters behind unique references. Every method is
 * synchronous on purpose: a check and the change it guards happen without yielding to another
 * request, which is what makes duplicate detection hold under concurrency.
 */
import { randomInt } from 'node:crypto';
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

export class MockState {
  private readonly bills = new Map<string, Bill>();
  private readonly fees = new Map<string, FeeSubject>();
  private readonly sequences = new Map<string, Set<string>>();
  /** Keeps references of different mock instances (e.g. parallel test workers) apart. */
  private readonly instanceTag = String(randomInt(100_000, 1_000_000));
  private counter = 0;

  /** The bill as it stands now, created from its facts on first sight; null when it does not exist. */
  bill(company: string, billerId: string, account: string): Bill | null {
    const key = JSON.stringify([company, normalizeBillerId(billerId), account]);
    let bill = this.bills.get(key);
    if (!bill) {
      const facts = billFacts(billerId, account);
      if (!facts) return null;
      bill = { ...facts, billerId, account, paidCents: 0, paidDate: facts.lastPaidDate };
      this.bills.set(key, bill);
    }
    return bill;
  }

  fee(company: string, billerId: string, id: string, requestType: string): FeeSubject | null {
    const key = JSON.stringify([company, normalizeBillerId(billerId), id, requestType]);
    let fee = this.fees.get(key);
    if (!fee) {
      const facts = feeFacts(billerId, id, requestType);
      if (!facts) return null;
      fee = { ...facts, billerId, id, requestType };
      this.fees.set(key, fee);
    }
    return fee;
  }

  sequenceUsed(company: string, sequenceNumber: string): boolean {
    return this.sequences.get(company)?.has(sequenceNumber) ?? false;
  }

  /** Records an accepted payment's SequenceNumber (payBill and payFee do it with the debit). */
  recordSequence(company: string, sequenceNumber: string): void {
    let used = this.sequences.get(company);
    if (!used) this.sequences.set(company, (used = new Set()));
    used.add(sequenceNumber);
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
}
