/**
 * The certification reporter (design.md §4a), a Playwright custom reporter of the conformance
 * suite. As a run goes it keeps the run journal (journal.ts) under the reports folder:
 *   run.json             the manifest, when the cases start: run id, identity, planned cases
 *   evidence/<id>.json   written by each case at its end; for a case that ended without a verdict
 *                        (timed out, its worker died, interrupted) written here, when Playwright reports it
 * and when the run ends, interrupted or not, it builds the package from that journal (package.ts):
 *   certification.json   the report as data (schemas/certification.schema.json)
 *   certification.html   the same, one self-contained page: readable offline, printable
 *   certification.sha256 checksums of the package (`cd reports && sha256sum -c certification.sha256`)
 * A run killed before its end leaves the journal; `npm run certify -- --report` builds the package from it.
 * With `playwright test --list` (the dry run, `npm run certify -- --list`) it writes nothing and
 * prints the plan: cases per operation and family, calls per operation, estimated wall time.
 */
import { DEFAULT_RATE_WINDOW_SECONDS } from '../contract/catalogue.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { ConfigError } from '../config/index.js';
import { maskText } from '../client/redact.js';
import { REPORTS_DIR, ROOT } from '../paths.js';
import { CERTIFICATION_REPORTER, VERDICT_ORDER } from '../vocabulary/verdicts.js';
import { formatCauses } from './causes.js';
import { changeFails, formatChanges, kindsText } from './compare.js';
import { manifestCase, plannedCase, recordOfResult } from './collect.js';
import { CHECKSUM_FILE } from './checksum.js';
import { runIdentity, type RunIdentity } from './identity.js';
import { newRunId, writeManifest, type RunManifest } from './journal.js';
import { evidenceFile, writeEvidence } from '../evidence/store.js';
import { buildPackage, packageOptionsOf, registerSecrets, signingOf, writePackage } from './package.js';
import { newRunManifest } from './manifest.js';
import { formatDuration, formatPlan, planOf, type Plan } from './plan.js';
import type { PlanContext } from '../vocabulary/plan.js';
import { configuredSecrets, dryRunOf, paymentsSettledOf, processSettingsOrError, processVariables, type Settings } from '../config/settings.js';
import { runStopping } from '../pacer/stop.js';

export { narrowingArgs } from './narrowing.js';


let sigtermHandled = false;
/** Set when the run's reports are being written: a SIGINT then would kill it mid-write. */
let runEnding = false;
/**
 * Playwright's runner stops gracefully on SIGINT (its reporters and global teardown run) but has no
 * SIGTERM handler: a CI runner's SIGTERM would kill it on the spot and no package would be written.
 * The first SIGTERM becomes the SIGINT Playwright handles; later ones are ignored, since a second
 * SIGINT makes Playwright skip its teardown (SIGKILL still ends everything; `--report` then rebuilds).
 * A SIGTERM that finds no SIGINT listener while the tests still run (seen once in CI, under load: the
 * run went on to the end) is passed on as soon as one is there.
 */
