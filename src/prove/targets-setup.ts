/**
 * The global setup of a multi-target run: a mock and a pacing coordinator per target, in this
 * (the runner's) process; each target's variables reach the workers in SADAD_TARGETS_RUNTIME.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { configFromEnv } from '../config/index.js';
import { startCoordinator } from '../pacer/coordinator.js';
import { startEmbeddedMock } from '../run/embedded-mock.js';
import { limitsOf } from '../suite/runtime.js';
import { TARGETS_RUNTIME_ENV, targetsFromEnv } from '../suite/targets.js';

export default async function targetsSetup(): Promise<() => Promise<void>> {
  const started = Date.now();
  const targets = targetsFromEnv() ?? [];
  process.env.SADAD_RUN_ID ??= `${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
  const closers: (() => Promise<void>)[] = [];
  const published: Record<string, Record<string, string>> = {};
  for (const t of targets) {
    rmSync(join(t.reportsDir, 'evidence'), { recursive: true, force: true });
    const env = { ...process.env, ...t.env };
    const mock = await startEmbeddedMock(env, configFromEnv(env));
    closers.push(mock.close);
    const config = configFromEnv({ ...env, ...mock.env });
    const coordinator = await startCoordinator({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config), leaseMs: config.requestTimeoutMs + 10_000 });
    closers.push(coordinator.close);
    published[t.name] = { ...t.env, ...mock.env, SADAD_PACER_URL: coordinator.url, SADAD_REPORTS_DIR: t.reportsDir };
  }
  process.env[TARGETS_RUNTIME_ENV] = JSON.stringify(published);
  console.log(`${targets.length} targets started in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return async () => { for (const close of closers.reverse()) await close(); };
}
