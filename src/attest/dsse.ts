/**
 * DSSE v1 (Dead Simple Signing Envelope, github.com/secure-systems-lab/dsse, protocol.md and
 * envelope.md, v1.0.2): the pre-authentication encoding, signing with an Ed25519 key, and
 * verification against a set of trusted public keys.
 *
 *   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 *   envelope        = { payload: Base64(body), payloadType, signatures: [{ keyid, sig: Base64(Sign(PAE)) }] }
 */
import { sign, verify, type KeyObject } from 'node:crypto';
import { keyIdOf } from './keys.js';

export interface DsseSignature { keyid: string; sig: string }
export interface DsseEnvelope { payload: string; payloadType: string; signatures: DsseSignature[] }

/** The pre-authentication encoding of protocol.md: what is signed, never the payload alone. */
export function pae(payloadType: string, body: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
}

/** Signs `body` as `payloadType` with an Ed25519 private key; the key id is the public key's (keys.ts). */
export function signEnvelope(payloadType: string, body: Uint8Array, privateKey: KeyObject): DsseEnvelope {
  const sig = sign(null, pae(payloadType, body), privateKey);
  return { payload: Buffer.from(body).toString('base64'), payloadType, signatures: [{ keyid: keyIdOf(privateKey), sig: sig.toString('base64') }] };
}

/** Standard or URL-safe Base64, as the spec asks a verifier to accept; null when it is neither. */
export function decodeBase64(text: string): Buffer | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return null;
  return Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** The envelope's shape, or what is wrong with it (envelope.md's parsing rules). */
export function parseEnvelope(value: unknown): DsseEnvelope | string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const e = value as Record<string, unknown>;
  if (typeof e.payload !== 'string') return 'no payload';
  if (typeof e.payloadType !== 'string') return 'no payloadType';
  if (!Array.isArray(e.signatures)) return 'no signatures';
  const signatures: DsseSignature[] = [];
  for (const s of e.signatures) {
    if (!s || typeof s !== 'object' || typeof (s as { sig?: unknown }).sig !== 'string') return 'a signature without sig';
    const keyid = (s as { keyid?: unknown }).keyid;
    signatures.push({ keyid: typeof keyid === 'string' ? keyid : '', sig: (s as { sig: string }).sig });
  }
  if (decodeBase64(e.payload) === null) return 'the payload is not Base64';
  return { payload: e.payload, payloadType: e.payloadType, signatures };
}

export interface TrustedKey { name: string; key: KeyObject; keyId: string }

export type EnvelopeCheck =
  | { ok: true; payload: Buffer; signer: TrustedKey }
  | { ok: false; reason: string; keyids: string[] };

/**
 * Verifies the envelope against trusted public keys: some signature must verify with one of them
 * (the keyid only narrows the keys tried; it decides nothing). The payload returned is the one that
 * was verified, never re-read from the envelope.
 */
export function verifyEnvelope(envelope: DsseEnvelope, keys: TrustedKey[], payloadType: string): EnvelopeCheck {
  const keyids = envelope.signatures.map((s) => s.keyid);
  if (envelope.payloadType !== payloadType) return { ok: false, reason: `payloadType is ${JSON.stringify(envelope.payloadType)}, not ${payloadType}`, keyids };
  const body = decodeBase64(envelope.payload);
  if (!body) return { ok: false, reason: 'the payload is not Base64', keyids };
  if (!envelope.signatures.length) return { ok: false, reason: 'it holds no signature', keyids };
  const message = pae(envelope.payloadType, body);
  for (const s of envelope.signatures) {
    const sig = decodeBase64(s.sig);
    if (!sig) continue;
    const candidates = s.keyid ? keys.filter((k) => k.keyId === s.keyid) : keys;
    // a keyid no trusted key has: still tried against every key (the keyid is an unauthenticated hint)
    for (const k of candidates.length ? candidates : keys) {
      let good = false;
      try { good = verify(null, message, k.key, sig); } catch { good = false; }
      if (good) return { ok: true, payload: body, signer: k };
    }
  }
  const known = keyids.filter((id) => keys.some((k) => k.keyId === id));
  return {
    ok: false, keyids,
    reason: known.length
      ? `the signature does not verify with ${keys.filter((k) => known.includes(k.keyId)).map((k) => k.name).join(', ')} (the signed content was changed)`
      : `it was signed by key ${keyids.filter(Boolean).join(', ') || '(no keyid)'}, which is none of the keys given (${keys.map((k) => `${k.name} ${k.keyId.slice(0, 16)}…`).join(', ')})`,
  };
}
