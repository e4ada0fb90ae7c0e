/**
 * The run journal: what a run leaves on disk as it goes, enough to rebuild its certification
 * package when the run never got to write it (killed, crashed, a laptop that slept):
 *   run.json               the manifest, written when the cases start: run id, identity, planned cases
 *   evidence/<id>.json     one per case that ended, written by the case itself (src/suite/case.ts) or,
 *                          for a case that ended without a verdict, by the reporter
 *   previous/              a resumed run's predecessor package, copied aside by `certify --resume`
 */
import type { SpecDocument } from '../contract/spec-model.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Verdict } from '../vocabulary/verdicts.js';
import { writeFileAtomic } from '../base/atomic.js';
import type { RunIdentity } from './identity.js';
import type { ExchangeRecord } from '../evidence/record.js';
import type { PlanContext } from '../vocabulary/plan.js';

export const RUN_FILE = 'run.json';
export const PREVIOUS_DIR = 'previous';
export const RUN_FORMAT = 'sadad-run';

/** A planned case and its static annotations (src/suite/case.ts `asTest`). */
export interface ManifestCase {
  id: string;
  title: string;
  file: string;
  operation: string;
  family: string;
  level: string;
  sections: string[];
  expectation: string;
  calls: Record<string, number>;
  /** Calls shared per worker with other cases, and what the case needs to send anything (reporter/plan.ts). */
  shared?: { key: string; calls: Record<string, number> }[];
  needs?: string[];
}

export interface RunManifest {
  format: typeof RUN_FORMAT;
  formatVersion: 1;
  runId: string;
  startedAt: string;
  identity: RunIdentity;
  suite: { name: string; version: string; commit: string | null; localChanges: boolean | null };
  schemaFiles: string[];
  /** `sha256:<hex>` of data/field-tables.json, the spec's field tables (fingerprint.ts); absent in manifests of earlier versions. */
  specHash?: string;
  /** The API document the spec was imported from (data/spec.json); absent in manifests of earlier versions. */
  specDocument?: SpecDocument;
  seed: string | null;
  /** The target as the run reached it (the embedded mock's address) and its profile. */
  target: { url: string | null; profile: string | null };
  baselineFile: string | null;
  playwright: string;
  node: string;
  /** What the plan of the run's calls assumed (reporter/plan.ts); absent in manifests of earlier versions. */
  planContext?: PlanContext;
  /** A resumed run: the package it continues (a folder under the reports folder) and the cases it reruns. */
  resume: { from: string; runIds: string[]; rerun: string[] } | null;
  cases: ManifestCase[];
  /**
   * A re-judge's manifest (src/replay): the package's cases re-judged from their evidence, whatever
   * run recorded each; `runs` are the runs the package merged, kept as they were.
   */
  rejudged?: import('./model.js').Rejudged & { runs: import('./model.js').RunSummary[] };
  /** Written by the reporter when the run ends; absent when the run was killed or crashed. */
  end?: { finishedAt: string; status: string; durationMs: number; errors: string[] };
}


/** `20261121T172404Z-3fa2c1`: sorts by start time, unique enough across machines. */
export function newRunId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`;
}

export class JournalError extends Error {}

export function readManifest(dir: string): RunManifest | null {
  const file = join(dir, RUN_FILE);
  if (!existsSync(file)) return null;
  let m: Partial<RunManifest>;
  try { m = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunManifest>; } catch (e) { throw new JournalError(`${file} is not readable JSON: ${(e as Error).message}`); }
  if (m.format !== RUN_FORMAT || m.formatVersion !== 1) throw new JournalError(`${file} is not a run manifest of this suite (format ${JSON.stringify(m.format)}, version ${JSON.stringify(m.formatVersion)})`);
  if (typeof m.runId !== 'string' || !Array.isArray(m.cases) || !m.identity) throw new JournalError(`${file} lacks runId, identity or cases`);
  return m as RunManifest;
}

export function writeManifest(dir: string, manifest: RunManifest): void {
  writeFileAtomic(join(dir, RUN_FILE), JSON.stringify(manifest, null, 2) + '\n');
}

