/**
 * `npm run certify -- --rejudge <package dir>`: a new package whose verdicts are the current
 * suite's judgement of the recorded exchanges, built the one way every package is built
 * (reporter/package.ts), with a fingerprint that says it was re-judged, by which suite, from which
 * runs. Sends nothing; the package re-judged is only read.
 */
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildPackage, OUTAGES_FILE, PACKAGE_FILE, packageOptionsOf, readPackage, signingOf, writePackage } from '../reporter/package.js';
import { ConfigError } from '../contract/prefix.js';
import { limitsOf } from '../reporter/identity.js';
import type { Settings } from '../config/settings.js';
import { isFolder, PACING_FILE, PACKAGE_FILES } from '../reporter/files.js';
import { JournalError, readManifest, writeManifest, RUN_FILE, type ManifestCase } from '../reporter/journal.js';
import { plannedCaseDefinitions, registrationWith } from '../suite/cases.js';
import { needsOf } from '../suite/case.js';
import { specRefsOf } from '../suite/spec-refs.js';
import { currentSpec, refText } from '../contract/spec-refs.js';
import { writeEvidence } from '../evidence/store.js';
import { EVIDENCE_DIR, type EvidenceRecord } from '../evidence/record.js';
import { manifestCaseOf } from '../reporter/collect.js';
import type { CertificationReport } from '../reporter/model.js';
import { gitState, schemaHash, specHash, suiteVersion } from '../reporter/fingerprint.js';
import { PREFLIGHT_FILE } from '../preflight/model.js';
import { rejudgePackage, type Rejudgement } from './index.js';
import { readAllEvidence } from '../evidence/store.js';
import { testStatusOf } from '../evidence/outcome.js';

/** The annotations a verdict and its notes leave: rewritten with the re-judged verdict. */
const VERDICT_ANNOTATIONS = new Set(['verdict', 'fail', 'error', 'inconclusive', 'not_run', 'skipped', 'not_applicable', 'warn', 'observed', 'causes', 'observation', 'transient']);

/** The package files a re-judge writes into `out` (files.ts; anything else there is left alone, evidence/ is cleared apart). */
const TOP_FILES = PACKAGE_FILES.filter((f) => !isFolder(f)).map((f) => f.file);

export interface RejudgedPackage { report: CertificationReport; rejudgement: Rejudgement; out: string }

/**
 * The cases the suite now has that the package lacks, because the API document it was recorded under
 * had nothing for them to test (a field, a header, an operation added since): written into `dest` as
 * NOT_RUN, "needs a new run", so that `--resume` runs them. Only for a package of a whole selection:
 * a narrowed run chose its cases.
 */
function casesTheSpecAdds(previous: CertificationReport, dest: string): ManifestCase[] {
  const sel = previous.fingerprint.selection;
  if (sel.cases || sel.skipCases || sel.args) return [];
  const have = new Set(previous.cases.map((c) => c.id));
  const planned = plannedCaseDefinitions(registrationWith(previous.fingerprint.profile === 'smoke' ? 'smoke' : 'full'), (id) => !have.has(id));
  return planned.map(({ def, file }) => {
    const why = `needs a new run: the spec added ${specRefsOf(def).tests.map(refText).join(', ') || 'what it tests'}`;
    writeEvidence(dest, {
      id: def.id, writtenBy: 'reporter', title: `${def.id} §${def.sections.join(' §')}`, file, verdict: 'NOT_RUN', testStatus: testStatusOf('NOT_RUN'),
      level: def.level, family: def.family, op: def.op, sections: def.sections, expectation: def.expectation, calls: def.calls ?? { [def.op]: 1 },
      notes: [{ verdict: 'NOT_RUN', text: why }], annotations: [{ type: 'verdict', description: 'NOT_RUN' }, { type: 'not_run', description: why }],
    });
    return {
      id: def.id, title: `${def.id} §${def.sections.join(' §')}`, file, operation: def.op, family: def.family, level: def.level, sections: def.sections,
      expectation: def.expectation, calls: def.calls ?? { [def.op]: 1 }, ...(def.shared?.length ? { shared: def.shared as ManifestCase['shared'] } : {}),
      ...(needsOf(def).length ? { needs: needsOf(def) } : {}),
    };
  });
}

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
    if (!r || r.removedBySpec) continue;
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

  const added = casesTheSpecAdds(previous, dest);
  const limitsChanged = rejudgement.cases.some((c) => c.specChanged?.some((r) => r.startsWith('limit:')));
  const removed = new Set(rejudgement.cases.filter((c) => c.removedBySpec).map((c) => c.id));
  const plannedById = new Map(manifest.cases.map((p) => [p.id, p]));
  const { name, version } = suiteVersion();
  writeManifest(dest, {
    ...manifest,
    // the verdicts are this suite's now: a --resume of the new package runs the cases that need a new run with it
    // and where the document's rate limits changed, so do the limits a --resume paces at (its rate-limit cases need a new run)
    identity: { ...manifest.identity, suiteCommit: gitState().commit, schemaHash: `sha256:${schemaHash().hash}`, ...(limitsChanged && !(settings instanceof ConfigError) ? { limits: limitsOf(settings) } : {}) },
    // judged by the document this suite is built from now (a newer one: the cases it touched need a new run)
    specHash: specHash(),
    specDocument: currentSpec().facts.document,
    resume: null,
    // every case of the package, as its own run planned it (what a case shares per worker, when this run's manifest knows it)
    cases: [...previous.cases.filter((c) => !removed.has(c.id)).map((c) => ({ ...manifestCaseOf(c), ...(plannedById.get(c.id) ?? {}) })), ...added],
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
