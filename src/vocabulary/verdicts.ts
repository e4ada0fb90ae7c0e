/** Levels, verdicts and rule families (design.md §4). */
export type Level = 'MUST' | 'SHOULD' | 'OBSERVE';
/**
 * INCONCLUSIVE (the ISO/IEC 9646 and TTCN-3 verdict): the case could not reach its own check,
 * because a step the target should have accepted (the enquiry a payment is built on, the accepted
 * request a rule reads) was refused; the case that tests that step directly FAILs on its own.
 *
 * NOT_RUN: the case never reached a verdict because the run ended early (interrupt, SIGTERM, a
 * worker or runner that died): the suite's doing, never the target's, and what `--resume` reruns.
 */
export type Verdict = 'PASS' | 'FAIL' | 'ERROR' | 'INCONCLUSIVE' | 'NOT_RUN' | 'SKIPPED' | 'NOT_APPLICABLE' | 'WARN' | 'OBSERVED';

/** Precedence within a case, strongest first. NOT_APPLICABLE ranks with SKIPPED: the case did not run. */
export const VERDICT_ORDER: Verdict[] = ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN', 'SKIPPED', 'NOT_APPLICABLE', 'WARN', 'OBSERVED', 'PASS'];
export const strongest = (vs: Verdict[]): Verdict => VERDICT_ORDER.find((v) => vs.includes(v)) ?? 'PASS';

/** What violating a rule of this level yields. */
export const VIOLATION: Record<Level, Verdict> = { MUST: 'FAIL', SHOULD: 'WARN', OBSERVE: 'OBSERVED' };

export const RULE_FAMILIES = {
  'response-schema': 'Response schema (lenient = FAIL, strict = WARN)',
  'message-type': 'MessageType equals TransactionType',
  echo: 'Echo of identification fields and SequenceNumber',
  'root-tag': 'Root tag at top level, no Message wrapper',
  lists: 'Lists are arrays',
  formats: 'TimeStamp and date formats',
  'required-fields': 'Required request fields: omitted / wrong type / null / empty rejected',
  'transaction-type': 'Wrong or foreign TransactionType rejected',
  'account-number': 'AccountNumber: at its limit accepted, over it and non-alphanumeric rejected',
  headers: 'Required headers missing or malformed, bad token: rejected',
  'rate-limit': 'Rate limit: limit accepted, next rejected, reset after the window',
  duplicates: 'Duplicate SequenceNumber on payments: rejected, never a second debit',
  flows: 'Stateful flows: enquiry, pay, enquiry shows the effect',
  'multi-entry': 'Several TransactionData entries answered one for one, in order',
  robustness: 'Malformed, mistyped, empty or oversized bodies: a 4xx, never a 5xx',
} as const;
export type RuleFamily = keyof typeof RULE_FAMILIES;

/**
 * Set on globalThis by the certification reporter, which fails the run from its package; the
 * global teardown fails it itself when no such reporter runs (global-setup.ts). Symbol.for: the
 * reporter and the setup may be loaded by different module loaders of the same process.
 */
export const CERTIFICATION_REPORTER = Symbol.for('sadad.certification-reporter');
