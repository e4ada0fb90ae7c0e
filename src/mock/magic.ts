/**
 * Magic values, in the spirit of payment providers' test card numbers: the last four characters of
 * a bill account or of a fee subject's ID select a special case. Any other well-formed identifier
 * gets an ordinary, deterministic bill or fee. The suite imports these to reach each case.
 */

/** Matched against the last 4 characters of the bill enquiry `AccountNumber` / bill payment `BillAccountID`. */
export const BILL_MAGIC = {
  notFound: '9404',
  expired: '9410',
  alreadyPaid: '9200',
  exactPaymentOnly: '9300',
} as const;

/** Matched against the last 4 characters of the MOI `ID`. */
export const MOI_MAGIC = {
  notFound: '9404',
  expired: '9410',
  alreadyPaid: '9200',
} as const;

/**
 * Scenario suffixes on a bill account (AccountNumber / BillAccountID) or, except `inBandFailure`, an
 * MOI fee subject's ID, that make the mock behave
 * like a real deployment's bad moments, so that a client's integration can be seen handling them
 * (scenarios.ts). The bill itself is an ordinary one.
 */
export const SCENARIO_MAGIC = {
  /** HTTP 200 whose entry carries a failing status (the biller's system is unavailable), whatever MOCK_ERRORS says. */
  inBandFailure: '9500',
  /** The first call of each operation for the account gets HTTP 429 with `Retry-After`. */
  rateLimited: '9429',
  /** The first call of each operation for the account gets HTTP 503 and has no effect. */
  unavailable: '9503',
  /** The first payment of the account (or fee subject) takes effect, but its answer is held for `lateAnswerMs`. */
  lateAnswer: '9408',
} as const;
export type ScenarioMagic = keyof typeof SCENARIO_MAGIC;

export function scenarioOf(account: string): ScenarioMagic | null {
  const tail = account.slice(-4);
  return (Object.keys(SCENARIO_MAGIC) as ScenarioMagic[]).find((k) => SCENARIO_MAGIC[k] === tail) ?? null;
}

/** `Retry-After` of the `rateLimited` scenario's 429, in seconds. */
export const SCENARIO_RETRY_AFTER_SECONDS = 2;
/** How long the `lateAnswer` scenario holds a payment's answer by default (longer than a client's usual timeout). */
export const DEFAULT_LATE_ANSWER_MS = 30_000;

export type BillCase = 'ordinary' | keyof typeof BILL_MAGIC;
export type MoiCase = 'ordinary' | keyof typeof MOI_MAGIC;

export function billCaseOf(account: string): BillCase {
  const tail = account.slice(-4);
  const hit = (Object.keys(BILL_MAGIC) as (keyof typeof BILL_MAGIC)[]).find((k) => BILL_MAGIC[k] === tail);
  return hit ?? 'ordinary';
}

export function moiCaseOf(id: string): MoiCase {
  const tail = id.slice(-4);
  const hit = (Object.keys(MOI_MAGIC) as (keyof typeof MOI_MAGIC)[]).find((k) => MOI_MAGIC[k] === tail);
  return hit ?? 'ordinary';
}

/** Bounds of an ordinary bill's initial AmountDue. */
export const BILL_AMOUNT_RANGE = { min: 50, max: 1500 } as const;

/** Bill statuses as a payer sees them (domain notes); `BillExpired` is what billers upload. */
export const BILL_STATUS = {
  unpaid: 'BillUnpaid',
  partiallyPaid: 'BillPartialPd',
  paid: 'BillPaid',
  expired: 'BillExpired',
} as const;

/** `StatusDetail` of a successful entry. */
export const SUCCESS_STATUS_DETAIL = 'Success';
/** `StatusDetail` of a successful MOI enquiry of a fee that is paid (DueAmount 0). */
export const MOI_PAID_STATUS_DETAIL = 'Fee paid';

/** Every magic value with what it does, for docs and for iterating in tests. */
export const MAGIC_VALUES = [
  { scope: 'bill', suffix: BILL_MAGIC.notFound, case: 'notFound', enquiry: 'rejected MW-001 (not found)', payment: 'rejected MW-001 (not found)' },
  { scope: 'bill', suffix: BILL_MAGIC.expired, case: 'expired', enquiry: 'answered: BillStatus BillExpired, DueDate and ExpiryDate in the past', payment: 'rejected MW-002 (expired)' },
  { scope: 'bill', suffix: BILL_MAGIC.alreadyPaid, case: 'alreadyPaid', enquiry: 'answered: AmountDue 0, BillStatus BillPaid', payment: 'rejected MW-003 (already paid)' },
  { scope: 'bill', suffix: BILL_MAGIC.exactPaymentOnly, case: 'exactPaymentOnly', enquiry: 'answered: an ordinary unpaid bill', payment: 'only the exact AmountDue is accepted; a partial payment is rejected MW-004' },
  { scope: 'bill', suffix: SCENARIO_MAGIC.inBandFailure, case: 'inBandFailure', enquiry: 'HTTP 200 with a failing status MW-006 (biller unavailable), also with MOCK_ERRORS=http', payment: 'the same; nothing is debited' },
  { scope: 'bill', suffix: SCENARIO_MAGIC.rateLimited, case: 'rateLimited', enquiry: `the first call for the account gets HTTP 429, Retry-After ${SCENARIO_RETRY_AFTER_SECONDS}`, payment: 'the same, per operation' },
  { scope: 'bill', suffix: SCENARIO_MAGIC.unavailable, case: 'unavailable', enquiry: 'the first call for the account gets HTTP 503 (no effect)', payment: 'the same, per operation: nothing is debited' },
  { scope: 'bill', suffix: SCENARIO_MAGIC.lateAnswer, case: 'lateAnswer', enquiry: 'an ordinary bill', payment: 'the first payment is debited, its answer held for lateAnswerMs (MOCK_LATE_ANSWER_MS, default 30 s)' },
  { scope: 'moi', suffix: SCENARIO_MAGIC.rateLimited, case: 'rateLimited', enquiry: `the first call for the ID gets HTTP 429, Retry-After ${SCENARIO_RETRY_AFTER_SECONDS}`, payment: 'the same, per operation' },
  { scope: 'moi', suffix: SCENARIO_MAGIC.unavailable, case: 'unavailable', enquiry: 'the first call for the ID gets HTTP 503 (no effect)', payment: 'the same, per operation: nothing is debited' },
  { scope: 'moi', suffix: SCENARIO_MAGIC.lateAnswer, case: 'lateAnswer', enquiry: 'an ordinary fee', payment: 'the first payment is debited, its answer held for lateAnswerMs' },
  { scope: 'moi', suffix: MOI_MAGIC.notFound, case: 'notFound', enquiry: 'rejected MW-001 (not found)', payment: 'rejected MW-001 (not found)' },
  { scope: 'moi', suffix: MOI_MAGIC.expired, case: 'expired', enquiry: 'rejected MW-002 (expired)', payment: 'rejected MW-002 (expired)' },
  { scope: 'moi', suffix: MOI_MAGIC.alreadyPaid, case: 'alreadyPaid', enquiry: `answered: DueAmount 0, StatusDetail "${MOI_PAID_STATUS_DETAIL}"`, payment: 'rejected MW-003 (already paid)' },
] as const;
