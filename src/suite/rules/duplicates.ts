/**
 * Duplicate SequenceNumber on payments (spec §1, §7 rule 2, §8): a payment reusing a sequence
 * number is rejected or flagged and never debits twice, also when the copies arrive together.
 * Every case proves the rejection is the duplicate's doing: the same payment with a new
 * SequenceNumber (the control) is accepted, and a follow-up enquiry counts the debits.
 */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { requestEntries, type RequestBody } from '../../contract/message.js';
import { summarize, type Exchange } from '../../client/exchange.js';
import { uniqueId } from '../../base/unique.js';
import { defineCase, endOf, type CaseContext } from '../case.js';
import { plannedLimit } from '../../vocabulary/plan.js';
import type { Registration } from '../registration.js';
import { billPayment, cents, enquireBills, enquireFees, feePayment, freshIds, type FeeState } from '../prepare.js';
import { after as afterPaying, onBills, onFees, payAccepted } from '../payments.js';
import { burstRepeats, exhausted } from '../../client/transient.js';
import { spreadOf, startTogether } from '../burst.js';

/** The same body with another payment's SequenceNumber in every entry. */
function withSequence(opId: OperationId, body: RequestBody, seq: string, tagPrefix: string): RequestBody {
  const copy = freshIds(opId, body, tagPrefix);
  for (const e of requestEntries(opId, copy, tagPrefix)) e.SequenceNumber = seq;
  return copy;
}
const seqOf = (opId: OperationId, body: RequestBody, tagPrefix: string) => String(requestEntries(opId, body, tagPrefix)[0]!.SequenceNumber);

/** Reads a duplicate's answer: rejected, or accepted (then only the debit count can clear it). */
function duplicateAnswer(c: CaseContext, ex: Exchange, label: string): 'rejected' | 'accepted' {
  const o = c.classify(ex);
  if (o.kind === 'no-answer') c.error(`${label}: ${o.detail}`);
  if (o.status === 429) c.error(`${label}: rate limited; the pacer's limits do not match the target's`);
  if (o.kind === 'server-error') c.violated(`${label}: a server error instead of a rejection: ${summarize(ex)}`);
  c.observe(`${label}: answer`, o.detail);
  return o.kind === 'accepted' ? 'accepted' : 'rejected';
}

const sections = ['1', '7', '8'];

/**
 * How many copies a concurrent burst sends: half the limit (at least 2, at most 20). Two copies are
 * already a race between the duplicate check and the debit; half the limit leaves room in every
 * limiter a gateway runs, so the burst needs no empty window (a blending limiter like HAProxy's
 * still weighs the earlier calls in), and the operation's other calls wait a second, not seconds.
 */
export const copiesFor = (limit: number) => Math.max(2, Math.min(20, Math.floor(limit / 2)));

/**
 * Copies sent together that the gateway's limiter refused (429), though no more than its limit
 * were sent from a quiet operation: a smoothing limiter (one call per window / limit) lets only one
 * through, so the copies never reach the service together. Twice so, the race cannot be checked
 * behind this gateway: INCONCLUSIVE, under the rate-limit case that shows the limiter's shape.
 */
function limiterRefused(c: CaseContext, answers: Exchange[], burst: number, seen: number): void {
  const limited = answers.filter((ex) => ex.response?.status === 429).length;
  if (!limited) return;
  const op = c.def.op;
  c.observe(`burst ${burst}: limiter`, `${limited} of ${answers.length} copies refused by the gateway's limiter (HTTP 429), within its limit of ${c.rt.limitOf(op)} per window`);
  if (seen < 2) return;
  c.inconclusive(`the gateway's limiter refused ${limited} of ${answers.length} copies sent together, within its limit of ${c.rt.limitOf(op)} per ${c.config.rateWindowSeconds} s, in ${seen} bursts: the copies cannot reach the service at the same moment, so the duplicate race could not be checked; ${op}.rate.limit tests how the limiter treats calls sent together`, `precondition: ${operation(op).title}: the limiter refuses calls sent together`, `${op}.rate.limit`);
}

/**
 * Behind a limiter the bank documents as spaced (SADAD_RATE_SHAPE=spaced: one call per window /
 * limit), copies sent together cannot reach the service together: the race is not there to check.
 */
function spacedLimiter(c: CaseContext): void {
  if (c.config.rateShape !== 'spaced') return;
  c.notApplicable(`the target's limit is spaced (SADAD_RATE_SHAPE=spaced: one call per ${Math.round(c.config.rateWindowSeconds * 1000 / c.rt.limitOf(c.def.op))} ms), so copies sent together cannot reach the service at the same moment through it; the other duplicate cases judge a reused SequenceNumber`);
}

