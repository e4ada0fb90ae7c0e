/**
 * Duplicate SequenceNumber on payments (spec §1, §7 rule 2, §8): a payment reusing a sequence
 * number is rejected or flagged and never debits twice, also when the copies arrive together.
 * Every case proves the rejection is the duplicate's doing: the same payment with a new
 * SequenceNumber (the control) is accepted, and a follow-up enquiry counts the debits.
 */
import type { OperationId } from '../../contract/catalogue.js';
import { requestEntries, type RequestBody } from '../../contract/message.js';
import { summarize, type Exchange } from '../../client/exchange.js';
import { uniqueId } from '../../generators/unique.js';
import { defineCase, type CaseContext } from '../case.js';
import { plannedLimit } from '../plan.js';
import { billPayment, cents, enquireBills, enquireFees, feePayment, freshIds } from '../prepare.js';

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

type Via = <U>(send: () => Promise<U>) => Promise<U>;

/** How far apart the copies went out and how long their answers took: evidence of a real overlap. */
function spreadOf(answers: Exchange[]): string {
  const starts = answers.map((a) => Date.parse(a.startedAt));
  const ends = answers.map((a, i) => starts[i]! + a.durationMs);
  return `sent within ${Math.max(...starts) - Math.min(...starts)} ms, all answered ${Math.max(...ends) - Math.min(...starts)} ms after the first was sent`;
}

/**
 * Holds every send until all `n` have their pacer grant and headers, then lets them go in the same
 * tick: the copies reach the target as close together as the network allows, which is what a race
 * between a duplicate check and a debit needs to show.
 */
function startTogether(via: Via, n: number): Via {
  let ready = 0;
  let go!: () => void;
  const gate = new Promise<void>((resolve) => (go = resolve));
  return (send) => via(async () => {
    if (++ready === n) go();
    await gate;
    return send();
  });
}

