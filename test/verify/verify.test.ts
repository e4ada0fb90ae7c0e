/**
 * `npm run verify-package`, the bank's check, against one genuine signed run of the embedded mock
 * (its gateway log written by the mock, MOCK_ACCESS_LOG; the shared run, test/support/shared-run.ts,
 * signed for SHARED_VALID_DAYS) and forgeries made from copies of it:
 *
 * - the genuine package and its zip: VALID, CERTIFIES, with the key and the gateway log, and the
 *   check sends nothing (a proxy and a server on the run's target port count no connection);
 * - a verdict edited everywhere it is written, checksums recomputed: found by re-judging, without the key;
 * - the same with the old signature kept: found by the signature;
 * - an answer's status rewritten, the verdict unchanged, even re-signed by the company: found by the gateway log;
 * - a file added or removed, in the folder or the zip: found by the checksums or the signed subjects;
 * - a signature by another key: found by the signature;
 * - an expired package: VALID, DOES NOT CERTIFY (expired).
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { zipSync } from 'fflate';
import { readPrivateKey } from '../../src/attest/keys.js';
import { keygen } from '../../src/cli/keygen.js';
import { ROOT } from '../../src/paths.js';
import { writeAttestation } from '../../src/reporter/attestation.js';
import { writeChecksums } from '../../src/reporter/checksum.js';
import { readManifest } from '../../src/reporter/journal.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import { buildPackage, writePackage, type PackageSigning } from '../../src/reporter/package.js';
import { readGatewayLog, type GatewayEntry } from '../../src/verify/gateway-log.js';
import { loadTrustedKeys, resultLine, verifyPackage, type PackageVerification } from '../../src/verify/index.js';
import type { TrustedKey } from '../../src/attest/dsse.js';
import { copyOfSharedRun, sharedRun, SHARED_VALID_DAYS, type SharedRun } from '../support/shared-run.js';

test.describe.configure({ mode: 'parallel' });

const work = mkdtempSync(join(tmpdir(), 'sadad-verify-test-'));
/** A case the embedded mock (sample style) makes WARN: the forger would rather it said PASS. */
const WARNED = 'bill-enquiry.res.schema';
/** A case whose answer is a rejection: another 4xx keeps its verdict. */
const REJECTED = 'bill-enquiry.hdr.CompanyId.missing';

let run: SharedRun;
let LOG: string;
/** The company's public and private key, and the folder that holds them. */
let companyPub: string;
let companyKey: string;
/** The folder of another company's key pair (other.key, other.pub). */
let otherKeys: string;
let genuine: string;
let company: TrustedKey[];
let companySigning: PackageSigning;
let gatewayLog: GatewayEntry[];

const copy = () => copyOfSharedRun(run, { preserveTimestamps: true });
const evidencePath = (dir: string, id: string) => join(dir, 'evidence', `${id}.json`);
function editEvidence(dir: string, id: string, edit: (e: any) => void): void {
  const e = JSON.parse(readFileSync(evidencePath(dir, id), 'utf8'));
  edit(e);
  writeFileSync(evidencePath(dir, id), JSON.stringify(e, null, 2));
}
/** What `npm run certify -- --report` does: every file of the package written again from run.json and the evidence (and signed, with a key). */
const rewrite = (dir: string, signing: PackageSigning | null = null) => writePackage(dir, buildPackage(dir, readManifest(dir)!), signing);
const verifyWith = (dir: string, options: { keys?: TrustedKey[]; log?: boolean; now?: Date } = {}) =>
  verifyPackage(dir, { keys: options.keys ?? [], gatewayLog: options.log ? gatewayLog : null, ...(options.now ? { now: options.now } : {}) });
const checksOf = (v: PackageVerification) => [...new Set(v.problems.map((p) => p.check))].sort();
const show = (v: PackageVerification) => `${resultLine(v)}\n${v.problems.map((p) => `  ${p.check}: ${p.text}`).join('\n')}`;

