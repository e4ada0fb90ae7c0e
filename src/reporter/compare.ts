/**
 * What changed since a previous run (`--compare <certification.json>`, SADAD_COMPARE): changes of
 * behaviour, never of timing or of values the service or the seed generate, in four kinds:
 * - `verdict`: verdicts that changed, cases added or removed, and the rule a case judges (its level,
 *   sections or expectation);
 * - `behaviour`: what the target does, read from each case's stable facts (CaseContext.stableFacts:
 *   the statuses and body shapes of its answers, the rejection form, the rate-limit answer and its
 *   headers, duplicate handling, response fields and types, strict-profile deviations by field, ...)
 *   and the error body shapes; identical changes of many cases of an operation read as one;
 * - `availability`: the kinds of transient fault, refusals by the gateway's limiter outside the
 *   rate-limit cases, outages: the network and the hour as much as the target;
 * - `fingerprint`: suite version, schema, target, profile, limits, selection.
 * A sandbox that moves from HTTP 400 to in-band rejections, or turns a number into a string that is
 * still lenient-valid, keeps every case PASS: only a comparison shows it. A timing or a value that
 * crosses a rule's threshold shows as the verdict change it causes. SADAD_FAIL_ON decides which
 * kinds fail the run.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../contract/prefix.js';
import type { FailOn } from '../vocabulary/fail-on.js';
import { CHANGE_KINDS, type BehaviourChange, type CaseReport, type CertificationReport, type ChangeKind, type Changes, type FingerprintDifference, type RuleChange, type VerdictChange } from './model.js';

export type { BehaviourChange, ChangeKind, Changes, FingerprintDifference, RuleChange, VerdictChange } from './model.js';
export { CHANGE_KINDS } from './model.js';

const BLOCKING = new Set(['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN']);
/** Verdicts of a case that looked at the target: its facts mean something. */
const JUDGED = new Set(['PASS', 'WARN', 'FAIL', 'OBSERVED', 'INCONCLUSIVE']);

const str = (v: unknown): string => (v === undefined || v === null ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
const list = (xs: string[]) => (xs.length ? xs.join('; ') : 'none');

type Facts = Map<string, { topic: string; operation: string | null; value: string }>;

/** What the target does over the whole run, apart from its cases' facts: the error body shapes. */
export function behaviourFacts(r: CertificationReport): Facts {
  const facts: Facts = new Map();
  const o = r.observations;
  facts.set('error body shapes|', { topic: 'error body shapes', operation: null, value: list(sorted((o.errorBodyShapes ?? []).map((s) => `${s.form}${s.keys.length ? ` {${s.keys.map((k) => `${k.name}: ${k.type}`).join(', ')}}` : ''}`))) });
  return facts;
}

/** How the run went through the network: the kinds of fault, the gateway's refusals, outages (how many, not when or how long each). */
export function availabilityFacts(r: CertificationReport): Facts {
  const facts: Facts = new Map();
  const put = (topic: string, operation: string | null, value: string) => facts.set(`${topic}|${operation ?? ''}`, { topic, operation, value });
  const availability = r.observations?.availability;
  for (const [op, a] of Object.entries(availability?.byOperation ?? {})) {
    // the kinds of fault seen, not their number: a blip more or less is no change
    const kinds = Object.entries(a.byKind ?? {}).filter(([, n]) => n.faults > 0).map(([k, n]) => `${k}${n.recovered < n.faults ? ' (not always recovered)' : ''}`);
    put('transient faults', op, list(sorted(kinds)));
  }
  // whether the gateway refused calls the pacing spaced (not how many: a refusal more or less is the
  // network's jitter), and the over-limit answer it gives when that is not a 429
  for (const [op, p] of Object.entries(availability?.pacing?.byOperation ?? {})) put('gateway refusals outside the rate-limit cases', op, p.refused ? 'some (the pacing slowed down)' : 'none');
  if (availability?.pacing) put('over-limit answer other than 429', null, list(sorted(availability.pacing.overLimit.map((o) => `HTTP ${o.status}`))));
  const outages = availability?.outages ?? [];
  // how many, not how long: the length of an outage is the hour's, not the target's behaviour
  put('outages', null, outages.length ? `${outages.length} outage${outages.length === 1 ? '' : 's'}${outages.some((o) => o.gaveUp) ? ', the run gave up waiting' : ''}` : 'none');
  return facts;
}

/** The response fields: which appeared, which went, which changed type. */
function fieldChanges(previous: string, current: string): { previous: string; current: string } {
  const parse = (s: string) => new Map(s.split('\n').filter(Boolean).map((l) => { const i = l.lastIndexOf(': '); return [l.slice(0, i), l.slice(i + 2)] as [string, string]; }));
  const a = parse(previous);
  const b = parse(current);
  const was: string[] = [];
  const now: string[] = [];
  for (const [k, t] of a) if (!b.has(k)) { was.push(`${k}: ${t}`); now.push(`${k}: gone`); } else if (b.get(k) !== t) { was.push(`${k}: ${t}`); now.push(`${k}: ${b.get(k)}`); }
  for (const [k, t] of b) if (!a.has(k)) { was.push(`${k}: absent`); now.push(`${k}: ${t}`); }
  return { previous: was.join('; '), current: now.join('; ') };
}

function fingerprintDifferences(p: CertificationReport, c: CertificationReport): FingerprintDifference[] {
  const fields: [string, (r: CertificationReport) => unknown][] = [
    ['suite version', (r) => r.fingerprint.suite.version],
    ['suite commit', (r) => r.fingerprint.suite.commit],
    ['schema hash', (r) => r.fingerprint.schemaHash],
    // the target as configured (`embedded mock`), not the address the run reached: the embedded
    // mock listens on a new port every run
    ['target', (r) => r.identity?.target ?? r.fingerprint.target.url],
    ['target profile', (r) => r.fingerprint.target.profile],
    ['limits', (r) => r.fingerprint.limits],
    ['selection', (r) => r.fingerprint.selection],
    ['profile', (r) => r.fingerprint.profile],
  ];
  const out: FingerprintDifference[] = [];
  for (const [field, get] of fields) {
    const a = get(p) ?? null;
    const b = get(c) ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b)) out.push({ field, previous: a === null ? null : str(a), current: b === null ? null : str(b) });
  }
  return out;
}

