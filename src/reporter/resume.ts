/**
 * `npm run certify -- --resume` (and `--rerun-failed`): what the next run must do to finish the
 * package the last run left, decided before anything is sent. The package is the last run's
 * certification.json, or rebuilt from its journal when the run never wrote one. It is copied to
 * `previous/` (global setup clears `evidence/` when the new run starts), and the new run runs only
 * the cases without a final verdict; its reporter merges them into that package.
 */
import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERDICT_ORDER } from '../vocabulary/verdicts.js';
import { readSettingsOrError, RESUME_FROM_ENV, RUN_ONLY_ENV, type Variables } from '../config/settings.js';
import { identityDifferences, runIdentity } from './identity.js';
import { JournalError, PREVIOUS_DIR, RUN_FILE } from './journal.js';
import { PACKAGE_FILES } from './files.js';
import { casesToRerun } from './merge.js';
import type { CertificationReport } from './model.js';
import { currentPackage, lastRunId, PACKAGE_FILE, readPackage } from './package.js';

export type ResumePlan =
  | { kind: 'refuse'; message: string }
  | { kind: 'nothing'; message: string; report: CertificationReport }
  | { kind: 'run'; message: string; env: Record<string, string>; rerun: string[]; report: CertificationReport };

/** The files of a package a resume keeps aside (files.ts; Playwright's html/ report is not part of it). */
const KEPT = PACKAGE_FILES.filter((f) => f.keptOnResume).map((f) => f.file);
export const RERUN_FILE = 'rerun.txt';

const countsLine = (r: CertificationReport) => VERDICT_ORDER.filter((v) => r.counts.byVerdict[v]).map((v) => `${r.counts.byVerdict[v]} ${v}`).join(', ');

/**
 * Decides a resume of the package in `dir` by a run with this environment (.env already loaded)
 * and these `playwright test` arguments. Writes only under `dir`: the rebuilt package when the
 * last run left none, `previous/`, and the list of cases to run.
 */
export function prepareResume(input: { dir: string; env: Variables; args: string[]; rerunFailed: boolean }): ResumePlan {
  const { dir } = input;
  const flag = input.rerunFailed ? '--rerun-failed' : '--resume';
  let found: ReturnType<typeof currentPackage>;
  try {
    found = currentPackage(dir, readSettingsOrError(input.env));
  } catch (e) {
    if (e instanceof JournalError) return { kind: 'refuse', message: `${flag}: ${e.message}. Nothing was sent.` };
    throw e;
  }
  if (!found) {
    return { kind: 'refuse', message: `${flag}: nothing to resume in ${dir}: no previous run there (no ${RUN_FILE}, no ${PACKAGE_FILE}). Run \`npm run certify\` first. Nothing was sent.` };
  }
  const report = found.report;
  const rebuilt = found.rebuilt ? ` (the last run left no package: rebuilt from its ${RUN_FILE} and evidence)` : '';
  const differences = identityDifferences(report.identity, runIdentity(input.env, ['test', ...input.args]));
  if (differences.length) {
    return {
      kind: 'refuse',
      message: `${flag} refused: this run would not match the package it resumes (${join(dir, PACKAGE_FILE)}${rebuilt}):\n` +
        differences.map((d) => `  - ${d}`).join('\n') +
        '\nA merged package must judge one suite, one target and one set of cases. Run with the same settings, or start afresh with `npm run certify`. Nothing was sent.',
    };
  }
  const rerun = casesToRerun(report.cases, { failed: input.rerunFailed });
  if (!rerun.length) {
    const fails = report.counts.byVerdict.FAIL;
    return {
      kind: 'nothing', report,
      message: `Nothing to resume: every case of the package in ${dir} has a final verdict${rebuilt} (${countsLine(report)}).\n` +
        `${report.outcome.summary}${!input.rerunFailed && fails ? `\n\`npm run certify -- --rerun-failed\` runs the ${fails} FAIL case${fails === 1 ? '' : 's'} again.` : ''}`,
    };
  }

  const previousDir = join(dir, PREVIOUS_DIR);
  let kept: CertificationReport | null = null;
  try { kept = readPackage(previousDir); } catch { /* replaced below */ }
  // previous/ already holds this very package when an earlier resume of it stopped before its cases started
  if (lastRunId(kept) !== lastRunId(report)) keepAside(dir, previousDir);
  const listFile = join(previousDir, RERUN_FILE);
  writeFileSync(listFile, `# cases ${flag} runs, one a line (read through ${RUN_ONLY_ENV})\n${rerun.join('\n')}\n`);

  const by = (v: string) => report.cases.filter((c) => c.verdict === v && rerun.includes(c.id)).length;
  const what = ['NOT_RUN', 'ERROR', 'FAIL', 'INCONCLUSIVE'].filter((v) => by(v)).map((v) => `${by(v)} ${v}`).join(', ');
  return {
    kind: 'run', report, rerun,
    env: { [RUN_ONLY_ENV]: listFile, [RESUME_FROM_ENV]: previousDir },
    message: `${flag}: running ${rerun.length} case${rerun.length === 1 ? '' : 's'} (${what}) of the package of run${report.runs.length === 1 ? '' : 's'} ` +
      `${report.runs.map((r) => r.runId).join(', ')}${rebuilt}; the other ${report.cases.length - rerun.length} keep their verdicts.`,
  };
}

/** Copies the package to `previous/` whole, or not at all (a copy under a temporary name, then renamed). */
function keepAside(dir: string, previousDir: string): void {
  const temp = `${previousDir}.partial`;
  rmSync(temp, { recursive: true, force: true });
  mkdirSync(temp, { recursive: true });
  for (const f of KEPT) if (existsSync(join(dir, f))) cpSync(join(dir, f), join(temp, f), { recursive: true });
  rmSync(previousDir, { recursive: true, force: true });
  renameSync(temp, previousDir);
}
