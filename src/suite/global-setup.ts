/**
 * Runs once before any case: validates the configuration (a mistake stops the run here, naming the
 * variable), starts the embedded mock when no target is configured, and starts the pacing
 * coordinator all workers share. What it decides reaches the workers through process.env.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configFromEnv, loadEnvFile } from '../config/index.js';
import { startCoordinator } from '../pacer/coordinator.js';
import { startEmbeddedMock } from './embedded-mock.js';
import { failOnFrom, loadComparison } from '../reporter/compare.js';
import { reportsDir } from '../paths.js';
import { limitsOf } from './runtime.js';
import { CERTIFICATION_REPORTER } from './verdicts.js';
import { loadTargetData } from '../config/target-data.js';
import { loadBaseline } from './baseline.js';
import { caseFilter } from './selection.js';
import { profileOf } from './profile.js';
import { allCases } from './cases.js';
import { guardMessage, paymentPlan, paymentsSettled } from './payment-guard.js';
import { maskText } from '../client/redact.js';
import { randomBytes } from 'node:crypto';

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
  console.error(`\nConfiguration error: ${e.message}\nNothing was sent. See .env.example and the configuration table in README.md.\n`);
  process.exit(2);
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  if (process.env.SADAD_DRY_RUN === '1' || process.env.SADAD_DRY_RUN === 'true') {
    // a raw `playwright test` would run for real: the dry run goes through the certify wrapper
    console.error('\nSADAD_DRY_RUN is set: run the dry run with `npm run certify` (or `npm run certify -- --list`). Nothing was sent.\n');
    process.exit(2);
  }
  let config = orStop(() => {
    loadEnvFile();
    loadBaseline();
    caseFilter();
    profileOf();
    loadComparison();
    failOnFrom();
    return configFromEnv();
  });
  if (!paymentsSettled()) {
    const selected = caseFilter();
    const planned = allCases().map(([def]) => def).filter((def) => selected(def.id));
    console.error(`\n${guardMessage(paymentPlan(planned.map((d) => ({ calls: d.calls ?? { [d.op]: 1 }, payments: d.payments }))), maskText(config.baseUrl ?? ''))}\n`);
    process.exit(2);
  }
  process.env.SADAD_RUN_ID ??= `${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
  // evidence of an earlier run must not mix with this one's
  rmSync(join(reportsDir(), 'evidence'), { recursive: true, force: true });
  const closers: (() => Promise<void>)[] = [];
  // what the embedded mock injected (MOCK_FAULTS), beside what the cases met, in pacing.json
  let injectedFaults: (() => unknown) | undefined;
  let target = config.baseUrl ?? '';
  if (!config.baseUrl) {
    const mock = await startEmbeddedMock(process.env, config).catch(stopOn);
    closers.push(mock.close);
    injectedFaults = mock.faultCounts;
    target = mock.url;
    Object.assign(process.env, mock.env);
    config = configFromEnv();
  }
  process.env.SADAD_SEED = String(config.seed);
  process.env.SADAD_TARGET_PROFILE ??= 'configured target';
  const targetData = orStop(() => loadTargetData(config.dataFile));
  const coordinator = await startCoordinator({
    windowSeconds: config.rateWindowSeconds, limits: limitsOf(config), leaseMs: config.requestTimeoutMs + 10_000,
    claimable: { bills: targetData?.bills.length ?? 0, fees: targetData?.fees.length ?? 0 },
  });
  process.env.SADAD_PACER_URL = coordinator.url;
  console.log(`target ${target} (${process.env.SADAD_TARGET_PROFILE}); seed ${config.seed}${config.seedFromEnv ? '' : ' (random; set SADAD_SEED to replay)'}; ` +
    `limits bill ${config.rateLimits.bill}, MOI ${config.rateLimits.moi} per ${config.rateWindowSeconds} s`);

  return async () => {
    const stats = await coordinator.app.inject({ method: 'GET', url: '/stats' }).then((r) => r.json()).catch(() => ({}));
    mkdirSync(reportsDir(), { recursive: true });
    writeFileSync(join(reportsDir(), 'pacing.json'), JSON.stringify({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config), operations: stats, ...(injectedFaults ? { injectedFaults: injectedFaults() } : {}) }, null, 2));
    await coordinator.close();
    for (const close of closers.reverse()) await close();
    failOnVerdicts();
  };
}

/**
 * Cases whose verdict fails the run end as Playwright's expected failures (suite/case.ts), so that
 * a FAIL never costs a worker restart. The certification reporter then fails the run from the
 * package; when a run has no such reporter (`--reporter=dot`), this does, so the exit code never
 * depends on the reporters chosen. Both run in the runner process: the reporter says it is there.
 */
function failOnVerdicts(): void {
  if ((globalThis as { [CERTIFICATION_REPORTER]?: boolean })[CERTIFICATION_REPORTER]) return;
  const dir = join(reportsDir(), 'evidence');
  let failed: string[] = [];
  try {
    failed = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).flatMap((f) => {
      const ev = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { id: string; runId?: string; testStatus?: string; verdict?: string };
      return ev.runId === process.env.SADAD_RUN_ID && ev.testStatus === 'failed' ? [`${ev.verdict} ${ev.id}`] : [];
    });
  } catch { /* no evidence: no case ran */ }
  if (failed.length) throw new Error(`${failed.length} case${failed.length === 1 ? '' : 's'} failed (${failed.slice(0, 5).join(', ')}${failed.length > 5 ? ', ...' : ''}): the run fails`);
}
