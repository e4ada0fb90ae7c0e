/**
 * The certification package (design.md §4a) built from the run journal (journal.ts): the manifest,
 * the evidence files, and, for a resumed run, the package it continues. The reporter builds it this
 * way when a run ends, and `npm run certify -- --report` the same way when the run never got to:
 * one path, so a rebuilt package says what the reporter would have said.
 */
import { currentSpec } from '../contract/spec-refs.js';
import { specCoverage } from './spec-coverage.js';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { ConfigError, packageKeyOf, packageValidDaysOf } from '../config/index.js';
import type { Settings } from '../config/settings.js';
import { operations } from '../contract/catalogue.js';
import { maskText, registerSecret } from '../client/redact.js';
import { readBaseline, type Waiver } from '../vocabulary/baseline.js';
import { TEMP_SUFFIX, writeFileAtomic } from '../base/atomic.js';
import { writeChecksums } from './checksum.js';
import { removeAttestation, writeAttestation, writeZip } from './attestation.js';
import { groupCauses } from './causes.js';
import { compareReports, loadComparison } from './compare.js';
import { caseFromEvidence, caseNotRun, howItEnded, manifestCaseOf, maskExchange } from './collect.js';
import { OUTAGES_FILE, PACING_FILE, PACKAGE_FILE, PACKAGE_FILES, type PackageContent } from './files.js';
import { isNarrowed, type RunIdentity } from './identity.js';
import { JournalError, readManifest, type ManifestCase, type RunManifest } from './journal.js';
import { readEvidence, writeEvidence } from '../evidence/store.js';
import { EVIDENCE_DIR } from '../evidence/record.js';
import { changedVerdicts, mergeCases, mergeRuns, totalCalls } from './merge.js';
import { aggregateObservations, buildCounts, buildMatrix, classifyWaivers, decideOutcome, errorBodyShapes, familyIds, operationIds, planSummary, SPEC_SECTIONS, FORMAT, FORMAT_VERSION, type CaseReport, type CertificationReport, type Fingerprint, type RunSummary } from './model.js';
import { type ExchangeRecord } from '../evidence/record.js';
import { planOf } from './plan.js';
import { applyAcceptanceCondition, VACUOUS_CAUSE } from './conditions.js';
import { pacingSummary, parseOutages, spanText, type Availability } from './availability.js';
import { PREFLIGHT_FILE, PREFLIGHT_FORMAT, type PreflightReport } from '../preflight/model.js';

export { OUTAGES_FILE, PACKAGE_FILE };

/** The outages this run met (outages.json, written by the pacing coordinator as they happen). */
export function readOutages(dir: string, runId: string): Availability['outages'] {
  try {
    const o = JSON.parse(readFileSync(join(dir, OUTAGES_FILE), 'utf8')) as { runId?: unknown; outages?: unknown };
    return o.runId === runId ? parseOutages(o.outages, runId) : [];
  } catch {
    return [];
  }
}

/** The preflight this run wrote (preflight.json), or null: a file of another run is not this run's. */
export function readPreflight(dir: string, runId: string): PreflightReport | null {
  try {
    const p = JSON.parse(readFileSync(join(dir, PREFLIGHT_FILE), 'utf8')) as PreflightReport;
    return p?.format === PREFLIGHT_FORMAT && p.runId === runId ? p : null;
  } catch {
    return null;
  }
}

/** The masking registry is per process: the runner and the certify command learn the run's secrets here (config's `configuredSecrets`). */
export function registerSecrets(secrets: readonly string[]): void {
  for (const s of secrets) registerSecret(s);
}

/** A package on disk, or null when there is none; an unreadable one, or one of another format, is an error naming the file. */
export function readPackage(dir: string): CertificationReport | null {
  const file = join(dir, PACKAGE_FILE);
  if (!existsSync(file)) return null;
  let p: Partial<CertificationReport>;
  try { p = JSON.parse(readFileSync(file, 'utf8')) as Partial<CertificationReport>; } catch (e) { throw new JournalError(`${file} is not readable JSON: ${(e as Error).message}`); }
  if (p.format !== FORMAT) throw new JournalError(`${file} is not a certification package (format ${JSON.stringify(p.format)})`);
  if (p.formatVersion !== FORMAT_VERSION) throw new JournalError(`${file} has format version ${p.formatVersion}, this suite reads ${FORMAT_VERSION}: run \`npm run certify\` afresh`);
  return p as CertificationReport;
}

export const lastRunId = (p: CertificationReport | null) => p?.runs.at(-1)?.runId;

