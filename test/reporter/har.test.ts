/**
 * reports/exchanges.har: a run's every call (PASS cases' too, and the preflight's) once as HAR 1.2,
 * valid against the specification's required parts (har.schema.json), masked, and part of the
 * checksummed package; a call several cases recorded (the response rules' shared accepted answer)
 * is one entry naming them all; a request without an answer is an entry too; a resumed package's
 * HAR holds the carried cases', a re-judged package's the same calls.
 */
import { readSettingsOrError } from '../../src/config/settings.js';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ROOT } from '../../src/paths.js';
import { buildHar, harEntry, type Har } from '../../src/reporter/har.js';
import { writeManifest, type ManifestCase, type RunManifest } from '../../src/reporter/journal.js';
import { writeEvidence } from '../../src/evidence/store.js';
import { type EvidenceRecord } from '../../src/evidence/record.js';
import type { ExchangeRecord } from '../../src/evidence/record.js';
import { buildPackage, writePackage } from '../../src/reporter/package.js';
import { writeRejudgedPackage } from '../../src/replay/package.js';
import type { Verdict } from '../../src/vocabulary/verdicts.js';
import { runSuite, type SuiteRun } from '../suite/run-suite.js';
import { recordingMock, type RecordingMock } from './helpers.js';

const ajv = new Ajv2020({ strict: true, allErrors: true });
(addFormatsModule as unknown as (a: Ajv2020) => Ajv2020)(ajv);
const validateHar = ajv.compile(JSON.parse(readFileSync(join(import.meta.dirname, 'har.schema.json'), 'utf8')));
const errorsOf = (har: unknown) => (validateHar(har) ? [] : validateHar.errors);

const token = `tok-${randomBytes(12).toString('hex')}`;
const clientSecret = `cs-${randomBytes(12).toString('hex')}`;

