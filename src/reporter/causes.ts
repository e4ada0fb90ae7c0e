/**
 * Failures grouped by cause: FAIL, ERROR and INCONCLUSIVE cases with the same cause signature
 * (what was violated, where, how the target answered), ordered by how many cases each explains. A
 * target with one systemic deviation reads as one cause, not as a hundred red cases; INCONCLUSIVE
 * cases group under the precondition that failed, with the case that tests it directly.
 *
 * What a signature leaves out, so that one cause reads once (issue 24):
 * - the fault of a systemic ERROR (a 429, a 503, a reset, a timeout, refused credentials) is named,
 *   not the case, field, label, URL or number that met it: 40 cases whose retries ran out on 429s
 *   are one cause, not one per field;
 * - the field or header a request-field or header case changed: those cases group by what the
 *   target did (per kind of change at most), not by the field;
 * - the operation: one defect shown on several operations is one cause listing them, while a
 *   defect on one operation keeps its own.
 */
import { operations } from '../contract/catalogue.js';
import { SPEC_PREFIX } from '../contract/prefix.js';
import type { CaseReport, Cause } from './model.js';

export type { Cause };


const BLOCKING = new Set(['FAIL', 'ERROR', 'INCONCLUSIVE']);

/** One case's claim to a cause; `kinds`: the transient faults a systemic ERROR names, merged over the run. */
interface Signature { signature: string; testedBy?: string; text: string; kinds?: string[] }

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

/** The signature of every ERROR that ran out of retries on transient faults, whatever case met them; the kinds follow it. */
export const TRANSIENT_CAUSE = 'ERROR: transient faults the retries could not get past';
const CREDENTIALS_CAUSE = 'ERROR: the target refused the credentials (HTTP 401 or 403) on calls that were not about them: check the token, company id and signer';

/**
 * The transient faults an ERROR note names (client/transient.ts): retries run out (`transient:
 * HTTP 503, reset on 4 attempts`, also inside a burst or in a note that quotes another case's),
 * one fault met where no retry was safe (`<label>: transient: HTTP 503 (...)`), a 429 the pacer did
 * not expect, a call without any HTTP answer, answers lost on every attempt.
 */
