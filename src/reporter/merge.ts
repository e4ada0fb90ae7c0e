/**
 * Merging a resumed run into the package it continues (`npm run certify -- --resume`): each case
 * keeps the verdict of its latest attempt that reached one, and the history of all its attempts.
 * Pure: the package builder reads the files, this decides.
 */
import type { CaseReport, ChangedVerdict, RunSummary } from './model.js';

/**
 * The merged cases: a case this run planned takes this run's record, unless this run did not finish
 * it (NOT_RUN) and an earlier attempt reached a verdict: a run that stopped says nothing new about
 * the target, so the earlier verdict and its evidence stand. Cases this run did not plan are carried
 * over unchanged. Attempts accumulate either way.
 */
export function mergeCases(previous: CaseReport[], current: CaseReport[]): CaseReport[] {
  const now = new Map(current.map((c) => [c.id, c]));
  const out: CaseReport[] = [];
  for (const p of previous) {
    const c = now.get(p.id);
    if (!c) { out.push(p); continue; }
    now.delete(p.id);
    const attempts = [...p.attempts, ...c.attempts];
    out.push(c.verdict === 'NOT_RUN' && p.verdict !== 'NOT_RUN' ? { ...p, attempts } : { ...c, attempts });
  }
  return [...out, ...now.values()];
}

/** Cases whose attempts reached different verdicts, with those verdicts in order (NOT_RUN attempts left out). */
export function changedVerdicts(cases: Pick<CaseReport, 'id' | 'attempts'>[]): ChangedVerdict[] {
  const out: ChangedVerdict[] = [];
  for (const c of cases) {
    const verdicts = c.attempts.map((a) => a.verdict).filter((v) => v !== 'NOT_RUN');
    if (new Set(verdicts).size > 1) out.push({ case: c.id, verdicts });
  }
  return out;
}

/** The package's runs, oldest first; a run built twice (`--report` after the run's own report) appears once. */
export function mergeRuns(previous: RunSummary[], current: RunSummary): RunSummary[] {
  return [...previous.filter((r) => r.runId !== current.runId), current];
}

/** Calls per operation summed over the runs; null when no run's count is known. */
export function totalCalls(runs: RunSummary[]): Record<string, number> | null {
  const known = runs.filter((r) => r.calls);
  if (!known.length) return null;
  const out: Record<string, number> = {};
  for (const r of known) for (const [op, n] of Object.entries(r.calls!)) out[op] = (out[op] ?? 0) + n;
  return out;
}

/**
 * The cases a resume reruns: those without a final verdict (NOT_RUN, ERROR); with `--rerun-failed`
 * also FAIL and INCONCLUSIVE (the target's answers: worth asking again only once it was fixed).
 */
export function casesToRerun(cases: Pick<CaseReport, 'id' | 'verdict'>[], options: { failed: boolean }): string[] {
  return cases.filter((c) => c.verdict === 'NOT_RUN' || c.verdict === 'ERROR' || (options.failed && (c.verdict === 'FAIL' || c.verdict === 'INCONCLUSIVE'))).map((c) => c.id);
}
