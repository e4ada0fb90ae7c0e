/**
 * A signed full run against the embedded mock (SADAD_PACKAGE_KEY; the shared run,
 * test/support/shared-run.ts, read here, edited only in copies): `certification.intoto.json` is a
 * DSSE envelope whose signature verifies with the public key alone; its Statement and predicate are
 * in-toto's Statement v1 and Test Result v0.1; its subjects are exactly the files of
 * certification.sha256 with their digests; the predicate says the run's result, cases, configuration
 * and expiry. `certification.zip` holds the whole package and is the same bytes when written again;
 * `ctrf.json` validates against the CTRF schema (draft-07, Ajv's draft-07 class); the fingerprint
 * names the spec hash. An unsigned package has no envelope, and its zip none either.
 */
import { createHash, createPublicKey, verify } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { unzipSync } from 'fflate';
import { DATA_DIR, SCHEMAS_DIR } from '../../src/paths.js';
import { writeZip } from '../../src/reporter/attestation.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import { readManifest } from '../../src/reporter/journal.js';
import { buildPackage, writePackage } from '../../src/reporter/package.js';
import { copyOfSharedRun, sharedRun, SHARED_VALID_DAYS, type SharedRun } from '../support/shared-run.js';

test.describe.configure({ mode: 'parallel' });

let run: SharedRun;
let report: CertificationReport;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const read = (f: string) => readFileSync(join(run.reportsDir, f));
const listed = () => read('certification.sha256').toString().trim().split('\n').map((l) => { const [digest, file] = l.split('  '); return { digest: digest!, file: file! }; });

test.beforeAll(async () => {
  // the first test of the invocation to ask makes the shared run: time for a full run
  test.setTimeout(300_000);
  run = await sharedRun();
  expect(run.env.SADAD_PACKAGE_KEY, 'the shared run is signed').toBe(run.privateKey);
  expect(run.env.SADAD_PACKAGE_VALID_DAYS).toBe(String(SHARED_VALID_DAYS));
  expect(run.code, run.output.slice(-3000)).toBe(0);
  report = JSON.parse(read('certification.json').toString()) as CertificationReport;
});

test('the envelope verifies with the public key alone, and holds an in-toto Statement v1 of a Test Result', () => {
  const envelope = JSON.parse(read('certification.intoto.json').toString()) as { payload: string; payloadType: string; signatures: { keyid: string; sig: string }[] };
  expect(envelope.payloadType).toBe('application/vnd.in-toto+json');
  expect(envelope.signatures).toHaveLength(1);
  const publicKey = createPublicKey(readFileSync(run.publicKey));
  expect(envelope.signatures[0]!.keyid).toBe(sha(publicKey.export({ type: 'spki', format: 'der' })));
  // DSSE's PAE, written out here rather than taken from src/attest
  const body = Buffer.from(envelope.payload, 'base64');
  const type = Buffer.from(envelope.payloadType);
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
  expect(verify(null, pae, publicKey, Buffer.from(envelope.signatures[0]!.sig, 'base64'))).toBe(true);
  const tampered = Buffer.from(pae);
  tampered[tampered.length - 2] = tampered[tampered.length - 2]! ^ 1;
  expect(verify(null, tampered, publicKey, Buffer.from(envelope.signatures[0]!.sig, 'base64'))).toBe(false);

  const statement = JSON.parse(body.toString('utf8'));
  expect(statement._type).toBe('https://in-toto.io/Statement/v1');
  expect(statement.predicateType).toBe('https://in-toto.io/attestation/test-result/v0.1');
  // the subjects: every file of certification.sha256, with its digest, and nothing else
  const sums = listed();
  expect(sums.length).toBeGreaterThan(450);
  expect(sums.map((s) => s.file)).toEqual(expect.arrayContaining(['certification.json', 'certification.html', 'junit.xml', 'ctrf.json', 'exchanges.har', 'run.json']));
  expect(statement.subject).toEqual(sums.map((s) => ({ name: s.file, digest: { sha256: s.digest } })));
  for (const s of sums) expect(sha(read(s.file)), s.file).toBe(s.digest);

  const p = statement.predicate;
  expect(report.outcome.certifies).toBe(true);
  // the embedded mock in sample style: the strict profile's deviations are WARN, so the result is WARNED
  expect(p.result).toBe(report.counts.byVerdict.WARN ? 'WARNED' : 'PASSED');
  const ids = (...verdicts: string[]) => report.cases.filter((c) => verdicts.includes(c.verdict)).map((c) => c.id).sort();
  expect([...p.passedTests].sort()).toEqual(ids('PASS', 'OBSERVED'));
  expect([...p.warnedTests].sort()).toEqual(ids('WARN'));
  expect(p.failedTests).toEqual([]);
  expect([...p.skippedTests].sort()).toEqual(ids('SKIPPED', 'NOT_APPLICABLE'));
  expect(Date.parse(p.validUntil) - Date.parse(report.fingerprint.finishedAt)).toBe(SHARED_VALID_DAYS * 86_400_000);
  // the configuration, as ResourceDescriptors with readable values
  const conf = new Map<string, { uri?: string; digest?: Record<string, string>; content?: string; annotations?: Record<string, unknown> }>(p.configuration.map((d: { name: string }) => [d.name, d]));
  const f = report.fingerprint;
  expect(conf.get('suite')!.uri).toBe(`pkg:npm/${f.suite.name}@${f.suite.version}`);
  if (f.suite.commit) expect(conf.get('suite')!.digest).toEqual({ gitCommit: f.suite.commit });
  expect(`sha256:${conf.get('schemas')!.digest!.sha256}`).toBe(f.schemaHash);
  expect(`sha256:${conf.get('spec')!.digest!.sha256}`).toBe(f.specHash);
  expect(conf.get('target')!.uri).toBe(f.target.url);
  expect(conf.get('target')!.annotations!.configured).toBe(report.identity.target);
  expect(conf.get('profile')!.annotations!.profile).toBe('full');
  expect(conf.get('limits')!.annotations).toEqual(report.identity.limits);
  expect(JSON.parse(Buffer.from(conf.get('limits')!.content!, 'base64').toString())).toEqual(report.identity.limits);
  const runId = report.runs[0]!.runId;
  expect(conf.get(`run ${runId}`)!.annotations).toMatchObject({ runId, startedAt: report.runs[0]!.startedAt, status: 'passed' });
  for (const d of p.configuration) expect(d.uri || d.digest || d.content, d.name).toBeTruthy();
});