/** The package's report and the exchanges its files are rendered from (files.ts), and the evidence it carries over. */
export interface BuiltPackage extends PackageContent {
  /** Evidence of cases whose record comes from an earlier run: copied from `from` into this package (null: the case has none). */
  carried: { id: string; from: string | null }[];
}

/** The limits the run paced at, as the dry run's plan wants them. */
function planLimits(identity: RunIdentity) {
  if (!identity.limits) return null;
  const l = identity.limits;
  return { windowSeconds: l.windowSeconds, perOperation: Object.fromEntries(operations.map((op) => [op.id, op.rateGroup === 'bill' ? l.bill : l.moi])), source: 'the run' };
}

/** This run's pacing.json (the coordinator's budgets and the over-limit answers), when this run wrote it. */
function runPacing(dir: string, manifest: RunManifest): unknown {
  const file = join(dir, PACING_FILE);
  try {
    if (existsSync(file) && statSync(file).mtimeMs >= Date.parse(manifest.startedAt)) return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch { /* no pacing figures: the package says nothing of them */ }
  return undefined;
}

/** Calls per operation of this run: the pacer's count (pacing.json, when this run wrote it), else the exchanges in its evidence. */
function runCalls(dir: string, manifest: RunManifest, evidenceExchanges: ExchangeRecord[][]): Pick<RunSummary, 'calls' | 'callsFrom'> {
  const file = join(dir, PACING_FILE);
  try {
    if (existsSync(file) && statSync(file).mtimeMs >= Date.parse(manifest.startedAt)) {
      const p = JSON.parse(readFileSync(file, 'utf8')) as { operations?: Record<string, { calls?: unknown }> };
      const calls: Record<string, number> = {};
      for (const [op, s] of Object.entries(p.operations ?? {})) if (typeof s?.calls === 'number') calls[op] = s.calls;
      return { calls, callsFrom: 'pacer' };
    }
  } catch { /* counted from the evidence below */ }
  const calls: Record<string, number> = {};
  for (const list of evidenceExchanges) for (const ex of list) if (ex.op) calls[ex.op] = (calls[ex.op] ?? 0) + 1;
  return { calls, callsFrom: 'evidence' };
}

/** Builds the package of the run `manifest` describes, merged into the package it resumes, if any. Reads only. */
/** What a package is built with besides its run's evidence: the previous package it is compared with (SADAD_COMPARE). */
export interface PackageOptions { compareFile?: string | undefined }

export function buildPackage(dir: string, manifest: RunManifest, now = new Date(), options: PackageOptions = {}): BuiltPackage {
  const runId = manifest.runId;
  const errors: string[] = [...(manifest.end?.errors ?? [])];
  const { previous, previousDir } = resumedPackage(dir, manifest, errors);
  // a case of this run has its evidence here; a case carried from the package resumed, in that package
  const evidenceDirOf = (c: CaseReport) => (c.runId === runId || !previousDir ? dir : previousDir);

  // this run's cases: its evidence, else not run
  const planned: ManifestCase[] = manifest.cases.length || !previous || !manifest.resume
    ? manifest.cases
    : previous.cases.filter((c) => manifest.resume!.rerun.includes(c.id)).map(manifestCaseOf);
  const outages = [...parseOutages(previous?.observations.availability?.outages, previous?.runs.at(-1)?.runId ?? ''), ...readOutages(dir, runId)];
  const gaveUp = outages.find((o) => o.runId === runId && o.gaveUp);
  const { current, evidenceExchanges, finishedAt } = thisRunCases(dir, manifest, planned, gaveUp, now);

  const { cases: merged, carried } = carryOver(previous ? mergeCases(previous.cases, current) : current, runId, previousDir);
  // no vacuous PASS: over the whole package, a rejection passed for an operation the target never accepted is INCONCLUSIVE
  // (a resumed run that had no preflight of its own keeps the one of the run it continues)
  const connection = readPreflight(dir, runId) ?? previous?.connection ?? null;
  const { cases, waiverReports } = withWaivers(sortCases(applyAcceptanceCondition(merged, connection, evidenceDirOf)), manifest.baselineFile, errors);

  const thisRun: RunSummary = {
    runId, startedAt: manifest.startedAt, finishedAt, status: manifest.end?.status ?? 'killed', cases: planned.length,
    finished: current.filter((c) => c.verdict !== 'NOT_RUN').length, seed: manifest.seed, ...runCalls(dir, manifest, evidenceExchanges),
  };
  const runs = manifest.rejudged ? manifest.rejudged.runs : mergeRuns(previous?.runs ?? [], thisRun);

  // the exchanges of every case, for the error body shapes: this run's evidence, the earlier runs' in the package resumed
  const evidence = cases.map((c) => {
    if (c.exchanges) return { case: c.id, exchanges: c.exchanges };
    const ev = readEvidence(evidenceDirOf(c), c.id);
    return { case: c.id, exchanges: (ev?.exchanges ?? []).map(maskExchange) };
  });

  const identity = manifest.identity;
  const preflightBlocked = thisRun.status === 'preflight' && connection ? connection.findings.filter((f) => f.severity === 'blocking').map((f) => f.text) : [];
  const outcome = decideOutcome({ cases, selectionNarrowed: isNarrowed(identity.selection), profile: identity.profile, ended: endedText(cases, gaveUp, thisRun.status, manifest.end?.status), runErrors: errors, preflightBlocked });
  const pacing = previous?.observations.availability?.pacing;
  const report: CertificationReport = {
    format: FORMAT,
    formatVersion: FORMAT_VERSION,
    outcome,
    identity,
    runs,
    changed: changedVerdicts(cases),
    causes: groupCauses(cases),
    changes: null,
    connection,
    fingerprint: fingerprintOf(manifest, runs, thisRun.status),
    plan: planSummary(packagePlan(cases, manifest)),
    counts: buildCounts(cases),
    matrix: buildMatrix(cases),
    observations: aggregateObservations(cases, errorBodyShapes(evidence), totalCalls(runs), outages,
      pacingSummary([pacing ? { operations: pacing.byOperation, overLimit: pacing.overLimit } : undefined, runPacing(dir, manifest)])),
    waivers: {
      file: manifest.baselineFile,
      used: waiverReports.filter((w) => w.status === 'used').map((w) => ({ ...w, comment: maskText(w.comment) })),
      notNeeded: waiverReports.filter((w) => w.status === 'not-needed').map((w) => ({ ...w, comment: maskText(w.comment) })),
    },
    specSections: Object.fromEntries(Object.entries(SPEC_SECTIONS).filter(([s]) => cases.some((c) => c.sections.includes(s)))),
    // what the cases' evidence says each tests, over the document this suite is built from (a re-judge's: the newer one)
    specCoverage: specCoverage(cases.map((c) => ({ id: c.id, verdict: c.verdict, tests: readEvidence(evidenceDirOf(c), c.id)?.spec?.tests })), currentSpec()),
    runErrors: errors,
    cases,
  };
  const comparison = loadComparison(options.compareFile);
  if (comparison) report.changes = compareReports(comparison.report, report, comparison.file);
  return { report, carried, exchanges: evidence };
}

/** The package a resumed run continues (its folder, and the package, null when it is missing or unreadable: an error says so). */
function resumedPackage(dir: string, manifest: RunManifest, errors: string[]): { previous: CertificationReport | null; previousDir: string | null } {
  if (!manifest.resume) return { previous: null, previousDir: null };
  const previousDir = join(dir, manifest.resume.from);
  let previous: CertificationReport | null = null;
  try { previous = readPackage(previousDir); } catch (e) { errors.push(maskText((e as Error).message)); }
  if (!previous) errors.push(`the package this run resumes (${manifest.resume.from}/${PACKAGE_FILE}) is missing: this package holds only the cases of run ${manifest.runId}`);
  return { previous, previousDir };
}

/** This run's planned cases, each from its evidence, else NOT_RUN saying why; and when the run finished (its end, else its last case's). */
function thisRunCases(dir: string, manifest: RunManifest, planned: ManifestCase[], gaveUp: { start: string } | undefined, now: Date) {
  const { runId, end: ended } = manifest;
  const evidenceExchanges: ExchangeRecord[][] = [];
  let lastFinish = manifest.startedAt;
  const current: CaseReport[] = planned.map((p) => {
    const ev = readEvidence(dir, p.id);
    // a re-judged package holds the evidence of every run it merged, each case its own run's
    if (ev && (ev.runId === undefined || ev.runId === runId || manifest.rejudged)) {
      const at = ev.finishedAt ?? ended?.finishedAt ?? now.toISOString();
      if (at > lastFinish) lastFinish = at;
      evidenceExchanges.push((ev.exchanges ?? []).map(maskExchange));
      return caseFromEvidence(p, ev, manifest.rejudged ? ev.runId ?? runId : runId, at);
    }
    const reason = ended
      ? `did not run: ${gaveUp ? `the target went down at ${gaveUp.start} and stayed down past SADAD_MAX_OUTAGE_SECONDS, so the run stopped` : howItEnded(ended.status)} before this case started`
      : 'no result reached disk: the run was killed, or crashed, before this case finished';
    return caseNotRun(p, runId, ended?.finishedAt ?? '', reason);
  });
  const finishedAt = ended?.finishedAt ?? lastFinish;
  for (const c of current) for (const a of c.attempts) if (!a.at) a.at = finishedAt;
  return { current, evidenceExchanges, finishedAt };
}

/** The cases of earlier runs: their evidence copied from the package resumed (`carried`), when it has any. */
function carryOver(merged: CaseReport[], runId: string, previousDir: string | null): { cases: CaseReport[]; carried: BuiltPackage['carried'] } {
  const carried: BuiltPackage['carried'] = [];
  const cases = merged.map((c) => {
    if (c.runId === runId || !previousDir) return c;
    const from = join(previousDir, EVIDENCE_DIR, `${c.id}.json`);
    const has = /^[\w.\-[\]]+$/.test(c.id) && existsSync(from);
    carried.push({ id: c.id, from: has ? from : null });
    return { ...c, evidenceFile: has ? `evidence/${c.id}.json` : null };
  });
  return { cases, carried };
}

/** By operation, then family, then id. */
function sortCases(cases: CaseReport[]): CaseReport[] {
  const ops = operationIds(cases);
  const fams = familyIds(cases);
  return cases.sort((a, b) => ops.indexOf(a.operation) - ops.indexOf(b.operation) || fams.indexOf(a.family) - fams.indexOf(b.family) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The baseline as the run named it, applied to the merged verdicts (a baseline it cannot read is a run error). */
function withWaivers(cases: CaseReport[], baselineFile: string | null, errors: string[]) {
  let waivers: Waiver[] = [];
  try { waivers = baselineFile ? readBaseline(baselineFile) : []; } catch (e) { errors.push(maskText((e as Error).message)); }
  const waiverReports = classifyWaivers(waivers, cases);
  return {
    waiverReports,
    cases: cases.map((c) => {
      const w = waiverReports.find((x) => x.case === c.id);
      return { ...c, waiver: w ? { verdict: w.expected, comment: maskText(w.comment), status: w.status } : null };
    }),
  };
}

/** Why cases are NOT_RUN, for the outcome; null when none is. */
function endedText(cases: CaseReport[], gaveUp: { start: string; durationMs: number } | undefined, status: string, endStatus: string | undefined): string | null {
  if (!cases.some((c) => c.verdict === 'NOT_RUN')) return null;
  if (gaveUp) return `the target went down at ${gaveUp.start} and was still down ${spanText(gaveUp.durationMs)} later (SADAD_MAX_OUTAGE_SECONDS), so the run stopped; once it is back, \`npm run certify -- --resume\` continues where it stopped`;
  return ['interrupted', 'timedout', 'killed', 'preflight'].includes(status) ? howItEnded(endStatus) : 'they did not finish (a worker process died, or the test runner skipped them)';
}

/** The dry run's plan of the package's cases at the run's limits; null when the run paced at none. */
function packagePlan(cases: CaseReport[], manifest: RunManifest) {
  const limits = planLimits(manifest.identity);
  if (!limits) return null;
  // what the cases share per worker and need is in the manifest: a case merged from an earlier package plans its own calls only
  const plannedById = new Map(manifest.cases.map((p) => [p.id, p]));
  return planOf(cases.map((c) => ({
    id: c.id, operation: c.operation, family: c.family, level: c.level, calls: c.calls, shared: plannedById.get(c.id)?.shared, needs: plannedById.get(c.id)?.needs,
  })), limits, manifest.planContext);
}

/** What the package judged, with what, and when: the runs' wall time is the sum of each run's. */
function fingerprintOf(manifest: RunManifest, runs: RunSummary[], status: RunSummary['status']): Fingerprint {
  const identity = manifest.identity;
  const durationMs = runs.reduce((sum, r) => sum + Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.startedAt) || 0), 0);
  return {
    suite: manifest.suite,
    schemaHash: identity.schemaHash,
    schemaFiles: manifest.schemaFiles,
    specHash: manifest.specHash ?? null,
    specDocument: manifest.specDocument ?? null,
    seed: manifest.seed,
    target: manifest.target,
    limits: identity.limits,
    selection: identity.selection,
    profile: identity.profile,
    baselineFile: manifest.baselineFile,
    startedAt: runs[0]!.startedAt,
    finishedAt: runs.at(-1)!.finishedAt,
    durationMs,
    playwright: { version: manifest.playwright, status },
    node: manifest.node,
    ...(manifest.rejudged ? { rejudged: { at: manifest.rejudged.at, suite: manifest.rejudged.suite, fromRuns: manifest.rejudged.fromRuns, differing: manifest.rejudged.differing } } : {}),
  };
}

/** The package options a run's settings give (none on a configuration error: the run reports that). */
export function packageOptionsOf(settings: Settings | ConfigError): PackageOptions {
  return settings instanceof ConfigError ? {} : { compareFile: settings.run.compareFile };
}

/** What signs a package: SADAD_PACKAGE_KEY's key, and SADAD_PACKAGE_VALID_DAYS. */
export interface PackageSigning { key: KeyObject; validDays: number }

/**
 * The package's signing key from the settings, or null (unset). The run checked it before its
 * first call (config/index.ts); a key that has gone bad since leaves the package unsigned, and says so.
 */
export function signingOf(settings: Settings | ConfigError): PackageSigning | null {
  if (settings instanceof ConfigError) return null;
  try {
    const k = packageKeyOf(settings.variables);
    return k ? { key: k.key, validDays: packageValidDaysOf(settings.variables) } : null;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`\nThe package is not signed: ${e.message}\n`);
    return null;
  }
}

