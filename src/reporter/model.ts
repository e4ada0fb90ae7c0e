/**
 * The certification report (design.md §4a) as data: what `reports/certification.json` holds
 * (schemas/certification.schema.json) and what `certification.html` renders. Everything here is
 * pure: the reporter gathers the cases, this module counts, aggregates and decides.
 */
import type { SpecDocument } from '../contract/spec-model.js';
import type { SpecCoverage } from './spec-coverage.js';
import { operations } from '../contract/catalogue.js';
import { specFacts } from '../contract/spec-facts.js';
import { RULE_FAMILIES, VERDICT_ORDER, type Level, type RuleFamily, type Verdict } from '../vocabulary/verdicts.js';
import type { Waiver } from '../vocabulary/baseline.js';
import type { RunIdentity } from './identity.js';
import type { ExchangeRecord } from '../evidence/record.js';
import type { Limits, PlanContext } from '../vocabulary/plan.js';
import type { PaymentPlan } from '../vocabulary/payment-guard.js';
import { aggregateAvailability, type Availability, type PacingSummary, type TransientFault } from './availability.js';
import type { PreflightReport } from '../preflight/model.js';

export const FORMAT = 'sadad-certification';
/** 2: NOT_RUN, INCONCLUSIVE, attempts and runs (resumed, merged packages), identity, availability, profile, causes, changes. */
export const FORMAT_VERSION = 2;

export type VerdictCounts = Record<Verdict, number>;


export interface CaseReport {
  id: string;
  /** Playwright test title (`<id> §<sections>`) and spec file, to find the case in junit.xml and the Playwright report. */
  title: string;
  file: string;
  operation: string;
  family: string;
  level: Level;
  /** Sections of the API document the rule comes from. */
  sections: string[];
  expectation: string;
  verdict: Verdict;
  /** Every non-PASS note of the case (why it is not PASS), masked. */
  notes: { verdict: Verdict; text: string; cause?: string; testedBy?: string }[];
  /** What the target did, where the case records it (rejection form, rate-limit headers, ...). */
  observation: Record<string, unknown> | null;
  /**
   * What the target does, in words that hold from run to run (no timing, no generated value): the
   * statuses and body shapes of the answers the case judged (`answers`) and the facts its rules
   * state; what `--compare` reads. Absent from packages of suites that did not record it.
   */
  facts?: Record<string, string>;
  waiver: { verdict: Verdict; comment: string; status: WaiverStatus } | null;
  /** Playwright's status of the test: passed, failed, skipped, timedOut, interrupted, or notRun. */
  testStatus: string;
  durationMs: number;
  /** Calls the case plans per operation. */
  calls: Record<string, number>;
  /** `evidence/<id>.json` under the reports folder, when the case wrote one. */
  evidenceFile: string | null;
  /** Masked requests and responses; present for every case that is not PASS. */
  exchanges?: ExchangeRecord[];
  /** The run whose result this record shows (in a merged package, possibly an earlier one than the last). */
  runId: string;
  /** Every run that planned the case, oldest first, with the verdict it reached (NOT_RUN: it did not finish). */
  attempts: Attempt[];
  /** Transient faults (gateway errors, resets, timeouts, ...) the case met, and whether it got past each. */
  transient: TransientFault[];
  /** Operations whose answer the case saw accepted (the run's evidence that rejections of theirs mean something). */
  accepted?: string[];
  /** A rejection passed: it holds only if the target accepted some request of this operation in the run (conditions.ts). */
  requires?: { acceptance: string };
}

export interface Attempt { runId: string; at: string; verdict: Verdict }

/** One run of a (possibly merged) package. */
export interface RunSummary {
  runId: string;
  startedAt: string;
  /** When the run ended; for a run that was killed, when its last case ended. */
  finishedAt: string;
  /** Playwright's run status, or `killed` when the run ended without its reporter (rebuilt from the evidence). */
  status: string;
  /** Cases the run planned. */
  cases: number;
  /** Of those, the cases that reached a verdict. */
  finished: number;
  seed: string | null;
  /** Calls sent per operation: the pacer's count, or the exchanges in the evidence when the run left no pacing.json. */
  calls: Record<string, number> | null;
  callsFrom: 'pacer' | 'evidence' | null;
}

/** A case whose attempts reached different verdicts (NOT_RUN attempts left out). */
export interface ChangedVerdict { case: string; verdicts: Verdict[] }

