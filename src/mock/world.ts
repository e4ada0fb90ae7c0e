/**
 * The open world: every well-formed identifier has a bill or a fee subject, derived from a hash of
 * its identity, so generated data works against the mock and the same identity always starts from
 * the same facts. Magic suffixes (magic.ts) bend the facts into the special cases.
 */
import { createHash } from 'node:crypto';
import { specDate } from '../contract/headers.js';
import { BILLERS, MOI_BILLERS } from '../generators/values.js';
import { BILL_AMOUNT_RANGE, BILL_STATUS, billCaseOf, moiCaseOf, type BillCase, type MoiCase } from './magic.js';

/** Deterministic pseudo-random integers from a text: the same text, the same sequence. */
class Dice {
  private bytes: Buffer;
  private at = 0;

  constructor(private readonly seed: string) {
    this.bytes = createHash('sha256').update(seed).digest();
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    if (this.at + 6 > this.bytes.length) {
      this.bytes = createHash('sha256').update(this.bytes).update(this.seed).digest();
      this.at = 0;
    }
    const n = this.bytes.readUIntBE(this.at, 6);
    this.at += 6;
    return min + (n % (max - min + 1));
  }

  digits(length: number): string {
    let s = String(this.int(1, 9));
    while (s.length < length) s += String(this.int(0, 9));
    return s;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(0, list.length - 1)]!;
  }
}

/** Biller ids are numeric codes that samples show as numbers: "001" and "1" name the same biller. */
export function normalizeBillerId(id: string): string {
  return /^\d+$/.test(id) ? String(Number(id)) : id;
}

const daysFrom = (today: Date, days: number) => specDate(new Date(today.getFullYear(), today.getMonth(), today.getDate() + days));

export interface BillFacts {
  case: Exclude<BillCase, 'notFound'>;
  billNo: string;
  billerDetail: string;
  serviceType: string;
  categoryType: string;
  custType: string;
  /** Initial AmountDue in cents (0 for an already paid bill). */
  dueCents: number;
  /** Amount the bill was issued for, in cents. */
  billedCents: number;
  status: string;
  lastPaidDate: string;
  openDate: string;
  closeDate: string;
  dueDate: string;
  expiryDate: string;
  expired: boolean;
  exactOnly: boolean;
}

/** The bill of (BillerId, account) as first seen; null where the magic value says it does not exist. */
export function billFacts(billerId: string, account: string, today = new Date()): BillFacts | null {
  const kind = billCaseOf(account);
  if (kind === 'notFound') return null;
  const dice = new Dice(`bill|${normalizeBillerId(billerId)}|${account}`);
  const biller = BILLERS.find((b) => normalizeBillerId(b.id) === normalizeBillerId(billerId));
  const billedCents = dice.int(BILL_AMOUNT_RANGE.min * 100, BILL_AMOUNT_RANGE.max * 100);
  // An expired bill's cycle closed three months ago; an ordinary one closed in the last few days.
  const closeOffset = kind === 'expired' ? -90 : -dice.int(1, 5);
  const billNo = dice.digits(13);
  const paid = kind === 'alreadyPaid';
  return {
    case: kind,
    billNo,
    billerDetail: biller ? `${biller.name} (biller ${biller.id})` : `Biller ${billerId}`,
    serviceType: biller?.serviceType ?? 'POST',
    categoryType: (biller?.paymentType ?? 'postpaid').toUpperCase(),
    custType: dice.pick(['Individual', 'Individual', 'Business']),
    dueCents: paid ? 0 : billedCents,
    billedCents,
    status: paid ? BILL_STATUS.paid : kind === 'expired' ? BILL_STATUS.expired : BILL_STATUS.unpaid,
    lastPaidDate: paid ? daysFrom(today, closeOffset + 1) : daysFrom(today, closeOffset - 30 + dice.int(0, 5)),
    openDate: daysFrom(today, closeOffset - 29),
    closeDate: daysFrom(today, closeOffset),
    dueDate: daysFrom(today, closeOffset + 21),
    expiryDate: daysFrom(today, closeOffset + 60),
    expired: kind === 'expired',
    exactOnly: kind === 'exactPaymentOnly',
  };
}

export interface Fee { type: string; cents: number }

export interface FeeFacts {
  case: Exclude<MoiCase, 'notFound'>;
  feeReferenceId: string;
  sadadReferenceId: string;
  groupPayId: string;
  beneficiaryName: string;
  visaNumber: string;
  fees: Fee[];
  /** Sum of the fees, in cents. */
  totalCents: number;
  dueCents: number;
  previousCents: number;
  expired: boolean;
}

const FEE_TYPES: Record<string, string[]> = {
  '090': ['Iqama fee', 'Work permit fee', 'Exit re-entry fee', 'Visa fee', 'Late penalty'],
  '091': ['Driving licence fee', 'Late penalty'],
  '092': ['Passport fee', 'Exit re-entry fee'],
  '093': ['Traffic violation', 'Late penalty'],
  '094': ['Vehicle registration fee', 'Inspection fee'],
};
const FIRST_NAMES = ['Mohammed', 'Ahmed', 'Fatimah', 'Abdullah', 'Noura', 'Khalid', 'Sara', 'Omar', 'Aisha', 'Yousef', 'Rahul', 'Maria', 'Jose', 'Priya'];
const LAST_NAMES = ['Al-Harbi', 'Al-Qahtani', 'Al-Otaibi', 'Al-Ghamdi', 'Al-Zahrani', 'Khan', 'Santos', 'Fernandez', 'Nair', 'Rahman'];

/** The fee subject of (BillerID, ID, RequestType); null where the magic value says it does not exist. */
export function feeFacts(billerId: string, id: string, requestType: string): FeeFacts | null {
  const kind = moiCaseOf(id);
  if (kind === 'notFound') return null;
  const dice = new Dice(`moi|${normalizeBillerId(billerId)}|${id}|${requestType}`);
  const known = MOI_BILLERS.find((b) => normalizeBillerId(b.id) === normalizeBillerId(billerId));
  const types = [...(FEE_TYPES[known?.id ?? ''] ?? ['Service fee', 'Late penalty', 'Processing fee'])];
  const fees: Fee[] = [];
  const count = Math.min(dice.int(1, 3), types.length);
  for (let i = 0; i < count; i++) {
    const type = types.splice(dice.int(0, types.length - 1), 1)[0]!;
    // Ministry fees are round amounts, occasionally with halalas.
    fees.push({ type, cents: dice.int(1, 40) * 5000 + (dice.int(0, 3) === 0 ? dice.int(1, 99) : 0) });
  }
  const totalCents = fees.reduce((s, f) => s + f.cents, 0);
  return {
    case: kind,
    feeReferenceId: `FR${String(dice.int(0, 999_999)).padStart(6, '0')}`,
    sadadReferenceId: dice.digits(10),
    groupPayId: dice.digits(8),
    beneficiaryName: `${dice.pick(FIRST_NAMES)} ${dice.pick(LAST_NAMES)}`,
    visaNumber: dice.digits(10),
    fees,
    totalCents,
    dueCents: kind === 'alreadyPaid' ? 0 : totalCents,
    previousCents: 0,
    expired: kind === 'expired',
  };
}
