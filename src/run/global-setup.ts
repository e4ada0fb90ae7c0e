/**
 * Runs once before any case: validates the configuration (a mistake stops the run here, naming the
 * variable), starts the embedded mock when no target is configured, starts the pacing coordinator
 * all workers share, and, against a configured target, runs the preflight (a run that cannot
 * succeed stops here, exit 2, with a package that says why). What it decides reaches the workers
 * as one published settings value (config/settings.ts, publishSettings).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/index.js';
import { processSettings, publishSettings, readSettings, configuredSecrets, type Settings } from '../config/settings.js';
import { startCoordinator } from '../pacer/coordinator.js';
import { onRunStopping } from '../pacer/stop.js';
import { startEmbeddedMock } from './embedded-mock.js';
import { loadComparison } from '../reporter/compare.js';
import { limitsOf } from '../suite/runtime.js';
import { CERTIFICATION_REPORTER } from '../vocabulary/verdicts.js';
import { loadTargetData } from '../config/target-data.js';
import { caseFilter } from '../vocabulary/selection.js';
import { allCases, registrationOf } from '../suite/cases.js';
import { needsOf } from '../suite/case.js';
import { applicable } from '../reporter/plan.js';
import { guardMessage, paymentPlan } from '../vocabulary/payment-guard.js';
import { maskText } from '../client/redact.js';
import { createRequire } from 'node:module';
import { healthOf } from '../client/client.js';
import { closeDispatcher } from '../net/index.js';
import { RemotePacer } from '../pacer/remote.js';
import { formatStopped, PREFLIGHT_CALLS, PREFLIGHT_FILE, runPreflight, findingLines, type PreflightReport } from '../preflight/index.js';
import { writeFileAtomic } from '../base/atomic.js';
import { runIdentity } from '../reporter/identity.js';
import { newRunId, writeManifest } from '../reporter/journal.js';
import { newRunManifest } from '../reporter/manifest.js';
import { buildPackage, OUTAGES_FILE, packageOptionsOf, registerSecrets, signingOf, writePackage } from '../reporter/package.js';
import { pacingSummary, spanText } from '../reporter/availability.js';
import type { BudgetStats } from '../pacer/budget.js';
import { generatorFor, minimalEnquiry } from '../preflight/index.js';
import { summarize } from '../client/exchange.js';
import type { Outage, OutageOptions } from '../pacer/outage.js';
import type { OperationId } from '../contract/catalogue.js';
import { planOf } from '../reporter/plan.js';
import type { FullConfig } from '@playwright/test';
import { plannedCaseDefinitions } from '../suite/cases.js';
import { configuredClient } from '../suite/runtime.js';
import type { SuiteConfig } from '../config/index.js';
import type { TargetData } from '../config/target-data.js';

/** Runs a configuration step; a mistake ends the run here, before anything is sent, naming the variable. */
function orStop<T>(step: () => T): T {
  try {
    return step();
  } catch (e) {
    return stopOn(e);
  }
}

function stopOn(e: unknown): never {
  if (!(e instanceof ConfigError)) throw e;
  console.error(`\nConfiguration error: ${e.message}\nNothing was sent. See .env.example and docs/configuration.md.\n`);
  process.exit(2);
}