test.describe('a run', () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 });
  let mock: RecordingMock;
  let run: SuiteRun;

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    mock = await recordingMock({
      accessToken: token, companyId: 'HARTEST', clientId: 'har-client', clientSecret, rateWindowSeconds: 1, rateLimits: { bill: 100, moi: 100 },
      defects: ['account-number-25-accepted'], signaturePublicKeyPem: readFileSync(join(ROOT, 'data/test-keys/signing-public.pem'), 'utf8'),
    });
    run = await runSuite({
      SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: token, SADAD_COMPANY_ID: 'HARTEST', SADAD_CLIENT_ID: 'har-client', SADAD_CLIENT_SECRET: clientSecret,
      SADAD_SIGNING_KEY: join(ROOT, 'data/test-keys/signing-private.pem'),
      SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '100', SADAD_RATE_LIMIT_MOI: '100', SADAD_SEED: '1212',
      SADAD_CASES: 'bill-enquiry.req.AccountNumber.*,bill-enquiry.hdr.Authorization.*,bill-enquiry.res.*,moi-enquiry.req.BankCode.*,moi-enquiry.robust.*',
    });
  });
  test.afterAll(async () => { await mock?.close(); });

  test('exchanges.har is HAR 1.2 with one entry per call (the preflight\'s included, a shared exchange once with its cases), in time order, masked and checksummed', () => {
    expect(run.code, run.output.slice(-2000)).toBe(1);
    const text = readFileSync(join(run.reportsDir, 'exchanges.har'), 'utf8');
    const har = JSON.parse(text) as Har;
    expect(har.log.version).toBe('1.2');
    expect(errorsOf(har)).toEqual([]);

    const evidence = readdirSync(join(run.reportsDir, 'evidence')).filter((f) => f.endsWith('.json'))
      .map((f) => JSON.parse(readFileSync(join(run.reportsDir, 'evidence', f), 'utf8')) as { id: string; verdict: Verdict; exchanges: ExchangeRecord[] });
    expect(evidence.some((e) => e.verdict === 'PASS') && evidence.some((e) => e.verdict === 'FAIL'), 'both kinds of case in the run').toBe(true);
    // a call, told apart as the bank's gateway log tells it: when, where, its reference id, the answer
    const call = (at: string | undefined, method: string, url: string, headers: Record<string, string> | { name: string; value: string }[], status: number) => {
      const list = Array.isArray(headers) ? headers.map((h) => [h.name, h.value] as const) : Object.entries(headers);
      return `${at} ${method} ${url} ${list.find(([k]) => k.toLowerCase().endsWith('referenceid'))?.[1]} ${status}`;
    };
    const casesOf = new Map<string, string[]>();
    for (const e of evidence) {
      for (const ex of e.exchanges) {
        const k = call(ex.startedAt, ex.request.method, ex.request.url, ex.request.headers, ex.response?.status ?? 0);
        casesOf.set(k, [...(casesOf.get(k) ?? []), e.id]);
      }
    }
    const records = evidence.reduce((n, e) => n + e.exchanges.length, 0);
    expect(casesOf.size, 'the response rules share an accepted answer: fewer calls than records').toBeLessThan(records);
    const preflight = JSON.parse(readFileSync(join(run.reportsDir, 'preflight.json'), 'utf8')) as { exchanges: ExchangeRecord[] };
    expect(preflight.exchanges).toHaveLength(4);
    const preflightCalls = preflight.exchanges.map((ex) => call(ex.startedAt, ex.request.method, ex.request.url, ex.request.headers, ex.response?.status ?? 0));

    const entries = har.log.entries.map((e) => call(e.startedDateTime, e.request.method, e.request.url, e.request.headers, e.response.status));
    expect(casesOf.size).toBeGreaterThan(20);
    expect(new Set(entries).size, 'no call twice').toBe(entries.length);
    expect([...entries].sort()).toEqual([...casesOf.keys(), ...preflightCalls].sort());
    // as many entries as the pacer counted calls (every call of the run goes through it, the preflight's too)
    const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as { operations: Record<string, { calls: number }> };
    expect(har.log.entries).toHaveLength(Object.values(pacing.operations).reduce((n, o) => n + o.calls, 0));
    for (const [i, e] of har.log.entries.entries()) {
      const k = entries[i]!;
      if (preflightCalls.includes(k)) {
        expect([e._preflight, e._case, e._cases, e._verdict], k).toEqual([true, null, [], null]);
        expect(e.comment).toMatch(/^preflight: /);
        continue;
      }
      expect(e._preflight).toBeUndefined();
      expect([...e._cases].sort(), k).toEqual([...casesOf.get(k)!].sort());
      expect(e._case).toBe(e._cases[0]);
    }
    // the bill enquiry every bill-enquiry.res case read: one entry naming all six
    const shared = har.log.entries.filter((e) => e._cases.length > 1);
    expect(shared).toHaveLength(1);
    expect([...shared[0]!._cases].sort()).toEqual(evidence.map((e) => e.id).filter((id) => id.startsWith('bill-enquiry.res.')).sort());
    expect(shared[0]!._cases).toHaveLength(6);
    expect(shared[0]!.comment).toBe(`${shared[0]!._cases.join(', ')}: accepted request`);
    const times = har.log.entries.map((e) => Date.parse(e.startedDateTime));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    const failing = har.log.entries.find((e) => e._case === 'bill-enquiry.req.AccountNumber.over-limit' && e._verdict === 'FAIL')!;
    expect(failing.comment).toMatch(/^bill-enquiry\.req\.AccountNumber\.over-limit: /);
    expect(failing.request.postData?.mimeType).toBe('application/json');
    expect(failing.request.bodySize).toBe(Buffer.byteLength(failing.request.postData!.text));
    expect(failing.request.headers).toContainEqual({ name: 'Authorization', value: 'Bearer «masked»' });
    expect(failing.response.content.text).toContain('"Status"');

    for (const secret of [token, clientSecret, ...mock.signatures]) expect(text).not.toContain(secret);
    const sums = readFileSync(join(run.reportsDir, 'certification.sha256'), 'utf8');
    expect(sums).toMatch(/^[0-9a-f]{64} {2}exchanges\.har$/m);
    const check = spawnSync('sha256sum', ['-c', 'certification.sha256'], { cwd: run.reportsDir, encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);
  });

  test('a package re-judged from its evidence has the same HAR: every call once, the preflight\'s kept', async () => {
    const har = (dir: string) => (JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')) as Har).log.entries
      .map((e) => [e.startedDateTime, e.request.url, e.response.status, e._cases, e._preflight ?? false]);
    const out = join(mkdtempSync(join(tmpdir(), 'sadad-har-rejudged-')), 'reports');
    await writeRejudgedPackage(run.reportsDir, out, readSettingsOrError({}));
    expect(har(out)).toEqual(har(run.reportsDir));
    expect(har(out).filter((e) => e[4])).toHaveLength(4);
  });
});

