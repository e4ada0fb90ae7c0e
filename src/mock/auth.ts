/**
 * Authentication of API calls (spec §5): the required headers and their forms, the bearer token
 * (static, or one this mock issued), the company, the optional client headers of bill operations,
 * and the RSA-SHA256 signature over `Message` when a public key is configured. Every failure is a
 * 401 whose detail names the header; the values themselves are never echoed, they may be secrets.
 */
import { verify, type KeyObject } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from '../contract/catalogue.js';
import { timestampForm } from '../contract/formats.js';
import type { ClientProfile } from '../vocabulary/profile.js';
import { optionalClientHeaderNames, referenceIdHeader, requiredHeaderNames } from '../contract/headers.js';
import { sameSecret, type CompanyRegistry } from './companies.js';
import type { Defects } from './defects.js';
import { unauthorized } from './errors.js';
import { then, type Maybe, type TokenStore } from './store/index.js';

/** What the authenticator reads of the mock's options (options.ts's MockOptions has them): declared here, not imported, so options.ts can import this module. */
export interface AuthOptions {
  headerPrefix: string;
  requireClientHeaders: boolean;
  /** Absent is `document`: only what the API document states is refused. */
  clientProfile?: ClientProfile;
}

export const SIGNATURE_HEADER = 'X-Signature';
/**
 * Reference ids seen in a real deployment are 3-16 alphanumerics (domain notes); the API document
 * gives the header no form, so only the strict-deployment profile refuses another (a UUID).
 */
export const DEPLOYMENT_REFERENCE_ID = /^[A-Za-z0-9]{3,16}$/;

/** `name` as Node keys it in `headers`: lower case (callers on the hot path pass it lowered already). */
function headerValue(headers: IncomingHttpHeaders, name: string, key = name.toLowerCase()): string | undefined {
  const v = headers[key];
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
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
  // Computed once rather than on every call: the header names.
  private readonly required: readonly HeaderName[];
  private readonly referenceId: HeaderName;

  constructor(private readonly options: AuthOptions, private readonly companies: CompanyRegistry, private readonly tokens: TokenStore, readonly defects: Defects) {
    this.required = requiredHeaderNames(options.headerPrefix).map(headerName);
    this.referenceId = headerName(referenceIdHeader(options.headerPrefix));
  }

  /**
   * Everything that can be checked before the body is read. Throws a 401 MockError; returns the
   * company the call is attributed to (its budget and its state). Synchronous unless the token is
   * one the token endpoint issued (the store is asked whose it is).
   */
  checkHeaders(op: Operation, headers: IncomingHttpHeaders): Maybe<string> {
    // defect: CompanyId neither required nor checked; the call goes to the configured company
    const anyCompany = this.defects.on('company-id-unchecked', op.id) || this.defects.on('company-id-unchecked-everywhere', op.id);
    for (const { name, key } of this.required) {
      if (headerValue(headers, name, key) === undefined && !(anyCompany && name === 'CompanyId')) throw present(name);
    }
    const strict = this.options.clientProfile === 'strict-deployment';
    const refName = this.referenceId.name;
    if (strict && !DEPLOYMENT_REFERENCE_ID.test(headerValue(headers, refName, this.referenceId.key)!)) {
      throw unauthorized({ pointer: `header:${refName}`, expected: '3-16 letters or digits (SADAD_CLIENT_PROFILE=strict-deployment)', found: 'another form' });
    }
    // the document: ISO 8601 without a zone, in the sample's form; fractions of a second are ISO 8601 too
    const stamp = headerValue(headers, 'DateTimeStamp', 'datetimestamp')!;
    const form = timestampForm(stamp);
    if (form === 'zoned' || form === 'invalid' || (strict && form === 'fraction')) {
      throw unauthorized({ pointer: 'header:DateTimeStamp', expected: strict ? 'YYYY-MM-DDTHH:MM:SS (no zone, no fraction: SADAD_CLIENT_PROFILE=strict-deployment)' : 'YYYY-MM-DDTHH:MM:SS, ISO 8601 without a zone', found: JSON.stringify(stamp.slice(0, 40)) });
    }
    const auth = headerValue(headers, 'Authorization', 'authorization')!;
    const bearer = /^Bearer\s+(\S+)$/i.exec(auth);
    if (!bearer) throw unauthorized({ pointer: 'header:Authorization', expected: 'Bearer <access token>', found: 'another scheme or form' });
    const token = bearer[1]!;
    const owners = this.companies.companiesOfToken(token);
    if (owners !== undefined) return this.attribute(op, headers, owners, anyCompany);
    return then(this.tokens.owner(token), (client) => {
      const issuedTo = client === undefined ? [] : this.companies.companiesOfClient(client);
      if (issuedTo.length > 0) return this.attribute(op, headers, issuedTo, anyCompany);
      // defect: the token is never looked up, any Bearer token passes
      if (this.defects.on('bad-token-accepted', op.id)) return this.attribute(op, headers, this.companies.ids, anyCompany);
      throw invalidToken();
    });
  }

  /** The company the call names, when the credentials are that company's. */
  private attribute(op: Operation, headers: IncomingHttpHeaders, owners: readonly string[], anyCompany: boolean): string {
    const named = headerValue(headers, 'CompanyId', 'companyid');
    const known = named !== undefined && owners.includes(named);
    // another company's id with these credentials is refused like an unknown one: a partner cannot act as another
    if (!known && !anyCompany) throw unauthorized({ pointer: 'header:CompanyId', expected: 'the company the credentials belong to', found: 'another company' });
    const company = known ? named : owners[0]!;
    this.checkClientHeaders(op, headers, company);
    return company;
  }

  /** `clientid`/`clientsecret` (spec §5 rule 2): checked when sent, demanded only when configured so. */
  private checkClientHeaders(op: Operation, headers: IncomingHttpHeaders, company: string): void {
    const [idName, secretName] = optionalClientHeaderNames(op);
    if (idName === undefined || secretName === undefined) return;
    const id = headerValue(headers, idName);
    const secret = headerValue(headers, secretName);
    if (this.options.requireClientHeaders) {
      if (id === undefined) throw present(idName);
      if (secret === undefined) throw present(secretName);
    }
    const registered = this.companies.clientOf(company);
    if (id !== undefined && id !== registered?.id) {
      throw unauthorized({ pointer: `header:${idName}`, expected: 'the registered client id', found: 'another value' });
    }
    if (secret !== undefined && !sameSecret(secret, registered?.secret ?? '')) {
      throw unauthorized({ pointer: `header:${secretName}`, expected: 'the registered client secret', found: 'another value' });
    }
  }

  /**
   * Verifies `X-Signature` (base64 RSA-SHA256 over `JSON.stringify(body.Message)`) with the
   * company's key. A body without `Message` has nothing to sign and nothing the mock would act on:
   * validation rejects it.
   */
  checkSignature(body: unknown, headers: IncomingHttpHeaders, company: string): void {
    const key = this.companies.signatureKey(company);
    if (!key) return;
    const message = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).Message : undefined;
    if (message === undefined) return;
    const signature = headerValue(headers, SIGNATURE_HEADER);
    if (signature === undefined) throw present(SIGNATURE_HEADER);
    if (!verifiesMessage(message, signature, key)) throw unauthorized({ pointer: `header:${SIGNATURE_HEADER}`, expected: 'base64 RSA-SHA256 signature of JSON.stringify(Message)', found: 'a signature that does not verify' });
  }
}
