/**
 * A package's internal consistency (verify-package): what certification.json says against what the
 * rest of the package holds. Counts and the outcome against the cases; each case's verdict against
 * its evidence file and ctrf.json; every case run.json planned present; the runs merged against the
 * fingerprint, the identity and the cases' runs; and the signed predicate against the package.
 */
import { bucketOf, resultOf } from '../reporter/attestation.js';
import type { RunManifest } from '../reporter/journal.js';
import type { EvidenceRecord } from '../evidence/record.js';
import { countVerdicts, type CertificationReport } from '../reporter/model.js';
import { isNarrowed } from '../reporter/identity.js';
import { VERDICT_ORDER } from '../vocabulary/verdicts.js';

const FAILS = new Set(['FAIL', 'ERROR', 'INCONCLUSIVE']);
const list = (ids: string[], max = 5) => (ids.length > max ? `${ids.slice(0, max).join(', ')} and ${ids.length - max} more` : ids.join(', '));
const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export interface PackageParts {
  report: CertificationReport;
  manifest: RunManifest | null;
  /** Evidence files by their path in the package (`evidence/<id>.json`), parsed; null when unreadable. */
  evidence: Map<string, EvidenceRecord | null>;
  ctrf: { results?: { tests?: { name?: unknown; rawStatus?: unknown }[] } } | null;
  /** The verified (or, without a key, unverified) predicate, when there is an envelope. */
  predicate: Record<string, unknown> | null;
}