export type WaiverStatus = 'used' | 'not-needed';

export interface WaiverReport {
  case: string;
  /** The verdict the baseline accepts. */
  expected: Verdict;
  /** The verdict of this run, null when the case did not run. */
  actual: Verdict | null;
  comment: string;
  status: WaiverStatus;
  /** In words: why the waiver was or was not needed. */
  reason: string;
}

export interface ErrorBodyShape {
  /** `object` (keys listed), `array`, `text` (not JSON), `empty`, or another JSON type. */
  form: string;
  keys: { name: string; type: string }[];
  statuses: number[];
  /** How many 4xx responses of this run had this shape. */
  count: number;
  example: { case: string; exchange: string; status: number; body: string };
}

export interface Observations {
  /** Per operation: how rejections were expressed (e.g. `HTTP 400`, `in-band (HTTP 2xx, failing status)`), with counts. */
  rejectionForms: Record<string, Record<string, number>>;
  /** Per operation: the answer to the call over the limit. */
  rateLimit: Record<string, { case: string; verdict: Verdict; limit: string | null; answer: string | null; headers: Record<string, string> | string | null; body: string | null }>;
  /** Duplicate SequenceNumber cases: how the target handled the duplicate. */
  duplicates: { case: string; operation: string; verdict: Verdict; handling: string | null; debits: string | null }[];
  /** Per bill operation: whether `clientid`/`clientsecret` are required. */
  clientHeadersRequired: Record<string, { case: string; value: string }>;
  /** Per operation: the response style seen (sample types or table types). */
  responseStyle: Record<string, string>;
  /** The shapes of HTTP 4xx response bodies, most frequent first. */
  errorBodyShapes: ErrorBodyShape[];
  /** Transient faults per operation and kind, how many the cases got past, and the calls sent. */
  availability: Availability;
}

export interface MatrixCell {
  operation: string;
  family: string;
  /** The strongest verdict among the cell's cases (design.md §4 precedence; NOT_APPLICABLE only when all are), null when the cell has no case. */
  verdict: Verdict | null;
  cases: number;
  counts: VerdictCounts;
}

export interface Fingerprint {
  suite: { name: string; version: string; commit: string | null; localChanges: boolean | null };
  /** sha256 of schemas/*.json concatenated in name order: `cat $(LC_ALL=C ls schemas/*.json) | sha256sum`. */
  schemaHash: string;
  schemaFiles: string[];
  /** `sha256:<hex>` of data/field-tables.json, the spec's field tables the schemas and rules are made from (`sha256sum data/field-tables.json`); null when the run did not record it. */
  specHash?: string | null;
  /** The API document the run's spec was imported from (data/spec.json): title, file name, its sha256 and the version it states; absent in packages of earlier suites. */
  specDocument?: SpecDocument | null;
  seed: string | null;
  target: { url: string | null; profile: string | null };
  limits: { windowSeconds: number; bill: number; moi: number } | null;
  /** How the run was narrowed to part of the suite: SADAD_CASES, SADAD_SKIP_CASES, Playwright filters (`--grep`, spec files). */
  selection: { cases: string | null; skipCases: string | null; args: string | null };
  /** SADAD_PROFILE: `full`, or `smoke` (a subset that never certifies). */
  profile: string;
  baselineFile: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  playwright: { version: string; status: string };
  node: string;
  /** Set when the package was re-judged from its evidence (`npm run certify -- --rejudge`, src/replay); `suite` above ran the cases. */
  rejudged?: Rejudged;
}

export interface Rejudged {
  at: string;
  suite: { name: string; version: string; commit: string | null; localChanges: boolean | null };
  fromRuns: string[];
  differing: string[];
}

export interface Outcome {
  /** The certification statement: no FAIL and no ERROR (other than accepted waivers), a full selection and a complete run. */
  certifies: boolean;
  /** The statement in words. */
  summary: string;
  /** Why it does not certify, or what qualifies it. */
  reasons: string[];
  /** FAIL, ERROR and INCONCLUSIVE cases that no waiver accepts: these fail the run. */
  unexpected: string[];
  /** NOT_RUN cases: they did not finish, so the package cannot certify until `--resume` runs them. */
  notRun: string[];
  /** Cases whose verdict a waiver accepted. */
  waived: string[];
}