test('a request that got no answer is an entry with status 0 and its error; a clipped body has no size', () => {
  const ex: ExchangeRecord = {
    label: 'oversized', op: 'moi-enquiry', request: { method: 'POST', url: 'https://sandbox.example/api/x?a=1&b=two', headers: { 'Content-Type': 'application/json' }, body: `${'x'.repeat(64 * 1024)}… (12 more characters not recorded)` },
    error: { kind: 'network', message: 'the target closed the connection (ECONNRESET)' }, startedAt: '2026-01-01T00:00:00.000Z', durationMs: 12,
  };
  const entry = harEntry('moi-enquiry.robust.oversized-body', 'ERROR', ex, '2026-01-01T00:00:00.000Z');
  expect(entry.response).toMatchObject({ status: 0, statusText: '', bodySize: -1, content: { size: 0, mimeType: '' } });
  expect(entry._error).toBe('network: the target closed the connection (ECONNRESET)');
  expect(entry.comment).toContain('no answer: network: the target closed the connection');
  expect(entry.request.bodySize).toBe(-1);
  expect(entry.request.queryString).toEqual([{ name: 'a', value: '1' }, { name: 'b', value: 'two' }]);
  const har = buildHar({ cases: [], fingerprint: { startedAt: '2026-01-01T00:00:00.000Z', suite: { name: 's', version: '1' } } as never }, [{ case: 'moi-enquiry.robust.oversized-body', exchanges: [ex, { ...ex, startedAt: undefined }] }]);
  expect(errorsOf(har)).toEqual([]);
  expect(har.log.entries[1]!.startedDateTime, 'an exchange without its start time takes the run\'s').toBe('2026-01-01T00:00:00.000Z');
});

test('a call several cases recorded is one entry naming them all; the preflight\'s calls are entries of their own', () => {
  const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  const ex = (label: string, ms: number, ref: string, status: number, op = 'bill-enquiry'): ExchangeRecord => ({
    label, op, request: { method: 'POST', url: 'https://sandbox.example/api/enquiry/sadad/bill', headers: { SvcReferenceID: ref, Authorization: 'Bearer «masked»' }, body: '{"Message":{}}' },
    response: { status, headers: {}, body: '{}' }, startedAt: at(ms), durationMs: 5,
  });
  const accepted = ex('accepted request', 100, 'R1', 200);
  const report = {
    cases: [{ id: 'bill-enquiry.res.schema', verdict: 'WARN' }, { id: 'bill-enquiry.res.echo', verdict: 'FAIL' }, { id: 'bill-enquiry.hdr.Device.missing', verdict: 'PASS' }] as never,
    fingerprint: { startedAt: at(0), suite: { name: 's', version: '1' } } as never,
    connection: { exchanges: [{ ...ex('preflight: a minimal valid enquiry', 10, 'P1', 200), curl: 'curl ...' }, ex('preflight: a payment without TransactionData, to be refused', 10, 'P2', 400, 'bill-payment')] },
  };
  const har = buildHar(report, [
    // the same call as written into each case's evidence (read back from JSON: equal, not the same object), one with its curl command
    { case: 'bill-enquiry.res.schema', exchanges: [accepted] },
    { case: 'bill-enquiry.res.echo', exchanges: [{ ...JSON.parse(JSON.stringify(accepted)) as ExchangeRecord, curl: 'curl ...' }] },
    // another call of the same label and millisecond is another entry: it has its own reference id
    { case: 'bill-enquiry.hdr.Device.missing', exchanges: [ex('accepted request', 100, 'R2', 200), ex('Device missing', 150, 'R3', 400)] },
  ]);
  expect(errorsOf(har)).toEqual([]);
  expect(har.log.entries.map((e) => [e._cases, e._case, e._verdict, e._preflight ?? false, e.comment])).toEqual([
    [[], null, null, true, 'preflight: a minimal valid enquiry'],
    [[], null, null, true, 'preflight: a payment without TransactionData, to be refused'],
    [['bill-enquiry.res.schema', 'bill-enquiry.res.echo'], 'bill-enquiry.res.schema', 'WARN', false, 'bill-enquiry.res.schema, bill-enquiry.res.echo: accepted request'],
    [['bill-enquiry.hdr.Device.missing'], 'bill-enquiry.hdr.Device.missing', 'PASS', false, 'bill-enquiry.hdr.Device.missing: accepted request'],
    [['bill-enquiry.hdr.Device.missing'], 'bill-enquiry.hdr.Device.missing', 'PASS', false, 'bill-enquiry.hdr.Device.missing: Device missing'],
  ]);
  expect(har.log.entries[1]!._operation).toBe('bill-payment');
  // no package-level secret in a preflight entry either: the same masking as the cases'
  expect(har.log.entries[0]!.request.headers).toContainEqual({ name: 'Authorization', value: 'Bearer «masked»' });
});

