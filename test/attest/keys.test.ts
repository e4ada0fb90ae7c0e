/**
 * The package key (src/attest/keys.ts, SADAD_PACKAGE_KEY) and `npm run keygen`: the key id is the
 * sha256 of the public key's SPKI DER; every bad key (unreadable, encrypted, RSA, a public key, not
 * PEM) and a bad SADAD_PACKAGE_VALID_DAYS is a configuration error naming the variable; a run with
 * one stops before its first call; keygen writes a 0600 private key and refuses to overwrite.
 */
import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { keyIdOf, KeyError, readPrivateKey, readPublicKey } from '../../src/attest/keys.js';
import { ConfigError, configFromVariables, DEFAULT_PACKAGE_VALID_DAYS } from '../../src/config/index.js';
import { keygen } from '../../src/cli/keygen.js';
import { ROOT } from '../../src/paths.js';
import { certify, recordingMock } from '../reporter/helpers.js';

const folder = () => mkdtempSync(join(tmpdir(), 'sadad-keys-'));

function badKeys(dir: string): [string, string, RegExp][] {
  const { privateKey } = generateKeyPairSync('ed25519');
  const encrypted = join(dir, 'encrypted.key');
  writeFileSync(encrypted, privateKey.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'secret' }));
  const pub = join(dir, 'public.pub');
  writeFileSync(pub, createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }));
  const text = join(dir, 'notes.txt');
  writeFileSync(text, 'not a key');
  return [
    ['missing', join(dir, 'nope.key'), /cannot read .*no such file/],
    ['encrypted', encrypted, /is encrypted/],
    ['RSA (the request signer\'s key)', join(ROOT, 'data/test-keys/signing-private.pem'), /rsa key, not Ed25519/],
    ['a public key', pub, /holds no private key \(it is a public key/],
    ['not PEM', text, /not a PEM file/],
  ];
}

test('the key id is the sha256 of the public key\'s SubjectPublicKeyInfo DER, from either half', () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const expected = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
  expect(keyIdOf(publicKey)).toBe(expected);
  expect(keyIdOf(privateKey)).toBe(expected);
  expect(expected).toMatch(/^[0-9a-f]{64}$/);
});

test('every bad SADAD_PACKAGE_KEY is a configuration error naming the variable, and not SADAD_SIGNING_KEY', () => {
  const dir = folder();
  for (const [what, file, why] of badKeys(dir)) {
    expect(() => readPrivateKey(file), what).toThrow(KeyError);
    let error: unknown;
    try { configFromVariables({ SADAD_PACKAGE_KEY: file }); } catch (e) { error = e; }
    expect(error, what).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message, what).toMatch(/^SADAD_PACKAGE_KEY: /);
    expect(message, what).toMatch(why);
    expect(message, what).toContain('not SADAD_SIGNING_KEY');
  }
  for (const days of ['0', '-3', '1.5', 'ninety']) {
    expect(() => configFromVariables({ SADAD_PACKAGE_VALID_DAYS: days }), days).toThrow(/^SADAD_PACKAGE_VALID_DAYS: must be a positive integer/);
  }
  const good = keygen(['--out', join(dir, 'good')]);
  expect(good.code).toBe(0);
  const config = configFromVariables({ SADAD_PACKAGE_KEY: join(dir, 'good.key'), SADAD_PACKAGE_VALID_DAYS: '30' });
  expect(config.packageKey).toBe(join(dir, 'good.key'));
  expect(config.packageValidDays).toBe(30);
  expect(configFromVariables({}).packageValidDays).toBe(DEFAULT_PACKAGE_VALID_DAYS);
  // the bank's side: a private key is never a key to check with
  expect(() => readPublicKey(join(dir, 'good.key'))).toThrow(/is a private key/);
  expect(readPublicKey(join(dir, 'good.pub')).asymmetricKeyType).toBe('ed25519');
});

test('keygen writes a 0600 private key and its public key, and never overwrites a pair', () => {
  const dir = folder();
  const out = join(dir, 'keys', 'company');
  const r = keygen(['--out', out]);
  expect(r.code, r.message).toBe(0);
  expect(statSync(`${out}.key`).mode & 0o777).toBe(0o600);
  expect(readPrivateKey(`${out}.key`).asymmetricKeyType).toBe('ed25519');
  const pub = readPublicKey(`${out}.pub`);
  expect(r.message).toContain(keyIdOf(pub));
  expect(r.message).toContain('SADAD_PACKAGE_KEY=');
  const before = readFileSync(`${out}.key`, 'utf8');
  const again = keygen(['--out', out]);
  expect(again.code).toBe(2);
  expect(again.message).toMatch(/already exist: nothing was written/);
  expect(readFileSync(`${out}.key`, 'utf8')).toBe(before);
  // half a pair is refused too, and nothing is written beside it
  writeFileSync(join(dir, 'half.pub'), 'x');
  expect(keygen(['--out', join(dir, 'half')]).code).toBe(2);
  expect(existsSync(join(dir, 'half.key'))).toBe(false);
  expect(keygen([]).code).toBe(2);
});

test('a run with a bad SADAD_PACKAGE_KEY stops before its first call, naming the variable', async () => {
  test.setTimeout(120_000);
  const mock = await recordingMock({ accessToken: 'package-key-token-0000', companyId: 'KEYTEST' });
  try {
    const run = await certify({
      SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: 'package-key-token-0000', SADAD_COMPANY_ID: 'KEYTEST', SADAD_PAYMENTS: 'on',
      SADAD_PACKAGE_KEY: join(ROOT, 'data/test-keys/signing-private.pem'),
    });
    expect(run.code, run.output).toBe(2);
    expect(run.output).toMatch(/Configuration error: SADAD_PACKAGE_KEY: .*rsa key, not Ed25519/);
    expect(run.output).toContain('Nothing was sent');
    expect(mock.requests, 'no call reached the target').toBe(0);
    expect(existsSync(join(run.reportsDir, 'certification.intoto.json'))).toBe(false);
  } finally {
    await mock.close();
  }
});