export default async function globalSetup(playwright?: FullConfig): Promise<() => Promise<void>> {
  // the settings as configured: the identity of the run is read from them, before the embedded mock's address replaces the target
  const configured = orStop(() => processSettings());
  if (configured.run.dryRun) {
    // a raw `playwright test` would run for real: the dry run goes through the certify wrapper
    console.error('\nSADAD_DRY_RUN is set: run the dry run with `npm run certify` (or `npm run certify -- --list`). Nothing was sent.\n');
    process.exit(2);
  }
  const identity = runIdentity(configured.variables, process.argv);
  // the previous package is read now: a wrong SADAD_COMPARE stops the run before anything is sent
  orStop(() => loadComparison(configured.run.compareFile));
  const reg = registrationOf(configured);
  if (!configured.run.paymentsSettled) {
    const config = configured.suite;
    const selected = caseFilter(configured.run.selection);
    // the cases that will send something, as the dry run counts them (reporter/plan.ts)
    const context = { workers: 1, ...configured.run.plan };
    const planned = allCases(reg).map(([def]) => def).filter((def) => selected(def.id) && applicable({ needs: needsOf(def) }, context));
    // the preflight's payment calls are refused by design: counted as calls, never as payments
    const preflightCalls = config.preflight ? [{ calls: { ...PREFLIGHT_CALLS } }] : [];
    console.error(`\n${guardMessage(paymentPlan([...planned.map((d) => ({ calls: d.calls ?? { [d.op]: 1 }, payments: d.payments })), ...preflightCalls]), maskText(config.baseUrl ?? ''))}\n`);
    process.exit(2);
  }
  // what this setup decides for every process of the run: published with the configured variables, as one value
  const runId = configured.run.runId ?? newRunId();
  const decided: Record<string, string> = {
    SADAD_RUN_ID: runId,
    // decided before the embedded mock's address is set: a configured target gets a preflight, the
    // embedded mock none (unless asked); said explicitly, so that the reporter and the workers, who
    // read the settings after the embedded mock's address is set, agree (the plan counts the
    // preflight's calls only when it runs)
    SADAD_PREFLIGHT: configured.suite.preflight ? 'on' : 'off',
  };
  const preflight = configured.suite.preflight;
  const dir = configured.run.reportsDir;
  // evidence of an earlier run must not mix with this one's
  rmSync(join(dir, 'evidence'), { recursive: true, force: true });
  rmSync(join(dir, PREFLIGHT_FILE), { force: true });
  rmSync(join(dir, OUTAGES_FILE), { force: true });
  const closers: (() => Promise<void>)[] = [];
  // what the embedded mock injected (MOCK_FAULTS), beside what the cases met, in pacing.json
  let injectedFaults: (() => unknown) | undefined;
  let target = configured.suite.baseUrl ?? '';
  if (!configured.suite.baseUrl) {
    const mock = await startEmbeddedMock(configured).catch(stopOn);
    closers.push(mock.close);
    injectedFaults = mock.faultCounts;
    target = mock.url;
    Object.assign(decided, mock.env);
  }
  const chosen = orStop(() => readSettings({ ...configured.variables, ...decided }));
  decided.SADAD_SEED = String(chosen.suite.seed);
  decided.SADAD_TARGET_PROFILE = chosen.run.targetProfile ?? 'configured target';
  const config = chosen.suite;
  const targetData = orStop(() => loadTargetData(config.dataFile));
  const watcher = await outageWatcher(config, targetData, runId, dir);
  closers.push(watcher.close);
  const coordinator = await startCoordinator({
    windowSeconds: config.rateWindowSeconds, limits: limitsOf(config), leaseMs: config.requestTimeoutMs + 10_000,
    claimable: { bills: targetData?.bills.length ?? 0, fees: targetData?.fees.length ?? 0 },
    outage: watcher.options,
  });
  decided.SADAD_PACER_URL = coordinator.url;
  // once Playwright stops the run (pacer/stop.ts), the coordinator stops granting, so that no case
  // waits for a grant until its test timeout (Coordinator.stop)
  const stopListening = onRunStopping(() => coordinator.stop());
  // the workers and the reporter read these settings (config/settings.ts)
  const settings = publishSettings({ ...configured.variables, ...decided });
  console.log(`target ${target} (${decided.SADAD_TARGET_PROFILE}); seed ${config.seed}${config.seedFromEnv ? '' : ' (random; set SADAD_SEED to replay)'}; ` +
    `limits bill ${config.rateLimits.bill}, MOI ${config.rateLimits.moi} per ${config.rateWindowSeconds} s`);
  if (preflight) {
    const stopped = await preflightOrStop(settings, coordinator.url, targetData, identity, playwright?.workers ?? 1);
    if (stopped) {
      stopListening();
      await coordinator.close();
      for (const close of closers.reverse()) await close();
      process.exit(2);
    }
  }

  return async () => {
    stopListening();
    const stats = await coordinator.app.inject({ method: 'GET', url: '/stats' }).then((r) => r.json()).catch(() => ({}));
    // the gateway's over-limit answers other than 429, as the rate-limit cases identified them
    const overLimit = await coordinator.app.inject({ method: 'GET', url: '/over-limit' }).then((r) => (r.json() as { status: number; op: string }[]).map(({ status, op }) => ({ status, op }))).catch(() => []);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'pacing.json'), JSON.stringify({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config), shape: config.rateShape, operations: stats, overLimit, ...(injectedFaults ? { injectedFaults: injectedFaults() } : {}) }, null, 2));
    console.log(pacingLine(stats as Record<string, BudgetStats>, overLimit));
    await coordinator.close();
    for (const close of closers.reverse()) await close();
    failOnVerdicts(dir, settings.run.runId);
  };
}

