/**
 * The "done when", as full runs against a mock this test started: through a forward proxy
 * (HTTP_PROXY, with credentials) every call goes through the proxy and the run certifies; against
 * an mTLS target with a private CA and a PKCS#12 client certificate, through a real Squid that
 * wants Basic credentials (HTTPS_PROXY), it certifies too. Neither the proxy password nor the passphrase is in any file the run wrote. The
 * preflight, when there is one, runs as it would for a company: nothing turns it off.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import { caseResults, type SuiteRun } from '../../src/prove/run-suite.js';
import { LOADED_WINDOW, runSuite } from '../suite/run-suite.js';
import { PROXY_SOURCE, startForwardProxy } from './forward-proxy.js';
import { mockTls, pki } from './pki.js';
import { startCountedMock, targetEnv, type CountedMock } from './servers.js';
import { startGateway } from '../support/gateways.js';

test.describe.configure({ mode: 'parallel', timeout: 240_000 });

const WINDOW = Number(LOADED_WINDOW.MOCK_RATE_WINDOW_SECONDS);

function filesUnder(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    out = statSync(full).isDirectory() ? [...out, ...filesUnder(full)] : [...out, full];
  }
  return out;
}

/** Every file the run wrote that holds `secret`, as text or as bytes (a zip or trace stores it raw or not at all). */
function filesHolding(run: SuiteRun, secret: string): string[] {
  const needle = Buffer.from(secret);
  const files = [run.reportsDir, run.resultsDir].flatMap((d) => { try { return filesUnder(d); } catch { return []; } });
  // a scan of nothing would find nothing: the package, its evidence and Playwright's report were written
  expect(files.length).toBeGreaterThan(400);
  expect(files.some((f) => f.endsWith('certification.html'))).toBe(true);
  return files.filter((f) => readFileSync(f).includes(needle));
}

function expectCertified(run: SuiteRun): void {
  const bad = caseResults(run).filter((r) => ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN'].includes(r.verdict));
  expect(bad.map((r) => `${r.id} ${r.verdict}: ${r.notes.map((n) => n.text).join(' | ')}`), run.output.slice(-3000)).toEqual([]);
  expect(run.code, run.output.slice(-3000)).toBe(0);
  expect(caseResults(run).length).toBeGreaterThan(400);
}

/** Calls the run says it sent, from reports/pacing.json. */
function callsSent(run: SuiteRun): number {
  const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as { operations: Record<string, { calls: number }> };
  return Object.values(pacing.operations).reduce((n, s) => n + s.calls, 0);
}

/** Every connection the mock accepted came from the proxy; none straight from the suite. */
function expectOnlyThroughProxy(mock: CountedMock): void {
  expect(Object.fromEntries(mock.connections)).toEqual({ [PROXY_SOURCE]: expect.any(Number) });
}

test('a full run through HTTP_PROXY (with credentials) certifies, and every call went through the proxy', async () => {
  const password = `px-${randomBytes(9).toString('base64url')}`;
  const mock = await startCountedMock({ rateWindowSeconds: WINDOW });
  const proxy = await startForwardProxy({ auth: { user: 'suite', password } });
  try {
    const run = await runSuite({ ...targetEnv(mock), HTTP_PROXY: `http://suite:${password}@127.0.0.1:${proxy.port}` }, [], { html: true });
    expectCertified(run);
    expectOnlyThroughProxy(mock);
    expect([...proxy.tunnels.keys()]).toEqual([`127.0.0.1:${mock.port}`]);
    expect(proxy.refused, 'CONNECTs without the credentials').toBe(0);
    // the mock answered every call the run counted, each of them from the proxy
    expect(mock.requests()).toBeGreaterThanOrEqual(callsSent(run));
    expect(callsSent(run)).toBeGreaterThan(400);
    expect(filesHolding(run, password), 'files holding the proxy password').toEqual([]);
  } finally {
    await proxy.close();
    await mock.close();
  }
});

test('a full run against an mTLS target (private CA, PKCS#12 client certificate) through a real Squid that wants Basic credentials (HTTPS_PROXY) certifies; neither the proxy password nor the passphrase is in any file', async () => {
  const p = pki();
  const password = `sq-${randomBytes(9).toString('base64url')}`;
  const mock = await startCountedMock({ rateWindowSeconds: WINDOW, tls: mockTls(true) });
  // Squid from Debian (examples/gateways/squid-basic-auth.conf), its connections leaving from the proxy's source address
  const squid = await startGateway('squid', 'squid-basic-auth.conf', {}, { users: { suite: password } });
  try {
    const run = await runSuite({
      ...targetEnv(mock), HTTPS_PROXY: `http://suite:${password}@127.0.0.1:${squid.port}`, SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase,
    }, [], { html: true });
    expectCertified(run);
    // every call went through Squid's CONNECT tunnels to the target, as the user, none refused for credentials
    const log = squid.log('access.log').trim().split('\n').filter(Boolean);
    const tunnels = log.filter((l) => / CONNECT /.test(l));
    expect(tunnels.length).toBeGreaterThan(0);
    expect(tunnels.every((l) => l.includes(`CONNECT 127.0.0.1:${mock.port} suite `)), log.slice(0, 5).join('\n')).toBe(true);
    expect(log.filter((l) => /TCP_DENIED\/407/.test(l)), 'CONNECTs Squid refused for credentials').toEqual([]);
    expect(Object.fromEntries(mock.connections)).toEqual({ [PROXY_SOURCE]: expect.any(Number) });
    expect(mock.requests()).toBeGreaterThanOrEqual(callsSent(run));
    expect(filesHolding(run, p.passphrase), 'files holding the passphrase').toEqual([]);
    expect(filesHolding(run, password), 'files holding the proxy password').toEqual([]);
  } finally {
    await squid.stop();
    await mock.close();
  }
});
