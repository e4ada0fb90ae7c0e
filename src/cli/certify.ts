/**
 * `npm run certify [-- <playwright test arguments>]`: runs the conformance suite (`playwright test`
 * with the project's config), passing every argument through and exiting with its exit code.
 *
 * Dry run: `npm run certify -- --list` or `SADAD_DRY_RUN=1 npm run certify` lists the planned
 * cases, the calls per operation and the estimated wall time, and sends nothing (with --list
 * Playwright loads the specs but runs neither the global setup nor any case). Only the
 * certification reporter runs then, so the reports of the last real run stay as they are.
 *
 * Its own flags (not passed to Playwright):
 *   --resume        run only the cases the last run did not finish (NOT_RUN) or that broke (ERROR),
 *                   and merge them into its package; refused (exit 2, nothing sent) when the suite,
 *                   the target, the profile, the limits or the selection differ from that run's
 *   --rerun-failed  the same, FAIL cases included
 *   --report        rebuild the last run's package from reports/run.json and reports/evidence (a
 *                   run that was killed never wrote it); sends nothing. Exit 0 when it certifies, 1 when not
 *   --rejudge <dir> re-judge the package in <dir> from its evidence with this suite (src/replay) and
 *                   write the new package to SADAD_REPORTS_DIR (or --out <dir>); sends nothing.
 *                   Exit 0 when it certifies, 1 when not, 2 when it cannot be re-judged
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
// a plain run only spawns Playwright: what --report, --resume and --rejudge need is imported when
// they run (the settings, the package, the re-judge: about 0.7 CPU-s of module loading a run, which
// the project's tests pay some fifty times)
import { ConfigError } from '../contract/prefix.js';
import { childEnvironment, loadEnvFile } from '../config/env-file.js';
import { ROOT, reportsDir } from '../paths.js';
import { JournalError } from '../reporter/journal.js';
import { changeFails, loadComparison } from '../reporter/compare.js';
import { oneOf } from '../config/env-values.js';
import { FAIL_ON_VALUES, type FailOn } from '../vocabulary/fail-on.js';
import { VERDICT_ORDER } from '../vocabulary/verdicts.js';
import type { CertificationReport } from '../reporter/model.js';

const truthy = (v: string | undefined) => !!v && !/^(0|false|no|off)$/i.test(v.trim());

export const REPORTER = join(ROOT, 'src/reporter/certification.ts');

export type CertifyMode = 'run' | 'resume' | 'report';
export const CERTIFY_FLAGS = ['--resume', '--rerun-failed', '--report'] as const;

/**
 * `--compare <file>` (or `--compare=<file>`): the previous package to compare with; it becomes
 * SADAD_COMPARE for the run and never reaches Playwright. Null when the flag is absent.
 */
export function compareFlag(args: string[]): { file: string | null; rest: string[] } | { error: string } {
  const rest: string[] = [];
  let file: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--compare') {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('-')) return { error: '--compare needs the previous certification.json: --compare <file>' };
      file = next;
      i++;
    } else if (a.startsWith('--compare=')) file = a.slice('--compare='.length);
    else rest.push(a);
  }
  return { file, rest };
}

/** `--rejudge <dir>` and `--out <dir>`: null when --rejudge is absent. */
export function rejudgeFlag(args: string[]): { from: string | null; out: string | null; rest: string[] } | { error: string } {
  const rest: string[] = [];
  let from: string | null = null;
  let out: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = /^--(rejudge|out)=(.*)$/.exec(a);
    if (eq) { if (eq[1] === 'rejudge') from = eq[2]!; else out = eq[2]!; continue; }
    if (a === '--rejudge' || a === '--out') {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('-')) return { error: a === '--rejudge' ? '--rejudge needs the package folder to re-judge: --rejudge <dir>' : '--out needs a folder: --out <dir>' };
      if (a === '--rejudge') from = next; else out = next;
      i++;
    } else rest.push(a);
  }
  if (out !== null && from === null) return { error: '--out goes with --rejudge: --rejudge <dir> --out <dir>' };
  if (from !== null && rest.length) return { error: `--rejudge runs nothing: it takes no other flag or Playwright argument (got ${rest.join(' ')})` };
  return { from, out, rest };
}