/**
 * The console's line on what the gateway allowed (design.md §6): whether it refused calls outside
 * the rate-limit cases, how far the pacing slowed down for it, and what that cost.
 */
function pacingLine(stats: Record<string, BudgetStats>, overLimit: { status: number; op: string }[]): string {
  const p = pacingSummary([{ operations: stats, overLimit }]);
  return p ? `\npacing: ${p.summary}` : '';
}

/**
 * The outage watch's side in this process (design.md §10): the probe (a harmless enquiry, sent by
 * the coordinator inside the operation's budget), outages.json kept up to date as an outage begins
 * and ends (a killed run still has it), a line on the console for each, and the graceful stop once
 * an outage outlasts SADAD_MAX_OUTAGE_SECONDS (the unfinished cases NOT_RUN, resumable).
 */
async function outageWatcher(config: SuiteConfig, targetData: TargetData | undefined, runId: string, dir: string): Promise<{ options: Omit<OutageOptions, 'windowMs'>; close: () => Promise<void> }> {
  // the coordinator wraps each probe in its budget: this client sends directly
  const client = await configuredClient(config).catch(stopOn);
  const gen = generatorFor(config);
  const told = new Map<string, 'down' | 'back' | 'gave up'>();
  const at = (iso: string) => iso.slice(11, 19);
  return {
    close: () => closeDispatcher(config.network),
    options: {
      maxSeconds: config.maxOutageSeconds,
      probe: async (op) => {
        const ex = await client.send(op as OperationId, { body: minimalEnquiry(op as OperationId, gen, targetData), label: 'outage probe', via: (send) => send(), timeoutMs: Math.min(config.requestTimeoutMs, 10_000) });
        // read as every case's call is read for the watch (client.ts healthOf)
        const { at: _at, ...health } = healthOf(op, ex);
        return { ...health, at: new Date().toISOString(), summary: maskText(summarize(ex)).slice(0, 300) };
      },
      onChange: (outages: Outage[]) => {
        mkdirSync(dir, { recursive: true });
        writeFileAtomic(join(dir, OUTAGES_FILE), JSON.stringify({ runId, outages }, null, 2) + '\n');
        for (const o of outages) {
          const state = o.gaveUp ? 'gave up' : o.end ? 'back' : 'down';
          if (told.get(o.start) === state) continue;
          told.set(o.start, state);
          if (state === 'down') console.log(`\noutage: the target has been down since ${at(o.start)} (${Object.entries(o.kinds).map(([k, n]) => `${k} ×${n}`).join(', ')}); the run pauses and probes it once a window, or after its Retry-After (for at most ${config.maxOutageSeconds} s: SADAD_MAX_OUTAGE_SECONDS)`);
          if (state === 'back') console.log(`\noutage: the target is back at ${at(o.end!)} after ${spanText(o.durationMs)}; the run goes on where it stopped`);
        }
      },
      onGiveUp: (o: Outage) => {
        console.error(`\noutage: the target went down at ${o.start} and is still down after ${spanText(o.durationMs)} (SADAD_MAX_OUTAGE_SECONDS=${config.maxOutageSeconds}): the run stops; the unfinished cases are NOT_RUN, and once the target is back \`npm run certify -- --resume\` continues where it stopped.`);
        // Playwright's graceful stop: the cases in flight end NOT_RUN, the package is written
        process.kill(process.pid, 'SIGINT');
      },
    },
  };
}

