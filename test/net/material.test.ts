/**
 * TLS material is checked before the first call (design.md §10): a file that cannot be read, a
 * wrong passphrase, a key that is not the certificate's, an expired client certificate or a CA
 * file without a certificate stops the run naming the variable to change, and never shows the
 * passphrase. End to end: such a run exits 2 with nothing sent.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import Fastify from 'fastify';
import { ConfigError, configFromVariables } from '../../src/config/index.js';
import { tlsMaterialFromEnv } from '../../src/net/index.js';
import { runSuite } from '../suite/run-suite.js';
import { pki } from './pki.js';

/** The ConfigError `env` raises: its variable and message (fails the test when nothing is thrown). */
function refusal(env: NodeJS.ProcessEnv, now?: number): { variable: string; message: string } {
  try {
    tlsMaterialFromEnv(env, now);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return { variable: (e as ConfigError).variable, message: (e as Error).message };
  }
  throw new Error(`no ConfigError for ${JSON.stringify(env)}`);
}

test('good material opens: a CA bundle, a PEM pair, an encrypted PEM key with its passphrase, a PKCS#12 with its passphrase', () => {
  const p = pki();
  const m = tlsMaterialFromEnv({ SADAD_CA_FILE: p.caCert });
  expect(m.ca?.certs.map((c) => c.subject)).toEqual([expect.stringContaining('CN=Test Sandbox Root CA')]);
  expect(m.client).toBeNull();
  for (const env of [
    { SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.clientKey },
    { SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.clientKeyEncrypted, SADAD_TLS_PASSPHRASE: p.passphrase },
    { SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase },
  ]) {
    const c = tlsMaterialFromEnv(env).client;
    expect(c?.info.subject, JSON.stringify(env)).toContain('CN=MYCOMPANY client');
    expect(c?.info.daysLeft).toBeGreaterThan(25);
    // the key the TLS layer gets is usable as is: no passphrase left to ask for
    expect(c?.keyPem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
  }
  // the PKCS#12 carries the CA too: the leaf is the key's certificate, whatever the bag order
  const pfx = tlsMaterialFromEnv({ SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase }).client!;
  expect(pfx.certPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  expect(pfx.info.issuer).toContain('CN=Test Sandbox Root CA');
});

test('each bad piece of TLS material is a ConfigError naming its variable, without the passphrase', () => {
  const p = pki();
  const folder = mkdtempSync(join(tmpdir(), 'sadad-notafile-'));
  const cases: [string, NodeJS.ProcessEnv, string, RegExp][] = [
    ['missing CA file', { SADAD_CA_FILE: join(p.dir, 'nope.pem') }, 'SADAD_CA_FILE', /does not exist/],
    ['CA file is a folder', { SADAD_CA_FILE: folder }, 'SADAD_CA_FILE', /is a folder/],
    ['CA file in DER, no PEM certificate', { SADAD_CA_FILE: p.caDer }, 'SADAD_CA_FILE', /holds no PEM certificate/],
    ['CA file holding a key, not a certificate', { SADAD_CA_FILE: p.clientKey }, 'SADAD_CA_FILE', /holds no PEM certificate/],
    ['missing client certificate file', { SADAD_TLS_CERT: join(p.dir, 'nope.pem'), SADAD_TLS_KEY: p.clientKey }, 'SADAD_TLS_CERT', /does not exist/],
    ['missing key file', { SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: join(p.dir, 'nope.pem') }, 'SADAD_TLS_KEY', /does not exist/],
    ['certificate without a key', { SADAD_TLS_CERT: p.clientCert }, 'SADAD_TLS_KEY', /is required/],
    ['key without a certificate', { SADAD_TLS_KEY: p.clientKey }, 'SADAD_TLS_CERT', /is required/],
    ['missing PKCS#12 file', { SADAD_TLS_PFX: join(p.dir, 'nope.p12'), SADAD_TLS_PASSPHRASE: p.passphrase }, 'SADAD_TLS_PFX', /does not exist/],
    ['PKCS#12 that is a PEM file', { SADAD_TLS_PFX: p.clientCert, SADAD_TLS_PASSPHRASE: p.passphrase }, 'SADAD_TLS_PFX', /not a PKCS#12/],
    ['PKCS#12, wrong passphrase', { SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: `${p.passphrase}x` }, 'SADAD_TLS_PASSPHRASE', /does not open/],
    ['PKCS#12, no passphrase', { SADAD_TLS_PFX: p.clientPfx }, 'SADAD_TLS_PASSPHRASE', /is required/],
    ['encrypted PEM key, wrong passphrase', { SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.clientKeyEncrypted, SADAD_TLS_PASSPHRASE: `${p.passphrase}x` }, 'SADAD_TLS_PASSPHRASE', /wrong passphrase/],
    ['encrypted PEM key, no passphrase', { SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.clientKeyEncrypted }, 'SADAD_TLS_PASSPHRASE', /is required/],
    ['key of another certificate', { SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.otherClientKey }, 'SADAD_TLS_KEY', /does not belong to the certificate/],
    ['expired client certificate (PEM)', { SADAD_TLS_CERT: p.expiredClientCert, SADAD_TLS_KEY: p.clientKey }, 'SADAD_TLS_CERT', /expired on/],
    ['expired client certificate (PKCS#12)', { SADAD_TLS_PFX: p.expiredPfx, SADAD_TLS_PASSPHRASE: p.passphrase }, 'SADAD_TLS_PFX', /expired on/],
    ['both PKCS#12 and PEM', { SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase, SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.clientKey }, 'SADAD_TLS_PFX', /not both/],
    ['a passphrase with nothing to open', { SADAD_TLS_PASSPHRASE: p.passphrase }, 'SADAD_TLS_PASSPHRASE', /no client certificate/],
  ];
  for (const [name, env, variable, why] of cases) {
    const r = refusal(env);
    expect(r.variable, name).toBe(variable);
    expect(r.message, name).toMatch(new RegExp(`^${variable}: `));
    expect(r.message, name).toMatch(why);
    expect(r.message.includes(p.passphrase), `${name}: the passphrase is in the message`).toBe(false);
  }
  // a certificate valid today is refused on a clock past its end: the check reads the validity, not a flag
  expect(refusal({ SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase }, Date.now() + 60 * 86_400_000).variable).toBe('SADAD_TLS_PFX');
  // the suite's configuration reads the same material, with the rest of its checks
  const target = { SADAD_BASE_URL: 'https://127.0.0.1:9', SADAD_ACCESS_TOKEN: 'tok-12345', SADAD_COMPANY_ID: 'X' };
  expect(() => configFromVariables({ ...target, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: 'not-the-passphrase' })).toThrow(/^SADAD_TLS_PASSPHRASE: /);
  expect(configFromVariables({ ...target, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase }).network.tls.client?.source).toBe('pfx');
});

test('a wrong passphrase stops the run before the first call: exit 2, the variable named, nothing reached the target', async () => {
  test.setTimeout(90_000);
  const p = pki();
  const connections = { n: 0 };
  const app = Fastify();
  app.server.on('connection', () => { connections.n++; });
  app.all('/*', async () => ({}));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const wrong = `wrong-${p.passphrase}`;
  try {
    const run = await runSuite({
      SADAD_BASE_URL: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`, SADAD_ACCESS_TOKEN: 'tok-12345', SADAD_COMPANY_ID: 'X',
      SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: wrong,
    });
    expect(run.code, run.output.slice(-2000)).toBe(2);
    expect(run.output).toContain('Configuration error: SADAD_TLS_PASSPHRASE');
    expect(run.output.includes(wrong), 'the passphrase is printed').toBe(false);
    expect(connections.n, 'connections the target accepted').toBe(0);
  } finally {
    await app.close();
  }
});