export interface CertificationReport {
  format: typeof FORMAT;
  formatVersion: typeof FORMAT_VERSION;
  outcome: Outcome;
  /** What a resume must match: suite commit, schema hash, target, profile, limits, selection. */
  identity: RunIdentity;
  /** The runs merged into this package, oldest first (one for a run that was not resumed). */
  runs: RunSummary[];
  /** Cases whose verdict changed between attempts. */
  changed: ChangedVerdict[];
  /** FAIL, ERROR and INCONCLUSIVE cases grouped by cause, most cases first. */
  causes: Cause[];
  /** What changed since the package named by SADAD_COMPARE (`--compare`); null without one. */
  changes: Changes | null;
  /** The preflight of the (last) run: the path to the target checked before the first case (design.md §10); null when none ran. */
  connection: PreflightReport | null;
  fingerprint: Fingerprint;
  plan: { calls: Record<string, number>; estimatedSeconds: number; bound: string | null } | null;
  counts: { cases: number; byVerdict: VerdictCounts; byOperation: Record<string, VerdictCounts & { total: number }> };
  matrix: { operations: string[]; families: { id: string; title: string }[]; cells: MatrixCell[] };
  observations: Observations;
  waivers: { file: string | null; used: WaiverReport[]; notNeeded: WaiverReport[] };
  specSections: Record<string, string>;
  /** Every row, endpoint, header, rule and limit of the document, with the cases that test it (spec-coverage.ts); absent in packages of earlier suites. */
  specCoverage?: SpecCoverage | null;
  /** Problems of the run itself (configuration, a spec file that did not load), masked. */
  runErrors: string[];
  cases: CaseReport[];
}

