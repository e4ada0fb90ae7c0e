/**
 * The in-toto Attestation Framework v1 pieces a signed package uses (github.com/in-toto/attestation):
 * the Statement (spec/v1/statement.md), the ResourceDescriptor (spec/v1/resource_descriptor.md) and
 * the Test Result predicate v0.1 (spec/predicates/test-result.md), and the file digests its subjects
 * are made of. Format-neutral: what goes in them is the reporter's business (reporter/attestation.ts).
 */
import { createHash } from 'node:crypto';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
/** The DSSE payloadType of an in-toto Statement (spec/v1/envelope.md). */
export const INTOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const TEST_RESULT_PREDICATE = 'https://in-toto.io/attestation/test-result/v0.1';

/** A DigestSet: algorithm name to lower-case hex (spec/v1/digest_set.md). */
export type DigestSet = Record<string, string>;

export interface ResourceDescriptor {
  name?: string;
  uri?: string;
  digest?: DigestSet;
  /** Base64 of the resource's bytes, for a small resource described by value. */
  content?: string;
  downloadLocation?: string;
  mediaType?: string;
  annotations?: Record<string, unknown>;
}

export interface Statement<P = Record<string, unknown>> {
  _type: typeof STATEMENT_TYPE;
  subject: ResourceDescriptor[];
  predicateType: string;
  predicate: P;
}

export type TestResult = 'PASSED' | 'WARNED' | 'FAILED';

/**
 * The Test Result predicate: `result` and `configuration` required, the three lists optional.
 * Extension fields (allowed by the framework's parsing rules) come after them.
 */
export interface TestResultPredicate {
  result: TestResult;
  configuration: ResourceDescriptor[];
  url?: string;
  passedTests?: string[];
  warnedTests?: string[];
  failedTests?: string[];
  [extension: string]: unknown;
}

export const sha256Hex = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

/** A descriptor of a resource given by value: its JSON as `content` (Base64), the same value readable in `annotations`. */
export function valueDescriptor(name: string, value: Record<string, unknown>): ResourceDescriptor {
  return { name, mediaType: 'application/json', content: Buffer.from(JSON.stringify(value)).toString('base64'), annotations: value };
}

export function statementOf<P>(subject: ResourceDescriptor[], predicateType: string, predicate: P): Statement<P> {
  return { _type: STATEMENT_TYPE, subject, predicateType, predicate };
}

/** A Statement's shape, or what is wrong with it. */
export function parseStatement(payload: Uint8Array): Statement | string {
  let s: unknown;
  try { s = JSON.parse(Buffer.from(payload).toString('utf8')); } catch (e) { return `the payload is not JSON: ${(e as Error).message}`; }
  if (!s || typeof s !== 'object' || Array.isArray(s)) return 'the payload is not a JSON object';
  const st = s as Record<string, unknown>;
  if (st._type !== STATEMENT_TYPE) return `_type is ${JSON.stringify(st._type)}, not ${STATEMENT_TYPE}`;
  if (!Array.isArray(st.subject) || !st.subject.length) return 'the Statement has no subject';
  for (const sub of st.subject) {
    const d = (sub as ResourceDescriptor | null)?.digest;
    if (!d || typeof d !== 'object' || !Object.keys(d).length) return 'a subject has no digest';
  }
  if (typeof st.predicateType !== 'string') return 'the Statement has no predicateType';
  if (st.predicate !== undefined && (typeof st.predicate !== 'object' || st.predicate === null || Array.isArray(st.predicate))) return 'the predicate is not an object';
  return { _type: STATEMENT_TYPE, subject: st.subject as ResourceDescriptor[], predicateType: st.predicateType, predicate: (st.predicate ?? {}) as Record<string, unknown> };
}
