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
  /**
   * What the cause did to each rule family, most cases first: one defect (every answer wrapped in
   * Message) breaks many rules, and reads as one cause with its per-rule findings beneath.
   */
  findings: { family: string; cases: number; verdicts: Record<string, number>; example: { case: string; text: string } }[];
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

/**
 * An INCONCLUSIVE case's failed precondition is tested by another case: when that case is blocking
 * too, the INCONCLUSIVE one counts under its root cause (following a chain of preconditions), so a
 * defect reads once, not once per case that could not get past it.
 */
function rootSignatures(c: CaseReport, byId: Map<string, CaseReport>, own: Map<string, ReturnType<typeof signaturesOf>>): { signature: string; testedBy?: string; text: string }[] {
  let cur = c;
  const seen = new Set<string>();
  for (let depth = 0; depth < 5 && cur.verdict === 'INCONCLUSIVE'; depth++) {
    const testedBy = cur.notes.find((n) => n.verdict === 'INCONCLUSIVE' && n.testedBy)?.testedBy;
    const tester = testedBy ? byId.get(testedBy) : undefined;
    if (!tester || seen.has(tester.id) || !BLOCKING.has(tester.verdict) || tester.waiver?.status === 'used') break;
    seen.add(tester.id);
    cur = tester;
  }
  if (cur === c) return own.get(c.id)!;
  const testedBy = c.notes.find((n) => n.testedBy)?.testedBy;
  const text = c.notes.find((n) => n.verdict === c.verdict)?.text ?? '';
  return own.get(cur.id)!.slice(0, 1).map((s) => ({ signature: s.signature, text, ...(testedBy ? { testedBy } : s.testedBy ? { testedBy: s.testedBy } : {}) }));
}

export function groupCauses(cases: CaseReport[]): Cause[] {
  const causes = new Map<string, Cause>();
  const blocking = cases.filter((c) => BLOCKING.has(c.verdict) && c.waiver?.status !== 'used');
  const byId = new Map(cases.map((c) => [c.id, c]));
  const own = new Map(blocking.map((c) => [c.id, signaturesOf(c)]));
  for (const c of blocking) {
    for (const s of rootSignatures(c, byId, own)) {
      let cause = causes.get(s.signature);
      if (!cause) {
        cause = { signature: s.signature, verdicts: {}, cases: [], operations: [], testedBy: [], example: { case: c.id, text: s.text }, findings: [] };
        causes.set(s.signature, cause);
      }
      if (cause.cases.includes(c.id)) continue;
      cause.cases.push(c.id);
      cause.verdicts[c.verdict] = (cause.verdicts[c.verdict] ?? 0) + 1;
      if (!cause.operations.includes(c.operation)) cause.operations.push(c.operation);
      if (s.testedBy && !cause.testedBy.includes(s.testedBy)) cause.testedBy.push(s.testedBy);
      let f = cause.findings.find((x) => x.family === c.family);
      if (!f) cause.findings.push((f = { family: c.family, cases: 0, verdicts: {}, example: { case: c.id, text: s.text } }));
      f.cases++;
      f.verdicts[c.verdict] = (f.verdicts[c.verdict] ?? 0) + 1;
    }
  }
  for (const cause of causes.values()) {
    cause.findings.sort((a, b) => b.cases - a.cases || (a.family < b.family ? -1 : 1));
    // the example is a case of the cause's own (a FAIL), not one that could not get past it
    const first = cases.find((c) => cause.cases.includes(c.id) && c.verdict !== 'INCONCLUSIVE');
    if (first && cause.example.case !== first.id && cause.verdicts.FAIL) {
      const note = first.notes.find((n) => n.verdict === first.verdict && (n.cause ?? '') === cause.signature) ?? first.notes.find((n) => n.verdict === first.verdict);
      if (note) cause.example = { case: first.id, text: note.text };
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