const ruleOf = (c: CaseReport) => `${c.level} §${c.sections.join(', §')}: ${c.expectation}`;

/**
 * The cases' stable facts that changed, one change per operation, fact and before/after with the
 * cases that saw it: a sandbox that turns to in-band rejections reads as one change per operation,
 * not one per request case. Only cases that looked at the target in both runs (a judged verdict),
 * and that both recorded facts, are compared.
 */
function caseFactChanges(before: Map<string, CaseReport>, now: Map<string, CaseReport>): BehaviourChange[] {
  const groups = new Map<string, BehaviourChange & { cases: string[] }>();
  for (const [id, c] of now) {
    const p = before.get(id);
    if (!p?.facts || !c.facts || !JUDGED.has(p.verdict) || !JUDGED.has(c.verdict)) continue;
    for (const topic of sorted([...Object.keys(p.facts), ...Object.keys(c.facts)])) {
      const x = p.facts[topic] ?? 'none';
      const y = c.facts[topic] ?? 'none';
      if (x === y) continue;
      const values = topic === 'response fields' ? fieldChanges(x, y) : { previous: x, current: y };
      const key = JSON.stringify([c.operation, topic, values.previous, values.current]);
      const g = groups.get(key) ?? { topic, operation: c.operation, ...values, cases: [] };
      g.cases.push(id);
      groups.set(key, g);
    }
  }
  return [...groups.values()].map((g) => ({ ...g, cases: g.cases.sort() }));
}

function factChanges(a: Facts, b: Facts): BehaviourChange[] {
  const out: BehaviourChange[] = [];
  for (const key of sorted([...a.keys(), ...b.keys()])) {
    const x = a.get(key);
    const y = b.get(key);
    // a fact only one run could observe (a case not run, a family not selected) is no change of behaviour
    if (!x || !y || x.value === y.value) continue;
    out.push({ topic: x.topic, operation: x.operation, previous: x.value, current: y.value });
  }
  return out;
}