function stopGracefullyOnSigterm(): void {
  if (sigtermHandled) return;
  sigtermHandled = true;
  let sent = false;
  const pass = (): void => {
    if (sent || runEnding) return;
    if (process.listenerCount('SIGINT') === 0) { setTimeout(pass, 50).unref(); return; }
    sent = true;
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGTERM', pass);
}

export interface CertificationReporterOptions {
  /** Set by Playwright: `list` for `--list`. */
  _mode?: string;
  /** Overrides the reports folder (default: `reportsDir()`, SADAD_REPORTS_DIR). */
  outputDir?: string;
}

export default class CertificationReporter implements Reporter {
  private readonly listMode: boolean;
  private readonly outputDir: string | undefined;
  private config: FullConfig | undefined;
  private tests: TestCase[] = [];
  private readonly runErrors: string[] = [];
  private identity: RunIdentity | undefined;
  private manifest: RunManifest | undefined;
  /** The run's id when its settings name none (a raw `playwright test` whose global setup did not publish them). */
  private ownRunId: string | undefined;

  constructor(options: CertificationReporterOptions = {}) {
    this.listMode = options._mode === 'list';
    this.outputDir = options.outputDir;
    if (this.listMode) return;
    stopGracefullyOnSigterm();
    // now, before the global setup points SADAD_BASE_URL at the embedded mock (a new port every run);
    // Playwright creates its reporters before the global setup, and calls a v1 reporter's onBegin after it
    try { this.identity = runIdentity(processVariables(), process.argv); } catch { /* SADAD_ENV_FILE is wrong: the global setup stops on it, naming it */ }
  }

  /**
   * The run's settings, as its global setup published them (before it, as configured); a
   * configuration error (which stopped the run, naming the variable) leaves the defaults.
   */
  private settings(): Settings | ConfigError {
    return processSettingsOrError();
  }

  private secrets(): string[] {
    try { return configuredSecrets(processVariables()); } catch { return []; }
  }

  private get dir(): string {
    const s = this.settings();
    return this.outputDir ?? (s instanceof ConfigError ? REPORTS_DIR : s.run.reportsDir);
  }

  private runId(): string {
    const s = this.settings();
    return (this.ownRunId ??= (s instanceof ConfigError ? undefined : s.run.runId) ?? newRunId());
  }

  /** The dry run prints the plan (and keeps Playwright from adding its own listing); a real run leaves the console to the other reporters. */
  printsToStdio(): boolean {
    return this.listMode;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    // this reporter decides the run's status from the package (onEnd); the global teardown leaves it to it
    (globalThis as { [CERTIFICATION_REPORTER]?: boolean })[CERTIFICATION_REPORTER] = true;
    this.tests = suite.allTests();
    if (this.listMode) return;
    registerSecrets(this.secrets());
    if (!this.identity) try { this.identity = runIdentity(processVariables(), config.argv ?? process.argv); } catch { /* reported by the global setup */ }
    this.manifest = this.newManifest(this.runId());
    try {
      writeManifest(this.dir, this.manifest);
    } catch (e) {
      this.runErrors.push(maskText(`cannot write the run manifest: ${(e as Error).message}`));
    }
  }

  private newManifest(runId: string): RunManifest {
    const s = this.settings();
    return newRunManifest({ runId, dir: this.dir, identity: this.identity!, playwright: this.config?.version ?? 'unknown', cases: this.tests.map((t) => manifestCase(t, ROOT)), settings: s instanceof ConfigError ? null : s, ...this.planContext() });
  }

  /** A case that ended without writing its own evidence leaves what Playwright knows of it, at once. */
  onTestEnd(test: TestCase, result: TestResult): void {
    // Playwright is stopping the run: the pacing grants nothing more (pacer/stop.ts), so that a case
    // it started as the stop came, and did not interrupt, ends now rather than at its test timeout
    if (result.status === 'interrupted') runStopping();
    if (this.listMode || !this.manifest) return;
    const id = plannedCase(test).id;
    const file = evidenceFile(this.dir, id);
    if (!file || existsSync(file)) return;
    try {
      writeEvidence(this.dir, recordOfResult(test, result, this.manifest.runId, ROOT));
    } catch (e) {
      this.runErrors.push(maskText(`cannot write the evidence of ${id}: ${(e as Error).message}`));
    }
  }

  onError(error: TestError): void {
    const text = (error.message ?? error.value ?? 'unknown error').replace(/\u001b\[[0-9;]*m/g, '');
    this.runErrors.push(maskText(text).slice(0, 2000));
  }

  async onEnd(result: FullResult): Promise<{ status?: FullResult['status'] } | void> {
    runEnding = true;
    if (this.listMode) return this.printPlan();
    registerSecrets(this.secrets());
    const dir = this.dir;
    const settings = this.settings();
    const failOn = settings instanceof ConfigError ? 'fail' : settings.run.failOn;
    // no manifest: the run stopped before its cases started (a configuration error, a spec that did not load)
    this.manifest ??= this.newManifest(this.runId());
    const finishedAt = new Date();
    this.manifest.end = { finishedAt: finishedAt.toISOString(), status: result.status, durationMs: Math.round(result.duration || 0), errors: this.runErrors };
    writeManifest(dir, this.manifest);
    const built = buildPackage(dir, this.manifest, finishedAt, packageOptionsOf(settings));
    writePackage(dir, built, signingOf(settings));
    const report = built.report;
    const v = report.counts.byVerdict;
    const line = VERDICT_ORDER.filter((k) => v[k]).map((k) => `${v[k]} ${k}`).join(', ');
    const merged = report.runs.length > 1 ? ` (${report.runs.length} runs merged)` : '';
    const resume = v.NOT_RUN ? `\n  ${v.NOT_RUN} case${v.NOT_RUN === 1 ? '' : 's'} did not finish: \`npm run certify -- --resume\` runs ${v.NOT_RUN === 1 ? 'it' : 'them'}` : '';
    if (report.changes) console.log(`\n${formatChanges(report.changes, failOn)}`);
    console.log(`\nCertification: ${report.outcome.summary}\n  ${report.counts.cases} cases${merged}: ${line || 'none'}; ${formatDuration(report.fingerprint.durationMs / 1000)}${resume}` +
      `\n  ${join(dir, 'certification.html')} (and .json, ${CHECKSUM_FILE})`);
    const causes = formatCauses(report.causes);
    if (causes) console.log(`\n${causes}`);
    // cases that FAIL, ERROR or are INCONCLUSIVE end as Playwright's expected failures (suite/case.ts):
    // the run's status is decided here, from the package, so the exit code is what it always was
    if (report.outcome.unexpected.length && result.status === 'passed') {
      const n = report.outcome.unexpected.length;
      const list = report.outcome.unexpected.slice(0, 20).map((id) => {
        const c = report.cases.find((x) => x.id === id);
        return `  ${c?.verdict ?? 'FAIL'} ${id}: ${(c?.notes.find((x) => x.verdict === c.verdict)?.text ?? '').split('\n')[0]!.slice(0, 200)}`;
      });
      console.log(`\n${list.join('\n')}${n > 20 ? `\n  ... and ${n - 20} more (certification.html)` : ''}`);
      console.log(`${n} case${n === 1 ? '' : 's'} FAIL, ERROR or INCONCLUSIVE: Playwright marks ${n === 1 ? 'it' : 'them'} ✘ as expected failures (and counts ${n === 1 ? 'it' : 'them'} in its "passed"); the verdicts above are what count, and the run fails.`);
      return { status: 'failed' };
    }
    // SADAD_FAIL_ON=verdict|behaviour|any: a nightly fails on a change since SADAD_COMPARE, not only on a FAIL
    const failing = changeFails(report, failOn);
    if (failing.length && result.status === 'passed') {
      console.log(`\nSADAD_FAIL_ON=${failOn}: ${kindsText(report.changes!, failing)} change${failing.length === 1 && report.changes!.byKind?.[failing[0]!] === 1 ? '' : 's'} since ${report.changes!.previous.file}: the run fails.`);
      return { status: 'failed' };
    }
  }

  /** The worker count and what the configuration enables, for the plan in the manifest (none on a configuration error). */
  private planContext(): { planContext?: PlanContext } {
    const s = this.settings();
    return s instanceof ConfigError ? {} : { planContext: { workers: this.config?.workers ?? 1, ...s.run.plan } };
  }

  private plan(): { plan: Plan | null; error: string | null } {
    const s = this.settings();
    if (s instanceof ConfigError) return { plan: null, error: s.message };
    return { plan: planOf(this.tests.map(plannedCase), s.run.limits, { workers: this.config?.workers ?? 1, ...s.run.plan }), error: null };
  }

  private printPlan(): void {
    const { plan, error } = this.plan();
    if (error) console.log(`Configuration error: ${maskText(error)}\nA run would stop here; see .env.example. The planned cases follow.`);
    const unknownLimits = { windowSeconds: DEFAULT_RATE_WINDOW_SECONDS, perOperation: {}, source: 'unknown limits (configuration error)' };
    // on a configuration error, as the variables say
    let vars: Record<string, string | undefined> = {};
    try { vars = processVariables(); } catch { /* SADAD_ENV_FILE: reported above */ }
    const s = this.settings();
    const listCases = s instanceof ConfigError ? dryRunOf(vars) : s.run.dryRun;
    const paymentsSettled = s instanceof ConfigError ? paymentsSettledOf(vars) : s.run.paymentsSettled;
    console.log(formatPlan(plan ?? planOf(this.tests.map(plannedCase), unknownLimits), { listCases, paymentsSettled }));
  }
}
