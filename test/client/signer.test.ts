import { createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from '../../src/paths.js';
import { loadSigner, SIGNATURE_HEADER } from '../../src/client/signer.js';
import { ConfigError } from '../../src/contract/prefix.js';
import { isSecretHeader } from '../../src/client/redact.js';

const key = (f: string) => join(ROOT, 'data/test-keys', f);
const publicKey = createPublicKey(readFileSync(key('signing-public.pem')));
const body = { Message: { SvcSadadBillEnquiryRequest: { TransactionType: 'SADADENQ', SvcSadadBillEnquiry: [] } } };

for (const [file, passphrase] of [['signing-private.pem', undefined], ['signing-private.p12', 'test-only-passphrase']] as const) {
  test(`the built-in signer with ${file}: RSA-SHA256 over the serialized Message, verifiable with the public key`, async () => {
    const signer = (await loadSigner({ signingKey: key(file), passphrase }))!;
    const headers = signer.sign({ bodyText: JSON.stringify(body), body, headers: {} });
    const signature = headers[SIGNATURE_HEADER]!;
    expect(verify('sha256', Buffer.from(JSON.stringify(body.Message)), publicKey, Buffer.from(signature, 'base64'))).toBe(true);
    expect(isSecretHeader(SIGNATURE_HEADER)).toBe(true);
  });
}

test('a PKCS#12 file with the wrong passphrase is a configuration error naming SADAD_SIGNING_KEY', async () => {
  const error = await loadSigner({ signingKey: key('signing-private.p12'), passphrase: 'wrong' }).catch((e) => e);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.variable).toBe('SADAD_SIGNING_KEY');
});

test('no key and no module: requests go unsigned', async () => {
  expect(await loadSigner({})).toBeUndefined();
});

test('SADAD_SIGNER replaces the built-in signer, and its header is masked like a signature', async () => {
  const signer = (await loadSigner({ signer: join(ROOT, 'test/client/fixtures/hmac-signer.mjs'), passphrase: 'k3y' }))!;
  expect(signer.name).toBe('sha256(base64(body) + key)');
  expect(Object.keys(signer.sign({ bodyText: '{}', body: {}, headers: {} }))).toEqual(['X-Body-Hash']);
  expect(isSecretHeader('x-body-hash')).toBe(true);
  const error = await loadSigner({ signer: join(ROOT, 'package.json') }).catch((e) => e);
  expect(error).toBeInstanceOf(ConfigError);
  expect(error.variable).toBe('SADAD_SIGNER');
});
