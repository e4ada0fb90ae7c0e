/**
 * The global setup of a multi-target run: a mock and a pacing coordinator per target, in this
 * (the runner's) process; each target's variables reach the workers in the run's published settings
 * (SADAD_TARGETS_RUNTIME in them).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { processSettings, publishSettings, readSettings } from '../config/settings.js';
import { newRunId } from '../reporter/journal.js';
import { startCoordinator } from '../pacer/coordinator.js';
import { startEmbeddedMock } from '../run/embedded-mock.js';
import { limitsOf } from '../suite/runtime.js';
import { TARGETS_RUNTIME_ENV, targetsOf } from '../suite/targets.js';

export default async function targetsSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const run = processSettings();
  const targets = targetsOf(run) ?? [];
  const runId = run.run.runId ?? newRunId();
  const closers: (() => Promise<void>)[] = [];
  const published: Record<string, Record<string, string>> = {};
  for (const t of targets) {
    rmSync(join(t.reportsDir, 'evidence'), { recursive: true, force: true });
    const env = { ...run.variables, ...t.env };
    const mock = await startEmbeddedMock(readSettings(env));
    closers.push(mock.close);
    const config = readSettings({ ...env, ...mock.env }).suite;
    const coordinator = await startCoordinator({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config), leaseMs: config.requestTimeoutMs + 10_000 });
    closers.push(coordinator.close);
    published[t.name] = { ...t.env, ...mock.env, SADAD_PACER_URL: coordinator.url, SADAD_REPORTS_DIR: t.reportsDir };
  }
  // the workers read the targets' variables from the run's published settings (suite/targets.ts, runtimeOf)
  publishSettings({ ...run.variables, SADAD_RUN_ID: runId, [TARGETS_RUNTIME_ENV]: JSON.stringify(published) });
  console.log(`${targets.length} targets started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return async () => { for (const close of closers.reverse()) await close(); };
}