test('a resumed package: the HAR holds the carried cases\' exchanges beside the rerun ones', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'sadad-har-')), 'reports');
  const planned = (id: string): ManifestCase => ({ id, title: `${id} §4`, file: 'specs/headers.spec.ts', operation: 'bill-enquiry', family: 'headers', level: 'MUST', sections: ['4'], expectation: 'rejected', calls: { 'bill-enquiry': 1 } });
  const day = (runId: string) => (runId === 'r1' ? '01' : '02');
  const evidence = (id: string, runId: string, verdict: Verdict): EvidenceRecord => ({
    id, runId, writtenBy: 'case', verdict, testStatus: verdict === 'FAIL' ? 'failed' : 'passed', finishedAt: `2026-01-${day(runId)}T00:00:10.000Z`, durationMs: 100,
    notes: verdict === 'FAIL' ? [{ verdict: 'FAIL', text: 'accepted' }] : [], observations: {}, transient: [],
    exchanges: [{ label: `${id} in ${runId}`, op: 'bill-enquiry', request: { method: 'POST', url: 'http://t/x', headers: {}, body: '{}' }, response: { status: 400, headers: {}, body: '{}' }, startedAt: `2026-01-${day(runId)}T00:00:01.000Z`, durationMs: 3 }],
  });
  const manifest = (runId: string, cases: ManifestCase[], extra: Partial<RunManifest> = {}): RunManifest => ({
    format: 'sadad-run', formatVersion: 1, runId, startedAt: `2026-01-${day(runId)}T00:00:00.000Z`,
    identity: { suiteCommit: null, schemaHash: `sha256:${'1'.repeat(64)}`, target: 'embedded mock', profile: 'full', limits: { windowSeconds: 1, bill: 10, moi: 3 }, selection: { cases: null, skipCases: null, args: null } },
    suite: { name: 'sadad-conformance', version: '0.1.0', commit: null, localChanges: null }, schemaFiles: [], seed: '1',
    target: { url: null, profile: 'embedded mock' }, baselineFile: null, playwright: '1', node: 'v20', resume: null, cases, ...extra,
  });
  const cases = [planned('bill-enquiry.a'), planned('bill-enquiry.b')];
  writeManifest(dir, manifest('r1', cases));
  writeEvidence(dir, evidence('bill-enquiry.a', 'r1', 'PASS'));
  writeEvidence(dir, evidence('bill-enquiry.b', 'r1', 'FAIL'));
  writePackage(dir, buildPackage(dir, manifest('r1', cases)), null);
  // --rerun-failed: the package set aside in previous/, b run again
  const previous = join(dir, 'previous');
  mkdirSync(join(previous, 'evidence'), { recursive: true });
  for (const f of ['certification.json', 'run.json', 'evidence/bill-enquiry.a.json', 'evidence/bill-enquiry.b.json']) writeFileSync(join(previous, f), readFileSync(join(dir, f)));
  const m2 = manifest('r2', [cases[1]!], { resume: { from: 'previous', runIds: ['r1'], rerun: ['bill-enquiry.b'] } });
  m2.end = { finishedAt: '2026-01-02T00:01:00.000Z', status: 'passed', durationMs: 60_000, errors: [] };
  writeManifest(dir, m2);
  writeEvidence(dir, evidence('bill-enquiry.b', 'r2', 'PASS'));
  writePackage(dir, buildPackage(dir, m2), null);
  const har = JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')) as Har;
  expect(errorsOf(har)).toEqual([]);
  expect(har.log.entries.map((e) => [e._case, e._label, e._verdict])).toEqual([
    ['bill-enquiry.a', 'bill-enquiry.a in r1', 'PASS'],
    ['bill-enquiry.b', 'bill-enquiry.b in r2', 'PASS'],
  ]);
});
