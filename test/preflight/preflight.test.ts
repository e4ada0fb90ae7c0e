/**
 * The first hour on a real network (issue 18): a misconfigured run stops in seconds, at the real
 * limits (10 and 3 calls per 60 s window), before its first case, with at most 8 calls sent and a
 * message naming the cause; its package does not certify and holds the preflight. Each stand-in
 * counts what reached it. The TLS stand-ins are the mock over HTTPS with a private CA the tests
 * generate (test/net/pki.ts).
 *
 * Two of them stop a real run end to end (`playwright test` of the suite in a child process: exit 2,
 * the package, 453 NOT_RUN), one where nothing answers and one where the target refuses the calls;
 * the other diagnoses are the same preflight run in this process, as `npm run doctor` runs it (the
 * real limits, no pacer but the client's own), its stopped-run message the one a run prints.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { expect, test } from '@playwright/test';
import Fastify from 'fastify';
import { registerSecret } from '../../src/client/redact.js';
import { configFromVariables, secretValues } from '../../src/config/index.js';
import { closeDispatcher } from '../../src/net/index.js';
import { formatStopped, runPreflight, type PreflightReport } from '../../src/preflight/index.js';
import { ROOT } from '../../src/paths.js';
import { configuredClient } from '../../src/suite/runtime.js';
import { runSuite } from '../suite/run-suite.js';
import { mockTls, pki } from '../net/pki.js';
import { startCountedMock, targetEnv, type CountedMock } from '../net/servers.js';

test.describe.configure({ timeout: 120_000 });

/** The real limits: a configured target's defaults (60 s window, 10 and 3 calls). */
const REAL = { rateWindowSeconds: 60, rateLimits: { bill: 10, moi: 3 } };

interface Stopped { code: number | null; output: string; durationMs: number; report: { outcome: { certifies: boolean; summary: string }; connection: { result: string; calls: Record<string, number>; findings: { severity: string; text: string; fix?: string }[] } | null; counts: { byVerdict: Record<string, number> } } }

/** A run of the suite in a child process, end to end. */
async function certify(env: Record<string, string>): Promise<Stopped> {
  const run = await runSuite(env);
  const file = join(run.reportsDir, 'certification.json');
  expect(existsSync(file), `a package is written:\n${run.output.slice(-2000)}`).toBe(true);
  return { code: run.code, output: run.output, durationMs: run.durationMs, report: JSON.parse(readFileSync(file, 'utf8')) };
}

/** What every stopped run must show: exit 2 within 30 s, nothing paid, a package that does not certify and says why. */
function expectStopped(r: Stopped, cause: RegExp, fix: RegExp, calls: number) {
  expect(r.code, r.output.slice(-3000)).toBe(2);
  expect(r.durationMs, 'stops within 30 s at the real limits').toBeLessThan(30_000);
  expect(calls, 'at most 8 calls reached the target').toBeLessThanOrEqual(8);
  expect(r.output).toMatch(cause);
  expect(r.output).toMatch(fix);
  expect(r.output).toContain('Stopped before the first case (exit 2)');
  expect(r.report.outcome.certifies).toBe(false);
  expect(r.report.outcome.summary).toContain('the preflight stopped the run');
  expect(r.report.connection?.result).toBe('blocked');
  expect(r.report.counts.byVerdict.NOT_RUN, 'no case ran').toBe(453);
  expect(r.report.counts.byVerdict.PASS).toBe(0);
}

interface Diagnosed { report: PreflightReport; output: string }

/** The preflight in this process, as `npm run doctor` runs it; `output`: what a run it stopped prints. */
async function diagnose(env: Record<string, string>): Promise<Diagnosed> {
  const config = configFromVariables(env);
  for (const s of secretValues(config)) registerSecret(s);
  try {
    const report = await runPreflight({ config, client: await configuredClient(config), env: {} });
    return { report, output: formatStopped(report, 'reports/certification.html') };
  } finally {
    await closeDispatcher(config.network);
  }
}

