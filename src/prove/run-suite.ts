/** Runs the conformance suite (`playwright test`, top-level config) in a child process, into its own folder. */
import { childEnvironment } from '../config/settings.js';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setPriority as osPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../paths.js';

export interface SuiteRun { code: number | null; output: string; reportsDir: string; resultsDir: string; durationMs: number; timedOut: boolean }

/**
 * `config`: a Playwright config other than the suite's (the multi-target run's). `yieldCpu`: the run
 * gives way to every other process of the machine (see `yieldCpu`).
 */
export interface RunOptions { args?: string[]; dir?: string; timeoutMs?: number; reporter?: string; config?: string; yieldCpu?: boolean }

/**
 * Lowest CPU priority for a detached child's whole session (its runner and workers). Linux groups a
 * session's processes for scheduling (autogroup): a plain `nice` on them would only order them among
 * themselves, while the session as a whole still took an equal share against any other session. The
 * session's own nice (`/proc/<pid>/autogroup`) is what makes it yield. Best effort: without autogroup
 * (other systems, kernels built without it) the run takes its usual share.
 */
export function yieldCpu(pid: number | undefined): void {
  if (pid === undefined) return;
  try { writeFileSync(`/proc/${pid}/autogroup`, '19'); } catch { /* no autogroup here */ }
  try { osPriority(pid, 19); } catch { /* gone already */ }
}

/** The reporter that writes the certification package. */
export const CERTIFICATION_REPORTER = join(ROOT, 'src/reporter/certification.ts');

export function runSuite(env: Record<string, string>, options: RunOptions = {}): Promise<SuiteRun> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'sadad-suite-'));
  const reportsDir = join(dir, 'reports');
  const resultsDir = join(dir, 'test-results');
  const started = Date.now();
  // a clean environment: only what the caller says, plus what Node needs to run
  // SADAD_PAYMENTS=on: these runs target local stand-ins, never a real sandbox (a caller testing the payments guard sets it to '')
  const own = childEnvironment();
  const base: Record<string, string> = { PATH: own.PATH ?? '', HOME: own.HOME ?? dir, CI: '1', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), SADAD_PAYMENTS: 'on' };
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/playwright'), ['test', '-c', options.config ?? join(ROOT, 'playwright.config.ts'), `--reporter=${options.reporter ?? `line,html,${CERTIFICATION_REPORTER}`}`, ...(options.args ?? [])], {
      cwd: ROOT, detached: true,
      env: { ...base, SADAD_REPORTS_DIR: reportsDir, SADAD_RESULTS_DIR: resultsDir, PLAYWRIGHT_HTML_OUTPUT_DIR: join(reportsDir, 'html'), PLAYWRIGHT_JUNIT_OUTPUT_NAME: join(reportsDir, 'junit.xml'), ...env },
    });
    if (options.yieldCpu) yieldCpu(child.pid);
    let output = '';
    let timedOut = false;
    const timer = options.timeoutMs ? setTimeout(() => { timedOut = true; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, options.timeoutMs) : undefined;
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output, reportsDir, resultsDir, durationMs: Date.now() - started, timedOut }); });
  });
}

/**
 * Cases passed, failed and skipped, from the evidence's test status: a case failed when its
 * verdict fails the run (FAIL, ERROR, INCONCLUSIVE without a waiver). Playwright's own closing line
 * counts those as expected failures among its "passed" (suite/case.ts), so it cannot say.
 */
export function counts(run: Pick<SuiteRun, 'reportsDir'>): { passed: number; failed: number; skipped: number } {
  const statuses = caseResults(run).map((r) => (r as CaseResult & { testStatus?: string }).testStatus);
  const n = (status: string) => statuses.filter((s) => s === status).length;
  return { passed: n('passed'), failed: n('failed'), skipped: n('skipped') };
}

export interface CaseResult { id: string; verdict: string; family: string; op: string; notes: { verdict: string; text: string }[] }

/** Every case's verdict, from reports/evidence of a finished run. */
export function caseResults(run: Pick<SuiteRun, 'reportsDir'>): CaseResult[] {
  const dir = join(run.reportsDir, 'evidence');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as CaseResult);
}