export function registerDuplicateCases(reg: Registration): void {
  defineCase({ id: 'bill-payment.dup.replay', family: 'duplicates', op: 'bill-payment', sections, level: 'MUST', pays: true, calls: { 'bill-enquiry': 2, 'bill-payment': 3 }, payments: { debits: 2, subjects: 1 },
    expectation: 'replaying an accepted partial payment with its SequenceNumber is rejected or flagged, with no second debit (the same payment under a new SequenceNumber is accepted)' }, async (c) => {
    const [bill] = await enquireBills(c, await c.bills(1));
    const part = Math.max(0.01, Math.floor(bill!.due * 100 / 4) / 100);
    const payment = billPayment(c.gen, [bill!], () => part);
    const effect = onBills(c, [bill!], () => part);
    await payAccepted(c, payment, effect, 'original payment', undefined, { testedBy: 'bill-payment.res.schema' });
    const replay = duplicateAnswer(c, await c.send({ body: withSequence('bill-payment', payment, seqOf('bill-payment', payment, c.tagPrefix), c.tagPrefix), label: 'replay, same SequenceNumber', expect: 'rejection' }), 'replay');
    await payAccepted(c, freshIds('bill-payment', payment, c.tagPrefix), afterPaying(effect, [cents(bill!.due) - cents(part)]), 'control, new SequenceNumber', 'the control payment (same payment, new SequenceNumber)');
    const [after] = await enquireBills(c, [bill!.subject], 'bill enquiry after the payments');
    const debits = Math.round((cents(bill!.due) - cents(after!.due)) / cents(part));
    const handling = replay === 'rejected' ? 'rejected' : 'answered as success (flagged or idempotent)';
    c.observe('duplicate handling', handling, handling);
    c.observe('debits seen', `${debits} x ${part} (original + control = 2 expected)`, `${debits} debits`);
    if (debits !== 2) c.violated(`AmountDue went from ${bill!.due} to ${after!.due}: ${debits} debits of ${part}, expected exactly 2 (original and control)${replay === 'accepted' ? '; the replay was accepted' : ''}`);
  });

  const otherSubject = (opId: 'bill-payment' | 'moi-payment') => defineCase({
    id: `${opId}.dup.other-${opId === 'bill-payment' ? 'bill' : 'fee'}`, family: 'duplicates', op: opId, sections, level: 'MUST', pays: true,
    calls: opId === 'bill-payment' ? { 'bill-enquiry': 2, 'bill-payment': 3 } : { 'moi-enquiry': 2, 'moi-payment': 3 }, payments: { debits: 2, subjects: 2 },
    expectation: `a payment of another ${opId === 'bill-payment' ? 'bill' : 'fee'} reusing an accepted payment's SequenceNumber is rejected or flagged and not debited; with a new SequenceNumber it is accepted`,
  }, async (c) => {
    const two = opId === 'bill-payment'
      ? (await enquireBills(c, await c.bills(2))).map((b) => ({ pay: billPayment(c.gen, [b]), effect: onBills(c, [b]), due: b.due, again: async () => (await enquireBills(c, [b.subject], 'enquiry after the payments'))[0]!.due }))
      : (await enquireFees(c, await c.fees(2))).map((f) => ({ pay: feePayment(c.gen, [f]), effect: onFees(c, [f]), due: f.due, again: async () => (await enquireFees(c, [f.subject], 'enquiry after the payments'))[0]!.due }));
    const [a, b] = two as [typeof two[0], typeof two[0]];
    await payAccepted(c, a.pay, a.effect, 'first payment', undefined, { testedBy: `${opId}.res.schema` });
    const reused = withSequence(opId, b.pay, seqOf(opId, a.pay, c.tagPrefix), c.tagPrefix);
    const answer = duplicateAnswer(c, await c.send({ body: reused, label: 'second subject, reused SequenceNumber', expect: 'rejection' }), 'reused SequenceNumber');
    if (answer === 'accepted') {
      // a target may answer a duplicate idempotently with success; only a debit makes it a violation
      const due = await b.again();
      if (cents(due) !== cents(b.due)) return c.stop(`a payment reusing an accepted payment's SequenceNumber was accepted and debited (${b.due} due before, ${due} after)`);
      c.observe('duplicate handling', 'answered as success without a debit (flagged or idempotent)', 'answered as success without a debit');
    }
    await payAccepted(c, freshIds(opId, b.pay, c.tagPrefix), b.effect, 'control, new SequenceNumber', 'the control payment (same payment, new SequenceNumber)');
    const left = await b.again();
    if (answer === 'rejected') c.observe('duplicate handling', 'rejected', 'rejected');
    if (cents(left) !== 0) c.violated(`after the control payment the second subject still shows ${left} due (expected 0, one debit)`);
  });
  otherSubject('bill-payment');
  otherSubject('moi-payment');

  // A race between the duplicate check and the debit shows only when two copies fall inside it:
  // one burst can miss a narrow window, so the case tries a few, each with a new SequenceNumber,
  // and stops at the first that debits more than once. Bill payment budgets are not what bounds a
  // run's length (MOI's are), so the extra bursts cost no wall time against a sandbox.
  // a smoke run (SADAD_PROFILE=smoke) sends one burst: its point is a quick first look, not the narrow race
  const rounds = reg.profile === 'smoke' ? 1 : 3;
  defineCase({ id: 'bill-payment.dup.concurrent', family: 'duplicates', op: 'bill-payment', sections, level: 'MUST', pays: true, slow: true,
    calls: { 'bill-enquiry': rounds + 2, 'bill-payment': rounds * copiesFor(plannedLimit(reg.limits, 'bill')) + 1 }, payments: { debits: rounds + 1, subjects: 1 },
    expectation: `identical payments sent at the same moment with one SequenceNumber debit the bill once (${rounds} bursts, each with its own SequenceNumber)` }, async (c) => {
    spacedLimiter(c);
    const n = copiesFor(c.rt.limitOf('bill-payment'));
    let [bill] = await enquireBills(c, await c.bills(1));
    const start = bill!;
    const part = Math.max(0.01, Math.floor(start.due * 100 / (n + rounds + 2)) / 100);
    const payment = billPayment(c.gen, [start], () => part);
    const bent: number[] = [];
    let limitedBursts = 0;
    for (let burst = 1, judged = 0; judged < rounds; burst++) {
      const seq = uniqueId('S');
      const mark = c.faults.length;
      const answers = await c.rt.pacer.exclusive('bill-payment', (via) => {
        const together = startTogether(via, n);
        return Promise.all(Array.from({ length: n }, (_, i) => c.send({ body: withSequence('bill-payment', payment, seq, c.tagPrefix), via: together, retry: 'none', label: `burst ${burst}, copy ${i + 1} of ${n}` })));
      }, n);
      // a gateway fault inside the burst bends it: the burst is not judged, but its debits still count;
      // the limiter's 429s are read apart (limiterRefused)
      const limited = answers.some((ex) => ex.response?.status === 429);
      if (limited) limitedBursts++;
      const faulted = answers.filter((ex) => ex.response?.status !== 429 && c.fault(ex)).length + (limited ? 1 : 0);
      const accepted = faulted ? 0 : answers.filter((ex, i) => duplicateAnswer(c, ex, `burst ${burst}, copy ${i + 1}`) === 'accepted').length;
      c.observe(`burst ${burst}`, `${n} copies, ${faulted ? `${faulted} met a transient fault (burst repeated)` : `${accepted} answered as success, ${n - accepted} rejected`}; ${spreadOf(answers)}`);
      if (!faulted && !accepted) return c.stop(`burst ${burst}: none of the ${n} copies was accepted, so nothing shows a duplicate is what was refused`);
      const before = bill!;
      [bill] = await enquireBills(c, [start.subject], `bill enquiry after burst ${burst}`);
      const debits = Math.round((cents(before.due) - cents(bill!.due)) / cents(part));
      // no fault can make a conformant target debit one SequenceNumber twice
      if (debits > 1 || (!faulted && debits !== 1)) return c.stop(`burst ${burst}: ${n} concurrent copies of one payment took AmountDue from ${before.due} to ${bill!.due}: ${debits} debits of ${part}, expected exactly 1`);
      if (faulted) {
        c.setAside(answers);
        limiterRefused(c, answers, burst, limitedBursts);
        if (!limited) bent.push(Math.max(...answers.map(endOf)));
        if (await c.retriesExhausted(bent, burstRepeats(c.config.retries))) return c.error(`${exhausted(c.faults.slice(mark).map((f) => f.kind))} in ${bent.length} bursts: the concurrent duplicates could not be judged`);
        continue;
      }
      c.recovered();
      judged++;
    }
    const effect = afterPaying(onBills(c, [start], () => part), [cents(bill!.due)]);
    await payAccepted(c, freshIds('bill-payment', payment, c.tagPrefix), effect, 'control, new SequenceNumber', 'the control payment (new SequenceNumber)');
    const [after] = await enquireBills(c, [start.subject], 'bill enquiry after the control');
    const debits = Math.round((cents(bill!.due) - cents(after!.due)) / cents(part));
    c.observe('debits seen', `one per burst, then ${debits} x ${part} for the control (1 expected)`, `one per burst, then ${debits} for the control`);
    if (debits !== 1) c.violated(`the control payment took AmountDue from ${bill!.due} to ${after!.due}: ${debits} debits of ${part}, expected exactly 1`);
  });

  defineCase({ id: 'moi-payment.dup.concurrent', family: 'duplicates', op: 'moi-payment', sections, level: 'MUST', pays: true, slow: true,
    calls: { 'moi-enquiry': Math.ceil(copiesFor(plannedLimit(reg.limits, 'moi')) / 3), 'moi-payment': 2 * copiesFor(plannedLimit(reg.limits, 'moi')) - 1 },
    payments: { debits: copiesFor(plannedLimit(reg.limits, 'moi')), subjects: copiesFor(plannedLimit(reg.limits, 'moi')) },
    expectation: 'payments of different fees sent at the same moment with one SequenceNumber: exactly one is accepted; the others are accepted under new SequenceNumbers' }, async (c) => {
    spacedLimiter(c);
    const n = copiesFor(c.rt.limitOf('moi-payment'));
    const bent: number[] = [];
    let limitedBursts = 0;
    for (let burst = 1; ; burst++) {
      const fees: FeeState[] = [];
      for (let i = 0; i < n; i += 3) fees.push(...await enquireFees(c, await c.fees(Math.min(3, n - i))));
      const seq = uniqueId('S');
      const mark = c.faults.length;
      const payments = fees.map((f) => withSequence('moi-payment', feePayment(c.gen, [f]), seq, c.tagPrefix));
      const answers = await c.rt.pacer.exclusive('moi-payment', (via) => {
        const together = startTogether(via, n);
        return Promise.all(payments.map((body, i) => c.send({ body, via: together, retry: 'none', label: `${burst > 1 ? `burst ${burst}, ` : ''}fee ${i + 1} of ${n}, shared SequenceNumber` })));
      }, n);
      const limited = answers.some((ex) => ex.response?.status === 429);
      if (limited) limitedBursts++;
      const faulted = answers.filter((ex) => ex.response?.status !== 429 && c.fault(ex)).length + (limited ? 1 : 0);
      if (faulted) {
        // a bent burst is not judged, but what it paid is: no fault makes one SequenceNumber pay twice
        const now = await enquireFees(c, fees.map((f) => f.subject), `MOI fee enquiry after burst ${burst}`);
        const paid = now.filter((f, i) => cents(f.due) < cents(fees[i]!.due)).length;
        c.observe(`burst ${burst}`, `${n} sent with one SequenceNumber, ${faulted} met a transient fault (burst repeated with other fees); ${paid} paid; ${spreadOf(answers)}`);
        if (paid > 1) return c.stop(`burst ${burst}: ${paid} of ${n} fees sharing one SequenceNumber were paid, expected at most 1`);
        c.setAside(answers);
        limiterRefused(c, answers, burst, limitedBursts);
        if (!limited) bent.push(Math.max(...answers.map(endOf)));
        if (await c.retriesExhausted(bent, burstRepeats(c.config.retries))) return c.error(`${exhausted(c.faults.slice(mark).map((f) => f.kind))} in ${burst} bursts: the concurrent payments could not be judged`);
        continue;
      }
      c.recovered();
      const kinds = answers.map((ex, i) => duplicateAnswer(c, ex, `fee ${i + 1}`));
      const accepted = kinds.filter((k) => k === 'accepted').length;
      c.observe('concurrent payments', `${n} sent with one SequenceNumber, ${accepted} accepted; ${spreadOf(answers)}`, `${accepted} of ${n} accepted`);
      if (accepted !== 1) return c.stop(`${accepted} of ${n} payments sharing one SequenceNumber were accepted, expected exactly 1`);
      for (const [i, body] of payments.entries()) {
        if (kinds[i] === 'accepted') continue;
        await payAccepted(c, freshIds('moi-payment', body, c.tagPrefix), onFees(c, [fees[i]!]), `control for fee ${i + 1}, new SequenceNumber`, `the control payment of fee ${i + 1}`);
      }
      return;
    }
  });
}
