/**
 * The signed package (design.md §11): `certification.intoto.json`, a DSSE envelope of an in-toto
 * Statement v1 whose subjects are the files of `certification.sha256` and whose predicate is the
 * Test Result predicate v0.1 of the run; and `certification.zip`, the whole package in one
 * deterministic archive. The format-neutral parts (DSSE, the Statement, zip, keys) are in src/attest.
 *
 * The predicate:
 *
 * - `result`: FAILED when the package does not certify; WARNED when it certifies with WARN cases or
 *   deviations a baseline accepts; PASSED otherwise.
 * - `passedTests` (PASS, OBSERVED), `warnedTests` (WARN, and any verdict a waiver accepted),
 *   `failedTests` (FAIL, ERROR, INCONCLUSIVE not waived, and NOT_RUN): case ids.
 * - `configuration`, ResourceDescriptors: `suite` (uri `pkg:npm/<name>@<version>`, digest
 *   `gitCommit`), `schemas` (digest sha256: the schema hash), `spec` (digest sha256 of
 *   data/field-tables.json), `target` (uri: the URL the run reached), `profile`, `limits`, and one
 *   `run <runId>` per run merged. The values are in `annotations`, readable; a descriptor of a
 *   value with no address of its own (profile, limits, a run) carries the same JSON as `content`.
 * - extension fields (the framework allows them): `validUntil` (the run's end plus
 *   SADAD_PACKAGE_VALID_DAYS, default 90 days), `skippedTests` (SKIPPED, NOT_APPLICABLE), `summary`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { signEnvelope } from '../attest/dsse.js';
import {
  INTOTO_PAYLOAD_TYPE, statementOf, TEST_RESULT_PREDICATE, valueDescriptor,
  type ResourceDescriptor, type Statement, type TestResult, type TestResultPredicate,
} from '../attest/statement.js';
import { zipEntries } from '../attest/zip.js';
import { maskText } from '../client/redact.js';
import { writeFileAtomic } from '../base/atomic.js';
import { CHECKSUM_FILE, parseChecksums } from './checksum.js';
import { ENVELOPE_FILE, ZIP_FILE } from './files.js';
import type { CaseReport, CertificationReport } from './model.js';

export { ENVELOPE_FILE, ZIP_FILE };

const DAY_MS = 86_400_000;

/** When a package stops being valid: `days` after its (last) run ended. */
export function validUntilOf(report: Pick<CertificationReport, 'fingerprint'>, days: number): string {
  const end = Date.parse(report.fingerprint.finishedAt);
  return new Date((Number.isFinite(end) ? end : Date.now()) + days * DAY_MS).toISOString();
}

type Bucket = 'passed' | 'warned' | 'failed' | 'skipped';
export function bucketOf(c: Pick<CaseReport, 'verdict' | 'waiver'>): Bucket {
  switch (c.verdict) {
    case 'PASS': case 'OBSERVED': return 'passed';
    case 'WARN': return 'warned';
    case 'SKIPPED': case 'NOT_APPLICABLE': return 'skipped';
    case 'NOT_RUN': return 'failed';
    default: return c.waiver?.status === 'used' ? 'warned' : 'failed';
  }
}

export function resultOf(report: Pick<CertificationReport, 'outcome' | 'cases'>): TestResult {
  if (!report.outcome.certifies) return 'FAILED';
  return report.cases.some((c) => bucketOf(c) === 'warned') ? 'WARNED' : 'PASSED';
}

