/**
 * The scenarios an integration must have met (issue 11): each is a case
 * `client.<op>.scenario.<name>`, PASS when some call of the traffic reached it, NOT_RUN (which
 * keeps the package from certifying) when none did, with how to trigger it. Reaching is read off
 * the answers, so the same scenarios are recognised behind the proxy, where a sandbox's own test
 * data may reach them; the mock's magic values (mock/magic.ts) are how to reach them here.
 */
import type { Operation, OperationId } from '../contract/catalogue.js';
import { BILL_MAGIC, MOI_MAGIC, SCENARIO_MAGIC } from '../mock/magic.js';
import { amountOf, producedOutcome, type CallFacts } from './facts.js';
import { EXACT_ONLY } from './rules.js';

export interface Scenario {
  name: string;
  op: OperationId;
  title: string;
  sections: string[];
  /** How an integration reaches it against the mock. */
  trigger: string;
  reached: (c: CallFacts, tagPrefix: string) => boolean;
}

const refusedWith = (c: CallFacts, tagPrefix: string, pattern: RegExp) => {
  const o = producedOutcome(c, tagPrefix);
  return o.kind === 'rejected' && pattern.test(c.rec.responseBody);
};
const answered = (c: CallFacts) => c.rec.delivered && c.outcome.kind === 'accepted';
const account = (suffix: string) => `an account ending ${suffix}`;
const id = (suffix: string) => `an ID ending ${suffix}`;

