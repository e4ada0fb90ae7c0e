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
import { parseEnvelope, verifyEnvelope, type TrustedKey } from '../attest/dsse.js';
import { keyIdOf, KeyError, readPublicKey } from '../attest/keys.js';
import { INTOTO_PAYLOAD_TYPE, parseStatement, sha256Hex, STATEMENT_TYPE, TEST_RESULT_PREDICATE } from '../attest/statement.js';
import { unsafeEntryName, unzipEntries, ZipError } from '../attest/zip.js';
import { DEFAULT_PACKAGE_VALID_DAYS } from '../config/index.js';
import { ENVELOPE_FILE, validUntilOf } from '../reporter/attestation.js';
import { CHECKSUM_FILE, packageFiles, parseChecksums } from '../reporter/checksum.js';
import { CTRF_FILE } from '../reporter/ctrf.js';
import { FORMAT, type CertificationReport, type VerdictCounts } from '../reporter/model.js';
import type { RunManifest } from '../reporter/journal.js';
import type { EvidenceRecord } from '../evidence/record.js';
import { rejudgePackage, type Rejudgement } from '../replay/index.js';
import { consistencyProblems } from './consistency.js';
import { crossCheck, type GatewayEntry, type LoggedExchange } from './gateway-log.js';
import { certificationValidator, ctrfValidator, errorLines } from './schemas.js';

export type CheckName = 'package' | 'checksums' | 'signature' | 'schema' | 'consistency' | 'rejudge' | 'gateway-log' | 'expiry';
export const CHECKS: CheckName[] = ['package', 'checksums', 'signature', 'schema', 'consistency', 'rejudge', 'gateway-log', 'expiry'];

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
  return conclude(v, options.now ?? new Date());
}