/** The Test Result predicate of a package (see the module comment). */
export function testResultPredicate(report: CertificationReport, validDays: number): TestResultPredicate {
  const f = report.fingerprint;
  const ids = (b: Bucket) => report.cases.filter((c) => bucketOf(c) === b).map((c) => c.id);
  const configuration: ResourceDescriptor[] = [
    {
      name: 'suite', uri: `pkg:npm/${f.suite.name}@${f.suite.version}`, ...(f.suite.commit ? { digest: { gitCommit: f.suite.commit } } : {}),
      annotations: { name: f.suite.name, version: f.suite.version, commit: f.suite.commit, localChanges: f.suite.localChanges },
    },
    {
      name: 'schemas', digest: { sha256: f.schemaHash.replace(/^sha256:/, '') },
      annotations: { schemaHash: f.schemaHash, files: f.schemaFiles, recompute: 'cd schemas && cat $(LC_ALL=C ls *.json) | sha256sum' },
    },
    ...(f.specHash ? [{
      name: 'spec', digest: { sha256: f.specHash.replace(/^sha256:/, '') },
      annotations: { specHash: f.specHash, file: 'data/field-tables.json', source: 'the API document\'s field tables (§2.1-§2.8)', recompute: 'sha256sum data/field-tables.json' },
    }] : []),
    f.target.url
      ? { name: 'target', uri: f.target.url, annotations: { url: f.target.url, configured: report.identity.target, profile: f.target.profile } }
      : valueDescriptor('target', { url: null, configured: report.identity.target, profile: f.target.profile }),
    valueDescriptor('profile', { profile: report.identity.profile, selection: report.identity.selection }),
    valueDescriptor('limits', report.identity.limits ? { ...report.identity.limits } : { windowSeconds: null, bill: null, moi: null }),
    ...report.runs.map((r) => valueDescriptor(`run ${r.runId}`, { runId: r.runId, startedAt: r.startedAt, finishedAt: r.finishedAt, status: r.status, cases: r.cases, finished: r.finished, seed: r.seed })),
  ];
  return {
    result: resultOf(report),
    configuration,
    passedTests: ids('passed'),
    warnedTests: ids('warned'),
    failedTests: ids('failed'),
    skippedTests: ids('skipped'),
    summary: report.outcome.summary,
    validUntil: validUntilOf(report, validDays),
  };
}

/** The files `certification.sha256` lists, with their digests, as Statement subjects. */
export function checksumSubjects(dir: string): ResourceDescriptor[] {
  const { files, problems } = parseChecksums(readFileSync(join(dir, CHECKSUM_FILE), 'utf8'));
  if (problems.length) throw new Error(`${CHECKSUM_FILE}: ${problems[0]}`);
  return files.map((f) => ({ name: f.path, digest: { sha256: f.sha256 } }));
}

export function packageStatement(dir: string, report: CertificationReport, validDays: number): Statement<TestResultPredicate> {
  return statementOf(checksumSubjects(dir), TEST_RESULT_PREDICATE, testResultPredicate(report, validDays));
}

/** Writes `certification.intoto.json`: the Statement, signed. The checksums must be written first. */
export function writeAttestation(dir: string, report: CertificationReport, key: KeyObject, validDays: number): void {
  // masked like every file of the package (its strings were masked on their way in; this is for secrets only known now)
  const body = Buffer.from(maskText(JSON.stringify(packageStatement(dir, report, validDays))), 'utf8');
  writeFileAtomic(join(dir, ENVELOPE_FILE), JSON.stringify(signEnvelope(INTOTO_PAYLOAD_TYPE, body, key), null, 2) + '\n');
}

/** An unsigned package has no envelope: one left by an earlier run would not be this package's. */
export function removeAttestation(dir: string): void {
  rmSync(join(dir, ENVELOPE_FILE), { force: true });
}

/** The files of the zip: every file `certification.sha256` lists, the checksums, and the envelope when there is one. */
export function zipNames(dir: string): string[] {
  const listed = parseChecksums(readFileSync(join(dir, CHECKSUM_FILE), 'utf8')).files.map((f) => f.path);
  let signed = true;
  try { readFileSync(join(dir, ENVELOPE_FILE)); } catch { signed = false; }
  return [...listed, CHECKSUM_FILE, ...(signed ? [ENVELOPE_FILE] : [])];
}

/** Writes `certification.zip` (attest/zip.ts: sorted entries, fixed time and mode): the same package gives the same bytes. */
export function writeZip(dir: string): Uint8Array {
  const data = zipEntries(zipNames(dir).map((name) => ({ name, data: readFileSync(join(dir, name)) })));
  writeFileAtomic(join(dir, ZIP_FILE), data);
  return data;
}