test.beforeAll(async () => {
  // the first test of the invocation to ask makes the shared run: time for a full run
  test.setTimeout(300_000);
  // another company's key pair (a folder of its own: in parallel mode a worker may run this hook more than once)
  otherKeys = mkdtempSync(join(work, 'other-'));
  expect(keygen(['--out', join(otherKeys, 'other')]).code).toBe(0);
  run = await sharedRun();
  expect(run.code, run.output.slice(-3000)).toBe(0);
  expect(run.env.SADAD_PACKAGE_KEY, 'the shared run is signed').toBe(run.privateKey);
  LOG = run.accessLog;
  expect(run.env.MOCK_ACCESS_LOG).toBe(LOG);
  companyPub = run.publicKey;
  companyKey = run.privateKey;
  genuine = run.reportsDir;
  company = loadTrustedKeys([companyPub]);
  companySigning = { key: readPrivateKey(companyKey), validDays: 90 };
  expect(existsSync(LOG), 'the mock wrote its gateway log (MOCK_ACCESS_LOG)').toBe(true);
  gatewayLog = readGatewayLog(LOG);
});

/** Runs the CLI as the bank would, with every proxy variable pointing at `proxy`. */
function verifyCli(args: string[], proxy: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? work, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, NO_PROXY: '', no_proxy: '' };
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/verify-package.ts'), ...args], { cwd: ROOT, env });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** RFC 4180, as a spreadsheet reads it: quoted fields, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (ch === '"') quoted = false; else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(field); field = ''; }
    else if (ch === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += ch;
  }
  return rows;
}

/** A TCP server that counts the connections it gets. */
async function listener(port = 0): Promise<{ server: Server; port: number; connections: () => number } | null> {
  let n = 0;
  const server = createServer((s) => { n++; s.destroy(); });
  const ok = await new Promise<boolean>((resolve) => { server.once('error', () => resolve(false)); server.listen(port, '127.0.0.1', () => resolve(true)); });
  return ok ? { server, port: (server.address() as { port: number }).port, connections: () => n } : null;
}

test('the genuine package and its zip are VALID, CERTIFIES with the key and the gateway log, and checking them sends nothing', async () => {
  test.setTimeout(120_000);
  const report = JSON.parse(readFileSync(join(genuine, 'certification.json'), 'utf8')) as CertificationReport;
  const proxy = await listener();
  // the run's target (the embedded mock, gone now): its port, listened on again, must get nothing either
  const target = await listener(Number(new URL(report.fingerprint.target.url!).port));
  const csv = join(work, 'intake.csv');
  try {
    const zip = join(genuine, 'certification.zip');
    const r = await verifyCli([genuine, zip, '--key', companyPub, '--sandbox-log', LOG, '--csv', csv], `http://127.0.0.1:${proxy!.port}`);
    expect(r.code, r.output).toBe(0);
    const lines = r.output.trim().split('\n');
    expect(lines[0]).toBe(`${genuine}: VALID, CERTIFIES; signed by company.pub; valid until ${new Date(Date.parse(report.fingerprint.finishedAt) + SHARED_VALID_DAYS * 86_400_000).toISOString().slice(0, 10)}`);
    expect(lines[1]).toMatch(new RegExp(`^${zip.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: VALID, CERTIFIES; signed by company.pub`));
    expect(lines[2]).toBe('2 packages: 2 valid (2 certify), 0 invalid; ' + csv);
    expect(proxy!.connections(), 'connections to the proxy').toBe(0);
    if (target) expect(target.connections(), 'connections to the run\'s target').toBe(0);
    const rows = parseCsv(readFileSync(csv, 'utf8'));
    expect(rows).toHaveLength(3);
    const header = rows[0]!;
    const row = rows[1]!;
    const cell = (name: string) => row[header.indexOf(name)];
    expect(cell('file')).toBe(genuine);
    expect(cell('company')).toBe('MYCOMPANY');
    expect(cell('result')).toBe('VALID, CERTIFIES');
    expect(cell('cases')).toBe(String(report.cases.length));
    expect(cell('PASS')).toBe(String(report.counts.byVerdict.PASS));
    expect(cell('signature')).toBe('verified');
    expect(cell('suite_version')).toBe(report.fingerprint.suite.version);
  } finally {
    proxy?.server.close();
    target?.server.close();
  }
  // every check ran and passed, through the library too
  const v = await verifyWith(genuine, { keys: company, log: true });
  expect(v.checks.map((c) => `${c.name} ${c.status}`)).toEqual(['checksums ok', 'signature ok', 'schema ok', 'consistency ok', 'rejudge ok', 'gateway-log ok', 'expiry ok']);
  // without a key: valid, and it says the signature was not checked
  const unkeyed = await verifyWith(genuine);
  expect(resultLine(unkeyed)).toMatch(/: VALID, CERTIFIES; signature not checked \(no --key\); valid until /);
});

