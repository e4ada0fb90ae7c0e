/**
 * `npm run certify-client` end to end: the sample client (examples/client) certifies with every
 * scenario reached; the package is complete, checksummed, schema-valid and free of the secrets the
 * client sent; a bad flag stops before anything is served; and in proxy mode a sandbox's defect and
 * faults are the sandbox's, not the client's. (Each sample-client defect is proven by `npm run prove`.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { startMock } from '../../src/mock/index.js';
import { ROOT } from '../../src/paths.js';
import { judgeRun, PROOF_CLIENT_TIMEOUT_MS, PROOF_LATE_ANSWER_MS, PROOF_WINDOW_SECONDS, runSampleClient } from '../../src/prove/client.js';
import { startJudge } from '../../src/judge/index.js';
import type { ClientCertificationReport } from '../../src/judge/model.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const SECRETS = ['mock-access-token-0123456789', 'mock-client-secret'];

function validator() {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas/client-certification.schema.json'), 'utf8')));
}

test('the sample client certifies under certify-client: every scenario reached, a complete package, no secret in it', async () => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'certify-client-'));
  const run = await runSampleClient(null, { keepDir: dir });
  const verdict = judgeRun(run);
  expect(verdict.others, run.output.slice(-2000)).toEqual([]);
  expect(run.exitCode).toBe(0);
  const report = run.report!;
  expect(report.outcome.certifies).toBe(true);
  expect(report.scenarios.filter((s) => !s.reached).map((s) => s.id)).toEqual([]);
  expect(report.client.exitCode).toBe(0);
  expect(report.fingerprint.limits).toEqual({ windowSeconds: PROOF_WINDOW_SECONDS, bill: 10, moi: 3 });
  expect(report.traffic.rateLimited).toBe(0);
  // the package: the four files, checksums that verify, JSON valid against its schema
  const files = readdirSync(dir).sort();
  expect(files).toEqual(expect.arrayContaining(['client-certification.html', 'client-certification.json', 'client-certification.sha256', 'client-junit.xml']));
  for (const line of readFileSync(join(dir, 'client-certification.sha256'), 'utf8').trim().split('\n')) {
    const [sum, file] = line.split(/\s+/);
    expect(createHash('sha256').update(readFileSync(join(dir, file!))).digest('hex'), file).toBe(sum);
  }
  const validate = validator();
  expect(validate(report), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  // the client sent the mock's token and client secret on every call: none of it reaches the package
  for (const f of files.filter((x) => x.startsWith('client-'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const s of SECRETS) expect(text.includes(s), `${s} in ${f}`).toBe(false);
  }
  const junit = readFileSync(join(dir, 'client-junit.xml'), 'utf8');
  expect(junit).toContain('client.bill-payment.safety.no-double-pay');
  expect(junit).not.toContain('<failure');
  const html = readFileSync(join(dir, 'client-certification.html'), 'utf8');
  expect(html).toContain('client.moi-payment.scenario.late-answer');
  // spec coverage from the client's side: the request rows its calls carried, judged by the schema rule; the prose rules untested
  const cov = report.specCoverage!;
  const item = (ref: string) => cov.items.find((i) => i.ref === ref)!;
  expect(item('row:bill-enquiry.request:Message.SvcSadadBillEnquiryRequest.SvcSadadBillEnquiry[].TransactionData[].AccountNumber').tested).toEqual([{ id: 'client.bill-enquiry.req.schema', verdict: 'PASS' }]);
  expect(item('limit:moi-payment').tested.map((t) => t.id)).toEqual(expect.arrayContaining(['client.moi-payment.pacing.limit']));
  expect(item('rule:2.9.3').tested).toEqual([]);
  // a response row is the sandbox's to send: the client's traffic does not test it
  expect(item('row:bill-enquiry.response:SvcSadadBillEnquiryResponse.TimeStamp').tested).toEqual([]);
  expect(cov.byKind.field.covered).toBe(Object.values(report.specCoverage!.items).filter((i) => i.kind === 'field' && i.ref.includes('.request:')).length);
  expect(html).toContain('id="spec-coverage"');
});

test('a defect of the client is a <failure> of its rule in client-junit.xml, and the command exits 1', async () => {
  test.setTimeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'certify-client-'));
  const run = await runSampleClient('pays-more-than-due', { keepDir: dir });
  expect(run.exitCode).toBe(1);
  expect(judgeRun(run).detectedBy).toEqual(['client.bill-payment.safety.amount']);
  const junit = readFileSync(join(dir, 'client-junit.xml'), 'utf8');
  expect(junit).toMatch(/<testcase name="client\.bill-payment\.safety\.amount"[^>]*>\s*<failure message="[^"]*pays [\d.]+ where [\d.]+ is due/);
});

test('a bad flag stops before anything is served, naming the flag (exit 2)', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/cli/certify-client.ts'), '--window', 'soon', '--', 'true'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') } });
  expect(r.status).toBe(2);
  expect(r.stderr).toContain('--window');
  expect(r.stdout).not.toContain('running:');
  const u = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/cli/certify-client.ts'), '--upstream', 'ftp://sandbox', '--', 'true'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') } });
  expect(u.status).toBe(2);
  expect(u.stderr).toContain('--upstream');
});

test('proxy mode: both verdict sets; the sandbox\'s defect and faults are the sandbox\'s, not the client\'s', async () => {
  test.setTimeout(120_000);
  // the sandbox: answers MOI payments with a wrong MessageType, and blips now and then
  const sandbox = await startMock({ port: 0, defects: ['message-type-wrong'], rateLimits: { bill: 1000, moi: 1000 }, lateAnswerMs: 0, faults: { 503: 0.1, seed: 7 } });
  const session = await startJudge({ mock: { port: 0, rateWindowSeconds: PROOF_WINDOW_SECONDS, lateAnswerMs: PROOF_LATE_ANSWER_MS }, upstream: sandbox.url });
  let report: ClientCertificationReport;
  try {
    const env = {
      ...process.env, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), ...session.clientEnv,
      // the client's own credentials for the sandbox: the proxy passes them through
      SADAD_ACCESS_TOKEN: sandbox.options.accessToken, SADAD_COMPANY_ID: sandbox.options.companyId, SAMPLE_CLIENT_TIMEOUT_MS: String(PROOF_CLIENT_TIMEOUT_MS),
    };
    const out = await runNode([join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'examples/client/run.ts')], env);
    report = await session.finish({ command: 'sample client', exitCode: out.code, signal: null, outputTail: out.output.slice(-4000), ended: 'command exited' });
    expect(out.code, out.output.slice(-2000)).toBe(0);
  } finally {
    await session.close();
    await sandbox.close();
  }
  expect(report.fingerprint.mode).toBe('proxy');
  const sandboxCases = report.cases.filter((c) => c.side === 'sandbox');
  const byId = (id: string) => report.cases.find((c) => c.id === id)!;
  expect(byId('sandbox.moi-payment.res.message-type').verdict).toBe('FAIL');
  expect(byId('sandbox.bill-payment.res.message-type').verdict).toBe('PASS');
  // the mock's default sample style deviates from the strict profile: WARN, never FAIL
  expect(['PASS', 'WARN']).toContain(byId('sandbox.bill-enquiry.res.schema').verdict);
  expect(sandboxCases.some((c) => c.id.endsWith('.availability') && c.verdict === 'OBSERVED')).toBe(true);
  // the client side: no FAIL from the sandbox's doing; the proxy injected its scenarios
  const clientFails = report.cases.filter((c) => c.side === 'client' && (c.verdict === 'FAIL' || c.verdict === 'WARN'));
  expect(clientFails.map((c) => `${c.id}: ${c.notes[0]?.text}`)).toEqual([]);
  expect(report.outcome.sandboxFailures).toContain('sandbox.moi-payment.res.message-type');
  // A held payment the flaky sandbox answers 503 (which call a fault hits depends on the order the
  // calls arrive in, so on the machine's load) is not debited: its late-answer scenario stays
  // NOT_RUN, and the package then does not certify. Every other scenario must be reached.
  const unreached = report.scenarios.filter((s) => !s.reached).map((s) => s.id);
  expect(unreached.filter((id) => !id.endsWith('.scenario.late-answer'))).toEqual([]);
  expect(report.outcome.certifies).toBe(unreached.length === 0);
  // the proxy added no credentials: every forwarded call carried only what the client sent
  expect(report.traffic.byOperation['bill-enquiry']!.calls).toBeGreaterThan(5);
  expect(JSON.stringify(report)).not.toContain(sandbox.options.accessToken);
});

function runNode(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    let output = '';
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString(); });
    child.on('close', (code) => done({ code, output }));
  });
}
