/**
 * The mock over HTTPS (MOCK_TLS_CERT, MOCK_TLS_KEY, MOCK_TLS_CLIENT_CA): read and checked before
 * anything listens, each mistake a ConfigError naming the variable (the option field, from code);
 * `npm run mock` says what it serves and stops with exit 2 on a bad file.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../src/contract/prefix.js';
import { mockOptionsFromEnv, resolveMockOptions, startMock } from '../../src/mock/index.js';
import { ROOT } from '../../src/paths.js';
import { mockTls, pki } from './pki.js';

test('MOCK_TLS_* make an HTTPS mock, asking for a client certificate with MOCK_TLS_CLIENT_CA; without them nothing changes', async () => {
  const p = pki();
  const o = mockOptionsFromEnv({ MOCK_PORT: '0', MOCK_TLS_CERT: p.serverCert, MOCK_TLS_KEY: p.serverKey, MOCK_TLS_CLIENT_CA: p.caCert });
  expect(o.tls).toEqual({ cert: p.pem.serverCert, key: p.pem.serverKey, clientCa: p.pem.caCert });
  expect(mockOptionsFromEnv({ MOCK_TLS_CERT: p.serverCert, MOCK_TLS_KEY: p.serverKey }).tls?.clientCa).toBeUndefined();
  expect(mockOptionsFromEnv({}).tls).toBeUndefined();
  const mock = await startMock(o);
  try {
    expect(mock.url).toBe(`https://127.0.0.1:${mock.port}`);
  } finally {
    await mock.close();
  }
  const plain = await startMock({ port: 0 });
  await plain.close();
  expect(plain.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
});

test('a bad MOCK_TLS_* value is a ConfigError naming the variable; bad `tls` options name the field', () => {
  const p = pki();
  const pair = { MOCK_TLS_CERT: p.serverCert, MOCK_TLS_KEY: p.serverKey };
  const bad: [string, NodeJS.ProcessEnv, string][] = [
    ['no such certificate file', { ...pair, MOCK_TLS_CERT: join(p.dir, 'nope.pem') }, 'MOCK_TLS_CERT'],
    ['no such key file', { ...pair, MOCK_TLS_KEY: join(p.dir, 'nope.pem') }, 'MOCK_TLS_KEY'],
    ['no such CA file', { ...pair, MOCK_TLS_CLIENT_CA: join(p.dir, 'nope.pem') }, 'MOCK_TLS_CLIENT_CA'],
    ['a key, no certificate', { MOCK_TLS_KEY: p.serverKey }, 'MOCK_TLS_CERT'],
    ['a certificate, no key', { MOCK_TLS_CERT: p.serverCert }, 'MOCK_TLS_KEY'],
    ['a client CA over plain HTTP', { MOCK_TLS_CLIENT_CA: p.caCert }, 'MOCK_TLS_CLIENT_CA'],
    ['a key in the certificate\'s place', { ...pair, MOCK_TLS_CERT: p.serverKey }, 'MOCK_TLS_CERT'],
    ['another certificate\'s key', { ...pair, MOCK_TLS_KEY: p.clientKey }, 'MOCK_TLS_KEY'],
    ['an encrypted key', { ...pair, MOCK_TLS_CERT: p.clientCert, MOCK_TLS_KEY: p.clientKeyEncrypted }, 'MOCK_TLS_KEY'],
    ['a DER client CA', { ...pair, MOCK_TLS_CLIENT_CA: p.caDer }, 'MOCK_TLS_CLIENT_CA'],
  ];
  for (const [name, env, variable] of bad) {
    expect(() => mockOptionsFromEnv(env), name).toThrow(ConfigError);
    expect(() => mockOptionsFromEnv(env), name).toThrow(new RegExp(`^${variable}: `));
  }
  const tls = mockTls(true);
  expect(() => resolveMockOptions({ tls: { ...tls, key: 'not a key' } })).toThrow(/^tls\.key: /);
  expect(() => resolveMockOptions({ tls: { ...tls, cert: tls.clientCa! } })).toThrow(/^tls\.key: does not belong/);
  expect(() => resolveMockOptions({ tls: { ...tls, clientCa: '' } })).toThrow(/^tls\.clientCa: /);
});

function mockCli(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/mock.ts')], {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), MOCK_PORT: '0', ...env },
    });
    let output = '';
    const onData = (d: Buffer) => { output += d; if (/TLS: /.test(output)) child.kill('SIGINT'); };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => done({ code, output }));
  });
}

test('npm run mock: an HTTPS URL and what the handshake asks for; a bad file stops it with exit 2 before it listens', async () => {
  const p = pki();
  const ok = await mockCli({ MOCK_TLS_CERT: p.serverCert, MOCK_TLS_KEY: p.serverKey, MOCK_TLS_CLIENT_CA: p.caCert });
  expect(ok.output).toMatch(/listening on https:\/\/127\.0\.0\.1:\d+/);
  expect(ok.output).toContain('TLS: CN=localhost');
  expect(ok.output).toContain('client certificate');
  const bad = await mockCli({ MOCK_TLS_CERT: p.serverCert, MOCK_TLS_KEY: p.otherClientKey });
  expect(bad.code).toBe(2);
  expect(bad.output).toContain('mock: MOCK_TLS_KEY: does not belong to the certificate');
  expect(bad.output).not.toContain('listening');
});
