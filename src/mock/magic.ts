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
  { scope: 'moi', suffix: MOI_MAGIC.notFound, case: 'notFound', enquiry: 'rejected MW-001 (not found)', payment: 'rejected MW-001 (not found)' },
  { scope: 'moi', suffix: MOI_MAGIC.expired, case: 'expired', enquiry: 'rejected MW-002 (expired)', payment: 'rejected MW-002 (expired)' },
  { scope: 'moi', suffix: MOI_MAGIC.alreadyPaid, case: 'alreadyPaid', enquiry: `answered: DueAmount 0, StatusDetail "${MOI_PAID_STATUS_DETAIL}"`, payment: 'rejected MW-003 (already paid)' },
] as const;