export function compareReports(previous: CertificationReport, current: CertificationReport, file: string): Changes {
  const before = new Map<string, CaseReport>(previous.cases.map((c) => [c.id, c]));
  const now = new Map<string, CaseReport>(current.cases.map((c) => [c.id, c]));
  const verdicts: VerdictChange[] = [];
  const rules: RuleChange[] = [];
  for (const [id, c] of now) {
    const p = before.get(id);
    if (!p) continue;
    if (ruleOf(p) !== ruleOf(c)) rules.push({ case: id, operation: c.operation, previous: ruleOf(p), current: ruleOf(c) });
    if (p.verdict === c.verdict) continue;
    const kind = BLOCKING.has(c.verdict) && !BLOCKING.has(p.verdict) ? 'newly failing' : !BLOCKING.has(c.verdict) && BLOCKING.has(p.verdict) ? 'fixed' : 'changed';
    verdicts.push({ case: id, operation: c.operation, previous: p.verdict, current: c.verdict, kind });
  }
  const added = [...now.keys()].filter((id) => !before.has(id)).sort();
  const removed = [...before.keys()].filter((id) => !now.has(id)).sort();
  const behaviour = [...caseFactChanges(before, now), ...factChanges(behaviourFacts(previous), behaviourFacts(current))]
    .sort((x, y) => (x.operation ?? '').localeCompare(y.operation ?? '') || x.topic.localeCompare(y.topic));
  const availability = factChanges(availabilityFacts(previous), availabilityFacts(current));
  const limits: string[] = [];
  const factless = (r: CertificationReport) => r.cases.length > 0 && r.cases.every((c) => !c.facts);
  if (factless(previous)) limits.push('the previous package records no stable facts (written by an earlier suite): only verdicts, cases, error body shapes and availability are compared');
  const order = { 'newly failing': 0, fixed: 1, changed: 2 };
  verdicts.sort((p, q) => order[p.kind] - order[q.kind] || (p.case < q.case ? -1 : 1));
  const fingerprint = fingerprintDifferences(previous, current);
  const byKind: Record<ChangeKind, number> = {
    verdict: verdicts.length + added.length + removed.length + rules.length,
    behaviour: behaviour.length,
    availability: availability.length,
    fingerprint: fingerprint.length,
  };
  return {
    previous: {
      file, runId: previous.runs?.at(-1)?.runId ?? null, startedAt: previous.fingerprint?.startedAt ?? null,
      target: previous.identity?.target ?? previous.fingerprint?.target?.url ?? null,
      suite: previous.fingerprint?.suite ? `${previous.fingerprint.suite.version}${previous.fingerprint.suite.commit ? ` (${previous.fingerprint.suite.commit.slice(0, 12)})` : ''}` : null,
    },
    fingerprint, verdicts, added, removed, rules, behaviour, availability, byKind, limits,
    count: byKind.verdict + byKind.behaviour,
  };
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const casesText = (cases: string[] | undefined, max = 3) => (cases?.length ? ` [${cases.length > max ? `${plural(cases.length, 'case')}, e.g. ${cases.slice(0, max).join(', ')}` : cases.join(', ')}]` : '');

/** The console's summary of the changes, by kind. */
export function formatChanges(ch: Changes, failOn: FailOn = 'fail', max = 8): string {
  const byKind = ch.byKind ?? { verdict: ch.verdicts.length + ch.added.length + ch.removed.length, behaviour: ch.behaviour.length, availability: 0, fingerprint: ch.fingerprint.length };
  const failing = failingKinds(failOn);
  const total = CHANGE_KINDS.reduce((t, k) => t + byKind[k], 0);
  const lines = [`Changes since ${ch.previous.runId ?? ch.previous.file} (${ch.previous.startedAt ?? 'unknown date'}): ${total === 0 ? 'none' : CHANGE_KINDS.filter((k) => byKind[k]).map((k) => `${byKind[k]} ${k}${failing.includes(k) ? ' (fails the run: SADAD_FAIL_ON=' + failOn + ')' : ''}`).join(', ')}`];
  if (byKind.verdict) {
    lines.push(`  verdict (${byKind.verdict}):`);
    for (const k of ['newly failing', 'fixed', 'changed'] as const) {
      const vs = ch.verdicts.filter((v) => v.kind === k);
      if (vs.length) lines.push(`    ${vs.length} ${k}: ${vs.slice(0, max).map((v) => `${v.case} (${v.previous} -> ${v.current})`).join(', ')}${vs.length > max ? ', ...' : ''}`);
    }
    if (ch.added.length) lines.push(`    ${ch.added.length} cases added: ${ch.added.slice(0, max).join(', ')}${ch.added.length > max ? ', ...' : ''}`);
    if (ch.removed.length) lines.push(`    ${ch.removed.length} cases removed: ${ch.removed.slice(0, max).join(', ')}${ch.removed.length > max ? ', ...' : ''}`);
    const rules = ch.rules ?? [];
    if (rules.length) lines.push(`    ${rules.length} rules changed: ${rules.slice(0, max).map((r) => r.case).join(', ')}${rules.length > max ? ', ...' : ''}`);
  }
  const facts = (kind: ChangeKind, xs: BehaviourChange[]) => {
    if (!xs.length) return;
    lines.push(`  ${kind} (${xs.length}):`);
    for (const b of xs.slice(0, max)) lines.push(`    ${b.topic}${b.operation ? ` (${b.operation})` : ''}: ${b.previous.slice(0, 120)} -> ${b.current.slice(0, 120)}${casesText(b.cases)}`);
    if (xs.length > max) lines.push(`    ... ${xs.length - max} more (certification.html lists them all)`);
  };
  facts('behaviour', ch.behaviour);
  facts('availability', ch.availability ?? []);
  if (ch.fingerprint.length) {
    lines.push(`  fingerprint (${ch.fingerprint.length}):`);
    for (const f of ch.fingerprint) lines.push(`    ${f.field}: ${f.previous ?? 'none'} -> ${f.current ?? 'none'}`);
  }
  for (const l of ch.limits ?? []) lines.push(`  note: ${l}`);
  return lines.join('\n');
}

/** SADAD_COMPARE (or `--compare`): the previous package, checked before anything is sent. */
export function loadComparison(compareFile: string | undefined): { file: string; report: CertificationReport } | null {
  const raw = compareFile?.trim();
  if (!raw) return null;
  const file = resolve(raw);
  let text: string;
  try { text = readFileSync(file, 'utf8'); } catch { throw new ConfigError('SADAD_COMPARE', `cannot read ${JSON.stringify(raw)}`); }
  let report: CertificationReport;
  try { report = JSON.parse(text) as CertificationReport; } catch { throw new ConfigError('SADAD_COMPARE', `${JSON.stringify(raw)} is not JSON`); }
  if (report?.format !== 'sadad-certification' || !Array.isArray(report.cases)) throw new ConfigError('SADAD_COMPARE', `${JSON.stringify(raw)} is not a certification.json (format sadad-certification)`);
  // packages of format 1 lack the newer parts; what both have is compared
  report.observations ??= {} as CertificationReport['observations'];
  return { file: raw, report };
}

export type { FailOn } from '../vocabulary/fail-on.js';

export function failingKinds(failOn: FailOn): ChangeKind[] {
  switch (failOn) {
    case 'fail': return [];
    case 'verdict': return ['verdict'];
    case 'behaviour': case 'change': return ['verdict', 'behaviour'];
    case 'any': return [...CHANGE_KINDS];
  }
}

/** The kinds of change that make this package's run fail under SADAD_FAIL_ON (none: it does not fail for a change). */
export function changeFails(report: CertificationReport, failOn: FailOn): ChangeKind[] {
  const ch = report.changes;
  if (!ch) return [];
  const byKind = ch.byKind ?? { verdict: ch.verdicts.length + ch.added.length + ch.removed.length, behaviour: ch.behaviour.length, availability: 0, fingerprint: ch.fingerprint.length };
  return failingKinds(failOn).filter((k) => byKind[k] > 0);
}

/** The number of changes of these kinds, in words: `2 verdict, 1 behaviour`. */
export function kindsText(ch: Changes, kinds: ChangeKind[]): string {
  return kinds.map((k) => `${ch.byKind?.[k] ?? 0} ${k}`).join(', ');
}
