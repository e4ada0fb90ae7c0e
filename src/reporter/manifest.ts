/**
 * A run's manifest (journal.ts, run.json) as a run about to start describes itself. The reporter
 * writes it when the cases start; a run the preflight stops before that (its global setup) writes
 * the same, so that its package is built the one way every package is.
 */
import { currentSpec } from '../contract/spec-refs.js';
import { relative, resolve } from 'node:path';
import { maskText } from '../client/redact.js';
import type { Settings } from '../config/settings.js';
import { gitState, schemaHash, specHash, suiteVersion } from './fingerprint.js';
import type { RunIdentity } from './identity.js';
import type { PlanContext } from '../vocabulary/plan.js';
import { RUN_FORMAT, type ManifestCase, type RunManifest } from './journal.js';
import { readPackage } from './package.js';

export function newRunManifest(input: { runId: string; dir: string; identity: RunIdentity; playwright: string; cases: ManifestCase[]; settings: Settings | null; planContext?: PlanContext }): RunManifest {
  const s = input.settings;
  const { name, version } = suiteVersion();
  const from = s?.run.resumeFrom;
  let resume: RunManifest['resume'] = null;
  if (from) {
    let runIds: string[] = [];
    try { runIds = readPackage(from)?.runs.map((r) => r.runId) ?? []; } catch { /* reported when the package is built */ }
    resume = { from: relative(input.dir, resolve(from)).split('\\').join('/'), runIds, rerun: [...(s?.run.selection.runOnly ?? [])] };
  }
  return {
    format: RUN_FORMAT,
    formatVersion: 1,
    runId: input.runId,
    startedAt: new Date().toISOString(),
    identity: input.identity,
    suite: { name, version, ...gitState() },
    schemaFiles: schemaHash().files,
    specHash: specHash(),
    specDocument: currentSpec().facts.document,
    seed: s?.variables.SADAD_SEED || null,
    target: { url: s?.variables.SADAD_BASE_URL ? maskText(s.variables.SADAD_BASE_URL) : null, profile: s?.variables.SADAD_TARGET_PROFILE ? maskText(s.variables.SADAD_TARGET_PROFILE) : null },
    baselineFile: s?.variables.SADAD_BASELINE || null,
    playwright: input.playwright,
    node: process.version,
    ...(input.planContext ? { planContext: input.planContext } : {}),
    resume,
    cases: input.cases,
  };
}