export const SCENARIOS: Scenario[] = [
  {
    name: 'not-found', op: 'bill-enquiry', title: 'Bill not found', sections: ['2.2', '7'],
    trigger: `enquire a bill with ${account(BILL_MAGIC.notFound)}`,
    reached: (c, p) => c.rec.delivered && refusedWith(c, p, /not found|MW-001/i),
  },
  {
    name: 'expired', op: 'bill-enquiry', title: 'Bill expired', sections: ['2.2', '3'],
    trigger: `enquire a bill with ${account(BILL_MAGIC.expired)} (answered with BillStatus BillExpired; do not pay it)`,
    reached: (c) => answered(c) && c.answerEntries.some((e) => /expired/i.test(String(e.BillStatus ?? ''))),
  },
  {
    name: 'already-paid', op: 'bill-enquiry', title: 'Bill already paid', sections: ['2.2', '3'],
    trigger: `enquire a bill with ${account(BILL_MAGIC.alreadyPaid)} (AmountDue 0; do not pay it)`,
    reached: (c) => answered(c) && c.answerEntries.some((e) => amountOf(e.AmountDue) === 0),
  },
  {
    name: 'in-band-failure', op: 'bill-enquiry', title: 'In-band failure with HTTP 200', sections: ['2.2', '7'],
    trigger: `enquire a bill with ${account(SCENARIO_MAGIC.inBandFailure)} (HTTP 200, failing status)`,
    reached: (c) => c.rec.delivered && c.outcome.kind === 'rejected' && c.outcome.form === 'in-band',
  },
  {
    name: 'rate-limited', op: 'bill-enquiry', title: 'A 429 with Retry-After', sections: ['8'],
    trigger: `enquire, then pay, a bill with ${account(SCENARIO_MAGIC.rateLimited)} (the first call of each operation gets 429, Retry-After 2)`,
    reached: (c) => c.rec.delivered && c.rec.status === 429,
  },
  {
    name: 'service-unavailable', op: 'bill-enquiry', title: 'A 503 blip on an enquiry', sections: ['7'],
    trigger: `enquire a bill with ${account(SCENARIO_MAGIC.unavailable)} (the first call gets 503)`,
    reached: (c) => c.rec.status !== null && c.rec.status >= 502 && c.rec.status <= 504,
  },
  {
    name: 'rate-limited', op: 'bill-payment', title: 'A 429 with Retry-After on a payment', sections: ['8'],
    trigger: `pay a bill with ${account(SCENARIO_MAGIC.rateLimited)} (the first payment gets 429, Retry-After 2)`,
    reached: (c) => c.rec.delivered && c.rec.status === 429,
  },
  {
    name: 'partial-payment', op: 'bill-payment', title: 'Partial payment', sections: ['2.3', '3'],
    trigger: 'pay part of an ordinary bill with PayExactDue false',
    reached: (c, p) => c.entries.some((e) => e.fields.PayExactDue === false) && producedOutcome(c, p).kind === 'accepted',
  },
  {
    name: 'exact-payment-only', op: 'bill-payment', title: 'Bill that takes only the exact amount', sections: ['2.3', '2.9'],
    trigger: `pay part of a bill with ${account(BILL_MAGIC.exactPaymentOnly)} (refused: exact amount only), then pay it in full`,
    reached: (c, p) => c.rec.delivered && refusedWith(c, p, EXACT_ONLY),
  },
  {
    name: 'service-unavailable', op: 'bill-payment', title: 'A 503 blip on a payment', sections: ['7'],
    trigger: `pay a bill with ${account(SCENARIO_MAGIC.unavailable)} (the first payment gets 503 and takes no effect)`,
    reached: (c) => c.rec.status !== null && c.rec.status >= 502 && c.rec.status <= 504,
  },
  {
    name: 'late-answer', op: 'bill-payment', title: 'Payment answered after the client gave up, the debit done', sections: ['1', '3'],
    trigger: `pay a bill with ${account(SCENARIO_MAGIC.lateAnswer)} with a client timeout below the held answer (--late-answer-ms)`,
    reached: (c, p) => !c.rec.delivered && c.rec.clientSaw !== 'reset' && c.rec.status !== null && producedOutcome(c, p).kind === 'accepted',
  },
  {
    name: 'not-found', op: 'moi-enquiry', title: 'Fee subject not found', sections: ['2.6', '7'],
    trigger: `enquire an MOI fee with an ID ending ${MOI_MAGIC.notFound}`,
    reached: (c, p) => c.rec.delivered && refusedWith(c, p, /not found|MW-001/i),
  },
  {
    name: 'rate-limited', op: 'moi-enquiry', title: 'A 429 with Retry-After', sections: ['8'],
    trigger: `enquire, then pay, an MOI fee with ${id(SCENARIO_MAGIC.rateLimited)} (the first call of each operation gets 429, Retry-After 2)`,
    reached: (c) => c.rec.delivered && c.rec.status === 429,
  },
  {
    name: 'rate-limited', op: 'moi-payment', title: 'A 429 with Retry-After on a payment', sections: ['8'],
    trigger: `pay an MOI fee with ${id(SCENARIO_MAGIC.rateLimited)} (the first payment gets 429, Retry-After 2)`,
    reached: (c) => c.rec.delivered && c.rec.status === 429,
  },
  {
    name: 'service-unavailable', op: 'moi-payment', title: 'A 503 blip on a payment', sections: ['7'],
    trigger: `pay an MOI fee with ${id(SCENARIO_MAGIC.unavailable)} (the first payment gets 503 and takes no effect)`,
    reached: (c) => c.rec.status !== null && c.rec.status >= 502 && c.rec.status <= 504,
  },
  {
    name: 'late-answer', op: 'moi-payment', title: 'Payment answered after the client gave up, the debit done', sections: ['1', '3'],
    trigger: `pay an MOI fee with ${id(SCENARIO_MAGIC.lateAnswer)} with a client timeout below the held answer (--late-answer-ms)`,
    reached: (c, p) => !c.rec.delivered && c.rec.clientSaw !== 'reset' && c.rec.status !== null && producedOutcome(c, p).kind === 'accepted',
  },
];

export const scenarioId = (s: Scenario) => `client.${s.op}.scenario.${s.name}`;
export const scenariosOf = (op: Operation) => SCENARIOS.filter((s) => s.op === op.id);
