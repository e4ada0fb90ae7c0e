/**
 * What changed since a previous run (`--compare <certification.json>`, SADAD_COMPARE): verdicts
 * that changed, cases added or removed, and what the target does where the spec is silent
 * (rejection form, rate-limit answer and headers, Retry-After, error body shapes, duplicate
 * handling, strict-profile deviations, the response fields and their types, availability). A
 * sandbox that moves from HTTP 400 to in-band rejections, or turns a number into a string that is
 * still lenient-valid, keeps every case PASS: only a comparison shows it.
 */
import { spanText } from './availability.js';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from '../contract/prefix.js';
import { oneOf } from '../config/env-values.js';
import type { CaseReport, CertificationReport } from './model.js';

export interface VerdictChange { case: string; operation: string; previous: string; current: string; kind: 'newly failing' | 'fixed' | 'changed' }
export interface BehaviourChange { topic: string; operation: string | null; previous: string; current: string }
export interface FingerprintDifference { field: string; previous: string | null; current: string | null }

export interface Changes {
  /** The package compared with. */
  previous: { file: string; runId: string | null; startedAt: string | null; target: string | null; suite: string | null };
  /** Fingerprint fields that differ: packages of other suite versions or targets compare too, and say so. */
  fingerprint: FingerprintDifference[];
  verdicts: VerdictChange[];
  added: string[];
  removed: string[];
  behaviour: BehaviourChange[];
  /** verdicts + added + removed + behaviour: what SADAD_FAIL_ON=change fails on. */
  count: number;
}

const BLOCKING = new Set(['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN']);

const str = (v: unknown): string => (v === undefined || v === null ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));
const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
const list = (xs: string[]) => (xs.length ? xs.join('; ') : 'none');

type Facts = Map<string, { topic: string; operation: string | null; value: string }>;