test('a verdict edited everywhere it is written, checksums recomputed: found by re-judging, without the key', async () => {
  const dir = copy();
  editEvidence(dir, WARNED, (e) => { e.verdict = 'PASS'; e.notes = []; e.annotations = (e.annotations ?? []).filter((a: { type: string }) => a.type !== 'warn'); });
  rewrite(dir);
  // the forgery is thorough: every file that states the verdict says PASS, and the checksums agree
  const report = JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as CertificationReport;
  expect(report.cases.find((c) => c.id === WARNED)!.verdict).toBe('PASS');
  const ctrf = JSON.parse(readFileSync(join(dir, 'ctrf.json'), 'utf8'));
  expect(ctrf.results.tests.find((t: { name: string }) => t.name === WARNED).rawStatus).toBe('PASS');
  const junit = readFileSync(join(dir, 'junit.xml'), 'utf8');
  expect(junit).toContain(`name="${WARNED} §`);
  expect(readFileSync(join(genuine, 'junit.xml'), 'utf8')).not.toBe(junit);
  expect(readFileSync(join(genuine, 'certification.html'), 'utf8')).not.toBe(readFileSync(join(dir, 'certification.html'), 'utf8'));
  expect(existsSync(join(dir, 'certification.intoto.json')), 'unsigned: the forger has no key').toBe(false);
  const v = await verifyWith(dir, { log: true });
  expect(v.valid, show(v)).toBe(false);
  expect(checksOf(v), show(v)).toEqual(['rejudge']);
  expect(v.problems.map((p) => p.text).join('\n')).toMatch(new RegExp(`case ${WARNED.replace(/\./g, '\\.')}: recorded PASS, but its evidence gives WARN`));
  expect(resultLine(v)).toMatch(/: INVALID: rejudge: case bill-enquiry\.res\.schema: recorded PASS/);
});

test('the same forgery with the old signature kept: found by the signature', async () => {
  const dir = copy();
  const envelope = readFileSync(join(dir, 'certification.intoto.json'));
  editEvidence(dir, WARNED, (e) => { e.verdict = 'PASS'; e.notes = []; });
  rewrite(dir);
  writeFileSync(join(dir, 'certification.intoto.json'), envelope);
  const v = await verifyWith(dir, { keys: company });
  expect(v.valid).toBe(false);
  // the signature itself is the company's; what it signed is not this package
  expect(v.signature.status).toBe('verified');
  const signature = v.problems.filter((p) => p.check === 'signature').map((p) => p.text).join('\n');
  expect(signature, show(v)).toMatch(/^certification\.json, .*evidence\/bill-enquiry\.res\.schema\.json.*: the signed digest differs from the checksum \(changed after signing\)$/);
  expect(checksOf(v)).toEqual(expect.arrayContaining(['signature', 'rejudge']));
  // without the key the stale envelope still gives it away: its subjects are another package's
  const unkeyed = await verifyWith(dir);
  expect(unkeyed.problems.some((p) => p.check === 'signature' && /changed after signing/.test(p.text)), show(unkeyed)).toBe(true);
});

test('an answer\'s status rewritten with the verdict unchanged, even re-signed by the company: found by the gateway log alone', async () => {
  const dir = copy();
  let ref = '';
  editEvidence(dir, REJECTED, (e) => {
    const x = e.exchanges.find((y: { response?: { status: number } }) => y.response?.status === 401);
    ref = x.request.headers.SvcReferenceID;
    x.response.status = 400;
  });
  rewrite(dir, companySigning);
  const v = await verifyWith(dir, { keys: company, log: true });
  expect(v.valid).toBe(false);
  expect(checksOf(v), show(v)).toEqual(['gateway-log']);
  expect(v.signature.status).toBe('verified');
  const text = v.problems[0]!.text;
  expect(text).toContain(`evidence/${REJECTED}.json, exchange "CompanyId missing"`);
  expect(text).toContain(`reference ${ref}`);
  expect(text).toMatch(/the gateway answered 401 \(log line \d+\), not 400: the evidence was altered/);
  // without the gateway log, nothing else can tell
  expect((await verifyWith(dir, { keys: company })).valid).toBe(true);
});

