/**
 * Payments the target should accept, sent the way a correct client sends them (design.md §8):
 * never resent blindly. After a transient fault the client does not know whether the payment took
 * effect, so it enquires first. Took effect: the answer was lost, the payment stands, nothing is
 * sent again. No effect: the same request is sent again with the same SequenceNumber, an idempotent
 * replay a conformant target cannot debit twice, and the enquiry after it must show one debit.
 */
import type { OperationId } from '../contract/catalogue.js';
import type { RequestBody } from '../contract/message.js';
import { summarize, type Exchange } from '../client/exchange.js';
import type { SendOptions } from '../client/client.js';
import { endOf, type CaseContext } from './case.js';
import type { Outcome } from '../client/outcome.js';
import { acceptablePaymentBase, cents, enquireBills, enquireFees, payableSubject, type BillState, type FeeState } from './prepare.js';
import { exhausted, retryDelayMs, type FaultKind } from '../client/transient.js';

/** What a payment should change: the due of each entry's bill or fee, before and after, in cents. */
export interface PaymentEffect {
  op: Extract<OperationId, 'bill-payment' | 'moi-payment'>;
  /** Per entry: the due before this payment. */
  before: number[];
  /** Per entry: what the payment takes off. */
  pays: number[];
  /** Enquires the entries' subjects; the due of each, now. */
  enquire(label: string): Promise<number[]>;
}

/** The effect of paying `pay` (default: everything due) on each bill. */
export function onBills(c: CaseContext, bills: BillState[], pay?: (b: BillState) => number): PaymentEffect {
  return {
    op: 'bill-payment',
    before: bills.map((b) => cents(b.due)),
    pays: bills.map((b) => cents(pay ? pay(b) : b.due)),
    enquire: async (label) => (await enquireBills(c, bills.map((b) => b.subject), label)).map((b) => cents(b.due)),
  };
}

/** The effect of paying each fee in full. */
export function onFees(c: CaseContext, fees: FeeState[]): PaymentEffect {
  return {
    op: 'moi-payment',
    before: fees.map((f) => cents(f.due)),
    pays: fees.map((f) => cents(f.due)),
    enquire: async (label) => (await enquireFees(c, fees.map((f) => f.subject), label)).map((f) => cents(f.due)),
  };
}

/** The same effect on a subject whose due has since changed (a second payment of the same bill). */
export function after(effect: PaymentEffect, before: number[], pays = effect.pays): PaymentEffect {
  return { ...effect, before, pays };
}

export interface Payment {
  /** The last exchange sent. */
  ex: Exchange;
  /** What the answer says, when there was one to read. */
  outcome: Outcome | undefined;
  /** The answer never came (or was refused as a replay), and an enquiry showed the payment took effect. */
  answerLost: boolean;
}

const money = (c: number[]) => c.map((n) => (n / 100).toFixed(2)).join(', ');

/**
 * Sends a payment the case needs accepted. The case ends with ERROR when transient faults outlast
 * SADAD_RETRIES, and with a violation when an enquiry shows the payment took effect more than
 * once or in part.
 */
export async function payAccepted(c: CaseContext, body: RequestBody, effect: PaymentEffect, label: string, what = `the ${label}`, precondition?: { testedBy: string }): Promise<Payment> {
  const paid = await sendPayment(c, body, effect, label);
  if (paid.answerLost) return paid;
  return { ...paid, outcome: c.requireAccepted(paid.ex, what, effect.op, precondition) };
}

/**
 * The careful send itself, for cases that also accept a refusal (e.g. whether clientid is
 * required): the answer as it came, or `answerLost` when only an enquiry could tell.
 */
export async function sendPayment(c: CaseContext, body: RequestBody, effect: PaymentEffect, label: string, extra: Pick<SendOptions, 'headers'> = {}): Promise<Payment> {
  const mark = c.faults.length;
  const kinds: FaultKind[] = [];
  const times: number[] = [];
  const expected = effect.before.map((b, i) => b - effect.pays[i]!);
  const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  let replayed = false;
  for (let attempt = 1; ; attempt++) {
    const ex = await c.send({ ...extra, op: effect.op, body, label: attempt === 1 ? label : `${label}: replay ${attempt - 1}, same SequenceNumber`, retry: 'none' });
    const kind = c.fault(ex, effect.op);
    if (!kind) {
      const outcome = c.classify(ex, effect.op);
      if (!replayed) return { ex, outcome, answerLost: false };
      // a replay's answer: whatever it says, exactly one debit must show
      const now = await effect.enquire(`enquiry after the replay of the ${label}`);
      c.recovered(mark);
      if (!same(now, expected)) c.stop(`the ${label} met ${kinds.join(', ')}, an enquiry showed no effect, the replay with the same SequenceNumber was answered ${outcome.detail}, and now the due is ${money(now)} instead of ${money(expected)} (one debit): ${summarize(ex)}`);
      c.observe(`${label}: replayed`, `after ${kinds.join(', ')} and an enquiry that showed no effect, the replay with the same SequenceNumber was answered ${outcome.detail}; one debit`);
      if (outcome.kind === 'accepted') return { ex, outcome, answerLost: false };
      // refused as a duplicate of the original, which had taken effect after all: the payment stands
      return { ex, outcome: undefined, answerLost: true };
    }
    kinds.push(kind);
    times.push(endOf(ex));
    if (await c.retriesExhausted(times)) return c.error(`${exhausted(kinds)} (the ${label}, each time an enquiry showed no effect; last: ${summarize(ex)})`);
    await c.sleep(retryDelayMs(ex, attempt, c.config.rateWindowSeconds));
    const now = await effect.enquire(`enquiry after ${kind} on the ${label}: did it take effect?`);
    if (same(now, expected)) {
      c.recovered(mark);
      c.observe(`${label}: answer lost`, `${kind}; the enquiry shows the payment took effect, so it was not sent again`);
      return { ex, outcome: undefined, answerLost: true };
    }
    if (!same(now, effect.before)) {
      return c.stop(`after ${kind} on the ${label} the due went from ${money(effect.before)} to ${money(now)}: neither untouched nor one payment of ${money(effect.pays)}`);
    }
    replayed = true;
  }
}

/**
 * A payment the target would accept, with its effect: of the worker's payable base (fresh ids), or,
 * with `ownSubject`, of a subject enquired for this payment alone (see `payableSubject`).
 */
export async function acceptablePayment(c: CaseContext, opId: OperationId = c.def.op, options: { ownSubject?: string } = {}): Promise<{ body: RequestBody; effect: PaymentEffect }> {
  const base = options.ownSubject === undefined ? await acceptablePaymentBase(c, opId) : await payableSubject(c, opId, options.ownSubject);
  return { body: base.body, effect: base.bill ? onBills(c, [base.bill]) : onFees(c, [base.fee!]) };
}