/** What the target does where the spec is silent, as comparable facts keyed by topic and operation. */
export function behaviourFacts(r: CertificationReport): Facts {
  const facts: Facts = new Map();
  const put = (topic: string, operation: string | null, value: string) => facts.set(`${topic}|${operation ?? ''}`, { topic, operation, value });
  const o = r.observations;
  for (const [op, forms] of Object.entries(o.rejectionForms ?? {})) put('rejection form', op, list(sorted(Object.keys(forms))));
  for (const [op, rl] of Object.entries(o.rateLimit ?? {})) {
    put('rate-limit answer', op, str(rl.answer));
    const headers = rl.headers && typeof rl.headers === 'object' ? rl.headers : null;
    put('rate-limit headers', op, headers ? list(sorted(Object.keys(headers))) : str(rl.headers));
    put('Retry-After', op, headers ? str(headers['retry-after']) : 'none');
  }
  put('error body shapes', null, list(sorted((o.errorBodyShapes ?? []).map((s) => `${s.form}${s.keys.length ? ` {${s.keys.map((k) => `${k.name}: ${k.type}`).join(', ')}}` : ''}`))));
  for (const d of o.duplicates ?? []) put(`duplicate handling (${d.case})`, d.operation, str(d.handling));
  for (const [op, v] of Object.entries(o.clientHeadersRequired ?? {})) put('clientid/clientsecret required', op, v.value.replace(/\(.*\)$/, '').trim());
  for (const [op, v] of Object.entries(o.responseStyle ?? {})) put('response style', op, v);
  const availability = o.availability;
  for (const [op, a] of Object.entries(availability?.byOperation ?? {})) {
    // the kinds of fault seen, not their number: a blip more or less is no change of behaviour
    const kinds = Object.entries(a.byKind ?? {}).filter(([, n]) => n.faults > 0).map(([k, n]) => `${k}${n.recovered < n.faults ? ' (not always recovered)' : ''}`);
    put('transient faults', op, list(sorted(kinds)));
  }
  // what the gateway allowed: whether it refused calls the pacing spaced (not how many: a refusal more
  // or less is the network's jitter), and the over-limit answer it gives when that is not a 429
  for (const [op, p] of Object.entries(availability?.pacing?.byOperation ?? {})) put('gateway refusals outside the rate-limit cases', op, p.refused ? 'some (the pacing slowed down)' : 'none');
  if (availability?.pacing) put('over-limit answer other than 429', null, list(sorted(availability.pacing.overLimit.map((o) => `HTTP ${o.status}`))));
  // how often, and how long, the target was down: the times themselves differ in every run
  const outages = availability?.outages ?? [];
  put('outages', null, outages.length ? `${outages.length} outage${outages.length === 1 ? '' : 's'}, ${spanText(outages.reduce((t, o) => t + (o.durationMs || 0), 0))} in all${outages.some((o) => o.gaveUp) ? ', the run gave up waiting' : ''}` : 'none');
  for (const c of r.cases) {
    if (c.family !== 'response-schema') continue;
    const fields = c.observation?.['response fields'];
    if (Array.isArray(fields)) put('response fields', c.operation, fields.map(String).join('\n'));
    const strict = c.notes.filter((n) => n.verdict === 'WARN' && n.text.startsWith('strict profile:')).map((n) => n.text.replace(/\/\d+(?=\/)/g, '/[]'));
    if (c.verdict !== 'NOT_RUN') put('strict-profile deviations', c.operation, list(sorted(strict)));
  }
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
    ['target', (r) => r.fingerprint.target.url],
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

export function compareReports(previous: CertificationReport, current: CertificationReport, file: string): Changes {
  const before = new Map<string, CaseReport>(previous.cases.map((c) => [c.id, c]));
  const now = new Map<string, CaseReport>(current.cases.map((c) => [c.id, c]));
  const verdicts: VerdictChange[] = [];
  for (const [id, c] of now) {
    const p = before.get(id);
    if (!p || p.verdict === c.verdict) continue;
    const kind = BLOCKING.has(c.verdict) && !BLOCKING.has(p.verdict) ? 'newly failing' : !BLOCKING.has(c.verdict) && BLOCKING.has(p.verdict) ? 'fixed' : 'changed';
    verdicts.push({ case: id, operation: c.operation, previous: p.verdict, current: c.verdict, kind });
  }
  const added = [...now.keys()].filter((id) => !before.has(id)).sort();
  const removed = [...before.keys()].filter((id) => !now.has(id)).sort();
  const a = behaviourFacts(previous);
  const b = behaviourFacts(current);
  const behaviour: BehaviourChange[] = [];
  for (const key of sorted([...a.keys(), ...b.keys()])) {
    const x = a.get(key);
    const y = b.get(key);
    // a fact only one run could observe (a case not run, a family not selected) is no change of behaviour
    if (!x || !y || x.value === y.value) continue;
    const values = x.topic === 'response fields' ? fieldChanges(x.value, y.value) : { previous: x.value, current: y.value };
    behaviour.push({ topic: x.topic, operation: x.operation, ...values });
  }
  const order = { 'newly failing': 0, fixed: 1, changed: 2 };
  verdicts.sort((p, q) => order[p.kind] - order[q.kind] || (p.case < q.case ? -1 : 1));
  return {
    previous: {
      file, runId: previous.runs?.at(-1)?.runId ?? null, startedAt: previous.fingerprint?.startedAt ?? null,
      target: previous.fingerprint?.target?.url ?? null, suite: previous.fingerprint?.suite ? `${previous.fingerprint.suite.version}${previous.fingerprint.suite.commit ? ` (${previous.fingerprint.suite.commit.slice(0, 12)})` : ''}` : null,
    },
    fingerprint: fingerprintDifferences(previous, current),
    verdicts, added, removed, behaviour,
    count: verdicts.length + added.length + removed.length + behaviour.length,
  };
}

/** The console's summary of the changes. */
export function formatChanges(ch: Changes, max = 8): string {
  const lines = [`Changes since ${ch.previous.runId ?? ch.previous.file} (${ch.previous.startedAt ?? 'unknown date'}): ${ch.count === 0 ? 'none' : ch.count}`];
  for (const f of ch.fingerprint) lines.push(`  fingerprint: ${f.field} ${f.previous ?? 'none'} -> ${f.current ?? 'none'}`);
  const byKind = (k: VerdictChange['kind']) => ch.verdicts.filter((v) => v.kind === k);
  for (const k of ['newly failing', 'fixed', 'changed'] as const) {
    const vs = byKind(k);
    if (!vs.length) continue;
    lines.push(`  ${vs.length} ${k}: ${vs.slice(0, max).map((v) => `${v.case} (${v.previous} -> ${v.current})`).join(', ')}${vs.length > max ? ', ...' : ''}`);
  }
  if (ch.added.length) lines.push(`  ${ch.added.length} cases added: ${ch.added.slice(0, max).join(', ')}${ch.added.length > max ? ', ...' : ''}`);
  if (ch.removed.length) lines.push(`  ${ch.removed.length} cases removed: ${ch.removed.slice(0, max).join(', ')}${ch.removed.length > max ? ', ...' : ''}`);
  for (const b of ch.behaviour.slice(0, max)) lines.push(`  ${b.topic}${b.operation ? ` (${b.operation})` : ''}: ${b.previous.slice(0, 120)} -> ${b.current.slice(0, 120)}`);
  if (ch.behaviour.length > max) lines.push(`  ... ${ch.behaviour.length - max} more behaviour changes (certification.html lists them all)`);
  return lines.join('\n');
}

/** SADAD_COMPARE (or `--compare`): the previous package, checked before anything is sent. */
export function loadComparison(env: NodeJS.ProcessEnv = process.env): { file: string; report: CertificationReport } | null {
  const raw = env.SADAD_COMPARE?.trim();
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

export type FailOn = 'fail' | 'change';

/** Whether SADAD_FAIL_ON=change makes this package's run fail: something changed since SADAD_COMPARE. */
export function changeFails(report: CertificationReport, env: NodeJS.ProcessEnv = process.env): boolean {
  let failOn: FailOn = 'fail';
  try { failOn = failOnFrom(env); } catch { /* reported, naming the variable, before the run */ }
  return failOn === 'change' && !!report.changes && report.changes.count > 0;
}

/** SADAD_FAIL_ON: `fail` (default: the exit code says whether the run certifies) or `change` (also non-zero when anything changed since SADAD_COMPARE). */
export function failOnFrom(env: NodeJS.ProcessEnv = process.env): FailOn {
  return oneOf(env, 'SADAD_FAIL_ON', ['fail', 'change'] as const, 'fail');
}
