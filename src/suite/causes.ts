/**
 * Cause signatures (what was violated, where, and how the target answered), so that the report can
 * group cases with one root cause: a target that answers every one-entry list as an object fails
 * several rules for that one reason, and reads as one cause. Values that differ from case to case
 * (amounts, ids, positions in a list) stay out of a signature.
 */
import { operation, type OperationId } from '../contract/catalogue.js';
import type { Finding } from '../contract/validator.js';

/** The field a JSON pointer names: its last segment that is not a list position. */
export function fieldOf(pointer: string): string {
  const segs = pointer.split('/').filter((s) => s !== '' && !/^\d+$/.test(s));
  return segs.at(-1)?.replace(/~1/g, '/').replace(/~0/g, '~') ?? '(the body)';
}

const article = (kind: string) => (/^[aeio]/.test(kind) ? `an ${kind}` : `a ${kind}`);

/** `Bill payment: TransactionData answered as an object, not an array`. */
export function typeCause(op: OperationId, pointer: string, expectedKind: string, foundKind: string): string {
  return `${operation(op).title}: ${fieldOf(pointer)} answered as ${article(foundKind)}, not ${article(expectedKind)}`;
}

/** The signature of a response-schema finding: type mismatches read like the list rule's. */
export function findingCause(op: OperationId, f: Finding): string {
  const found = f.found === 'missing' ? 'missing' : f.found.split(' ')[0]!;
  if (f.keyword === 'type') {
    const expected = f.expected.replace(/^type /, '');
    return expected.includes(' or ') ? `${operation(op).title}: ${fieldOf(f.pointer)} answered as ${article(found)}, not ${expected}` : typeCause(op, f.pointer, expected, found);
  }
  // a constant the answer breaks reads like the rule that checks it on its own (MessageType)
  if (f.keyword === 'const') return `${operation(op).title}: ${fieldOf(f.pointer)} is not ${f.expected.replace(/^exactly /, '').replace(/^"(.*)"$/, '$1')}`;
  if (found === 'missing') return `${operation(op).title}: ${fieldOf(f.pointer)} missing from the answer`;
  return `${operation(op).title}: ${fieldOf(f.pointer)} not ${f.expected.replace(/\d{4,}/g, '#')}`;
}
