/**
 * A gateway that refuses the client certificate over HTTP, after the handshake (issue 24). Real
 * nginx 1.22 with `ssl_verify_client on` (examples/gateways/nginx-mtls.conf) in front of the mock
 * completes the handshake with any certificate, or none, and answers HTTP 400: the preflight read
 * that as a refused message form and blamed SADAD_TAG_PREFIX, and its TLS step called another CA's
 * certificate "accepted". Here: the finding names the client certificate and its variables, the TLS
 * step never says "accepted", the right certificate is ready, and a run stops with exit 2 in
 * seconds within the preflight's 4 calls. Then the recogniser against other gateways' answers, as
 * their documentation and sources give them (src/preflight/diagnose.ts cites each), and against
 * an API's own 400/401/403, which keep their diagnosis.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Exchange } from '../../src/client/exchange.js';
import { registerSecret } from '../../src/client/redact.js';
import { configFromVariables, secretValues, type SuiteConfig } from '../../src/config/index.js';
import { operations } from '../../src/contract/catalogue.js';
import { closeDispatcher } from '../../src/net/index.js';
import { clientCertificateRefusal, diagnoseProbes, type Probe } from '../../src/preflight/diagnose.js';
import { runPreflight, type PreflightReport } from '../../src/preflight/index.js';
import { configuredClient } from '../../src/suite/runtime.js';
import { hostPort, startGateway, type Gateway } from '../support/gateways.js';
import { pki } from '../net/pki.js';
import { startCountedMock, targetEnv, RAISED, type CountedMock } from '../net/servers.js';
import { runSuite } from '../suite/run-suite.js';

test.describe.configure({ timeout: 120_000 });

/** The mock over plain http, behind nginx terminating TLS with a client certificate required. */
async function behindNginx(body: (gw: Gateway, mock: CountedMock) => Promise<void>, limits: Parameters<typeof startCountedMock>[0] = RAISED): Promise<void> {
  const p = pki();
  const mock = await startCountedMock(limits);
  let gw: Gateway | undefined;
  try {
    gw = await startGateway('nginx', 'nginx-mtls.conf', { UPSTREAM: hostPort(mock.url), SERVER_CERT: p.serverCert, SERVER_KEY: p.serverKey, CLIENT_CA: p.caCert }, { tls: true });
    await body(gw, mock);
  } finally {
    await gw?.stop();
    await mock.close();
  }
}

/** The calls that reached nginx: one access-log line each, the refused ones too. */
const callsAt = (gw: Gateway) => gw.log('access.log').split('\n').filter((l) => l.includes('"POST /api/')).length;

/** The preflight in this process, as `npm run doctor` runs it. */
async function preflight(env: Record<string, string>): Promise<PreflightReport> {
  const config = configFromVariables(env);
  for (const s of secretValues(config)) registerSecret(s);
  try {
    return await runPreflight({ config, client: await configuredClient(config), env: {} });
  } finally {
    await closeDispatcher(config.network);
  }
}

const blocking = (r: PreflightReport) => r.findings.filter((f) => f.severity === 'blocking');
const all = (r: PreflightReport) => r.findings.map((f) => `${f.text}\n${f.fix ?? ''}`).join('\n');
const tlsEvidence = (r: PreflightReport) => r.steps.find((s) => s.id === 'tls')!.evidence;