test('the fingerprint names the spec hash: sha256 of data/field-tables.json', () => {
  expect(report.fingerprint.specHash).toBe(`sha256:${sha(readFileSync(join(DATA_DIR, 'field-tables.json')))}`);
});

test('the zip holds the whole package and is the same bytes when written again from the same package', () => {
  const zip = read('certification.zip');
  const entries = unzipSync(zip);
  const names = Object.keys(entries);
  expect(names).toEqual([...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))));
  expect([...names].sort()).toEqual([...listed().map((s) => s.file), 'certification.sha256', 'certification.intoto.json'].sort());
  for (const n of names) expect(sha(entries[n]!), n).toBe(sha(read(n)));
  // written twice, in another folder and later: byte-identical
  const copy = copyOfSharedRun(run);
  const again = writeZip(copy);
  const third = writeZip(copy);
  expect(sha(again)).toBe(sha(zip));
  expect(sha(third)).toBe(sha(zip));
});

test('ctrf.json validates against the CTRF schema, one test per case with its verdict kept', () => {
  const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, 'vendor', 'ctrf.schema.json'), 'utf8'));
  // the CTRF schema is draft-07: Ajv's default class, not the Ajv2020 the project's own schemas use
  expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  const ajv = new Ajv({ strict: true, allErrors: true, allowUnionTypes: true });
  ajvFormats.default(ajv);
  const validate = ajv.compile(schema);
  const ctrf = JSON.parse(read('ctrf.json').toString());
  expect(validate(ctrf) ? [] : validate.errors).toEqual([]);
  expect(ctrf.reportFormat).toBe('CTRF');
  expect(ctrf.results.tests.map((t: { name: string }) => t.name)).toEqual(report.cases.map((c) => c.id));
  const status: Record<string, string> = { PASS: 'passed', WARN: 'passed', OBSERVED: 'passed', NOT_APPLICABLE: 'skipped', SKIPPED: 'skipped' };
  // every case's test, compared as one list (one assertion, not four per case: each is a Playwright step)
  const tests = ctrf.results.tests as { name: string; status: string; rawStatus: string; tags: string[]; extra: Record<string, { verdict: string; level: string }> }[];
  expect(tests.map((t) => ({ name: t.name, rawStatus: t.rawStatus, status: t.status, tags: t.tags, verdict: t.extra['sadad.conformance']!.verdict })))
    .toEqual(report.cases.map((c) => ({ name: c.id, rawStatus: c.verdict, status: status[c.verdict], tags: [c.level, c.family, c.operation], verdict: c.verdict })));
  const s = ctrf.results.summary;
  expect(s.tests).toBe(report.cases.length);
  expect(s.passed + s.failed + s.skipped + s.pending + s.other).toBe(s.tests);
  expect(s.skipped).toBe(report.counts.byVerdict.NOT_APPLICABLE + report.counts.byVerdict.SKIPPED);
  // and the schema does constrain: a status CTRF does not know is refused
  const broken = structuredClone(ctrf);
  broken.results.tests[0].status = 'WARN';
  expect(validate(broken)).toBe(false);
});

test('an unsigned package has no envelope, in the folder or the zip', () => {
  const copy = copyOfSharedRun(run);
  writePackage(copy, buildPackage(copy, readManifest(copy)!), null);
  expect(existsSync(join(copy, 'certification.intoto.json'))).toBe(false);
  expect(Object.keys(unzipSync(readFileSync(join(copy, 'certification.zip'))))).not.toContain('certification.intoto.json');
  expect(readFileSync(join(copy, 'certification.sha256'), 'utf8')).toContain('  ctrf.json\n');
});