export function registerDuplicateCases(): void {
  defineCase({ id: 'bill-payment.dup.replay', family: 'duplicates', op: 'bill-payment', sections, level: 'MUST', pays: true, calls: { 'bill-enquiry': 2, 'bill-payment': 3 },
    expectation: 'replaying an accepted partial payment with its SequenceNumber is rejected or flagged, with no second debit (the same payment under a new SequenceNumber is accepted)' }, async (c) => {
    const [bill] = await enquireBills(c, await c.bills(1));
    const part = Math.max(0.01, Math.floor(bill!.due * 100 / 4) / 100);
    const payment = billPayment(c.gen, [bill!], () => part);
    c.requireAccepted(await c.send({ body: payment, label: 'original payment' }), 'the original payment');
    const replay = duplicateAnswer(c, await c.send({ body: withSequence('bill-payment', payment, seqOf('bill-payment', payment, c.tagPrefix), c.tagPrefix), label: 'replay, same SequenceNumber' }), 'replay');
    c.requireAccepted(await c.send({ body: freshIds('bill-payment', payment, c.tagPrefix), label: 'control, new SequenceNumber' }), 'the control payment (same payment, new SequenceNumber)');
    const [after] = await enquireBills(c, [bill!.subject], 'bill enquiry after the payments');
    const debits = Math.round((cents(bill!.due) - cents(after!.due)) / cents(part));
    c.observe('duplicate handling', replay === 'rejected' ? 'rejected' : 'answered as success (flagged or idempotent)');
    c.observe('debits seen', `${debits} x ${part} (original + control = 2 expected)`);
    if (debits !== 2) c.violated(`AmountDue went from ${bill!.due} to ${after!.due}: ${debits} debits of ${part}, expected exactly 2 (original and control)${replay === 'accepted' ? '; the replay was accepted' : ''}`);
  });

  const otherSubject = (opId: 'bill-payment' | 'moi-payment') => defineCase({
    id: `${opId}.dup.other-${opId === 'bill-payment' ? 'bill' : 'fee'}`, family: 'duplicates', op: opId, sections, level: 'MUST', pays: true,
    calls: opId === 'bill-payment' ? { 'bill-enquiry': 2, 'bill-payment': 3 } : { 'moi-enquiry': 2, 'moi-payment': 3 },
    expectation: `a payment of another ${opId === 'bill-payment' ? 'bill' : 'fee'} reusing an accepted payment's SequenceNumber is rejected or flagged and not debited; with a new SequenceNumber it is accepted`,
  }, async (c) => {
    const two = opId === 'bill-payment'
      ? (await enquireBills(c, await c.bills(2))).map((b) => ({ pay: billPayment(c.gen, [b]), due: b.due, again: async () => (await enquireBills(c, [b.subject], 'enquiry after the payments'))[0]!.due }))
      : (await enquireFees(c, await c.fees(2))).map((f) => ({ pay: feePayment(c.gen, [f]), due: f.due, again: async () => (await enquireFees(c, [f.subject], 'enquiry after the payments'))[0]!.due }));
    const [a, b] = two as [typeof two[0], typeof two[0]];
    c.requireAccepted(await c.send({ body: a.pay, label: 'first payment' }), 'the first payment');
    const reused = withSequence(opId, b.pay, seqOf(opId, a.pay, c.tagPrefix), c.tagPrefix);
    const answer = duplicateAnswer(c, await c.send({ body: reused, label: 'second subject, reused SequenceNumber' }), 'reused SequenceNumber');
    if (answer === 'accepted') {
      // a target may answer a duplicate idempotently with success; only a debit makes it a violation
      const due = await b.again();
      if (cents(due) !== cents(b.due)) return c.stop(`a payment reusing an accepted payment's SequenceNumber was accepted and debited (${b.due} due before, ${due} after)`);
      c.observe('duplicate handling', 'answered as success without a debit (flagged or idempotent)');
    }
    c.requireAccepted(await c.send({ body: freshIds(opId, b.pay, c.tagPrefix), label: 'control, new SequenceNumber' }), 'the control payment (same payment, new SequenceNumber)');
    const left = await b.again();
    if (answer === 'rejected') c.observe('duplicate handling', 'rejected');
    if (cents(left) !== 0) c.violated(`after the control payment the second subject still shows ${left} due (expected 0, one debit)`);
  });
  otherSubject('bill-payment');
  otherSubject('moi-payment');

  // A race between the duplicate check and the debit shows only when two copies fall inside it:
  // one burst can miss a narrow window, so the case tries a few, each with a new SequenceNumber,
  // and stops at the first that debits more than once. Bill payment budgets are not what bounds a
  // run's length (MOI's are), so the extra bursts cost no wall time against a sandbox.
  const rounds = 3;
  defineCase({ id: 'bill-payment.dup.concurrent', family: 'duplicates', op: 'bill-payment', sections, level: 'MUST', pays: true, slow: true,
    calls: { 'bill-enquiry': rounds + 2, 'bill-payment': rounds * Math.min(20, plannedLimit('bill')) + 1 },
    expectation: `identical payments sent at the same moment with one SequenceNumber debit the bill once (${rounds} bursts, each with its own SequenceNumber)` }, async (c) => {
    const n = Math.min(20, c.rt.limitOf('bill-payment'));
    let [bill] = await enquireBills(c, await c.bills(1));
    const start = bill!;
    const part = Math.max(0.01, Math.floor(start.due * 100 / (n + rounds + 2)) / 100);
    const payment = billPayment(c.gen, [start], () => part);
    for (let round = 1; round <= rounds; round++) {
      const seq = uniqueId('S');
      const answers = await c.rt.pacer.exclusive('bill-payment', (via) => {
        const together = startTogether(via, n);
        return Promise.all(Array.from({ length: n }, (_, i) => c.send({ body: withSequence('bill-payment', payment, seq, c.tagPrefix), via: together, label: `burst ${round}, copy ${i + 1} of ${n}` })));
      });
      const accepted = answers.filter((ex, i) => duplicateAnswer(c, ex, `burst ${round}, copy ${i + 1}`) === 'accepted').length;
      c.observe(`burst ${round}`, `${n} copies, ${accepted} answered as success, ${n - accepted} rejected; ${spreadOf(answers)}`);
      if (!accepted) return c.stop(`burst ${round}: none of the ${n} copies was accepted, so nothing shows a duplicate is what was refused`);
      const before = bill!;
      [bill] = await enquireBills(c, [start.subject], `bill enquiry after burst ${round}`);
      const debits = Math.round((cents(before.due) - cents(bill!.due)) / cents(part));
      if (debits !== 1) return c.stop(`burst ${round}: ${n} concurrent copies of one payment took AmountDue from ${before.due} to ${bill!.due}: ${debits} debits of ${part}, expected exactly 1`);
    }
    c.requireAccepted(await c.send({ body: freshIds('bill-payment', payment, c.tagPrefix), label: 'control, new SequenceNumber' }), 'the control payment (new SequenceNumber)');
    const [after] = await enquireBills(c, [start.subject], 'bill enquiry after the control');
    const debits = Math.round((cents(bill!.due) - cents(after!.due)) / cents(part));
    c.observe('debits seen', `one per burst, then ${debits} x ${part} for the control (1 expected)`);
    if (debits !== 1) c.violated(`the control payment took AmountDue from ${bill!.due} to ${after!.due}: ${debits} debits of ${part}, expected exactly 1`);
  });

  defineCase({ id: 'moi-payment.dup.concurrent', family: 'duplicates', op: 'moi-payment', sections, level: 'MUST', pays: true, slow: true,
    calls: { 'moi-enquiry': Math.ceil(Math.max(2, Math.min(20, plannedLimit('moi'))) / 3), 'moi-payment': 2 * Math.max(2, Math.min(20, plannedLimit('moi'))) - 1 },
    expectation: 'payments of different fees sent at the same moment with one SequenceNumber: exactly one is accepted; the others are accepted under new SequenceNumbers' }, async (c) => {
    const n = Math.max(2, Math.min(20, c.rt.limitOf('moi-payment')));
    const fees = [];
    for (let i = 0; i < n; i += 3) fees.push(...await enquireFees(c, await c.fees(Math.min(3, n - i))));
    const seq = uniqueId('S');
    const payments = fees.map((f) => withSequence('moi-payment', feePayment(c.gen, [f]), seq, c.tagPrefix));
    const answers = await c.rt.pacer.exclusive('moi-payment', (via) => {
      const together = startTogether(via, n);
      return Promise.all(payments.map((body, i) => c.send({ body, via: together, label: `fee ${i + 1} of ${n}, shared SequenceNumber` })));
    });
    const kinds = answers.map((ex, i) => duplicateAnswer(c, ex, `fee ${i + 1}`));
    const accepted = kinds.filter((k) => k === 'accepted').length;
    c.observe('concurrent payments', `${n} sent with one SequenceNumber, ${accepted} accepted; ${spreadOf(answers)}`);
    if (accepted !== 1) return c.stop(`${accepted} of ${n} payments sharing one SequenceNumber were accepted, expected exactly 1`);
    for (const [i, body] of payments.entries()) {
      if (kinds[i] === 'accepted') continue;
      c.requireAccepted(await c.send({ body: freshIds('moi-payment', body, c.tagPrefix), label: `control for fee ${i + 1}, new SequenceNumber` }), `the control payment of fee ${i + 1}`);
    }
  });
}