/** Section titles of the API document, for readers without it at hand: its headings, without the message names in code. */
export const SPEC_SECTIONS: Record<string, string> = Object.fromEntries(specFacts.sections.map((s) => [s.id, s.title.replace(/\s*\(`[^`]*`\)\s*$/, '')]));

export const zeroCounts = (): VerdictCounts => Object.fromEntries(VERDICT_ORDER.map((v) => [v, 0])) as VerdictCounts;

/** Operations in catalogue order, then any other operation a case names. */
export function operationIds(cases: { operation: string }[]): string[] {
  const known = operations.map((o) => o.id as string);
  return [...known, ...[...new Set(cases.map((c) => c.operation))].filter((o) => !known.includes(o)).sort()];
}

export function familyIds(cases: { family: string }[]): string[] {
  const known = Object.keys(RULE_FAMILIES);
  return [...known, ...[...new Set(cases.map((c) => c.family))].filter((f) => !known.includes(f)).sort()];
}

export const familyTitle = (id: string) => RULE_FAMILIES[id as RuleFamily] ?? id;
export const operationTitle = (id: string) => operations.find((o) => o.id === id)?.title ?? id;

export function countVerdicts(cases: { verdict: Verdict }[]): VerdictCounts {
  const counts = zeroCounts();
  for (const c of cases) counts[c.verdict]++;
  return counts;
}

/** The strongest verdict present (design.md §4 precedence); NOT_APPLICABLE only when nothing else is, since those cases do not apply. */
export function strongestOf(counts: VerdictCounts): Verdict | null {
  return VERDICT_ORDER.find((v) => v !== 'NOT_APPLICABLE' && counts[v] > 0) ?? (counts.NOT_APPLICABLE ? 'NOT_APPLICABLE' : null);
}

export function buildCounts(cases: CaseReport[]): CertificationReport['counts'] {
  const byOperation: CertificationReport['counts']['byOperation'] = {};
  for (const op of operationIds(cases)) {
    const mine = cases.filter((c) => c.operation === op);
    if (mine.length) byOperation[op] = { ...countVerdicts(mine), total: mine.length };
  }
  return { cases: cases.length, byVerdict: countVerdicts(cases), byOperation };
}

export function buildMatrix(cases: CaseReport[]): CertificationReport['matrix'] {
  const ops = operationIds(cases);
  const fams = familyIds(cases);
  const cells: MatrixCell[] = [];
  for (const family of fams) {
    for (const op of ops) {
      const mine = cases.filter((c) => c.operation === op && c.family === family);
      const counts = countVerdicts(mine);
      cells.push({ operation: op, family, verdict: strongestOf(counts), cases: mine.length, counts });
    }
  }
  return { operations: ops, families: fams.map((id) => ({ id, title: familyTitle(id) })), cells };
}

/** Each baseline entry against this run: used (same verdict) or no longer needed (another verdict, or the case did not run). */
export function classifyWaivers(waivers: Waiver[], cases: { id: string; verdict: Verdict }[]): WaiverReport[] {
  return waivers.map((w) => {
    const c = cases.find((x) => x.id === w.case);
    if (!c) return { case: w.case, expected: w.verdict, actual: null, comment: w.comment, status: 'not-needed', reason: 'the case did not run (not selected, or no case has this id)' };
    // a case that did not finish says nothing about the target: no waiver can stand for its verdict
    if (c.verdict === 'NOT_RUN') return { case: w.case, expected: w.verdict, actual: c.verdict, comment: w.comment, status: 'not-needed', reason: 'the case did not finish (NOT_RUN): a waiver never accepts that; `npm run certify -- --resume` runs it' };
    if (c.verdict === w.verdict) return { case: w.case, expected: w.verdict, actual: c.verdict, comment: w.comment, status: 'used', reason: `the case gave ${c.verdict}, as the baseline accepts` };
    const fails = c.verdict === 'FAIL' || c.verdict === 'ERROR' || c.verdict === 'INCONCLUSIVE';
    return {
      case: w.case, expected: w.verdict, actual: c.verdict, comment: w.comment, status: 'not-needed',
      reason: `the case gave ${c.verdict}, not ${w.verdict}${fails ? ': the result changed, and it fails the run' : ': remove the waiver, or update it'}`,
    };
  });
}

export function decideOutcome(input: {
  cases: { id: string; verdict: Verdict; waiver: { status: WaiverStatus } | null }[];
  selectionNarrowed: boolean;
  /** SADAD_PROFILE; `smoke` never certifies. */
  profile?: string;
  /** How the last run ended, in words, when it left cases NOT_RUN (e.g. `the run was interrupted`). */
  ended?: string | null;
  runErrors: string[];
  /** The preflight's blocking findings, when it stopped the run before its first case. */
  preflightBlocked?: string[];
}): Outcome {
  const { cases } = input;
  // INCONCLUSIVE blocks like ERROR: the rule was not decided
  const bad = cases.filter((c) => c.verdict === 'FAIL' || c.verdict === 'ERROR' || c.verdict === 'INCONCLUSIVE');
  const unexpected = bad.filter((c) => c.waiver?.status !== 'used').map((c) => c.id);
  const waived = cases.filter((c) => c.waiver?.status === 'used').map((c) => c.id);
  const notRun = cases.filter((c) => c.verdict === 'NOT_RUN').map((c) => c.id);
  const waivedBad = bad.length - unexpected.length;
  const reasons: string[] = [];
  const short: string[] = [];
  const counts = countVerdicts(cases);
  const nFail = bad.filter((c) => c.verdict === 'FAIL' && unexpected.includes(c.id)).length;
  const nError = bad.filter((c) => c.verdict === 'ERROR' && unexpected.includes(c.id)).length;
  const nInconclusive = bad.filter((c) => c.verdict === 'INCONCLUSIVE' && unexpected.includes(c.id)).length;
  const s = (n: number) => (n === 1 ? '' : 's');
  const because = (long: string, brief: string) => { reasons.push(long); short.push(brief); };
  if (input.preflightBlocked?.length) because(`the preflight stopped the run before its first case: ${input.preflightBlocked.join('; ')} (see Connection)`, 'the preflight stopped the run');
  if (nFail) because(`${nFail} case${s(nFail)} FAIL: the target breaks a rule the API document states`, `${nFail} FAIL`);
  if (nError) because(`${nError} case${s(nError)} ERROR: the suite, the network or the configuration broke, so the rule could not be checked`, `${nError} ERROR`);
  if (nInconclusive) because(`${nInconclusive} case${s(nInconclusive)} INCONCLUSIVE: a step the target should have accepted was refused, so the rule could not be decided (the case that tests that step is named)`, `${nInconclusive} INCONCLUSIVE`);
  if (notRun.length && input.preflightBlocked?.length) because(`${notRun.length} case${s(notRun.length)} NOT_RUN: no case ran; fix what the preflight found and run again`, `${notRun.length} NOT_RUN`);
  else if (notRun.length) {
    because(`${notRun.length} case${s(notRun.length)} NOT_RUN: ${input.ended ?? 'the run ended before they finished'}; \`npm run certify -- --resume\` runs ${notRun.length === 1 ? 'it' : 'them'} and merges the results into this package`,
      `${notRun.length} NOT_RUN (incomplete run)`);
  }
  if (!cases.length) because('no case ran', 'no case ran');
  if (input.profile === 'smoke') because('the smoke profile (SADAD_PROFILE=smoke) runs a subset of the cases: a smoke run never certifies', 'smoke profile');
  if (input.selectionNarrowed) because('the case selection was narrowed (SADAD_CASES, SADAD_SKIP_CASES or Playwright filters): a partial run cannot certify', 'partial case selection');
  for (const e of input.runErrors) because(`the run reported an error: ${e.split('\n')[0]}`, 'errors of the run');
  const certifies = reasons.length === 0;
  if (certifies && waivedBad) reasons.push(`${waivedBad} FAIL/ERROR case${waivedBad === 1 ? ' is' : 's are'} accepted by the baseline (waivers listed in the report)`);
  if (certifies && counts.WARN) reasons.push(`${counts.WARN} WARN: common practice or the strict profile not followed; these do not prevent certification`);
  const summary = certifies
    ? `Certifies: no FAIL and no ERROR${waivedBad ? ` other than ${waivedBad} accepted by the baseline` : ''} in ${cases.length} cases.`
    : `Does not certify: ${[...new Set(short)].join('; ')}.`;
  return { certifies, summary, reasons, unexpected, notRun, waived };
}

const observationString = (v: unknown): string | null => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));

