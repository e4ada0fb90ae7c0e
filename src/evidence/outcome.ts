/**
 * How a verdict reads to the tools that know only passed, failed and skipped: the one table the
 * case's own test status, junit.xml, ctrf.json, the package and a re-judge all take it from. A
 * baseline waiver that accepted the verdict makes a failing verdict pass (never NOT_RUN: a case that
 * did not finish says nothing a waiver could accept).
 */
import type { Verdict } from '../vocabulary/verdicts.js';

export type TestStatus = 'passed' | 'failed' | 'skipped';
/** junit.xml: FAIL a `<failure>`; ERROR, INCONCLUSIVE and NOT_RUN an `<error>`; SKIPPED and NOT_APPLICABLE `<skipped>`. */
export type JunitKind = 'passed' | 'failure' | 'error' | 'skipped';
/** ctrf.json's statuses; NOT_RUN is `other` (the standard's word for a test that neither ran nor was skipped). */
export type CtrfStatus = 'passed' | 'failed' | 'skipped' | 'pending' | 'other';

export interface TestOutcome { test: TestStatus; junit: JunitKind; ctrf: CtrfStatus }

const OUTCOMES: Record<Verdict, TestOutcome> = {
  PASS: { test: 'passed', junit: 'passed', ctrf: 'passed' },
  WARN: { test: 'passed', junit: 'passed', ctrf: 'passed' },
  OBSERVED: { test: 'passed', junit: 'passed', ctrf: 'passed' },
  FAIL: { test: 'failed', junit: 'failure', ctrf: 'failed' },
  ERROR: { test: 'failed', junit: 'error', ctrf: 'failed' },
  INCONCLUSIVE: { test: 'failed', junit: 'error', ctrf: 'failed' },
  NOT_RUN: { test: 'failed', junit: 'error', ctrf: 'other' },
  SKIPPED: { test: 'skipped', junit: 'skipped', ctrf: 'skipped' },
  NOT_APPLICABLE: { test: 'skipped', junit: 'skipped', ctrf: 'skipped' },
};
const WAIVED: TestOutcome = { test: 'passed', junit: 'passed', ctrf: 'passed' };

/** `waived`: a baseline waiver accepted exactly this verdict. */
export function outcomeOf(verdict: Verdict, waived = false): TestOutcome {
  const o = OUTCOMES[verdict] ?? OUTCOMES.ERROR;
  return waived && o.test === 'failed' && verdict !== 'NOT_RUN' ? WAIVED : o;
}

export const testStatusOf = (verdict: Verdict, waived = false): TestStatus => outcomeOf(verdict, waived).test;