async function verifyDir(dir: string, zipNames: string[] | null, options: VerifyOptions, v: PackageVerification): Promise<void> {
  const problem = (check: CheckName, text: string) => v.problems.push({ check, text });
  const check = (name: CheckName, status: Check['status'], detail: string) => v.checks.push({ name, status, detail });
  const failedSince = (n: number) => v.problems.length > n;

  // 1. checksums
  let n = v.problems.length;
  const sumsFile = join(dir, CHECKSUM_FILE);
  let listed: { path: string; sha256: string }[] = [];
  if (!existsSync(sumsFile)) {
    problem('checksums', `${CHECKSUM_FILE} is missing: this is no certification package, or it is incomplete`);
  } else {
    const parsed = parseChecksums(readFileSync(sumsFile, 'utf8'));
    for (const p of parsed.problems) problem('checksums', `${CHECKSUM_FILE}: ${p}`);
    listed = parsed.files;
    for (const f of listed) {
      const bad = unsafeEntryName(f.path);
      if (bad) { problem('checksums', `${CHECKSUM_FILE} lists ${JSON.stringify(f.path)}, which has ${bad}`); continue; }
      const file = join(dir, f.path);
      if (!existsSync(file)) problem('checksums', `${f.path} is listed in ${CHECKSUM_FILE} but missing (removed from the package)`);
      else if (sha256Hex(readFileSync(file)) !== f.sha256) problem('checksums', `${f.path} does not match its checksum (changed after ${CHECKSUM_FILE} was written)`);
    }
    const names = new Set(listed.map((f) => f.path));
    const present = zipNames ?? packageFiles(dir);
    const extra = present.filter((f) => !names.has(f) && f !== CHECKSUM_FILE && f !== ENVELOPE_FILE);
    for (const f of extra) problem('checksums', `${f} is in the package but not in ${CHECKSUM_FILE} (added after the checksums were written)`);
    if (new Set(listed.map((f) => f.path)).size !== listed.length) problem('checksums', `${CHECKSUM_FILE} lists a file twice`);
  }
  check('checksums', failedSince(n) ? 'failed' : 'ok', `${plural(listed.length, 'file')} listed`);
  const sums = new Map(listed.map((f) => [f.path, f.sha256]));

  // 2. the envelope, its signature and its subjects
  n = v.problems.length;
  let predicate: Record<string, unknown> | null = null;
  let predicateVerified = false;
  const envFile = join(dir, ENVELOPE_FILE);
  if (!existsSync(envFile)) {
    v.signature.status = 'unsigned';
    if (options.keys.length) problem('signature', `unsigned: ${ENVELOPE_FILE} is missing, and a key was given (the company signs with SADAD_PACKAGE_KEY)`);
    check('signature', failedSince(n) ? 'failed' : 'skipped', 'unsigned');
  } else {
    const raw = tryJson(envFile);
    const env = 'value' in raw ? parseEnvelope(raw.value) : `not JSON: ${raw.error}`;
    if (typeof env === 'string') {
      v.signature.status = 'bad';
      problem('signature', `${ENVELOPE_FILE} is not a DSSE envelope: ${env}`);
    } else {
      let payload: Buffer | null = null;
      v.signature.keyId = env.signatures[0]?.keyid || null;
      if (options.keys.length) {
        const r = verifyEnvelope(env, options.keys, INTOTO_PAYLOAD_TYPE);
        if (r.ok) {
          payload = r.payload;
          predicateVerified = true;
          v.signature = { status: 'verified', signer: r.signer.name, keyId: r.signer.keyId };
        } else {
          v.signature.status = 'bad';
          problem('signature', `${ENVELOPE_FILE}: ${r.reason}`);
        }
      } else {
        v.signature.status = 'not checked';
        if (env.payloadType !== INTOTO_PAYLOAD_TYPE) problem('signature', `${ENVELOPE_FILE}: payloadType is ${JSON.stringify(env.payloadType)}, not ${INTOTO_PAYLOAD_TYPE}`);
        payload = Buffer.from(env.payload.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      }
      if (payload) {
        const st = parseStatement(payload);
        if (typeof st === 'string') problem('signature', `${ENVELOPE_FILE}: ${st}`);
        else {
          if (st.predicateType !== TEST_RESULT_PREDICATE) problem('signature', `${ENVELOPE_FILE}: predicateType is ${JSON.stringify(st.predicateType)}, not ${TEST_RESULT_PREDICATE}`);
          predicate = st.predicate;
          // the subjects are exactly the checksummed files, with the same digests
          const subjects = new Map<string, string>();
          for (const s of st.subject) {
            if (typeof s.name !== 'string' || typeof s.digest?.sha256 !== 'string') { problem('signature', `${ENVELOPE_FILE}: a subject has no name or no sha256 digest`); continue; }
            subjects.set(s.name, s.digest.sha256);
          }
          const notSigned = [...sums.keys()].filter((f) => !subjects.has(f));
          const notListed = [...subjects.keys()].filter((f) => !sums.has(f));
          const differ = [...sums.keys()].filter((f) => subjects.has(f) && subjects.get(f) !== sums.get(f));
          const name = (fs: string[]) => (fs.length > 10 ? `${fs.slice(0, 10).join(', ')} and ${fs.length - 10} more` : fs.join(', '));
          if (differ.length) problem('signature', `${name(differ)}: the signed digest differs from the checksum (changed after signing)`);
          if (notSigned.length) problem('signature', `${name(notSigned)}: in ${CHECKSUM_FILE} but not signed (added after signing)`);
          if (notListed.length) problem('signature', `${name(notListed)}: signed but not in ${CHECKSUM_FILE} (removed after signing)`);
        }
      }
    }
    check('signature', failedSince(n) ? 'failed' : v.signature.status === 'verified' ? 'ok' : 'skipped',
      v.signature.status === 'verified' ? `signed by ${v.signature.signer} (keyid ${v.signature.keyId})` : v.signature.status === 'not checked' ? 'signature not checked (no --key); its subjects match the checksums' : 'bad');
  }

  // 3. schemas
  n = v.problems.length;
  let report: CertificationReport | null = null;
  const rawReport = existsSync(join(dir, 'certification.json')) ? tryJson(join(dir, 'certification.json')) : null;
  if (!rawReport) problem('schema', 'certification.json is missing');
  else if ('error' in rawReport) problem('schema', `certification.json is not JSON: ${rawReport.error}`);
  else {
    const validate = certificationValidator();
    if (!validate(rawReport.value)) problem('schema', `certification.json does not match schemas/certification.schema.json: ${errorLines(validate.errors, 3, rawReport.value).join('; ')}`);
    const r = rawReport.value as Partial<CertificationReport>;
    if (r && typeof r === 'object' && r.format === FORMAT && Array.isArray(r.cases) && r.fingerprint && r.outcome && r.counts && Array.isArray(r.runs) && r.identity) report = r as CertificationReport;
    else problem('schema', 'certification.json is not a certification package');
  }
  let ctrf: unknown = null;
  if (sums.has(CTRF_FILE) && existsSync(join(dir, CTRF_FILE))) {
    const raw = tryJson(join(dir, CTRF_FILE));
    if ('error' in raw) problem('schema', `${CTRF_FILE} is not JSON: ${raw.error}`);
    else {
      ctrf = raw.value;
      const validate = ctrfValidator();
      if (!validate(ctrf)) problem('schema', `${CTRF_FILE} does not match the CTRF schema: ${errorLines(validate.errors, 3, ctrf).join('; ')}`);
    }
  }
  check('schema', failedSince(n) ? 'failed' : 'ok', `certification.json${ctrf ? ` and ${CTRF_FILE}` : ''}`);

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

  // the evidence, for the consistency check, the company and the gateway log
  const evidence = new Map<string, EvidenceRecord | null>();
  for (const path of [...sums.keys()].filter((p) => p.startsWith('evidence/') && p.endsWith('.json'))) {
    const raw = existsSync(join(dir, path)) ? tryJson(join(dir, path)) : null;
    evidence.set(path, raw && 'value' in raw && raw.value && typeof raw.value === 'object' ? raw.value as EvidenceRecord : null);
  }
  const exchanges: LoggedExchange[] = [];
  for (const [path, ev] of evidence) {
    for (const x of ev?.exchanges ?? []) {
      if (!v.company) {
        const k = Object.keys(x.request?.headers ?? {}).find((h) => h.toLowerCase() === 'companyid');
        if (k) v.company = x.request.headers[k] ?? null;
      }
      if (x.response && typeof x.response.status === 'number' && x.request) {
        exchanges.push({ where: `${path}, exchange ${JSON.stringify(x.label)}`, method: x.request.method, url: x.request.url, headers: x.request.headers ?? {}, status: x.response.status, startedAt: x.startedAt });
      }
    }
  }

  // 4. consistency
  n = v.problems.length;
  if (report) {
    let manifest: RunManifest | null = null;
    const rawManifest = sums.has('run.json') && existsSync(join(dir, 'run.json')) ? tryJson(join(dir, 'run.json')) : null;
    if (rawManifest && 'value' in rawManifest) manifest = rawManifest.value as RunManifest;
    try {
      for (const t of consistencyProblems({ report, manifest, evidence, ctrf: ctrf as never, predicate })) problem('consistency', t);
    } catch (e) {
      problem('consistency', `could not be checked: ${(e as Error).message}`);
    }
    check('consistency', failedSince(n) ? 'failed' : 'ok', `${plural(report.cases.length, 'case')}, ${plural(report.runs.length, 'run')}`);
  } else check('consistency', 'skipped', 'no readable certification.json');

  // 5. re-judged from the evidence
  n = v.problems.length;
  try {
    const rejudged = await (options.rejudge ?? rejudgePackage)(dir);
    for (const c of rejudged.differing) {
      problem('rejudge', c.divergence
        ? `case ${c.id}: recorded ${c.recorded}, cannot be re-judged from its evidence (${c.divergence}${report && v.suiteCommit ? `; the package was made by suite ${v.suiteVersion} at ${v.suiteCommit.slice(0, 12)}` : ''})`
        : `case ${c.id}: recorded ${c.recorded}, but its evidence gives ${c.rejudged}${c.notes[0] ? ` (${c.notes[0].text.split('\n')[0]!.slice(0, 160)})` : ''}`);
    }
    check('rejudge', failedSince(n) ? 'failed' : 'ok', `${plural(rejudged.cases.length, 'case')} re-judged, ${rejudged.differing.length} differ`);
  } catch (e) {
    problem('rejudge', `the evidence could not be re-judged: ${(e as Error).message.split('\n')[0]}`);
    check('rejudge', 'failed', (e as Error).message.split('\n')[0]!);
  }

  // 6. the gateway's log
  n = v.problems.length;
  if (options.gatewayLog) {
    const { matched, missing } = crossCheck(exchanges, options.gatewayLog);
    for (const m of missing) problem('gateway-log', m);
    check('gateway-log', failedSince(n) ? 'failed' : 'ok', `${matched} of ${plural(exchanges.length, 'answered exchange')} found in the gateway log`);
  } else check('gateway-log', 'skipped', 'no --sandbox-log');

  // 7. expiry: decided in conclude(), from the predicate or the run's date
  const until = typeof predicate?.validUntil === 'string' && Number.isFinite(Date.parse(predicate.validUntil)) ? predicate.validUntil : null;
  if (until) { v.validUntil = until; v.validFrom = predicateVerified ? 'signed predicate' : 'unverified predicate'; }
  else if (report) { v.validUntil = validUntilOf(report, DEFAULT_PACKAGE_VALID_DAYS); v.validFrom = 'run date + default'; }
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : 'unknown');

function conclude(v: PackageVerification, now: Date): PackageVerification {
  v.expired = !!v.validUntil && Date.parse(v.validUntil) < now.getTime();
  if (v.validUntil) v.checks.push({ name: 'expiry', status: v.expired ? 'failed' : 'ok', detail: `${v.expired ? 'expired' : 'valid until'} ${v.validUntil} (${v.validFrom})` });
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