/**
 * The preflight (design.md §10), through the run's pacer so that its calls count against the
 * budgets. Its report goes to reports/preflight.json (the package's Connection section). When it
 * finds the run cannot succeed, the package is written here, every planned case NOT_RUN with the
 * reason, and true is returned: the run stops before its first case.
 */
async function preflightOrStop(settings: Settings, pacerUrl: string, targetData: TargetData | undefined, identity: ReturnType<typeof runIdentity>, workers: number): Promise<boolean> {
  const { suite: config, run } = settings;
  const dir = run.reportsDir;
  const runId = run.runId!;
  const planned = plannedCaseDefinitions(registrationOf(settings), caseFilter(run.selection));
  const estimatedSeconds = planOf(planned.map(({ def }) => ({ id: def.id, operation: def.op, family: def.family, level: def.level, calls: def.calls ?? { [def.op]: 1 } })), run.limits).estimate.seconds;
  const client = await configuredClient(config, new RemotePacer(pacerUrl)).catch(stopOn);
  let report: PreflightReport;
  try {
    report = await runPreflight({ config, client, targetData, runId, env: settings.variables, ...(estimatedSeconds ? { estimatedSeconds } : {}) });
  } finally {
    // the workers build their own dispatcher; this process keeps no connection open to the target
    await closeDispatcher(config.network);
  }
  mkdirSync(dir, { recursive: true });
  writeFileAtomic(join(dir, PREFLIGHT_FILE), maskText(JSON.stringify(report, null, 2)) + '\n');
  const calls = Object.values(report.calls).reduce((a, b) => a + b, 0);
  if (report.result !== 'blocked') {
    const warnings = findingLines(report, 'warning');
    console.log(`preflight: ${report.route}, ${calls} call${calls === 1 ? '' : 's'} in ${(report.durationMs / 1000).toFixed(1)} s: ready${warnings.length ? `, with ${warnings.length} warning${warnings.length === 1 ? '' : 's'}:\n${warnings.map((w) => `  ! ${w}`).join('\n')}` : ''}`);
    return false;
  }
  registerSecrets(configuredSecrets(settings.variables));
  const { version } = createRequire(import.meta.url)('@playwright/test/package.json') as { version: string };
  const cases = planned.map(({ def, file }) => ({
    id: def.id, title: `${def.id} §${def.sections.join(' §')}`, file, operation: def.op, family: def.family, level: def.level,
    sections: def.sections, expectation: def.expectation, calls: def.calls ?? { [def.op]: 1 },
  }));
  const manifest = newRunManifest({ runId, dir, identity, playwright: version, cases, settings, planContext: { workers, ...run.plan, preflight: true } });
  manifest.end = { finishedAt: new Date().toISOString(), status: 'preflight', durationMs: report.durationMs, errors: [] };
  writeManifest(dir, manifest);
  writePackage(dir, buildPackage(dir, manifest, new Date(), packageOptionsOf(settings)), signingOf(settings));
  console.error(`\n${formatStopped(report, join(dir, 'certification.html'))}\n`);
  return true;
}

/**
 * Cases whose verdict fails the run end as Playwright's expected failures (suite/case.ts), so that
 * a FAIL never costs a worker restart. The certification reporter then fails the run from the
 * package; when a run has no such reporter (`--reporter=dot`), this does, so the exit code never
 * depends on the reporters chosen. Both run in the runner process: the reporter says it is there.
 */
function failOnVerdicts(reportsDir: string, runId: string | undefined): void {
  if ((globalThis as { [CERTIFICATION_REPORTER]?: boolean })[CERTIFICATION_REPORTER]) return;
  const dir = join(reportsDir, 'evidence');
  let failed: string[] = [];
  try {
    failed = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).flatMap((f) => {
      const ev = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { id: string; runId?: string; testStatus?: string; verdict?: string };
      return ev.runId === runId && ev.testStatus === 'failed' ? [`${ev.verdict} ${ev.id}`] : [];
    });
  } catch { /* no evidence: no case ran */ }
  if (failed.length) throw new Error(`${failed.length} case${failed.length === 1 ? '' : 's'} failed (${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', ...' : ''}): the run fails`);
}
