/**
 * `npm run verify-package`: the bank's check of a certification package (design.md §11), a folder
 * or its zip, sending nothing. In order:
 *
 * 1. checksums: every file `certification.sha256` lists is there with that digest, and no package
 *    file is there that it does not list;
 * 2. signature (with `--key`): `certification.intoto.json` is a DSSE envelope signed by one of the
 *    keys given; its Statement's subjects are exactly the checksummed files, digest for digest (also
 *    checked without a key, when there is an envelope: it must be this package's);
 * 3. schema: certification.json against schemas/certification.schema.json, ctrf.json against CTRF's;
 * 4. consistency (consistency.ts): counts, verdicts in certification.json, the evidence and
 *    ctrf.json, every planned case present, the runs merged, the signed predicate;
 * 5. re-judging: every case judged again from its evidence by this suite (src/replay), each case
 *    whose recorded verdict differs named;
 * 6. the gateway log (with `--sandbox-log`, gateway-log.ts): every answered exchange was logged;
 * 7. expiry: the signed predicate's `validUntil`, or for an unsigned package its run's end plus the
 *    default validity.
 *
 * A problem in 1-6 makes the package INVALID; a valid package CERTIFIES when its outcome says so and
 * it has not expired, else it DOES NOT CERTIFY, with why.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseEnvelope, verifyEnvelope, type DsseEnvelope, type TrustedKey } from '../attest/dsse.js';
import { keyIdOf, KeyError, readPublicKey } from '../attest/keys.js';
import { INTOTO_PAYLOAD_TYPE, parseStatement, sha256Hex, TEST_RESULT_PREDICATE, type ResourceDescriptor } from '../attest/statement.js';
import { unsafeEntryName, unzipEntries, ZipError } from '../attest/zip.js';
import { DEFAULT_PACKAGE_VALID_DAYS } from '../config/index.js';
import { ENVELOPE_FILE, validUntilOf } from '../reporter/attestation.js';
import { CHECKSUM_FILE, packageFiles, parseChecksums } from '../reporter/checksum.js';
import { CTRF_FILE } from '../reporter/ctrf.js';
import { PACKAGE_FILE } from '../reporter/files.js';
import { FORMAT, type CertificationReport, type VerdictCounts } from '../reporter/model.js';
import { RUN_FILE, type RunManifest } from '../reporter/journal.js';
import type { EvidenceRecord } from '../evidence/record.js';
import { rejudgePackage, type Rejudgement } from '../replay/index.js';
import { consistencyProblems } from './consistency.js';
import { crossCheck, type GatewayEntry, type LoggedExchange } from './gateway-log.js';
import { certificationValidator, ctrfValidator, errorLines } from './schemas.js';

export type CheckName = 'package' | 'checksums' | 'signature' | 'schema' | 'consistency' | 'rejudge' | 'gateway-log' | 'expiry';

export interface Problem { check: CheckName; text: string }
export interface Check { name: CheckName; status: 'ok' | 'failed' | 'skipped'; detail: string }

export interface VerifyOptions {
  /** Trusted public keys (`--key`); none: the signature is not checked. */
  keys: TrustedKey[];
  /** The gateway's log (`--sandbox-log`); null: not cross-checked. */
  gatewayLog: GatewayEntry[] | null;
  now?: Date;
  /** The re-judge (src/replay); replaceable for tests of the verifier itself. */
  rejudge?: (dir: string) => Promise<Rejudgement>;
}

export interface PackageVerification {
  /** The path as given. */
  path: string;
  valid: boolean;
  certifies: boolean;
  /** `VALID, CERTIFIES`, `VALID, DOES NOT CERTIFY (<why>)` or `INVALID: <what>`. */
  result: string;
  problems: Problem[];
  checks: Check[];
  company: string | null;
  target: string | null;
  runDate: string | null;
  suiteVersion: string | null;
  suiteCommit: string | null;
  counts: VerdictCounts | null;
  cases: number | null;
  /** The package's own statement (certification.json `outcome.summary`). */
  outcome: string | null;
  signature: { status: 'verified' | 'unsigned' | 'not checked' | 'bad'; signer: string | null; keyId: string | null };
  validUntil: string | null;
  validFrom: 'signed predicate' | 'unverified predicate' | 'run date + default' | null;
  expired: boolean;
}