function faultKinds(text: string): string[] {
  const kinds = new Set<string>();
  for (const m of text.matchAll(/transient: ([\w ,]+?) on \d+ attempts?\b/g)) for (const k of m[1]!.split(',')) kinds.add(k.trim());
  for (const m of text.matchAll(/transient: (HTTP \d{3}|reset|refused|timeout|token refused)(?!\w)/g)) kinds.add(m[1]!);
  if (/\b(answered 429 \(rate limited\)|rate limited\b.*the pacer's limits do not match)/.test(text)) kinds.add('HTTP 429');
  // classify()'s `no HTTP answer (network: ...)` and summarize()'s `network: ...`; a configuration failure is no transient fault
  for (const m of text.matchAll(/(?:no HTTP answer \(|no usable answer: )(timeout|network): ([^\n]*)/g)) kinds.add(m[1] === 'timeout' ? 'timeout' : /ECONNREFUSED/.test(m[2]!) ? 'refused' : 'reset');
  for (const m of text.matchAll(/no usable answer: HTTP (\d{3})\b/g)) kinds.add(`HTTP ${m[1]}`);
  if (/were all lost: nothing to judge/.test(text)) kinds.add('answers lost');
  return [...kinds].sort();
}

/**
 * An ERROR's signature when its note names a systemic fault: the network, the gateway, the
 * credentials, the suite itself. The case, its label and the values it met stay out (its note is
 * the example), so the fault reads once with the number of cases it stopped.
 */
function systemicError(text: string): Pick<Signature, 'signature' | 'kinds'> | undefined {
  const kinds = faultKinds(text);
  if (kinds.length) return { signature: TRANSIENT_CAUSE, kinds };
  if (/credentials rejected \(|rejected for credentials \(|refused the bearer token \(HTTP 401\)|refused a freshly fetched bearer token/.test(text)) return { signature: CREDENTIALS_CAUSE };
  if (/\bmutation \S+ does not apply to the base request/.test(text)) return { signature: 'ERROR: a mutation does not apply to the base request it changes' };
  if (text.startsWith('the case did not finish within its time limit')) return { signature: 'ERROR: the case did not finish within its time limit' };
  // a stack trace's frames differ with the case that met it: the message says what broke
  const broke = /^(the case broke|the case ended without a verdict): ([^\n]*)/.exec(text);
  if (broke) return { signature: `ERROR: ${broke[1]}: ${normalizeNote(broke[2]!)}` };
  return undefined;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A request-field or header case changes one thing: its id says what (`<op>.req.<Field>.<mutation>`,
 * `<op>.hdr.<Header>.<kind>`), and its notes name it, in the label (`Amount.missing`, `CompanyId
 * unknown`) and in the description (`Amount omitted`, `no CompanyId header`). Left out of a
 * signature, so that one behaviour of the target reads once however many fields show it: `Amount
 * omitted` and `BillerId omitted` are both `<field> omitted`. Only in those forms (the ones
 * generators/mutations.ts and rules/headers.ts write): a signature that names the field for
 * another reason (`the answers are wrapped in a Message object`, shared with other cases) keeps it.
 */
const SUBJECT_AFTER = [' omitted', ' of the wrong JSON type', ' null', ' empty', ' of exactly', ' of # characters', ' with a hyphen', ' header', ' the target does not know', ' not in ', ' that is not ', ' text/plain', ' as a number'];
function withoutSubject(c: CaseReport, text: string): string {
  const m = /^[^.]+\.(req|hdr)\.([A-Z][^.]*)\.([^.]+)$/.exec(c.id);
  if (!m) return text;
  const name = m[2]!, change = m[3]!;
  const placeholder = m[1] === 'req' ? '<field>' : '<header>';
  // the reference-id header is named with the spec's prefix in the id, `<prefix>ReferenceID` in its description
  const bare = name.startsWith(SPEC_PREFIX) ? [`<prefix>${name.slice(SPEC_PREFIX.length)}`, name.slice(SPEC_PREFIX.length)] : [];
  const names = [name, ...bare].map(escape);
  const after = [`\\.${escape(change)}\\b`, ` ${escape(change)}\\b`, ...SUBJECT_AFTER.map((a) => escape(a).replace('#', '\\d+'))].join('|');
  return text
    .replace(new RegExp(`(?<![\\w-])(${names.join('|')})(?=${after})`, 'g'), placeholder)
    .replace(new RegExp(`(?<=\\bempty )(${names.join('|')})(?![\\w-])`, 'g'), placeholder);
}

/**
 * A note without the label of the case's own exchanges (`Amount.missing`, `first payment`): an
 * ERROR names the request it broke on, `<label>: ...` or `(<label>; last: ...)`, and the same
 * fault met by another request would read as another cause.
 */
function withoutLabels(c: CaseReport, text: string): string {
  const labels = [...new Set((c.exchanges ?? []).map((e) => e.label.replace(/ \(attempt \d+\)$/, '')))]
    .filter((l) => l.length > 1 && !/^\d+$/.test(l)).sort((a, b) => b.length - a.length);
  let out = text;
  for (const l of labels) {
    if (out.startsWith(`${l}: `)) out = out.slice(l.length + 2);
    out = out.split(`(${l}; `).join('(');
  }
  return out;
}

/** The cause signatures of a case: its own (from the rule), else its first blocking note, normalized. */
function signaturesOf(c: CaseReport): Signature[] {
  const own = c.notes.filter((n) => n.verdict === c.verdict);
  const explicit = own.filter((n) => n.cause).map((n) => ({ signature: withoutSubject(c, n.cause!), testedBy: n.testedBy, text: n.text }));
  if (explicit.length) return [...new Map(explicit.map((e) => [e.signature, e])).values()];
  const first = own[0] ?? c.notes[0];
  const text = first?.text ?? `${c.verdict} without a note`;
  if (c.verdict === 'ERROR') {
    const systemic = systemicError(text);
    if (systemic) return [{ ...systemic, text }];
  }
  // ERROR notes name the fault and what broke; the case's family says what could not be checked
  return [{ signature: `${c.verdict === 'ERROR' ? 'ERROR: ' : ''}${normalizeNote(withoutSubject(c, withoutLabels(c, text)))}`, text }];
}

/**
 * An INCONCLUSIVE case's failed precondition is tested by another case: when that case is blocking
 * too, the INCONCLUSIVE one counts under its root cause (following a chain of preconditions), so a
 * defect reads once, not once per case that could not get past it.
 */
function rootSignatures(c: CaseReport, byId: Map<string, CaseReport>, own: Map<string, Signature[]>): Signature[] {
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
  return own.get(cur.id)!.slice(0, 1).map((s) => ({ ...s, text, ...(testedBy ? { testedBy } : s.testedBy ? { testedBy: s.testedBy } : {}) }));
}

// An operation named in a signature: by title (`Bill Enquiry: ...`, rules' signatures) or by id
// (`precondition: bill-payment accepted nothing`), not as the start of a case id (`bill-payment.res.schema`).
const OP_NAMES = operations.flatMap((o) => [{ name: o.title, op: o.id }, { name: o.id, op: o.id }]);
const OP_NAME = new RegExp(`(?<![\\w.-])(${OP_NAMES.map((n) => escape(n.name)).sort((a, b) => b.length - a.length).join('|')})(?![\\w-]|\\.\\w)`);
const OP_SLOT = '\u0000';

/** The signature with the operation it names left open: signatures equal but for it are one cause. */
function withoutOperation(signature: string): { key: string; op?: string; name?: string } {
  const m = OP_NAME.exec(signature);
  if (!m) return { key: signature };
  return { key: signature.slice(0, m.index) + OP_SLOT + signature.slice(m.index + m[0].length), op: OP_NAMES.find((n) => n.name === m[1])!.op, name: m[1] };
}

/** `All four operations`, or the names in catalogue order: `Bill Enquiry and MOI Fee Enquiry`. */
function operationsIn(key: string, names: Map<string, string>): string {
  const at = key.indexOf(OP_SLOT);
  if (names.size === operations.length) return key.replace(OP_SLOT, at === 0 ? 'All four operations' : 'all four operations');
  const list = operations.filter((o) => names.has(o.id)).map((o) => names.get(o.id)!);
  return key.replace(OP_SLOT, `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`);
}

interface Group { cause: Cause; names: Map<string, string>; kinds: Set<string>; signature: string; texts: Map<string, string> }

export function groupCauses(cases: CaseReport[]): Cause[] {
  const groups = new Map<string, Group>();
  const blocking = cases.filter((c) => BLOCKING.has(c.verdict) && c.waiver?.status !== 'used');
  const byId = new Map(cases.map((c) => [c.id, c]));
  const own = new Map(blocking.map((c) => [c.id, signaturesOf(c)]));
  for (const c of blocking) {
    for (const s of rootSignatures(c, byId, own)) {
      const { key, op, name } = withoutOperation(s.signature);
      let g = groups.get(key);
      if (!g) {
        const cause: Cause = { signature: s.signature, verdicts: {}, cases: [], operations: [], testedBy: [], example: { case: c.id, text: s.text }, findings: [] };
        groups.set(key, (g = { cause, names: new Map(), kinds: new Set(), signature: s.signature, texts: new Map() }));
      }
      if (op && name && !g.names.has(op)) g.names.set(op, name);
      for (const k of s.kinds ?? []) g.kinds.add(k);
      const cause = g.cause;
      if (cause.cases.includes(c.id)) continue;
      cause.cases.push(c.id);
      g.texts.set(c.id, s.text);
      cause.verdicts[c.verdict] = (cause.verdicts[c.verdict] ?? 0) + 1;
      if (!cause.operations.includes(c.operation)) cause.operations.push(c.operation);
      if (s.testedBy && !cause.testedBy.includes(s.testedBy)) cause.testedBy.push(s.testedBy);
      let f = cause.findings.find((x) => x.family === c.family);
      if (!f) cause.findings.push((f = { family: c.family, cases: 0, verdicts: {}, example: { case: c.id, text: s.text } }));
      f.cases++;
      f.verdicts[c.verdict] = (f.verdicts[c.verdict] ?? 0) + 1;
    }
  }
  for (const [key, g] of groups) {
    const cause = g.cause;
    // one operation: the signature as the rule wrote it; several: one cause that names them all
    cause.signature = g.names.size > 1 ? operationsIn(key, g.names) : g.signature;
    if (g.kinds.size) cause.signature = `${cause.signature}: ${[...g.kinds].sort().join(', ')}`;
    cause.operations.sort((a, b) => operations.findIndex((o) => o.id === a) - operations.findIndex((o) => o.id === b));
    cause.findings.sort((a, b) => b.cases - a.cases || (a.family < b.family ? -1 : 1));
    // the example is a case of the cause's own (a FAIL), not one that could not get past it
    const first = cases.find((c) => cause.cases.includes(c.id) && c.verdict !== 'INCONCLUSIVE');
    if (first && cause.example.case !== first.id && cause.verdicts.FAIL) cause.example = { case: first.id, text: g.texts.get(first.id)! };
  }
  return [...groups.values()].map((g) => g.cause).sort((a, b) => b.cases.length - a.cases.length || (a.signature < b.signature ? -1 : 1));
}

/** The console's closing lines: one per cause, most cases first, with the operations of a cause over several. */
export function formatCauses(causes: Cause[], max = 10): string {
  if (!causes.length) return '';
  const lines = [`Causes (${causes.length}), most cases first:`];
  for (const c of causes.slice(0, max)) {
    const v = Object.entries(c.verdicts).map(([k, n]) => `${n} ${k}`).join(', ');
    const ops = c.operations.length > 1 ? ` on ${c.operations.join(', ')}` : '';
    lines.push(`  ${String(c.cases.length).padStart(4)} case${c.cases.length === 1 ? ' ' : 's'} (${v})${ops}: ${c.signature}${c.testedBy.length ? ` [tested directly by ${c.testedBy.join(', ')}]` : ''}`);
  }
  if (causes.length > max) lines.push(`  ... and ${causes.length - max} more (certification.html lists them all)`);
  return lines.join('\n');
}