/** What every diagnosis that stops a run must show: blocked within 30 s, at most 8 calls, the cause and the fix named. */
function expectBlocked(d: Diagnosed, cause: RegExp, fix: RegExp, calls: number) {
  expect(d.report.result, d.output).toBe('blocked');
  expect(d.report.durationMs, 'decided within 30 s at the real limits').toBeLessThan(30_000);
  expect(calls, 'at most 8 calls reached the target').toBeLessThanOrEqual(8);
  expect(d.output).toMatch(cause);
  expect(d.output).toMatch(fix);
  expect(d.output).toContain('Stopped before the first case (exit 2)');
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

const withMock = async (options: Parameters<typeof startCountedMock>[0], body: (m: CountedMock) => Promise<void>) => {
  const mock = await startCountedMock({ ...REAL, ...options });
  try { await body(mock); } finally { await mock.close(); }
};

test('a closed port: refused, naming the port in SADAD_BASE_URL; nothing sent (a run, end to end)', async () => {
  const port = await freePort();
  const r = await certify({ SADAD_BASE_URL: `http://127.0.0.1:${port}`, SADAD_ACCESS_TOKEN: 'tok-0123456789', SADAD_COMPANY_ID: 'MYCOMPANY' });
  expectStopped(r, new RegExp(`connection refused by 127\\.0\\.0\\.1:${port}`), /check the host and port in SADAD_BASE_URL/, 0);
  expect(r.report.connection!.calls).toEqual({});
});

test('a wrong base path: 404 on every operation, the URLs tried listed', async () => {
  await withMock({}, async (mock) => {
    const r = await diagnose({ ...targetEnv(mock), SADAD_BASE_URL: `${mock.url}/gateway/v2` });
    expectBlocked(r, /every operation path answered 404: the base URL or its path prefix is wrong/, /SADAD_BASE_URL/, mock.requests());
    expect(r.output).toContain(`${mock.url}/gateway/v2/api/payment/sadad/moi → HTTP 404`);
    expect(mock.requests()).toBe(4);
  });
});

test('a wrong token: the credentials refused, naming SADAD_ACCESS_TOKEN (a run, end to end)', async () => {
  await withMock({}, async (mock) => {
    const r = await certify({ ...targetEnv(mock), SADAD_ACCESS_TOKEN: 'expired-token-0123456789' });
    expectStopped(r, /refused the credentials on all 4 operations \(HTTP 401\)/, /SADAD_ACCESS_TOKEN was refused/, mock.requests());
    expect(r.output, 'the token itself is never printed').not.toContain('expired-token-0123456789');
  });
});

test('an HTML page answering 200 (a login or proxy block page): content type and first bytes shown', async () => {
  let calls = 0;
  const app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.all('/*', async (_req, reply) => { calls++; return reply.code(200).type('text/html').send('<html><head><title>Corporate login</title></head><body>Sign in</body></html>'); });
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const r = await diagnose({ SADAD_BASE_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, SADAD_ACCESS_TOKEN: 'tok-0123456789', SADAD_COMPANY_ID: 'MYCOMPANY' });
    expectBlocked(r, /answered HTTP 200 with text\/html[^,]*, not JSON: "<html><head><title>Corporate login/, /HTTPS_PROXY/, calls);
  } finally {
    await app.close();
  }
});

test('a TLS server whose CA is not trusted: unknown CA, naming SADAD_CA_FILE; no request reached it', async () => {
  await withMock({ tls: mockTls(false) }, async (mock) => {
    const r = await diagnose({ ...targetEnv(mock), SADAD_BASE_URL: mock.url.replace('127.0.0.1', 'localhost') });
    expectBlocked(r, /not signed by a CA this suite trusts/, /set SADAD_CA_FILE/, mock.requests());
    expect(mock.requests()).toBe(0);
  });
});

test('an mTLS server given no client certificate: required, naming the variables', async () => {
  const p = pki();
  await withMock({ tls: mockTls(true) }, async (mock) => {
    const r = await diagnose({ ...targetEnv(mock), SADAD_BASE_URL: mock.url.replace('127.0.0.1', 'localhost'), SADAD_CA_FILE: p.caCert });
    expectBlocked(r, /requires a client certificate \(mutual TLS\) and none is configured/, /SADAD_TLS_CERT and SADAD_TLS_KEY/, mock.requests());
    expect(mock.requests()).toBe(0);
  });
});

test('an mTLS server given a certificate from another CA: refused', async () => {
  const p = pki();
  await withMock({ tls: mockTls(true) }, async (mock) => {
    const r = await diagnose({ ...targetEnv(mock), SADAD_BASE_URL: mock.url.replace('127.0.0.1', 'localhost'), SADAD_CA_FILE: p.caCert, SADAD_TLS_CERT: p.otherClientCert, SADAD_TLS_KEY: p.otherClientKey });
    expectBlocked(r, /(refused the client certificate|did not accept the client certificate)/, /SADAD_TLS_CERT/, mock.requests());
    expect(mock.requests()).toBe(0);
  });
});

function doctor(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/doctor.ts'), ...args], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), ...env },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('npm run doctor: a checklist of every step with its evidence; exit 0 when a run could start, 2 when it would stop', async () => {
  const p = pki();
  await withMock({ tls: mockTls(true) }, async (mock) => {
    const env = { ...targetEnv(mock), SADAD_BASE_URL: mock.url.replace('127.0.0.1', 'localhost'), SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase };
    const ok = await doctor(env);
    expect(ok.code, ok.output).toBe(0);
    for (const step of ['Configuration', 'DNS', 'TCP connect', 'TLS handshake', 'Access token', 'One call per operation', 'Clock']) expect(ok.output).toContain(step);
    expect(ok.output).toMatch(/client certificate \(SADAD_TLS_PFX\): .*expires/);
    expect(ok.output).toContain('trusted: yes, against the default roots and SADAD_CA_FILE');
    expect(ok.output).toContain('client certificate: asked for and required (a handshake without one was refused)');
    expect(ok.output).toMatch(/POST https:\/\/localhost:\d+\/api\/enquiry\/sadad\/moi → HTTP 200, success/);
    expect(ok.output).toMatch(/POST https:\/\/localhost:\d+\/api\/payment\/sadad\/bill → HTTP 400/);
    expect(ok.output).toMatch(/Result: ready/);
    expect(ok.output, 'the passphrase is never printed').not.toContain(p.passphrase);
    const requestsThen = mock.requests();
    expect(requestsThen, 'four calls, one per operation').toBe(4);

    const json = await doctor(env, ['--json']);
    const report = JSON.parse(json.output) as { result: string; calls: Record<string, number>; accepted: string[] };
    expect(report.result).toBe('ok');
    expect(report.calls).toEqual({ 'bill-enquiry': 1, 'bill-payment': 1, 'moi-enquiry': 1, 'moi-payment': 1 });
    expect(report.accepted.sort()).toEqual(['bill-enquiry', 'moi-enquiry']);

    const wrong = await doctor({ ...env, SADAD_TLS_PASSPHRASE: 'not-the-passphrase' });
    expect(wrong.code).toBe(2);
    expect(wrong.output).toContain('SADAD_TLS_PASSPHRASE');
    expect(mock.requests(), 'a configuration error sends nothing').toBe(requestsThen * 2);
  });
});
