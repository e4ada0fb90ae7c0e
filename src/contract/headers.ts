/** Request headers every operation requires (spec §5), spelled for a deployment's header prefix. */
import type { Operation } from './catalogue.js';
import { SPEC_PREFIX } from './prefix.js';
import { specFacts } from './spec-facts.js';
import { shortUniqueId } from '../base/unique.js';

export const referenceIdHeader = (headerPrefix: string) => `${headerPrefix}ReferenceID`;

/**
 * The header table's names (data/spec.json), in its order; the one the document writes with its own
 * prefix (`SvcReferenceID`) spelled with the deployment's header prefix.
 */
export function requiredHeaderNames(headerPrefix: string): string[] {
  const prefix = specFacts.prefix;
  return specFacts.headers.map((h) => (h.name.startsWith(prefix) ? headerPrefix + h.name.slice(prefix.length) : h.name));
}

/** Headers the bill operations' samples carry whose necessity the spec leaves open (§5 rule 2). */
export function optionalClientHeaderNames(op: Operation): string[] {
  return op.clientHeaders ? ['clientid', 'clientsecret'] : [];
}

/** `YYYY-MM-DDTHH:MM:SS`, local time without zone (spec §5 DateTimeStamp, §2 TimeStamp). */
export function specTimestamp(date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}`;
}

/** `YYYYMMDD` (spec §2 response dates). */
export function specDate(date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}`;
}

export interface ClientCredentials { accessToken: string; companyId: string; clientId?: string; clientSecret?: string }

/**
 * The headers a conformant client sends on a call (spec §5) with the spec's header prefix: the
 * bearer token, company, a fresh reference id, the time, the device, and the client id and secret
 * where the operation carries them. For the benchmarks and checks that call the mock directly.
 */
export function conformantHeaders(op: Operation, c: ClientCredentials): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    CompanyId: c.companyId,
    [referenceIdHeader(SPEC_PREFIX)]: shortUniqueId(16),
    DateTimeStamp: specTimestamp(),
    Device: 'Web',
    Authorization: `Bearer ${c.accessToken}`,
    ...(op.clientHeaders ? { clientid: c.clientId ?? '', clientsecret: c.clientSecret ?? '' } : {}),
  };
}