/** Separates certify's own flags from the arguments for Playwright; a contradictory combination is an error in words. */
export function certifyCommand(args: string[], env: NodeJS.ProcessEnv): { mode: CertifyMode; rerunFailed: boolean; rest: string[] } | { error: string } {
  const rest = args.filter((a) => !(CERTIFY_FLAGS as readonly string[]).includes(a));
  const report = args.includes('--report');
  const rerunFailed = args.includes('--rerun-failed');
  const resume = rerunFailed || args.includes('--resume');
  const dryRun = args.includes('--list') || truthy(env.SADAD_DRY_RUN);
  if (report && resume) return { error: '--report rebuilds the last package and runs nothing: it cannot be combined with --resume or --rerun-failed' };
  if (report && rest.length) return { error: `--report takes no Playwright arguments (got ${rest.join(' ')})` };
  if (resume && dryRun) return { error: '--resume and --rerun-failed run cases: they cannot be combined with the dry run (--list, SADAD_DRY_RUN)' };
  return { mode: report ? 'report' : resume ? 'resume' : 'run', rerunFailed, rest };
}

/** The `playwright test` arguments and environment for the given certify arguments. */
export function playwrightArgs(args: string[], env: NodeJS.ProcessEnv): { args: string[]; env: NodeJS.ProcessEnv; dryRun: boolean } {
  const dryRun = args.includes('--list') || truthy(env.SADAD_DRY_RUN);
  const out = ['test'];
  if (!args.some((a) => a === '-c' || a === '--config' || a.startsWith('--config='))) out.push('-c', join(ROOT, 'playwright.config.ts'));
  out.push(...args);
  if (!dryRun) return { args: out, env, dryRun };
  if (!args.includes('--list')) out.push('--list');
  if (!args.some((a) => a === '--reporter' || a.startsWith('--reporter='))) out.push(`--reporter=${REPORTER}`);
  return { args: out, env: { ...env, SADAD_DRY_RUN: '1' }, dryRun };
}

/** Exit code of a package: 0 when nothing in it fails the run (no unwaived FAIL or ERROR, nothing NOT_RUN), else 1. */
export function packageExitCode(report: CertificationReport, failOn: FailOn): number {
  return report.outcome.unexpected.length || report.outcome.notRun.length || changeFails(report, failOn).length ? 1 : 0;
}

/** SADAD_FAIL_ON as these variables say (checked before anything else: a wrong value stopped the command). */
const failOnOf = (env: NodeJS.ProcessEnv): FailOn => oneOf(env, 'SADAD_FAIL_ON', FAIL_ON_VALUES, 'fail');

function summary(report: CertificationReport, dir: string): string {
  const v = report.counts.byVerdict;
  const line = VERDICT_ORDER.filter((k) => v[k]).map((k) => `${v[k]} ${k}`).join(', ');
  return `Certification: ${report.outcome.summary}\n  ${report.counts.cases} cases${report.runs.length > 1 ? ` (${report.runs.length} runs merged)` : ''}: ${line || 'none'}` +
    `\n  ${join(dir, 'certification.html')} (and .json, certification.sha256)`;
}

/** The environment as the run will see it: .env loaded under what is set (a copy: the child loads it itself). */
function effectiveEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  loadEnvFile(env);
  return env;
}

function runPlaywright(args: string[], env: NodeJS.ProcessEnv, done: (code: number) => void): void {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  // a run publishes its own settings (config/settings.ts): none of a run this one may have been started from
  const child = spawn(process.execPath, [cli, ...args], { stdio: 'inherit', env: childEnvironment(env) });
  // Ctrl-C reaches Playwright through the terminal (a second SIGINT would make it skip its teardown),
  // so this process only waits. SIGTERM sent to this process alone is passed on once: the
  // certification reporter turns it into Playwright's graceful stop, and ignores repeats
  let terminated = false;
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => {
    if (terminated || child.exitCode !== null) return;
    terminated = true;
    child.kill('SIGTERM');
  });
  child.on('error', (e) => { console.error(`certify: cannot start Playwright: ${e.message}`); process.exit(1); });
  child.on('exit', (code, signal) => done(code ?? (signal ? 128 + (constants.signals[signal] ?? 1) : 1)));
}