/**
 * Writes the package: the earlier runs' evidence of the cases carried over, then each file
 * PACKAGE_FILES (files.ts) renders, atomically, in its order, then the checksums, last of the files
 * they cover, so a package whose checksums verify is whole. Then what covers the checksummed files:
 * the signed statement (certification.intoto.json, with a signing key; attestation.ts), and the zip
 * of it all (certification.zip).
 */
export function writePackage(dir: string, built: BuiltPackage, signing: PackageSigning | null): void {
  writeCarried(dir, built.carried);
  // a PASS the whole run showed vacuous (conditions.ts): its evidence file says what the package says
  for (const c of built.report.cases) {
    if (c.verdict !== 'INCONCLUSIVE' || !c.requires || !c.evidenceFile) continue;
    const ev = readEvidence(dir, c.id);
    if (!ev || ev.verdict === 'INCONCLUSIVE') continue;
    const added = c.notes.find((n) => n.cause === VACUOUS_CAUSE(c.requires!.acceptance));
    if (!added) continue;
    writeEvidence(dir, { ...ev, verdict: 'INCONCLUSIVE', testStatus: 'failed', notes: [...(ev.notes ?? []), added] });
  }
  for (const f of PACKAGE_FILES) if (f.render) writeFileAtomic(join(dir, f.file), f.render(built));
  writeChecksums(dir);
  if (signing) writeAttestation(dir, built.report, signing.key, signing.validDays);
  else removeAttestation(dir);
  writeZip(dir);
}

