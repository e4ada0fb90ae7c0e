/**
 * No vacuous PASS (design.md §4, §10). A case that expects a rejection proves something only if
 * the target accepts the same request without the case's change: a target that answers 404 to
 * everything "rejects" every bad request, and used to collect 181 PASS for it. The cases build
 * their requests to be accepted, but whether the target accepted anything at all is known only
 * from the whole run's evidence: a rejection PASS records the operation it needs accepted
 * (`requires`), every case the operations it saw accepted (`accepted`), and here, over every case
 * of the package (and the preflight's enquiries), a PASS whose operation the target never accepted
 * becomes INCONCLUSIVE, counted under the cause of the case that tests acceptance directly.
 */
import { maskText } from '../client/redact.js';
import { readEvidence } from '../evidence/store.js';
import { maskExchange } from './collect.js';
import type { CaseReport } from './model.js';
import type { PreflightReport } from '../preflight/model.js';

const PASSING = new Set(['PASS', 'WARN', 'OBSERVED']);

/** The operations the target accepted a request of, over the cases and the preflight. */
export function acceptedOperations(cases: CaseReport[], preflight: PreflightReport | null): Set<string> {
  return new Set([...cases.flatMap((c) => c.accepted ?? []), ...(preflight?.accepted ?? [])]);
}

/** The note a vacuous PASS gains: how its evidence file and the package say the same. */
export const VACUOUS_CAUSE = (op: string) => `precondition: ${op} accepted nothing in this run`;

/**
 * Whether a case's PASS proves nothing: it passed on a rejection of an operation the target never
 * accepted. While the case that tests acceptance has not run (an interrupted run) the question is
 * open until --resume runs it. Shared with the re-judge (src/replay), which applies it to its verdicts.
 */
export function isVacuous(c: { verdict: string; requires?: { acceptance: string } }, accepted: Set<string>, testerVerdict: string | undefined): boolean {
  const op = c.requires?.acceptance;
  return !!op && !accepted.has(op) && PASSING.has(c.verdict) && testerVerdict !== 'NOT_RUN';
}

/** Applies the condition: returns the cases, those whose rejection PASS was vacuous now INCONCLUSIVE. */
export function applyAcceptanceCondition(cases: CaseReport[], preflight: PreflightReport | null, evidenceDirOf: (c: CaseReport) => string): CaseReport[] {
  const accepted = acceptedOperations(cases, preflight);
  return cases.map((c) => {
    const op = c.requires?.acceptance;
    const testedBy = `${op}.res.schema`;
    const tester = cases.find((x) => x.id === testedBy);
    if (!op || !isVacuous(c, accepted, tester?.verdict)) return c;
    const text = maskText(`a rejection proves nothing here: the target accepted no ${op} request in this run, so the request would have been refused without the case's change too; ${testedBy} tests acceptance directly${tester ? ` (${tester.verdict})` : ''}`);
    const ev = readEvidence(evidenceDirOf(c), c.id);
    const exchanges = c.exchanges ?? (ev?.exchanges ?? []).map(maskExchange);
    return {
      ...c,
      verdict: 'INCONCLUSIVE' as const,
      testStatus: 'failed',
      notes: [...c.notes, { verdict: 'INCONCLUSIVE' as const, text, cause: VACUOUS_CAUSE(op), testedBy }],
      attempts: c.attempts.map((a, i) => (i === c.attempts.length - 1 ? { ...a, verdict: 'INCONCLUSIVE' as const } : a)),
      exchanges,
    };
  });
}