/** Reads `--key` arguments: PEM files of public keys, or folders of them (`*.pub`, `*.pem`). */
export function loadTrustedKeys(paths: string[]): TrustedKey[] {
  const files = paths.flatMap((p) => {
    const abs = resolve(p);
    let isDir = false;
    try { isDir = statSync(abs).isDirectory(); } catch { /* readPublicKey says it does not exist */ }
    if (!isDir) return [abs];
    const found = readdirSync(abs).filter((f) => /\.(pub|pem)$/.test(f)).sort().map((f) => join(abs, f));
    if (!found.length) throw new KeyError(`${JSON.stringify(p)} holds no public key (*.pub, *.pem)`);
    return found;
  });
  return files.map((file) => {
    const key = readPublicKey(file);
    return { name: basename(file), key, keyId: keyIdOf(key) };
  });
}

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const tryJson = (file: string): { value: unknown } | { error: string } => {
  try { return { value: readJson(file) }; } catch (e) { return { error: (e as Error).message }; }
};
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A package given as a zip: unpacked, safely, into a temporary folder (removed by the caller). */
function unpack(zipFile: string): { dir: string; names: string[] } {
  const entries = unzipEntries(readFileSync(zipFile));
  const dir = mkdtempSync(join(tmpdir(), 'sadad-verify-'));
  for (const e of entries) {
    const to = join(dir, e.name);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, e.data);
  }
  return { dir, names: entries.map((e) => e.name) };
}

