/**
 * `npm run certify -- --rejudge <package dir>`: a new package whose verdicts are the current
 * suite's judgement of the recorded exchanges, built the one way every package is built
 * (reporter/package.ts), with a fingerprint that says it was re-judged, by which suite, from which
 * runs. Sends nothing; the package re-judged is only read.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildPackage, OUTAGES_FILE, PACKAGE_FILE, packageOptionsOf, readPackage, signingOf, writePackage } from '../reporter/package.js';
import type { ConfigError } from '../contract/prefix.js';
import type { Settings } from '../config/settings.js';
import { isFolder, PACING_FILE, PACKAGE_FILES } from '../reporter/files.js';
import { JournalError, readManifest, writeManifest, RUN_FILE } from '../reporter/journal.js';
import { writeEvidence } from '../evidence/store.js';
import { EVIDENCE_DIR, type EvidenceRecord } from '../evidence/record.js';
import { manifestCaseOf } from '../reporter/collect.js';
import type { CertificationReport } from '../reporter/model.js';
import { gitState, schemaHash, suiteVersion } from '../reporter/fingerprint.js';
import { PREFLIGHT_FILE } from '../preflight/model.js';
import { rejudgePackage, type Rejudgement } from './index.js';
import { readAllEvidence } from '../evidence/store.js';
import { testStatusOf } from '../evidence/outcome.js';

/** The annotations a verdict and its notes leave: rewritten with the re-judged verdict. */
const VERDICT_ANNOTATIONS = new Set(['verdict', 'fail', 'error', 'inconclusive', 'not_run', 'skipped', 'not_applicable', 'warn', 'observed', 'causes', 'observation', 'transient']);

/** The package files a re-judge writes into `out` (files.ts; anything else there is left alone, evidence/ is cleared apart). */
const TOP_FILES = PACKAGE_FILES.filter((f) => !isFolder(f)).map((f) => f.file);

export interface RejudgedPackage { report: CertificationReport; rejudgement: Rejudgement; out: string }

export async function writeRejudgedPackage(from: string, out: string, settings: Settings | ConfigError, now = new Date()): Promise<RejudgedPackage> {
  const src = resolve(from);
  const dest = resolve(out);
  if (src === dest) throw new JournalError(`--rejudge writes a new package and keeps the one it re-judges: ${from} is the folder it would write to; set SADAD_REPORTS_DIR (or --out <dir>) to another folder`);
  const manifest = readManifest(src);
  if (!manifest) throw new JournalError(`--rejudge: ${from} holds no package (no ${RUN_FILE}); give the folder that holds certification.json, run.json and evidence/`);
  const previous = readPackage(src);
  if (!previous) throw new JournalError(`--rejudge: ${from} holds no ${PACKAGE_FILE}`);
  const rejudgement = await rejudgePackage(src);
  const byId = new Map(rejudgement.cases.map((c) => [c.id, c]));

  mkdirSync(dest, { recursive: true });
  for (const f of TOP_FILES) rmSync(join(dest, f), { force: true });
  rmSync(join(dest, EVIDENCE_DIR), { recursive: true, force: true });
  mkdirSync(join(dest, EVIDENCE_DIR), { recursive: true });
  for (const f of [PACING_FILE, PREFLIGHT_FILE]) if (existsSync(join(src, f))) copyFileSync(join(src, f), join(dest, f));
  // the outages of every run the package merged (each keeps its run id), not only the last run's file
  writeFileSync(join(dest, OUTAGES_FILE), JSON.stringify({ runId: manifest.runId, outages: previous.observations.availability?.outages ?? [] }, null, 2));

  for (const ev of readAllEvidence(src)) {
    const r = byId.get(ev.id);
    if (!r) continue;
    const changed = r.rejudged !== r.recorded;
    const record: EvidenceRecord = {
      ...ev,
      verdict: r.rejudged,
      testStatus: testStatusOf(r.rejudged),
      notes: r.notes,
      observations: r.divergence ? ev.observations ?? {} : r.observations,
      ...((r.divergence ? ev.facts : r.facts) ? { facts: (r.divergence ? ev.facts : r.facts)! } : {}),
      transient: r.divergence ? ev.transient ?? [] : r.transient,
      accepted: r.divergence ? [] : r.accepted,
      ...(r.requires && !r.divergence ? { requires: r.requires } : {}),
      annotations: [...(ev.annotations ?? []).filter((a) => !VERDICT_ANNOTATIONS.has(a.type)), { type: 'verdict', description: r.rejudged }],
      ...(changed ? { rejudged: { recorded: r.recorded, ...(r.divergence ? { divergence: r.divergence } : {}) } } : {}),
    };
    if (!r.requires || r.divergence) delete record.requires;
    writeEvidence(dest, record);
  }

  const plannedById = new Map(manifest.cases.map((p) => [p.id, p]));
  const { name, version } = suiteVersion();
  writeManifest(dest, {
    ...manifest,
    // the verdicts are this suite's now: a --resume of the new package runs the cases that need a new run with it
    identity: { ...manifest.identity, suiteCommit: gitState().commit, schemaHash: `sha256:${schemaHash().hash}` },
    resume: null,
    // every case of the package, as its own run planned it (what a case shares per worker, when this run's manifest knows it)
    cases: previous.cases.map((c) => ({ ...manifestCaseOf(c), ...(plannedById.get(c.id) ?? {}) })),
    rejudged: {
      at: now.toISOString(), suite: { name, version, ...gitState() }, fromRuns: previous.runs.map((r) => r.runId),
      differing: rejudgement.differing.map((c) => c.id), runs: previous.runs,
    },
  });
  const written = readManifest(dest)!;
  const built = buildPackage(dest, written, now, packageOptionsOf(settings));
  writePackage(dest, built, signingOf(settings));
  return { report: built.report, rejudgement, out: dest };
}
