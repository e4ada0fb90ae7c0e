/**
 * Authentication of API calls (spec §5): the required headers and their forms, the bearer token
 * (static, or one this mock issued), the company, the optional client headers of bill operations,
 * and the RSA-SHA256 signature over `Message` when a public key is configured. Every failure is a
 * 401 whose detail names the header; the values themselves are never echoed, they may be secrets.
 */
import { createPublicKey, timingSafeEqual, verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from '../contract/catalogue.js';
import { isSpecTimestamp } from '../contract/formats.js';
import { optionalClientHeaderNames, referenceIdHeader, requiredHeaderNames } from '../contract/headers.js';
import type { Defects } from './defects.js';
import { unauthorized } from './errors.js';
import type { MockOptions } from './options.js';
import type { TokenIssuer } from './token.js';

export const SIGNATURE_HEADER = 'X-Signature';
/** Reference ids seen in a real deployment are 3-16 alphanumerics (domain notes). */
const REFERENCE_ID = /^[A-Za-z0-9]{3,16}$/;

/** `name` as Node keys it in `headers`: lower case (callers on the hot path pass it lowered already). */
function headerValue(headers: IncomingHttpHeaders, name: string, key = name.toLowerCase()): string | undefined {
  const v = headers[key];
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

function sameSecret(a: string, b: string | Buffer): boolean {
  const x = Buffer.from(a);
  const y = typeof b === 'string' ? Buffer.from(b) : b;
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A header's name as errors spell it, and as Node keys it. */
interface HeaderName { name: string; key: string }
const headerName = (name: string): HeaderName => ({ name, key: name.toLowerCase() });

const present = (name: string) => unauthorized({ pointer: `header:${name}`, expected: 'header present', found: 'missing' });

/** The answer to a bearer token that is unknown, expired or revoked (also a `revoke` fault's, faults.ts). */
export const invalidToken = () => unauthorized(
  { pointer: 'header:Authorization', expected: 'an active access token', found: 'an unknown or expired token' },
  { 'www-authenticate': 'Bearer realm="sadad-mock", error="invalid_token"' },
);

/** Whether `signature` (base64) is an RSA-SHA256 signature of `JSON.stringify(message)` under `key`. */
export function verifiesMessage(message: unknown, signature: string, key: KeyObject): boolean {
  try {
    return /^[A-Za-z0-9+/]+={0,2}$/.test(signature) && verify('sha256', Buffer.from(JSON.stringify(message)), key, Buffer.from(signature, 'base64'));
  } catch {
    return false; // a signature of the wrong size for the key: not a valid signature
  }
}

export class Authenticator {
  private readonly publicKey?: KeyObject;
  // Computed once rather than on every call: the header names and the secrets compared against.
  private readonly required: readonly HeaderName[];
  private readonly referenceId: HeaderName;
  private readonly accessToken: Buffer;
  private readonly clientSecret: Buffer;

  constructor(private readonly options: MockOptions, private readonly tokens: TokenIssuer, readonly defects: Defects) {
    if (options.signaturePublicKeyPem !== undefined) this.publicKey = createPublicKey(options.signaturePublicKeyPem);
    this.required = requiredHeaderNames(options.headerPrefix).map(headerName);
    this.referenceId = headerName(referenceIdHeader(options.headerPrefix));
    this.accessToken = Buffer.from(options.accessToken);
    this.clientSecret = Buffer.from(options.clientSecret);
  }

  get signatureRequired(): boolean {
    return this.publicKey !== undefined;
  }

  /**
   * Everything that can be checked before the body is read. Throws a 401 MockError; returns the
   * company the call is attributed to (its budget and its state).
   */
  checkHeaders(op: Operation, headers: IncomingHttpHeaders): string {
    const o = this.options;
    // defect: CompanyId neither required nor checked; the call goes to the configured company
    const anyCompany = this.defects.on('company-id-unchecked', op.id);
    for (const { name, key } of this.required) {
      if (headerValue(headers, name, key) === undefined && !(anyCompany && name === 'CompanyId')) throw present(name);
    }
    const refName = this.referenceId.name;
    if (!REFERENCE_ID.test(headerValue(headers, refName, this.referenceId.key)!)) {
      throw unauthorized({ pointer: `header:${refName}`, expected: '3-16 letters or digits', found: 'another form' });
    }
    const stamp = headerValue(headers, 'DateTimeStamp', 'datetimestamp')!;
    if (!isSpecTimestamp(stamp)) {
      throw unauthorized({ pointer: 'header:DateTimeStamp', expected: 'YYYY-MM-DDTHH:MM:SS (no zone, no fraction)', found: JSON.stringify(stamp.slice(0, 40)) });
    }
    const auth = headerValue(headers, 'Authorization', 'authorization')!;
    const bearer = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!bearer) throw unauthorized({ pointer: 'header:Authorization', expected: 'Bearer <access token>', found: 'another scheme or form' });
    const token = bearer[1]!;
    // defect: the token is never looked up, any Bearer token passes
    if (!sameSecret(token, this.accessToken) && !this.tokens.isActive(token) && !this.defects.on('bad-token-accepted', op.id)) {
      throw invalidToken();
    }
    const company = headerValue(headers, 'CompanyId', 'companyid');
    const known = company !== undefined && (company === o.companyId || (o.extraCompanyIds ?? []).includes(company));
    if (!known) {
      if (!anyCompany) throw unauthorized({ pointer: 'header:CompanyId', expected: 'the company the credentials belong to', found: 'another company' });
    }
    this.checkClientHeaders(op, headers);
    return known ? company : o.companyId;
  }

  /** `clientid`/`clientsecret` (spec §5 rule 2): checked when sent, demanded only when configured so. */
  private checkClientHeaders(op: Operation, headers: IncomingHttpHeaders): void {
    const [idName, secretName] = optionalClientHeaderNames(op);
    if (idName === undefined || secretName === undefined) return;
    const id = headerValue(headers, idName);
    const secret = headerValue(headers, secretName);
    if (this.options.requireClientHeaders) {
      if (id === undefined) throw present(idName);
      if (secret === undefined) throw present(secretName);
    }
    if (id !== undefined && id !== this.options.clientId) {
      throw unauthorized({ pointer: `header:${idName}`, expected: 'the registered client id', found: 'another value' });
    }
    if (secret !== undefined && !sameSecret(secret, this.clientSecret)) {
      throw unauthorized({ pointer: `header:${secretName}`, expected: 'the registered client secret', found: 'another value' });
    }
  }

  /**
   * Verifies `X-Signature` (base64 RSA-SHA256 over `JSON.stringify(body.Message)`). A body without
   * `Message` has nothing to sign and nothing the mock would act on: validation rejects it.
   */
  checkSignature(body: unknown, headers: IncomingHttpHeaders): void {
    if (!this.publicKey) return;
    const message = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).Message : undefined;
    if (message === undefined) return;
    const signature = headerValue(headers, SIGNATURE_HEADER);
    if (signature === undefined) throw present(SIGNATURE_HEADER);
    if (!verifiesMessage(message, signature, this.publicKey)) throw unauthorized({ pointer: `header:${SIGNATURE_HEADER}`, expected: 'base64 RSA-SHA256 signature of JSON.stringify(Message)', found: 'a signature that does not verify' });
  }
}