/** The evidence of cases carried from an earlier run, copied in whole (under a temporary name, then renamed); a case without any has none here either. */
function writeCarried(dir: string, carried: BuiltPackage['carried']): void {
  for (const { id, from } of carried) {
    const to = join(dir, EVIDENCE_DIR, `${id}.json`);
    if (from) {
      const temp = join(dir, EVIDENCE_DIR, `.${id}.json.${process.pid}.carried${TEMP_SUFFIX}`);
      mkdirSync(join(dir, EVIDENCE_DIR), { recursive: true });
      copyFileSync(from, temp);
      renameSync(temp, to);
    } else rmSync(to, { force: true });
  }
}

/** `npm run certify -- --report`: the package of the last run, rebuilt from its manifest and evidence alone. Sends nothing. */
export function rebuildPackage(dir: string, settings: Settings | ConfigError): CertificationReport {
  const manifest = readManifest(dir);
  if (!manifest) throw new JournalError(`no run to report on in ${dir}: it holds no run.json (a run writes it when its cases start)`);
  const built = buildPackage(dir, manifest, new Date(), packageOptionsOf(settings));
  writePackage(dir, built, signingOf(settings));
  return built.report;
}

/**
 * The package of the last run in `dir`: certification.json when it was written for the run that
 * run.json describes, else rebuilt (and written) from the journal. Null when `dir` holds no run.
 */
export function currentPackage(dir: string, settings: Settings | ConfigError): { report: CertificationReport; rebuilt: boolean } | null {
  const manifest = readManifest(dir);
  let existing: CertificationReport | null = null;
  try { existing = readPackage(dir); } catch (e) { if (!manifest) throw e; }
  if (!manifest) return existing ? { report: existing, rebuilt: false } : null;
  if (existing && lastRunId(existing) === manifest.runId) return { report: existing, rebuilt: false };
  return { report: rebuildPackage(dir, settings), rebuilt: true };
}