export function aggregateObservations(cases: CaseReport[], errorBodyShapes: ErrorBodyShape[], calls: Record<string, number> | null = null, outages: Availability['outages'] = [], pacing?: PacingSummary): Observations {
  const out: Observations = { rejectionForms: {}, rateLimit: {}, duplicates: [], clientHeadersRequired: {}, responseStyle: {}, errorBodyShapes, availability: aggregateAvailability(cases, calls, outages, pacing) };
  for (const c of cases) {
    const o = c.observation;
    if (!o) continue;
    const form = observationString(o['rejection form']);
    if (form) {
      const forms = (out.rejectionForms[c.operation] ??= {});
      forms[form] = (forms[form] ?? 0) + 1;
    }
    if (c.family === 'rate-limit' && ('rate-limit answer' in o || 'limit per window' in o)) {
      const h = o['rate-limit headers'];
      const headers = h && typeof h === 'object' && !Array.isArray(h) ? Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)])) : observationString(h);
      // a target that rejects nothing over the limit has no such answer: what its last check saw instead
      const lastCheck = Object.keys(o).filter((k) => /^check \d+$/.test(k)).sort((a, b) => Number(a.slice(6)) - Number(b.slice(6))).at(-1);
      const answer = observationString(o['rate-limit answer']) ?? (lastCheck ? observationString(o[lastCheck]) : null);
      out.rateLimit[c.operation] = { case: c.id, verdict: c.verdict, limit: observationString(o['limit per window']), answer, headers, body: observationString(o['rate-limit body']) };
    }
    if (c.family === 'duplicates') {
      const handling = observationString(o['duplicate handling'] ?? o['concurrent copies'] ?? o['concurrent payments']);
      out.duplicates.push({ case: c.id, operation: c.operation, verdict: c.verdict, handling, debits: observationString(o['debits seen']) });
    }
    const client = observationString(o['clientid/clientsecret required']);
    if (client) out.clientHeadersRequired[c.operation] = { case: c.id, value: client };
    const style = observationString(o['response style']);
    if (style) out.responseStyle[c.operation] = style;
  }
  return out;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** Groups HTTP 4xx response bodies by shape (their top-level keys and types). */
export function errorBodyShapes(evidence: { case: string; exchanges: ExchangeRecord[] }[]): ErrorBodyShape[] {
  const shapes = new Map<string, ErrorBodyShape>();
  for (const e of evidence) {
    for (const ex of e.exchanges) {
      const r = ex.response;
      if (!r || r.status < 400 || r.status >= 500) continue;
      let form: string;
      let keys: { name: string; type: string }[] = [];
      if (!r.body.trim()) form = 'empty';
      else {
        let parsed: unknown;
        try { parsed = JSON.parse(r.body); } catch { parsed = undefined; }
        if (parsed === undefined) form = 'text';
        else if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
          form = 'object';
          keys = Object.entries(parsed).map(([name, v]) => ({ name, type: jsonType(v) }));
        } else form = jsonType(parsed);
      }
      const key = `${form}:${keys.map((k) => `${k.name}:${k.type}`).sort().join(',')}`;
      const shape = shapes.get(key);
      if (shape) {
        shape.count++;
        if (!shape.statuses.includes(r.status)) shape.statuses.push(r.status);
      } else {
        shapes.set(key, { form, keys, statuses: [r.status], count: 1, example: { case: e.case, exchange: ex.label, status: r.status, body: r.body.length > 2000 ? `${r.body.slice(0, 2000)}…` : r.body } });
      }
    }
  }
  for (const s of shapes.values()) s.statuses.sort((a, b) => a - b);
  return [...shapes.values()].sort((a, b) => b.count - a.count);
}