/** Verifies one package: a folder (the reports folder) or a `.zip` of one. Reads only; sends nothing. */
export async function verifyPackage(path: string, options: VerifyOptions): Promise<PackageVerification> {
  const v: PackageVerification = {
    path, valid: false, certifies: false, result: '', problems: [], checks: [], company: null, target: null, runDate: null, suiteVersion: null, suiteCommit: null,
    counts: null, cases: null, outcome: null, signature: { status: 'unsigned', signer: null, keyId: null }, validUntil: null, validFrom: null, expired: false,
  };
  let dir = resolve(path);
  let zipNames: string[] | null = null;
  let temp: string | null = null;
  try {
    if (!existsSync(dir)) v.problems.push({ check: 'package', text: `${path} does not exist` });
    else if (statSync(dir).isFile()) {
      try {
        const u = unpack(dir);
        temp = dir = u.dir;
        zipNames = u.names;
      } catch (e) {
        if (!(e instanceof ZipError)) throw e;
        v.problems.push({ check: 'package', text: `${path}: ${e.message}` });
      }
    }
    if (!v.problems.length) await verifyDir(dir, zipNames, options, v);
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
  return conclude(v);
}

/** What the checks learn of the package, each filled by the check that reads it, for the checks after it. */
interface Known {
  dir: string;
  /** The zip's entries, when the package was given as one. */
  zipNames: string[] | null;
  options: VerifyOptions;
  /** checksums: the files certification.sha256 lists, with their digests. */
  sums: Map<string, string>;
  /** signature: the envelope's signature, and its in-toto predicate (verified: a trusted key signed it). */
  signature: PackageVerification['signature'];
  predicate: Record<string, unknown> | null;
  predicateVerified: boolean;
  /** schema: certification.json when it is a certification package, ctrf.json when it is JSON. */
  report: CertificationReport | null;
  ctrf: unknown;
  /** expiry */
  validUntil: string | null;
  validFrom: PackageVerification['validFrom'];
  expired: boolean;
  /** The checksummed evidence, read once when a check first needs it (evidenceOf). */
  evidence?: EvidenceRead;
}

/** What a check found: problems make the package INVALID and its line `failed`; `learned` is for the checks after it. */
interface CheckResult {
  problems: string[];
  /** The check's line (its status when it found no problem); null: the check has nothing to say. */
  line: { status: 'ok' | 'skipped' | 'failed'; detail: string } | null;
  learned?: Partial<Known>;
}

interface PackageCheck {
  name: CheckName;
  run: (known: Known) => CheckResult | Promise<CheckResult>;
}

/** The checks of a package's folder, in order (the header of this file says what each checks). */
const PACKAGE_CHECKS: PackageCheck[] = [
  { name: 'checksums', run: checksums },
  { name: 'signature', run: signature },
  { name: 'schema', run: schemas },
  { name: 'consistency', run: consistency },
  { name: 'rejudge', run: rejudged },
  { name: 'gateway-log', run: gatewayLog },
  { name: 'expiry', run: expiry },
];

/** Every check, as a Problem names it: the package itself (there, and unzipped), then each of PACKAGE_CHECKS. */
export const CHECKS: CheckName[] = ['package', ...PACKAGE_CHECKS.map((c) => c.name)];

async function verifyDir(dir: string, zipNames: string[] | null, options: VerifyOptions, v: PackageVerification): Promise<void> {
  const known: Known = {
    dir, zipNames, options, sums: new Map(), signature: v.signature, predicate: null, predicateVerified: false,
    report: null, ctrf: null, validUntil: null, validFrom: null, expired: false,
  };
  for (const c of PACKAGE_CHECKS) {
    const r = await c.run(known);
    for (const text of r.problems) v.problems.push({ check: c.name, text });
    if (r.line) v.checks.push({ name: c.name, status: r.problems.length ? 'failed' : r.line.status, detail: r.line.detail });
    Object.assign(known, r.learned);
  }
  describe(v, known);
}

/** What the verification says of the package beside its checks: who, what, when, as the package states it. */
function describe(v: PackageVerification, k: Known): void {
  const { report } = k;
  if (report) {
    const f = report.fingerprint;
    v.target = f.target.url ?? report.identity.target;
    v.runDate = f.finishedAt;
    v.suiteVersion = f.suite.version;
    v.suiteCommit = f.suite.commit;
    v.counts = report.counts.byVerdict;
    v.cases = report.cases.length;
    v.certifies = report.outcome.certifies;
    v.outcome = report.outcome.summary;
  }
  v.company = evidenceOf(k).company;
  v.signature = k.signature;
  v.validUntil = k.validUntil;
  v.validFrom = k.validFrom;
  v.expired = k.expired;
}

/** 1. Every file certification.sha256 lists is there with that digest; no file is there that it does not list. */
function checksums({ dir, zipNames }: Known): CheckResult {
  const problems: string[] = [];
  const sumsFile = join(dir, CHECKSUM_FILE);
  let listed: { path: string; sha256: string }[] = [];
  if (!existsSync(sumsFile)) {
    problems.push(`${CHECKSUM_FILE} is missing: this is no certification package, or it is incomplete`);
  } else {
    const parsed = parseChecksums(readFileSync(sumsFile, 'utf8'));
    for (const p of parsed.problems) problems.push(`${CHECKSUM_FILE}: ${p}`);
    listed = parsed.files;
    for (const f of listed) {
      const bad = unsafeEntryName(f.path);
      if (bad) { problems.push(`${CHECKSUM_FILE} lists ${JSON.stringify(f.path)}, which has ${bad}`); continue; }
      const file = join(dir, f.path);
      if (!existsSync(file)) problems.push(`${f.path} is listed in ${CHECKSUM_FILE} but missing (removed from the package)`);
      else if (sha256Hex(readFileSync(file)) !== f.sha256) problems.push(`${f.path} does not match its checksum (changed after ${CHECKSUM_FILE} was written)`);
    }
    const names = new Set(listed.map((f) => f.path));
    const present = zipNames ?? packageFiles(dir);
    // the checksums and the statement over them are the two files of a package they cannot list
    const extra = present.filter((f) => !names.has(f) && f !== CHECKSUM_FILE && f !== ENVELOPE_FILE);
    for (const f of extra) problems.push(`${f} is in the package but not in ${CHECKSUM_FILE} (added after the checksums were written)`);
    if (new Set(listed.map((f) => f.path)).size !== listed.length) problems.push(`${CHECKSUM_FILE} lists a file twice`);
  }
  return { problems, line: { status: 'ok', detail: `${plural(listed.length, 'file')} listed` }, learned: { sums: new Map(listed.map((f) => [f.path, f.sha256])) } };
}

/**
 * 2. certification.intoto.json is a DSSE envelope signed by one of the keys given, and its
 * Statement's subjects are exactly the checksummed files; without a key, the subjects are checked.
 */
function signature({ dir, options, sums }: Known): CheckResult {
  const envFile = join(dir, ENVELOPE_FILE);
  if (!existsSync(envFile)) {
    const problems = options.keys.length ? [`unsigned: ${ENVELOPE_FILE} is missing, and a key was given (the company signs with SADAD_PACKAGE_KEY)`] : [];
    return { problems, line: { status: 'skipped', detail: 'unsigned' }, learned: { signature: { status: 'unsigned', signer: null, keyId: null } } };
  }
  const raw = tryJson(envFile);
  const env = 'value' in raw ? parseEnvelope(raw.value) : `not JSON: ${raw.error}`;
  if (typeof env === 'string') {
    return { problems: [`${ENVELOPE_FILE} is not a DSSE envelope: ${env}`], line: { status: 'skipped', detail: 'bad' }, learned: { signature: { status: 'bad', signer: null, keyId: null } } };
  }
  const opened = openEnvelope(env, options.keys);
  const problems = [...opened.problems];
  let predicate: Record<string, unknown> | null = null;
  if (opened.payload) {
    const st = parseStatement(opened.payload);
    if (typeof st === 'string') problems.push(`${ENVELOPE_FILE}: ${st}`);
    else {
      if (st.predicateType !== TEST_RESULT_PREDICATE) problems.push(`${ENVELOPE_FILE}: predicateType is ${JSON.stringify(st.predicateType)}, not ${TEST_RESULT_PREDICATE}`);
      predicate = st.predicate;
      problems.push(...subjectProblems(st.subject, sums));
    }
  }
  const sig = opened.signature;
  const detail = sig.status === 'verified' ? `signed by ${sig.signer} (keyid ${sig.keyId})` : sig.status === 'not checked' ? 'signature not checked (no --key); its subjects match the checksums' : 'bad';
  return {
    problems, line: { status: sig.status === 'verified' ? 'ok' : 'skipped', detail },
    learned: { signature: sig, predicate, predicateVerified: sig.status === 'verified' },
  };
}

/** The envelope's signature checked against the keys given (with none, only its payload type), and its payload when it can be read. */
function openEnvelope(env: DsseEnvelope, keys: TrustedKey[]): { signature: PackageVerification['signature']; payload: Buffer | null; problems: string[] } {
  const keyId = env.signatures[0]?.keyid || null;
  if (keys.length) {
    const r = verifyEnvelope(env, keys, INTOTO_PAYLOAD_TYPE);
    return r.ok
      ? { signature: { status: 'verified', signer: r.signer.name, keyId: r.signer.keyId }, payload: r.payload, problems: [] }
      : { signature: { status: 'bad', signer: null, keyId }, payload: null, problems: [`${ENVELOPE_FILE}: ${r.reason}`] };
  }
  const problems = env.payloadType !== INTOTO_PAYLOAD_TYPE ? [`${ENVELOPE_FILE}: payloadType is ${JSON.stringify(env.payloadType)}, not ${INTOTO_PAYLOAD_TYPE}`] : [];
  return { signature: { status: 'not checked', signer: null, keyId }, payload: Buffer.from(env.payload.replace(/-/g, '+').replace(/_/g, '/'), 'base64'), problems };
}

/** The subjects are exactly the checksummed files, with the same digests. */
function subjectProblems(subject: ResourceDescriptor[], sums: Map<string, string>): string[] {
  const problems: string[] = [];
  const subjects = new Map<string, string>();
  for (const s of subject) {
    if (typeof s.name !== 'string' || typeof s.digest?.sha256 !== 'string') { problems.push(`${ENVELOPE_FILE}: a subject has no name or no sha256 digest`); continue; }
    subjects.set(s.name, s.digest.sha256);
  }
  const notSigned = [...sums.keys()].filter((f) => !subjects.has(f));
  const notListed = [...subjects.keys()].filter((f) => !sums.has(f));
  const differ = [...sums.keys()].filter((f) => subjects.has(f) && subjects.get(f) !== sums.get(f));
  const name = (fs: string[]) => (fs.length > 10 ? `${fs.slice(0, 10).join(', ')} and ${fs.length - 10} more` : fs.join(', '));
  if (differ.length) problems.push(`${name(differ)}: the signed digest differs from the checksum (changed after signing)`);
  if (notSigned.length) problems.push(`${name(notSigned)}: in ${CHECKSUM_FILE} but not signed (added after signing)`);
  if (notListed.length) problems.push(`${name(notListed)}: signed but not in ${CHECKSUM_FILE} (removed after signing)`);
  return problems;
}

/** 3. certification.json against schemas/certification.schema.json, ctrf.json (when checksummed) against CTRF's. */
function schemas({ dir, sums }: Known): CheckResult {
  const problems: string[] = [];
  let report: CertificationReport | null = null;
  const rawReport = existsSync(join(dir, PACKAGE_FILE)) ? tryJson(join(dir, PACKAGE_FILE)) : null;
  if (!rawReport) problems.push(`${PACKAGE_FILE} is missing`);
  else if ('error' in rawReport) problems.push(`${PACKAGE_FILE} is not JSON: ${rawReport.error}`);
  else {
    const validate = certificationValidator();
    if (!validate(rawReport.value)) problems.push(`${PACKAGE_FILE} does not match schemas/certification.schema.json: ${errorLines(validate.errors, 3, rawReport.value).join('; ')}`);
    const r = rawReport.value as Partial<CertificationReport>;
    if (r && typeof r === 'object' && r.format === FORMAT && Array.isArray(r.cases) && r.fingerprint && r.outcome && r.counts && Array.isArray(r.runs) && r.identity) report = r as CertificationReport;
    else problems.push(`${PACKAGE_FILE} is not a certification package`);
  }
  let ctrf: unknown = null;
  if (sums.has(CTRF_FILE) && existsSync(join(dir, CTRF_FILE))) {
    const raw = tryJson(join(dir, CTRF_FILE));
    if ('error' in raw) problems.push(`${CTRF_FILE} is not JSON: ${raw.error}`);
    else {
      ctrf = raw.value;
      const validate = ctrfValidator();
      if (!validate(ctrf)) problems.push(`${CTRF_FILE} does not match the CTRF schema: ${errorLines(validate.errors, 3, ctrf).join('; ')}`);
    }
  }
  return { problems, line: { status: 'ok', detail: `${PACKAGE_FILE}${ctrf ? ` and ${CTRF_FILE}` : ''}` }, learned: { report, ctrf } };
}

/** 4. Counts, verdicts in certification.json, the evidence and ctrf.json, the planned cases, the runs, the signed predicate (consistency.ts). */
function consistency(k: Known): CheckResult {
  const { dir, sums, report, ctrf, predicate } = k;
  if (!report) return { problems: [], line: { status: 'skipped', detail: 'no readable certification.json' } };
  const problems: string[] = [];
  let manifest: RunManifest | null = null;
  const rawManifest = sums.has(RUN_FILE) && existsSync(join(dir, RUN_FILE)) ? tryJson(join(dir, RUN_FILE)) : null;
  if (rawManifest && 'value' in rawManifest) manifest = rawManifest.value as RunManifest;
  const { records: evidence } = evidenceOf(k);
  try {
    problems.push(...consistencyProblems({ report, manifest, evidence, ctrf: ctrf as never, predicate }));
  } catch (e) {
    problems.push(`could not be checked: ${(e as Error).message}`);
  }
  return { problems, line: { status: 'ok', detail: `${plural(report.cases.length, 'case')}, ${plural(report.runs.length, 'run')}` } };
}

/** 5. Every case judged again from its evidence by this suite (src/replay); each whose recorded verdict differs named. */
async function rejudged({ dir, options, report }: Known): Promise<CheckResult> {
  const suite = report?.fingerprint.suite;
  try {
    const r = await (options.rejudge ?? rejudgePackage)(dir);
    const problems = r.differing.map((c) => (c.divergence
      ? `case ${c.id}: recorded ${c.recorded}, cannot be re-judged from its evidence (${c.divergence}${suite?.commit ? `; the package was made by suite ${suite.version} at ${suite.commit.slice(0, 12)}` : ''})`
      : `case ${c.id}: recorded ${c.recorded}, but its evidence gives ${c.rejudged}${c.notes[0] ? ` (${c.notes[0].text.split('\n')[0]!.slice(0, 160)})` : ''}`));
    return { problems, line: { status: 'ok', detail: `${plural(r.cases.length, 'case')} re-judged, ${r.differing.length} differ` } };
  } catch (e) {
    const first = (e as Error).message.split('\n')[0]!;
    return { problems: [`the evidence could not be re-judged: ${first}`], line: { status: 'failed', detail: first } };
  }
}

/** 6. With --sandbox-log: every answered exchange of the evidence is in the gateway's log (gateway-log.ts). */
function gatewayLog(k: Known): CheckResult {
  if (!k.options.gatewayLog) return { problems: [], line: { status: 'skipped', detail: 'no --sandbox-log' } };
  const { exchanges } = evidenceOf(k);
  const { matched, missing } = crossCheck(exchanges, k.options.gatewayLog);
  return { problems: missing, line: { status: 'ok', detail: `${matched} of ${plural(exchanges.length, 'answered exchange')} found in the gateway log` } };
}

/**
 * 7. The signed predicate's `validUntil`, or for a package without one its run's end plus the
 * default validity. An expired package is valid but does not certify: no problem, a failed line.
 */
function expiry({ predicate, predicateVerified, report, options }: Known): CheckResult {
  let validUntil: string | null = null;
  let validFrom: PackageVerification['validFrom'] = null;
  const until = typeof predicate?.validUntil === 'string' && Number.isFinite(Date.parse(predicate.validUntil)) ? predicate.validUntil : null;
  if (until) { validUntil = until; validFrom = predicateVerified ? 'signed predicate' : 'unverified predicate'; }
  else if (report) { validUntil = validUntilOf(report, DEFAULT_PACKAGE_VALID_DAYS); validFrom = 'run date + default'; }
  if (!validUntil) return { problems: [], line: null };
  const expired = Date.parse(validUntil) < (options.now ?? new Date()).getTime();
  return { problems: [], line: { status: expired ? 'failed' : 'ok', detail: `${expired ? 'expired' : 'valid until'} ${validUntil} (${validFrom})` }, learned: { validUntil, validFrom, expired } };
}

/** The checksummed evidence files, the company its calls name, and its answered exchanges (for the gateway log). */
interface EvidenceRead {
  records: Map<string, EvidenceRecord | null>;
  company: string | null;
  exchanges: LoggedExchange[];
}

function evidenceOf(k: Known): EvidenceRead {
  if (k.evidence) return k.evidence;
  const { dir, sums } = k;
  const records = new Map<string, EvidenceRecord | null>();
  for (const path of [...sums.keys()].filter((p) => p.startsWith('evidence/') && p.endsWith('.json'))) {
    const raw = existsSync(join(dir, path)) ? tryJson(join(dir, path)) : null;
    records.set(path, raw && 'value' in raw && raw.value && typeof raw.value === 'object' ? raw.value as EvidenceRecord : null);
  }
  let company: string | null = null;
  const exchanges: LoggedExchange[] = [];
  for (const [path, ev] of records) {
    for (const x of ev?.exchanges ?? []) {
      if (!company) {
        const h = Object.keys(x.request?.headers ?? {}).find((name) => name.toLowerCase() === 'companyid');
        if (h) company = x.request.headers[h] ?? null;
      }
      if (x.response && typeof x.response.status === 'number' && x.request) {
        exchanges.push({ where: `${path}, exchange ${JSON.stringify(x.label)}`, method: x.request.method, url: x.request.url, headers: x.request.headers ?? {}, status: x.response.status, startedAt: x.startedAt });
      }
    }
  }
  k.evidence = { records, company, exchanges };
  return k.evidence;
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'unknown');

/** The result: INVALID with any problem; else whether it certifies, and if not why (its outcome, its expiry). */
function conclude(v: PackageVerification): PackageVerification {
  v.valid = v.problems.length === 0;
  const reasons: string[] = [];
  if (v.valid) {
    if (!v.certifies) reasons.push((v.outcome ?? 'its run does not certify').replace(/^Does not certify: /, '').replace(/\.$/, ''));
    if (v.expired) reasons.push(`expired on ${day(v.validUntil)}`);
  }
  v.certifies = v.valid && v.certifies && !v.expired;
  v.result = !v.valid ? `INVALID: ${problemsText(v.problems)}` : v.certifies ? 'VALID, CERTIFIES' : `VALID, DOES NOT CERTIFY (${reasons.join('; ')})`;
  return v;
}

function problemsText(problems: Problem[], max = 3): string {
  const shown = problems.slice(0, max).map((p) => `${p.check}: ${p.text}`);
  return problems.length > max ? `${shown.join('; ')}; and ${problems.length - max} more` : shown.join('; ');
}

/** The one line for a package: `<path>: <result>; <signature>; valid until <date>`. */
export function resultLine(v: PackageVerification): string {
  const sig = v.signature.status === 'verified' ? `signed by ${v.signature.signer}` : v.signature.status === 'not checked' ? 'signature not checked (no --key)' : v.signature.status === 'unsigned' ? 'unsigned' : 'bad signature';
  const detail = v.valid ? `; ${sig}; ${v.expired ? 'expired' : 'valid until'} ${day(v.validUntil)}` : '';
  return `${v.path}: ${v.result}${detail}`;
}
