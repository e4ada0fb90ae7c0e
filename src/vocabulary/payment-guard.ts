/**
 * Payments only where meant (design.md §8): against a target other than the embedded mock, the
 * payment cases send real payments. Unless SADAD_PAYMENTS says so explicitly, a run against such a
 * target stops before the first call and says what it would pay; the dry run shows the same.
 */

/** What a case plans, as its definition or its test annotations say. */
export interface PlannedPayments { calls: Record<string, number>; payments?: { debits: number; subjects: number } | undefined }

export interface PaymentPlan {
  /** Payment calls in all, per payment operation (most are meant to be refused). */
  calls: { 'bill-payment': number; 'moi-payment': number };
  /** Payments meant to take effect against a conformant target. */
  debits: number;
  /** Bills and fees those payments pay, in full or in part. */
  subjects: number;
}

export function paymentPlan(cases: PlannedPayments[]): PaymentPlan {
  const plan: PaymentPlan = { calls: { 'bill-payment': 0, 'moi-payment': 0 }, debits: 0, subjects: 0 };
  for (const c of cases) {
    plan.calls['bill-payment'] += c.calls['bill-payment'] ?? 0;
    plan.calls['moi-payment'] += c.calls['moi-payment'] ?? 0;
    plan.debits += c.payments?.debits ?? 0;
    plan.subjects += c.payments?.subjects ?? 0;
  }
  return plan;
}

/** The figures in words (the guard's message and the dry run). */
export function describePayments(plan: PaymentPlan): string {
  const calls = plan.calls['bill-payment'] + plan.calls['moi-payment'];
  return `${calls} payment calls (bill ${plan.calls['bill-payment']}, MOI ${plan.calls['moi-payment']}), of which about ${plan.debits} are meant to take effect: ` +
    `they pay, in full or in part, the amounts due of about ${plan.subjects} bills and MOI fees, so the total paid is at most the sum of those amounts due ` +
    '(the target reports them in its enquiries; the suite never pays more than an enquiry shows due). A transient fault can add enquiries and idempotent replays, never a second payment.';
}

export function guardMessage(plan: PaymentPlan, target: string): string {
  return `Payments guard: the target ${target} is not the embedded mock, and this run would send real payments: ${describePayments(plan)}\n` +
    'Set SADAD_PAYMENTS=on to allow them, or SADAD_PAYMENTS=off to run without payments (the payment cases become NOT_APPLICABLE). Nothing was sent.';
}