export type PlanSummary = CertificationReport['plan'];
export const planSummary = (plan: Plan | null): PlanSummary =>
  plan ? { calls: plan.calls, estimatedSeconds: plan.estimate.seconds, bound: plan.estimate.bound } : null;

// The parts of the package that their makers fill (causes.ts, plan.ts, compare.ts): declared here,
// with the rest of the package's shape, so that the model imports none of the modules that use it.

/** FAIL, ERROR and INCONCLUSIVE cases of one root cause (causes.ts). */
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

/** A case as the plan counts it (plan.ts). */
export interface PlannedCase {
  id: string;
  operation: string;
  family: string;
  level: string;
  calls: Record<string, number>;
  /** Payments meant to take effect, and the bills and fees they pay (payment cases only). */
  payments?: { debits: number; subjects: number } | undefined;
  /** Calls made once per worker for all the cases naming the same key (src/suite/case.ts `shared`). */
  shared?: { key: string; calls: Record<string, number> }[] | undefined;
  /** What the case needs to send anything (`signer`, `payments`); without it the case is NOT_APPLICABLE. */
  needs?: string[] | undefined;
}

/** The run's plan: calls, payments and the time it takes (plan.ts). */
export interface Plan {
  cases: PlannedCase[];
  byOperation: Record<string, number>;
  byFamily: Record<string, number>;
  /**
   * Planned calls per operation: the sum of the applicable cases' `calls`, and each shared key's
   * calls once per worker that can draw one of its cases.
   */
  calls: Record<string, number>;
  /** The preflight's calls in `calls` (before the first case, against a configured target), or null. */
  preflight: Record<string, number> | null;
  /** The shared calls in `calls`: per key, how many workers make them. */
  shared: { key: string; calls: Record<string, number>; times: number }[];
  /** Cases that will send nothing (NOT_APPLICABLE): no signer, or SADAD_PAYMENTS=off. */
  notApplicable: number;
  context: PlanContext;
  limits: Limits;
  payments: PaymentPlan;
  estimate: { seconds: number; bound: string | null; perOperation: Record<string, number> };
}

export type ChangeKind = 'verdict' | 'behaviour' | 'availability' | 'fingerprint';
export const CHANGE_KINDS: readonly ChangeKind[] = ['verdict', 'behaviour', 'availability', 'fingerprint'];

export interface VerdictChange { case: string; operation: string; previous: string; current: string; kind: 'newly failing' | 'fixed' | 'changed' }
/** The rule a case judges changed (a suite of another version): its level, sections or expectation. */
export interface RuleChange { case: string; operation: string; previous: string; current: string }
/** A stable fact that changed; `cases`: the cases that saw the same change (none for a fact of the whole run). */
export interface BehaviourChange { topic: string; operation: string | null; previous: string; current: string; cases?: string[] }
export interface FingerprintDifference { field: string; previous: string | null; current: string | null }

export interface Changes {
  /** The package compared with. */
  previous: { file: string; runId: string | null; startedAt: string | null; target: string | null; suite: string | null };
  /** Fingerprint fields that differ: packages of other suite versions or targets compare too, and say so. */
  fingerprint: FingerprintDifference[];
  verdicts: VerdictChange[];
  added: string[];
  removed: string[];
  rules?: RuleChange[];
  behaviour: BehaviourChange[];
  availability?: BehaviourChange[];
  /** How many changes of each kind. */
  byKind?: Record<ChangeKind, number>;
  /** Why some behaviour could not be compared (a package of a suite that recorded no stable facts). */
  limits?: string[];
  /** verdict + behaviour changes: what SADAD_FAIL_ON=behaviour (and `change`) fails on. */
  count: number;
}