test('a file added or removed, in the folder or the zip: found by the checksums, or by the signed subjects', async () => {
  // added, checksums left as they were
  const added = copy();
  cpSync(evidencePath(added, REJECTED), evidencePath(added, 'bill-enquiry.hdr.Extra.missing'));
  const a = await verifyWith(added);
  expect(a.problems.filter((p) => p.check === 'checksums').map((p) => p.text), show(a)).toEqual(['evidence/bill-enquiry.hdr.Extra.missing.json is in the package but not in certification.sha256 (added after the checksums were written)']);
  // removed, checksums left as they were
  const removed = copy();
  rmSync(evidencePath(removed, REJECTED));
  const r = await verifyWith(removed);
  expect(r.problems.find((p) => p.check === 'checksums')?.text, show(r)).toBe(`evidence/${REJECTED}.json is listed in certification.sha256 but missing (removed from the package)`);
  // removed, checksums recomputed: the signed subjects still name it, and the package misses its evidence
  const recomputed = copy();
  rmSync(evidencePath(recomputed, REJECTED));
  writeChecksums(recomputed);
  const rc = await verifyWith(recomputed, { keys: company });
  expect(rc.problems.map((p) => `${p.check}: ${p.text}`), show(rc)).toEqual(expect.arrayContaining([
    `signature: evidence/${REJECTED}.json: signed but not in certification.sha256 (removed after signing)`,
    `consistency: case ${REJECTED}: its evidence file evidence/${REJECTED}.json is not in the package`,
  ]));
  // a zip with one entry more than the package it claims to be
  const entries: Record<string, Uint8Array> = {};
  for (const f of [...readFileSync(join(genuine, 'certification.sha256'), 'utf8').trim().split('\n').map((l) => l.split('  ')[1]!), 'certification.sha256', 'certification.intoto.json']) entries[f] = readFileSync(join(genuine, f));
  entries['evidence/planted.json'] = Buffer.from('{}');
  const zip = join(work, 'planted.zip');
  writeFileSync(zip, zipSync(entries));
  const z = await verifyWith(zip, { keys: company });
  expect(z.problems.find((p) => p.check === 'checksums')?.text, show(z)).toBe('evidence/planted.json is in the package but not in certification.sha256 (added after the checksums were written)');
  // and an entry that would land outside the folder is refused before anything is unpacked
  const escape = join(work, 'escape.zip');
  writeFileSync(escape, zipSync({ '../escaped.json': Buffer.from('{}') }));
  const e = await verifyWith(escape);
  expect(e.problems.map((p) => p.text)).toEqual([`${escape}: entry "../escaped.json" has a \`..\` or \`.\` segment`]);
  expect(existsSync(join(tmpdir(), 'escaped.json'))).toBe(false);
});

test('a file that breaks its schema: the problem names the case, not only its JSON pointer', async () => {
  const dir = copy();
  const report = JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8'));
  const i = report.cases.findIndex((c: { id: string }) => c.id === REJECTED);
  expect(i).toBeGreaterThan(0);
  report.cases[i].verdict = 'MAYBE';
  writeFileSync(join(dir, 'certification.json'), JSON.stringify(report, null, 2));
  const ctrf = JSON.parse(readFileSync(join(dir, 'ctrf.json'), 'utf8'));
  const t = ctrf.results.tests.findIndex((x: { name: string }) => x.name === WARNED);
  ctrf.results.tests[t].status = 'maybe';
  writeFileSync(join(dir, 'ctrf.json'), JSON.stringify(ctrf, null, 2));
  writeChecksums(dir);
  const v = await verifyWith(dir);
  const schema = v.problems.filter((p) => p.check === 'schema').map((p) => p.text);
  expect(schema, show(v)).toEqual([
    expect.stringMatching(new RegExp(`^certification\\.json does not match schemas/certification\\.schema\\.json: (.*; )?/cases/${i}/verdict \\(case ${REJECTED.replace(/\./g, '\\.')}\\) must be `)),
    expect.stringMatching(new RegExp(`^ctrf\\.json does not match the CTRF schema: (.*; )?/results/tests/${t}/status \\(case ${WARNED.replace(/\./g, '\\.')}\\) must be `)),
  ]);
  expect(resultLine(v)).toContain(`(case ${REJECTED})`);
});