test.describe('real nginx with ssl_verify_client on', () => {
  test('(a) no client certificate configured: blocking, naming the client certificate and SADAD_TLS_PFX / SADAD_TLS_CERT, not the prefixes', async () => {
    await behindNginx(async (gw, mock) => {
      const r = await preflight({ ...targetEnv(mock), SADAD_BASE_URL: gw.url, SADAD_CA_FILE: pki().caCert });
      expect(r.result).toBe('blocked');
      const b = blocking(r);
      expect(b, all(r)).toHaveLength(1);
      expect(b[0]!.step).toBe('operations');
      expect(b[0]!.text).toMatch(/requires a client certificate \(mutual TLS\) and none is configured/);
      expect(b[0]!.text).toContain('HTTP 400 "No required SSL certificate was sent"');
      expect(b[0]!.fix).toMatch(/SADAD_TLS_PFX/);
      expect(b[0]!.fix).toMatch(/SADAD_TLS_CERT and SADAD_TLS_KEY/);
      expect(all(r), 'the message form is not blamed').not.toMatch(/SADAD_TAG_PREFIX|SADAD_HEADER_PREFIX/);
      // the TLS step itself completed: nginx lets the handshake through without a certificate
      expect(r.steps.find((s) => s.id === 'tls')!.status).toBe('ok');
      expect(tlsEvidence(r)).toContain('client certificate: none configured; the handshake completed without one, but the gateway refused the calls at the HTTP layer for want of one: see the operations step');
      expect(mock.requests(), 'nginx refused every call itself').toBe(0);
      expect(callsAt(gw)).toBe(4);
    });
  });

  test('(b) a certificate from another CA: blocking, the certificate named as refused; the TLS step never says accepted', async () => {
    await behindNginx(async (gw, mock) => {
      const p = pki();
      const r = await preflight({ ...targetEnv(mock), SADAD_BASE_URL: gw.url, SADAD_CA_FILE: p.caCert, SADAD_TLS_CERT: p.otherClientCert, SADAD_TLS_KEY: p.otherClientKey });
      expect(r.result).toBe('blocked');
      const b = blocking(r);
      expect(b, all(r)).toHaveLength(1);
      expect(b[0]!.text).toMatch(/the gateway refused the client certificate offered \(SADAD_TLS_CERT: CN=MYCOMPANY client \(other CA\).*issued by CN=Some Other CA/);
      expect(b[0]!.text).toContain('HTTP 400 "The SSL certificate error"');
      expect(b[0]!.fix).toMatch(/not issued by the CA the gateway trusts, has expired or been revoked, or is another company's/);
      expect(b[0]!.fix).toMatch(/SADAD_TLS_CERT and SADAD_TLS_KEY/);
      expect(all(r)).not.toMatch(/SADAD_TAG_PREFIX|SADAD_HEADER_PREFIX/);
      const line = tlsEvidence(r).find((e) => e.startsWith('client certificate:'));
      expect(line).toBe('client certificate: not required by the handshake (one without it completed too); the one offered (CN=MYCOMPANY client (other CA), O=sadad-conformance tests) completed the handshake, but the gateway refused it at the HTTP layer: see the operations step');
      for (const e of tlsEvidence(r)) expect(e, 'the TLS step never calls it accepted').not.toMatch(/accepted/i);
      expect(mock.requests()).toBe(0);
      expect(callsAt(gw)).toBe(4);
    });
  });

  test('(c) the right certificate, PKCS#12: ready, no blocking finding, the enquiries answered', async () => {
    await behindNginx(async (gw, mock) => {
      const p = pki();
      const r = await preflight({ ...targetEnv(mock), SADAD_BASE_URL: gw.url, SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase });
      expect(blocking(r), all(r)).toEqual([]);
      expect(r.result).not.toBe('blocked');
      expect(r.accepted.sort()).toEqual(['bill-enquiry', 'moi-enquiry']);
      expect(tlsEvidence(r)).toContain('client certificate: not required by the handshake (one without it completed too); the one offered (CN=MYCOMPANY client, O=sadad-conformance tests) completed the handshake; a gateway may still judge it over HTTP, which the calls show');
      expect(JSON.stringify(r), 'the passphrase is never recorded').not.toContain(p.passphrase);
      expect(mock.requests(), 'nginx passed the four calls on').toBe(4);
    });
  });

  test('(d) a certify run: exit 2 within 15 s, at most 4 API calls, the certificate named', async () => {
    // the real limits (60 s window, 10 and 3 calls): the preflight's 4 calls fit them at once
    await behindNginx(async (gw, mock) => {
      const p = pki();
      // one case selected: a stop that failed would run one case, not 453
      const run = await runSuite({ ...targetEnv(mock), SADAD_BASE_URL: gw.url, SADAD_CA_FILE: p.caCert, SADAD_TLS_CERT: p.otherClientCert, SADAD_TLS_KEY: p.otherClientKey, SADAD_CASES: 'bill-enquiry.res.schema' });
      const calls = callsAt(gw);
      console.log(`certify behind nginx with another CA's certificate: exit ${run.code} in ${(run.durationMs / 1000).toFixed(1)} s, ${calls} API calls`);
      expect(run.code, run.output.slice(-3000)).toBe(2);
      expect(run.durationMs, 'the whole run, Playwright and all, stops within 15 s').toBeLessThan(15_000);
      expect(calls, 'at most the preflight\'s 4 calls reached the gateway').toBeLessThanOrEqual(4);
      expect(mock.requests()).toBe(0);
      expect(run.output).toContain('Stopped before the first case (exit 2)');
      expect(run.output).toMatch(/the gateway refused the client certificate offered \(SADAD_TLS_CERT/);
      expect(run.output).not.toMatch(/SADAD_TAG_PREFIX|SADAD_HEADER_PREFIX/);
      const file = join(run.reportsDir, 'certification.json');
      expect(existsSync(file)).toBe(true);
      const report = JSON.parse(readFileSync(file, 'utf8')) as { outcome: { certifies: boolean }; connection: PreflightReport; counts: { byVerdict: Record<string, number> } };
      expect(report.outcome.certifies).toBe(false);
      expect(report.connection.result).toBe('blocked');
      expect(report.connection.durationMs).toBeLessThan(15_000);
      expect(Object.values(report.connection.calls).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(4);
      expect(report.counts.byVerdict.NOT_RUN, 'the selected case did not run').toBe(1);
      const line = report.connection.steps.find((s) => s.id === 'tls')!.evidence.find((e) => e.startsWith('client certificate:'));
      expect(line).toMatch(/refused it at the HTTP layer/);
    }, { rateWindowSeconds: 60, rateLimits: { bill: 10, moi: 3 } });
  });
});

// ---- the recogniser, against each gateway's answer -------------------------------------------

const BASE = 'https://sandbox.bank.example';
const NONE = { SADAD_BASE_URL: BASE, SADAD_ACCESS_TOKEN: 'tok-0123456789', SADAD_COMPANY_ID: 'MYCOMPANY' };
let configs: { none: SuiteConfig; pem: SuiteConfig } | undefined;
const config = (which: 'none' | 'pem') => {
  const p = pki();
  configs ??= { none: configFromVariables(NONE), pem: configFromVariables({ ...NONE, SADAD_TLS_CERT: p.otherClientCert, SADAD_TLS_KEY: p.otherClientKey }) };
  return configs[which];
};

/** Every operation answered the same: status, body, headers. */
function answered(status: number, body: string, headers: Record<string, string> = {}): Probe[] {
  let json: unknown;
  try { json = JSON.parse(body); } catch { /* not JSON */ }
  return operations.map((op) => {
    const ex: Exchange = {
      label: 'preflight', op: op.id, request: { method: 'POST', url: `${BASE}${op.path}`, headers: {}, body: '{}' },
      response: { status, headers: { 'content-type': json === undefined ? 'text/html' : 'application/json', ...headers }, body },
      ...(json === undefined ? {} : { json }), startedAt: new Date().toISOString(), durationMs: 12,
    };
    return { op: op.id, ex };
  });
}

const nginxPage = (title: string, line: string, server = 'nginx/1.22.1') => `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>${line}</center>\r\n<hr><center>${server}</center>\r\n</body>\r\n</html>\r\n`;

/** Gateways' answers that name the certificate: [what, status, body, headers, missing or refused]. */
const CERTIFICATE: [string, number, string, Record<string, string>, 'missing' | 'refused'][] = [
  ['nginx 1.22, no certificate', 400, nginxPage('400 No required SSL certificate was sent', 'No required SSL certificate was sent'), { server: 'nginx/1.22.1' }, 'missing'],
  ['nginx 1.22, another CA', 400, nginxPage('400 The SSL certificate error', 'The SSL certificate error'), { server: 'nginx/1.22.1' }, 'refused'],
  ['Apigee Edge Router', 400, nginxPage('400 The SSL certificate error', 'The SSL certificate error', 'nginx'), {}, 'refused'],
  ['Cloudflare\'s nginx', 400, nginxPage('400 No required SSL certificate was sent', 'No required SSL certificate was sent', 'cloudflare'), { server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f6a7b-FRA' }, 'missing'],
  ['nginx error_page 496 (a site\'s own page)', 496, '<html><body><h1>Certificate needed</h1><p>Please contact the bank.</p></body></html>', {}, 'missing'],
  ['nginx error_page 495', 495, '', {}, 'refused'],
  ['HAProxy http-request return status 496', 496, 'no client certificate', { 'content-type': 'text/plain' }, 'missing'],
  ['Pomerium 495', 495, 'invalid client certificate', { 'content-type': 'text/plain' }, 'refused'],
  ['Kong mtls-auth, no certificate', 401, '{"message":"No required TLS certificate was sent"}', { server: 'kong/3.4.2', 'x-kong-response-latency': '0' }, 'missing'],
  ['Kong mtls-auth, another CA', 401, '{"message":"TLS certificate failed verification"}', { server: 'kong/3.4.2' }, 'refused'],
  ['Kong mtls-auth 1.x, 496', 496, '{"message":"No required TLS certificate was sent"}', { server: 'kong/1.5.0' }, 'missing'],
  ['APIcast tls_validation, no certificate', 400, 'No required TLS certificate was sent\n', { 'content-type': 'text/plain' }, 'missing'],
  ['APIcast tls_validation, another CA', 400, 'TLS certificate validation failed\n', { 'content-type': 'text/plain' }, 'refused'],
  // the policy's reason, as an on-error section returns it (ErrorSource / ErrorReason headers)
  ['API Management validate-client-certificate, none', 401, '', { errorsource: 'validate-client-certificate', errorreason: 'ClientCertificateNotFound' }, 'missing'],
  ['API Management validate-client-certificate, untrusted', 401, '', { errorsource: 'validate-client-certificate', errorreason: 'ClientCertificateNotTrusted' }, 'refused'],
  ['API Management return-response', 403, '{"statusCode":403,"message":"Client certificate required"}', {}, 'missing'],
  ['API Management return-response, thumbprint', 403, '{"statusCode":403,"message":"Client certificate is untrusted or invalid"}', {}, 'refused'],
  ['OCI API Gateway', 401, '{"code":401,"message":"Client certificate is invalid for this gateway"}', {}, 'refused'],
];

test.describe('the recogniser: gateways that name the certificate', () => {
  for (const [what, status, body, headers, kind] of CERTIFICATE) {
    test(`${what}: HTTP ${status}, the client certificate ${kind}`, () => {
      const probes = answered(status, body, headers);
      expect(clientCertificateRefusal(probes)?.kind).toBe(kind);
      const none = diagnoseProbes(probes, config('none'));
      expect(none).toHaveLength(1);
      expect(none[0]!.severity).toBe('blocking');
      expect(none[0]!.text).toMatch(/requires a client certificate \(mutual TLS\) and none is configured/);
      expect(none[0]!.fix).toMatch(/SADAD_TLS_PFX.*SADAD_TLS_PASSPHRASE.*SADAD_TLS_CERT and SADAD_TLS_KEY/);
      const pem = diagnoseProbes(probes, config('pem'));
      expect(pem).toHaveLength(1);
      expect(pem[0]!.severity).toBe('blocking');
      if (kind === 'refused') {
        expect(pem[0]!.text).toMatch(/refused the client certificate offered \(SADAD_TLS_CERT: CN=MYCOMPANY client \(other CA\)/);
        expect(pem[0]!.fix).toMatch(/not issued by the CA the gateway trusts.*SADAD_TLS_CERT and SADAD_TLS_KEY/);
      } else {
        expect(pem[0]!.text).toMatch(/no client certificate reached it, though one is configured \(SADAD_TLS_CERT/);
        expect(pem[0]!.fix).toMatch(/TLS-inspecting proxy/);
      }
      for (const f of [...none, ...pem]) expect(`${f.text} ${f.fix}`).not.toMatch(/SADAD_TAG_PREFIX|SADAD_HEADER_PREFIX|SADAD_ACCESS_TOKEN/);
    });
  }

  test('a refusal on some operations only names them', () => {
    const refused = answered(400, nginxPage('400 No required SSL certificate was sent', 'No required SSL certificate was sent'));
    const ok = answered(200, '{"SvcSadadMOIEnquiryResponse":{}}');
    const probes = refused.map((p, i) => (operations[i]!.id.startsWith('bill') ? p : ok[i]!));
    const f = diagnoseProbes(probes, config('none'));
    expect(f[0]!.text).toMatch(/refused Bill Enquiry, Bill Payment at the HTTP layer/);
  });
});

/** A gateway's bare refusal some use for a certificate: the credential diagnosis stays, and mentions the certificate. */
const MAYBE: [string, number, string, Record<string, string>, RegExp][] = [
  ['Envoy RBAC', 403, 'RBAC: access denied', { 'content-type': 'text/plain', server: 'envoy' }, /Envoy \(RBAC filter\)/],
  ['AWS API Gateway, truststore', 403, '{"message":"Forbidden"}', { 'x-amzn-errortype': 'ForbiddenException', 'x-amzn-requestid': '5b8e1c4e-0000-4000-8000-000000000000' }, /AWS API Gateway/],
  ['HAProxy deny', 403, '<html><body><h1>403 Forbidden</h1>\nRequest forbidden by administrative rules.\n</body></html>\n', { 'content-type': 'text/html' }, /HAProxy/],
  ['Cloudflare WAF block', 403, '<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body><h1>Sorry, you have been blocked</h1></body></html>', { server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f6a7b-FRA' }, /Cloudflare/],
];

test.describe('the recogniser: gateways whose 403 may be about the certificate', () => {
  for (const [what, status, body, headers, gateway] of MAYBE) {
    test(`${what}: the credential finding stays, and names the certificate as a possibility`, () => {
      const probes = answered(status, body, headers);
      expect(clientCertificateRefusal(probes)).toBeUndefined();
      const [f] = diagnoseProbes(probes, config('none'));
      expect(f!.text).toMatch(/refused the credentials on all 4 operations \(HTTP 403\)/);
      expect(f!.fix).toMatch(/SADAD_COMPANY_ID=MYCOMPANY may not call this/);
      expect(f!.fix).toMatch(gateway);
      expect(f!.fix).toMatch(/when the sandbox requires mutual TLS, set SADAD_TLS_PFX/);
      const [g] = diagnoseProbes(probes, config('pem'));
      expect(g!.fix).toMatch(/check that SADAD_TLS_CERT \(CN=MYCOMPANY client \(other CA\)/);
    });
  }
});

test.describe('the recogniser: an API\'s own 400/401/403 keeps its diagnosis', () => {
  test('a JSON 400 about a field: the request is compared, no certificate', () => {
    const probes = answered(400, '{"errors":[{"field":"BillerId","message":"BillerId is required"}]}');
    expect(clientCertificateRefusal(probes)).toBeUndefined();
    const f = diagnoseProbes(probes, config('pem'));
    expect(f.map((x) => x.text)).toEqual([
      `a minimal valid Bill Enquiry request was refused with HTTP 400: {"errors":[{"field":"BillerId","message":"BillerId is required"}]}`,
      `a minimal valid MOI Fee Enquiry request was refused with HTTP 400: {"errors":[{"field":"BillerId","message":"BillerId is required"}]}`,
    ]);
    expect(f[0]!.fix).toMatch(/SADAD_TAG_PREFIX/);
    for (const x of f) expect(`${x.text} ${x.fix}`).not.toMatch(/certificate/i);
  });

  test('a 400 naming another deployment\'s root tag still suggests SADAD_TAG_PREFIX', () => {
    const f = diagnoseProbes(answered(400, '{"error":"expected root OSVSadadBillEnquiryRequest"}'), config('none'));
    expect(f[0]!.fix).toBe('the answer names the tag OSVSadadBillEnquiryRequest: set SADAD_TAG_PREFIX=OSV (now Svc)');
  });

  test('a 401 invalid_token: the bearer token, no certificate', () => {
    const probes = answered(401, '{"error":"invalid_token","error_description":"The access token expired"}', { 'www-authenticate': 'Bearer error="invalid_token", error_description="The access token expired"' });
    expect(clientCertificateRefusal(probes)).toBeUndefined();
    const [f] = diagnoseProbes(probes, config('pem'));
    expect(f!.text).toMatch(/refused the credentials on all 4 operations \(HTTP 401\)/);
    expect(f!.fix).toMatch(/^the bearer token in SADAD_ACCESS_TOKEN was refused/);
    expect(`${f!.text} ${f!.fix}`).not.toMatch(/certificate/i);
  });

  test('a 401 about the signature\'s certificate is the signature\'s, not the client certificate\'s', () => {
    const [f] = diagnoseProbes(answered(401, '{"message":"Signature verification failed: unknown signing certificate"}'), config('none'));
    expect(f!.fix).toMatch(/the target requires a signature: set SADAD_SIGNING_KEY/);
    expect(f!.fix).not.toMatch(/SADAD_TLS/);
  });

  test('an ordinary JSON 403 of the service: no certificate hint', () => {
    const [f] = diagnoseProbes(answered(403, '{"message":"operation not enabled"}', { server: 'envoy' }), config('none'));
    expect(f!.fix).toMatch(/may not call this/);
    expect(f!.fix).not.toMatch(/certificate/i);
  });
});