/** `--rejudge`: the package re-judged from its evidence, written as a new package. Sends nothing. */
async function rejudgeMain(from: string, out: string | null): Promise<void> {
  let env: NodeJS.ProcessEnv;
  try { env = effectiveEnv(); } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`\nConfiguration error: ${e.message}\nNothing was sent.\n`);
    process.exit(2);
  }
  Object.assign(process.env, env);
  const dir = out ?? reportsDir(env);
  const { configuredSecrets, readSettingsOrError } = await import('../config/settings.js');
  const { registerSecrets } = await import('../reporter/package.js');
  const { writeRejudgedPackage } = await import('../replay/package.js');
  registerSecrets(configuredSecrets(env));
  await writeRejudgedPackage(from, dir, readSettingsOrError(env)).then(({ report, rejudgement }) => {
    const diverged = rejudgement.differing.filter((c) => c.divergence);
    const changed = rejudgement.differing.filter((c) => !c.divergence);
    console.log(`Re-judged ${rejudgement.cases.length} cases of ${from} from their evidence with this suite; nothing was sent.`);
    if (!rejudgement.differing.length) console.log('  every verdict is the one recorded');
    for (const c of changed) console.log(`  ${c.id}: ${c.recorded} -> ${c.rejudged}`);
    for (const c of diverged.slice(0, 20)) console.log(`  ${c.id}: ${c.recorded} -> NOT_RUN, needs a new run (${c.divergence})`);
    if (diverged.length > 20) console.log(`  ... and ${diverged.length - 20} more that need a new run`);
    if (changed.length || diverged.length) console.log(`  ${changed.length} verdict${changed.length === 1 ? '' : 's'} changed, ${diverged.length} case${diverged.length === 1 ? '' : 's'} need${diverged.length === 1 ? 's' : ''} a new run (\`npm run certify -- --resume\` on the new package runs them)`);
    console.log(summary(report, dir));
    process.exit(packageExitCode(report, failOnOf(env)));
  }, (e: unknown) => {
    if (!(e instanceof JournalError)) throw e;
    console.error(`certify --rejudge: ${e.message}`);
    process.exit(2);
  });
}

async function main(): Promise<void> {
  const compare = compareFlag(process.argv.slice(2));
  if ('error' in compare) {
    console.error(`certify: ${compare.error}`);
    process.exit(2);
  }
  if (compare.file) process.env.SADAD_COMPARE = compare.file;
  try {
    loadComparison(process.env.SADAD_COMPARE);
    failOnOf(process.env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`\nConfiguration error: ${e.message}\nNothing was sent.\n`);
    process.exit(2);
  }
  const rejudge = rejudgeFlag(compare.rest);
  if ('error' in rejudge) {
    console.error(`certify: ${rejudge.error}`);
    process.exit(2);
  }
  if (rejudge.from !== null) return rejudgeMain(rejudge.from, rejudge.out);
  const command = certifyCommand(compare.rest, process.env);
  if ('error' in command) {
    console.error(`certify: ${command.error}`);
    process.exit(2);
  }
  let env: NodeJS.ProcessEnv;
  try {
    env = command.mode === 'run' ? process.env : effectiveEnv();
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`\nConfiguration error: ${e.message}\nNothing was sent.\n`);
    process.exit(2);
  }
  const dir = reportsDir(env);

  if (command.mode === 'report') {
    try {
      Object.assign(process.env, env);
      const { configuredSecrets, readSettingsOrError } = await import('../config/settings.js');
      const { rebuildPackage, registerSecrets } = await import('../reporter/package.js');
      registerSecrets(configuredSecrets(env));
      const report = rebuildPackage(dir, readSettingsOrError(env));
      console.log(`Rebuilt from ${join(dir, 'run.json')} and ${join(dir, 'evidence')}; nothing was sent.\n${summary(report, dir)}`);
      process.exit(packageExitCode(report, failOnOf(env)));
    } catch (e) {
      if (!(e instanceof JournalError)) throw e;
      console.error(`certify --report: ${e.message}`);
      process.exit(2);
    }
  }

  if (command.mode === 'resume') {
    Object.assign(process.env, env);
    const { prepareResume } = await import('../reporter/resume.js');
    const { readPackage } = await import('../reporter/package.js');
    const plan = prepareResume({ dir, env, args: command.rest, rerunFailed: command.rerunFailed });
    if (plan.kind === 'refuse') { console.error(plan.message); process.exit(2); }
    if (plan.kind === 'nothing') { console.log(plan.message); process.exit(0); }
    console.log(plan.message);
    const { args } = playwrightArgs(command.rest, process.env);
    runPlaywright(args, { ...process.env, ...plan.env }, (code) => {
      if (code !== 0) process.exit(code);
      let merged: CertificationReport | null = null;
      try { merged = readPackage(dir); } catch { /* reported below */ }
      if (!merged) { console.error(`certify: the resumed run left no package in ${dir}`); process.exit(1); }
      process.exit(packageExitCode(merged, failOnOf(env)));
    });
    return;
  }

  const { args, env: childEnv } = playwrightArgs(command.rest, process.env);
  runPlaywright(args, childEnv, (code) => process.exit(code));
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) void main();
