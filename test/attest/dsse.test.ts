/**
 * DSSE (src/attest/dsse.ts) against the spec's own reference (secure-systems-lab/dsse,
 * implementation/signing_spec.py: `PAE('http://example.com/HelloWorld', b'hello world')`), and
 * signing and verification with Ed25519: a changed payload, payload type or key is refused.
 */
import { generateKeyPairSync, verify } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { decodeBase64, pae, parseEnvelope, signEnvelope, verifyEnvelope } from '../../src/attest/dsse.js';
import { keyIdOf } from '../../src/attest/keys.js';
import { INTOTO_PAYLOAD_TYPE, parseStatement, STATEMENT_TYPE } from '../../src/attest/statement.js';

const pair = () => { const { privateKey, publicKey } = generateKeyPairSync('ed25519'); return { privateKey, publicKey, keyId: keyIdOf(publicKey) }; };

test('PAE is the reference implementation\'s, byte for byte (lengths in bytes, not characters)', () => {
  expect(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString()).toBe('DSSEv1 29 http://example.com/HelloWorld 11 hello world');
  expect(pae('t', Buffer.from('é')).toString()).toBe('DSSEv1 1 t 2 é');
  expect(pae('', Buffer.alloc(0)).toString()).toBe('DSSEv1 0  0 ');
});

test('a signed envelope verifies with the public key alone, over PAE(payloadType, payload)', () => {
  const k = pair();
  const body = Buffer.from(JSON.stringify({ _type: STATEMENT_TYPE, subject: [{ name: 'a', digest: { sha256: '0'.repeat(64) } }], predicateType: 'x', predicate: {} }));
  const env = signEnvelope(INTOTO_PAYLOAD_TYPE, body, k.privateKey);
  expect(env.payloadType).toBe(INTOTO_PAYLOAD_TYPE);
  expect(env.signatures).toHaveLength(1);
  expect(env.signatures[0]!.keyid).toBe(k.keyId);
  expect(Buffer.from(env.payload, 'base64').equals(body)).toBe(true);
  // independent of verifyEnvelope: node:crypto over the PAE the spec defines
  const message = Buffer.concat([Buffer.from(`DSSEv1 ${INTOTO_PAYLOAD_TYPE.length} ${INTOTO_PAYLOAD_TYPE} ${body.length} `), body]);
  expect(verify(null, message, k.publicKey, Buffer.from(env.signatures[0]!.sig, 'base64'))).toBe(true);
  const r = verifyEnvelope(env, [{ name: 'company.pub', key: k.publicKey, keyId: k.keyId }], INTOTO_PAYLOAD_TYPE);
  expect(r.ok).toBe(true);
  if (r.ok) {
    expect(r.signer.name).toBe('company.pub');
    const st = parseStatement(r.payload);
    expect(typeof st === 'string' ? st : st._type).toBe(STATEMENT_TYPE);
  }
  // URL-safe Base64 is accepted too (the spec asks verifiers to)
  const urlSafe = { ...env, payload: env.payload.replace(/\+/g, '-').replace(/\//g, '_'), signatures: env.signatures.map((s) => ({ ...s, sig: s.sig.replace(/\+/g, '-').replace(/\//g, '_') })) };
  expect(verifyEnvelope(urlSafe, [{ name: 'k', key: k.publicKey, keyId: k.keyId }], INTOTO_PAYLOAD_TYPE).ok).toBe(true);
  expect(decodeBase64('not base64!')).toBeNull();
});

test('a changed payload, another payload type or another key does not verify, and says which', () => {
  const k = pair();
  const other = pair();
  const env = signEnvelope(INTOTO_PAYLOAD_TYPE, Buffer.from('{"a":1}'), k.privateKey);
  const trusted = [{ name: 'company.pub', key: k.publicKey, keyId: k.keyId }];
  const changed = { ...env, payload: Buffer.from('{"a":2}').toString('base64') };
  const r1 = verifyEnvelope(changed, trusted, INTOTO_PAYLOAD_TYPE);
  expect(r1.ok).toBe(false);
  if (!r1.ok) expect(r1.reason).toMatch(/does not verify with company\.pub/);
  const r2 = verifyEnvelope({ ...env, payloadType: 'application/json' }, trusted, INTOTO_PAYLOAD_TYPE);
  expect(!r2.ok && r2.reason).toMatch(/payloadType/);
  const byOther = signEnvelope(INTOTO_PAYLOAD_TYPE, Buffer.from('{"a":1}'), other.privateKey);
  const r3 = verifyEnvelope(byOther, trusted, INTOTO_PAYLOAD_TYPE);
  expect(r3.ok).toBe(false);
  if (!r3.ok) expect(r3.reason).toContain(`signed by key ${other.keyId}, which is none of the keys given`);
  // a forged keyid naming the trusted key changes nothing: the keyid is only a hint
  const lying = { ...byOther, signatures: [{ keyid: k.keyId, sig: byOther.signatures[0]!.sig }] };
  expect(verifyEnvelope(lying, trusted, INTOTO_PAYLOAD_TYPE).ok).toBe(false);
  expect(verifyEnvelope({ ...env, signatures: [] }, trusted, INTOTO_PAYLOAD_TYPE).ok).toBe(false);
  expect(parseEnvelope({ payload: 'x', payloadType: 't' })).toBe('no signatures');
  expect(parseEnvelope([])).toBe('not a JSON object');
});