export function consistencyProblems(p: PackageParts): string[] {
  const { report: r } = p;
  const out: string[] = [];
  const ids = r.cases.map((c) => c.id);
  const dup = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (dup.length) out.push(`certification.json lists case ${list([...new Set(dup)])} twice`);

  // counts and the outcome
  const counts = countVerdicts(r.cases);
  if (r.counts.cases !== r.cases.length) out.push(`certification.json counts ${r.counts.cases} cases, but lists ${r.cases.length}`);
  const off = VERDICT_ORDER.filter((v) => (r.counts.byVerdict[v] ?? 0) !== counts[v]);
  if (off.length) out.push(`certification.json's counts by verdict differ from its cases: ${off.map((v) => `${v} ${r.counts.byVerdict[v] ?? 0} counted, ${counts[v]} listed`).join('; ')}`);
  for (const [op, c] of Object.entries(r.counts.byOperation)) {
    const mine = r.cases.filter((x) => x.operation === op);
    const actual = countVerdicts(mine);
    if (c.total !== mine.length || VERDICT_ORDER.some((v) => (c[v] ?? 0) !== actual[v])) out.push(`certification.json's counts for ${op} differ from its cases`);
  }
  const unexpected = r.cases.filter((c) => FAILS.has(c.verdict) && c.waiver?.status !== 'used').map((c) => c.id);
  if (!sameSet(unexpected, r.outcome.unexpected)) out.push(`certification.json's outcome lists ${r.outcome.unexpected.length} failing cases, its cases have ${unexpected.length} (${list(unexpected.filter((id) => !r.outcome.unexpected.includes(id)).concat(r.outcome.unexpected.filter((id) => !unexpected.includes(id))))})`);
  const notRun = r.cases.filter((c) => c.verdict === 'NOT_RUN').map((c) => c.id);
  if (!sameSet(notRun, r.outcome.notRun)) out.push(`certification.json's outcome lists ${r.outcome.notRun.length} NOT_RUN cases, its cases have ${notRun.length}`);
  const couldCertify = r.cases.length > 0 && !unexpected.length && !notRun.length && !isNarrowed(r.identity.selection) && r.identity.profile !== 'smoke' && !r.runErrors.length;
  if (r.outcome.certifies && !couldCertify) out.push('certification.json says the package certifies, but its cases, selection, profile or run errors say it cannot');

  // each case against its evidence
  const evidenceById = new Map<string, EvidenceRecord>();
  for (const [path, ev] of p.evidence) {
    const id = path.replace(/^evidence\//, '').replace(/\.json$/, '');
    if (!ev) { out.push(`${path} is not a readable evidence file`); continue; }
    if (ev.id !== id) out.push(`${path} holds the evidence of ${JSON.stringify(ev.id)}`);
    evidenceById.set(id, ev);
    if (!ids.includes(id)) out.push(`${path} is the evidence of no case of certification.json`);
  }
  for (const c of r.cases) {
    if (!c.evidenceFile) continue;
    const ev = evidenceById.get(c.id);
    if (!ev) { out.push(`case ${c.id}: its evidence file ${c.evidenceFile} is not in the package`); continue; }
    if (ev.verdict !== c.verdict) out.push(`case ${c.id}: certification.json says ${c.verdict}, its evidence ${c.evidenceFile} says ${ev.verdict}`);
  }

  // ctrf.json
  if (p.ctrf) {
    const tests = p.ctrf.results?.tests ?? [];
    const byName = new Map(tests.map((t) => [String(t.name), t]));
    if (tests.length !== r.cases.length) out.push(`ctrf.json has ${tests.length} tests, certification.json ${r.cases.length} cases`);
    for (const c of r.cases) {
      const t = byName.get(c.id);
      if (!t) out.push(`case ${c.id} is not in ctrf.json`);
      else if (t.rawStatus !== c.verdict) out.push(`case ${c.id}: certification.json says ${c.verdict}, ctrf.json says ${String(t.rawStatus)}`);
    }
  }

  // what the run planned, and the runs merged
  const last = r.runs.at(-1);
  if (!last) out.push('certification.json names no run');
  if (p.manifest) {
    const missing = p.manifest.cases.map((c) => c.id).filter((id) => !ids.includes(id));
    if (missing.length) out.push(`case ${list(missing)} planned in run.json ${missing.length === 1 ? 'is' : 'are'} not in certification.json`);
    if (last && p.manifest.runId !== last.runId) out.push(`run.json is run ${p.manifest.runId}, certification.json's last run is ${last.runId}`);
    if (!same(p.manifest.identity, r.identity)) out.push('run.json and certification.json name different identities (suite commit, schema hash, target, profile, limits or selection)');
    if (p.manifest.specHash && r.fingerprint.specHash && p.manifest.specHash !== r.fingerprint.specHash) out.push('run.json and certification.json name different spec hashes');
  } else out.push('run.json is missing: the cases the run planned cannot be checked');
  const runIds = r.runs.map((x) => x.runId);
  if (new Set(runIds).size !== runIds.length) out.push('certification.json names a run twice');
  if (r.runs.some((x, i) => i > 0 && x.startedAt < r.runs[i - 1]!.startedAt)) out.push('certification.json\'s runs are not oldest first');
  if (r.runs.length && r.fingerprint.startedAt !== r.runs[0]!.startedAt) out.push(`the fingerprint's start (${r.fingerprint.startedAt}) is not the first run's (${r.runs[0]!.startedAt})`);
  if (last && r.fingerprint.finishedAt !== last.finishedAt) out.push(`the fingerprint's end (${r.fingerprint.finishedAt}) is not the last run's (${last.finishedAt})`);
  if (r.fingerprint.schemaHash !== r.identity.schemaHash) out.push('the fingerprint\'s schema hash is not the identity\'s');
  if (r.fingerprint.profile !== r.identity.profile) out.push('the fingerprint\'s profile is not the identity\'s');
  const strangers = r.cases.filter((c) => !runIds.includes(c.runId) || c.attempts.some((a) => !runIds.includes(a.runId))).map((c) => c.id);
  if (strangers.length) out.push(`case ${list(strangers)} name${strangers.length === 1 ? 's' : ''} a run the package does not merge`);
  for (const run of r.runs) {
    const mine = r.cases.filter((c) => c.attempts.some((a) => a.runId === run.runId));
    if (mine.length > run.cases) out.push(`run ${run.runId} planned ${run.cases} cases, but ${mine.length} cases name it`);
  }

  // the signed statement against the package
  if (p.predicate) {
    const pr = p.predicate;
    const expect = resultOf(r);
    if (pr.result !== expect) out.push(`certification.intoto.json's result is ${String(pr.result)}, the package's outcome makes it ${expect}`);
    const bucket = (b: string) => r.cases.filter((c) => bucketOf(c) === b).map((c) => c.id);
    for (const [field, b] of [['passedTests', 'passed'], ['warnedTests', 'warned'], ['failedTests', 'failed']] as const) {
      const listed = Array.isArray(pr[field]) ? (pr[field] as unknown[]).map(String) : [];
      if (!sameSet(listed, bucket(b))) out.push(`certification.intoto.json's ${field} differ from the package's verdicts`);
    }
    const conf = Array.isArray(pr.configuration) ? (pr.configuration as { name?: string; digest?: Record<string, string> }[]) : [];
    const schemas = conf.find((c) => c.name === 'schemas')?.digest?.sha256;
    if (schemas !== r.fingerprint.schemaHash.replace(/^sha256:/, '')) out.push('certification.intoto.json names another schema hash than certification.json');
    const runs = conf.filter((c) => c.name?.startsWith('run ')).map((c) => c.name!.slice(4));
    if (!sameSet(runs, runIds)) out.push('certification.intoto.json names other runs than certification.json');
  }
  return out;
}
