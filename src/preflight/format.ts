/** The preflight in words: the checklist `npm run doctor` prints, and the short diagnosis of a stopped run. */
import { findingLines, STEP_TITLES, type Finding, type PreflightReport, type Step } from './model.js';

const MARK: Record<Step['status'], string> = { ok: '✔', warning: '!', blocking: '✘', skipped: '-' };
const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** One step of the checklist, with its evidence and what it found. */
export function formatStep(step: Step, findings: Finding[]): string {
  const head = `  ${MARK[step.status]} ${pad(STEP_TITLES[step.id], 24)}${step.status === 'skipped' ? '' : `${step.ms} ms`}`;
  const lines = [head, ...step.evidence.map((e) => `      ${e}`)];
  for (const f of findings) lines.push(`    ${f.severity === 'blocking' ? 'BLOCKING' : 'WARNING'}: ${f.text}`, ...(f.fix ? [`      → ${f.fix}`] : []));
  return lines.join('\n');
}

export function formatHeader(target: string, route: string): string {
  return `Preflight of ${target}, ${route}`;
}

/** The closing lines: what it means for a run. */
export function formatResult(report: PreflightReport): string {
  const calls = Object.values(report.calls).reduce((a, b) => a + b, 0);
  const n = (sev: Finding['severity']) => report.findings.filter((f) => f.severity === sev).length;
  const tail = `${calls} API call${calls === 1 ? '' : 's'} in ${(report.durationMs / 1000).toFixed(1)} s`;
  if (report.result === 'blocked') return `Result: ${n('blocking')} blocking finding${n('blocking') === 1 ? '' : 's'}: a run stops here, before its first case (exit 2). ${tail}.`;
  if (report.result === 'warnings') return `Result: ready, with ${n('warning')} warning${n('warning') === 1 ? '' : 's'} above. ${tail}.`;
  return `Result: ready: every step passed. ${tail}.`;
}

export function formatChecklist(report: PreflightReport): string {
  return [formatHeader(report.target, report.route), ...report.steps.map((s) => formatStep(s, report.findings.filter((f) => f.step === s.id))), formatResult(report)].join('\n');
}

/** What a run stopped by the preflight prints: the blocking findings and the way on. */
export function formatStopped(report: PreflightReport, packageFile: string): string {
  const blocking = findingLines(report, 'blocking').map((l) => `  ✘ ${l}`);
  return [
    `Preflight: the run cannot succeed as configured (${report.target}, ${report.route}):`,
    ...blocking,
    `Stopped before the first case (exit 2): nothing was paid. Fix the above, then \`npm run doctor\` checks the path again in seconds.`,
    `The package (${packageFile}) does not certify; its Connection section holds the preflight and its evidence.`,
  ].join('\n');
}