test('a signature by another key: found by the signature, whatever the content', async () => {
  const dir = copy();
  const report = JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as CertificationReport;
  writeAttestation(dir, report, readPrivateKey(join(otherKeys, 'other.key')), 90);
  const other = loadTrustedKeys([join(otherKeys, 'other.pub')]);
  const v = await verifyWith(dir, { keys: company });
  expect(v.valid).toBe(false);
  expect(v.signature.status).toBe('bad');
  expect(v.problems.map((p) => `${p.check}: ${p.text}`)).toEqual([
    `signature: certification.intoto.json: it was signed by key ${other[0]!.keyId}, which is none of the keys given (company.pub ${company[0]!.keyId.slice(0, 16)}…)`,
  ]);
  // a folder of registered keys finds the signer among them
  const v2 = await verifyWith(dir, { keys: loadTrustedKeys([dirname(companyPub), otherKeys]) });
  expect(v2.valid, show(v2)).toBe(true);
  expect(v2.signature.signer).toBe('other.pub');
});

test('an expired package is VALID but DOES NOT CERTIFY; an unsigned one expires after its run plus the default', async () => {
  const report = JSON.parse(readFileSync(join(genuine, 'certification.json'), 'utf8')) as CertificationReport;
  // signed for SHARED_VALID_DAYS (SADAD_PACKAGE_VALID_DAYS): the signed predicate's date, not the default 90 days
  const until = Date.parse(report.fingerprint.finishedAt) + SHARED_VALID_DAYS * 86_400_000;
  const later = new Date(until + 86_400_000);
  const v = await verifyWith(genuine, { keys: company, now: later });
  expect(v.valid).toBe(true);
  expect(v.validFrom).toBe('signed predicate');
  expect(v.result).toBe(`VALID, DOES NOT CERTIFY (expired on ${new Date(until).toISOString().slice(0, 10)})`);
  expect(resultLine(v)).toMatch(/; signed by company\.pub; expired /);
  // the signed predicate decides, not the default: a package signed for 400 days is still valid then
  const long = copy();
  writeAttestation(long, report, companySigning.key, 400);
  expect((await verifyWith(long, { keys: company, now: later })).result).toBe('VALID, CERTIFIES');
  // unsigned: the run's end plus 90 days (the same package, unsigned, still certifies a day after its signed date ran out)
  const unsigned = copy();
  rewrite(unsigned, null);
  expect(SHARED_VALID_DAYS).toBeLessThan(90);
  expect((await verifyWith(unsigned, { now: later })).result).toBe('VALID, CERTIFIES');
  const byDefault = Date.parse(report.fingerprint.finishedAt) + 90 * 86_400_000;
  const u = await verifyWith(unsigned, { now: new Date(byDefault + 86_400_000) });
  expect(u.signature.status).toBe('unsigned');
  expect(u.validFrom).toBe('run date + default');
  expect(u.result).toMatch(/^VALID, DOES NOT CERTIFY \(expired on /);
  // an unsigned package when a key is given: INVALID
  const keyed = await verifyWith(unsigned, { keys: company });
  expect(keyed.problems.map((p) => p.text)).toEqual(['unsigned: certification.intoto.json is missing, and a key was given (the company signs with SADAD_PACKAGE_KEY)']);
});

test('the command: exit 1 when a package is INVALID, 2 when a key cannot be read; the CSV says which package and why', async () => {
  test.setTimeout(120_000);
  const forged = copy();
  cpSync(evidencePath(forged, REJECTED), evidencePath(forged, 'bill-enquiry.hdr.Extra.missing'));
  const csv = join(work, 'batch.csv');
  const r = await verifyCli([genuine, forged, '--csv', csv], 'http://127.0.0.1:9');
  expect(r.code, r.output).toBe(1);
  expect(r.output).toContain(`${forged}: INVALID: checksums: evidence/bill-enquiry.hdr.Extra.missing.json is in the package but not in certification.sha256`);
  const rows = parseCsv(readFileSync(csv, 'utf8'));
  const header = rows[0]!;
  expect(rows[2]![header.indexOf('file')]).toBe(forged);
  expect(rows[2]![header.indexOf('result')]).toBe('INVALID');
  expect(rows[2]![header.indexOf('first_problem')]).toMatch(/^checksums: evidence\/bill-enquiry\.hdr\.Extra\.missing\.json is in the package/);
  const bad = await verifyCli([genuine, '--key', companyKey], 'http://127.0.0.1:9');
  expect(bad.code).toBe(2);
  expect(bad.output).toMatch(/--key: .*is a private key/);
  expect(bad.output).toContain('Nothing was checked');
});
