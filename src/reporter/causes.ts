/**
 * Failures grouped by cause: FAIL, ERROR and INCONCLUSIVE cases with the same cause signature
 * (what was violated, where, how the target answered), ordered by how many cases each explains. A
 * target with one systemic deviation reads as one cause, not as a hundred red cases; INCONCLUSIVE
 * cases group under the precondition that failed, with the case that tests it directly.
 */
import type { CaseReport } from './model.js';

export interface Cause {
  /** The signature in words, e.g. `Bill payment: TransactionData answered as an object, not an array`. */
  signature: string;
  /** Verdicts of the cases it explains, with counts. */
  verdicts: Record<string, number>;
  /** The cases it explains, by id. */
  cases: string[];
  operations: string[];
  /** For a failed precondition: the cases that test it directly. */
  testedBy: string[];
  /** One case's own note, as an example. */
  example: { case: string; text: string };
}

const BLOCKING = new Set(['FAIL', 'ERROR', 'INCONCLUSIVE']);

/**
 * A note without its case-specific values, for notes whose rule gives no signature of its own:
 * numbers, quoted values and list positions would split one cause into many.
 */
export function normalizeNote(text: string): string {
  return text
    .replace(/\/\d+(?=\/|$)/g, '/[]')
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/\{[^{}]*\}/g, '{…}')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .slice(0, 300);
}

/** The cause signatures of a case: its own (from the rule), else its first blocking note, normalized. */
function signaturesOf(c: CaseReport): { signature: string; testedBy?: string; text: string }[] {
  const own = c.notes.filter((n) => n.verdict === c.verdict);
  const explicit = own.filter((n) => n.cause).map((n) => ({ signature: n.cause!, testedBy: n.testedBy, text: n.text }));
  if (explicit.length) return [...new Map(explicit.map((e) => [e.signature, e])).values()];
  const first = own[0] ?? c.notes[0];
  const text = first?.text ?? `${c.verdict} without a note`;
  // ERROR notes name the fault and what broke; the case's family says what could not be checked
  return [{ signature: `${c.verdict === 'ERROR' ? 'ERROR: ' : ''}${normalizeNote(text)}`, text }];
}

export function groupCauses(cases: CaseReport[]): Cause[] {
  const causes = new Map<string, Cause>();
  for (const c of cases) {
    if (!BLOCKING.has(c.verdict) || c.waiver?.status === 'used') continue;
    for (const s of signaturesOf(c)) {
      let cause = causes.get(s.signature);
      if (!cause) {
        cause = { signature: s.signature, verdicts: {}, cases: [], operations: [], testedBy: [], example: { case: c.id, text: s.text } };
        causes.set(s.signature, cause);
      }
      if (cause.cases.includes(c.id)) continue;
      cause.cases.push(c.id);
      cause.verdicts[c.verdict] = (cause.verdicts[c.verdict] ?? 0) + 1;
      if (!cause.operations.includes(c.operation)) cause.operations.push(c.operation);
      if (s.testedBy && !cause.testedBy.includes(s.testedBy)) cause.testedBy.push(s.testedBy);
    }
  }
  return [...causes.values()].sort((a, b) => b.cases.length - a.cases.length || (a.signature < b.signature ? -1 : 1));
}

/** The console's closing lines: one per cause, most cases first. */
export function formatCauses(causes: Cause[], max = 10): string {
  if (!causes.length) return '';
  const lines = [`Causes (${causes.length}), most cases first:`];
  for (const c of causes.slice(0, max)) {
    const v = Object.entries(c.verdicts).map(([k, n]) => `${n} ${k}`).join(', ');
    lines.push(`  ${String(c.cases.length).padStart(4)} case${c.cases.length === 1 ? ' ' : 's'} (${v}): ${c.signature}${c.testedBy.length ? ` [tested directly by ${c.testedBy.join(', ')}]` : ''}`);
  }
  if (causes.length > max) lines.push(`  ... and ${causes.length - max} more (certification.html lists them all)`);
  return lines.join('\n');
}
