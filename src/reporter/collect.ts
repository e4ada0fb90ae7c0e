/**
 * From what a run leaves behind to case records: the planned cases' static annotations
 * (src/suite/case.ts `asTest`), the evidence file each case writes when it ends, and, for a case
 * that ended without a verdict, what Playwright says about it.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { maskHeaders, maskText } from '../client/redact.js';
import { VERDICT_ORDER, type Level, type Verdict } from '../vocabulary/verdicts.js';
import { parseFaults } from './availability.js';
import type { ManifestCase } from './journal.js';
import type { EvidenceRecord } from '../evidence/record.js';
import { testStatusOf } from '../evidence/outcome.js';
import type { CaseReport } from './model.js';
import type { ExchangeRecord } from '../evidence/record.js';
import type { PlannedCase } from './plan.js';

type Annotation = { type: string; description?: string };

const NOTE_TYPES = new Map<string, Verdict>([['fail', 'FAIL'], ['warn', 'WARN'], ['error', 'ERROR'], ['inconclusive', 'INCONCLUSIVE'], ['not_run', 'NOT_RUN'], ['skipped', 'SKIPPED'], ['not_applicable', 'NOT_APPLICABLE'], ['observed', 'OBSERVED']]);
export const isVerdict = (v: unknown): v is Verdict => typeof v === 'string' && (VERDICT_ORDER as string[]).includes(v);

const first = (list: Annotation[], type: string) => list.find((a) => a.type === type)?.description;
const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

function parseCalls(raw: string | undefined, op: string): Record<string, number> {
  try {
    const v = JSON.parse(raw ?? '') as Record<string, unknown>;
    const out: Record<string, number> = {};
    for (const [k, n] of Object.entries(v)) if (typeof n === 'number' && Number.isFinite(n) && n >= 0) out[k] = n;
    return out;
  } catch {
    return { [op]: 1 };
  }
}

function parsePayments(raw: string | undefined): PlannedCase['payments'] {
  try {
    const v = JSON.parse(raw ?? '') as { debits?: unknown; subjects?: unknown };
    const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0);
    return { debits: n(v.debits), subjects: n(v.subjects) };
  } catch {
    return undefined;
  }
}

function parseShared(raw: string | undefined): PlannedCase['shared'] {
  try {
    const v = JSON.parse(raw ?? '') as unknown;
    if (!Array.isArray(v)) return undefined;
    return v.filter((s): s is { key: string; calls: unknown } => !!s && typeof s === 'object' && typeof (s as { key?: unknown }).key === 'string')
      .map((s) => ({ key: s.key, calls: parseCalls(JSON.stringify(s.calls), '') }));
  } catch {
    return undefined;
  }
}

/** What the dry run needs, from the static annotations (src/suite/case.ts `asTest`). */
export function plannedCase(test: TestCase): PlannedCase {
  const a = test.annotations;
  const operation = first(a, 'operation') ?? 'unknown';
  const needs = first(a, 'needs')?.split(',').filter(Boolean);
  return {
    id: first(a, 'case') ?? test.title,
    operation,
    family: first(a, 'family') ?? 'unknown',
    level: first(a, 'level') ?? 'MUST',
    calls: parseCalls(first(a, 'calls'), operation),
    ...(first(a, 'payments') !== undefined ? { payments: parsePayments(first(a, 'payments')) } : {}),
    ...(first(a, 'shared') !== undefined ? { shared: parseShared(first(a, 'shared')) } : {}),
    ...(needs?.length ? { needs } : {}),
  };
}

/** A planned case as the run manifest records it, from the test's static annotations. */
export function manifestCase(test: TestCase, rootDir: string): ManifestCase {
  const p = plannedCase(test);
  const a = test.annotations;
  return {
    id: p.id,
    title: maskText(test.title),
    file: relative(rootDir, test.location.file).split('\\').join('/'),
    operation: p.operation,
    family: p.family,
    level: p.level,
    sections: (first(a, 'sections') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    expectation: maskText(first(a, 'expectation') ?? ''),
    calls: p.calls,
    ...(p.shared?.length ? { shared: p.shared } : {}),
    ...(p.needs?.length ? { needs: p.needs } : {}),
  };
}

/** Masks an exchange once more on the way into the report: header values by name, and known secrets everywhere. */
export function maskExchange(ex: ExchangeRecord): ExchangeRecord {
  const out: ExchangeRecord = {
    label: maskText(String(ex.label ?? '')),
    request: { method: String(ex.request?.method ?? ''), url: maskText(String(ex.request?.url ?? '')), headers: maskHeaders(ex.request?.headers ?? {}), body: maskText(String(ex.request?.body ?? '')) },
  };
  if (ex.op !== undefined && ex.op !== null) out.op = String(ex.op);
  if (ex.response) out.response = { status: Number(ex.response.status), headers: maskHeaders(ex.response.headers ?? {}), body: maskText(String(ex.response.body ?? '')) };
  if (ex.error) {
    const e = ex.error as { kind: unknown; message: unknown; code?: unknown; advice?: unknown };
    out.error = { kind: String(e.kind), message: maskText(String(e.message)), ...(typeof e.code === 'string' ? { code: e.code } : {}), ...(typeof e.advice === 'string' ? { advice: maskText(e.advice) } : {}) };
  }
  if (ex.startedAt !== undefined) out.startedAt = String(ex.startedAt);
  if (typeof ex.durationMs === 'number') out.durationMs = ex.durationMs;
  if (typeof ex.curl === 'string') out.curl = maskText(ex.curl);
  return out;
}

/** The exchanges a test attached as it went (all a case that never reached its end leaves). */
export function attachedExchanges(result?: TestResult): ExchangeRecord[] {
  const out: ExchangeRecord[] = [];
  for (const att of result?.attachments ?? []) {
    if (!/^exchange-.*\.json$/.test(att.name)) continue;
    try {
      const text = att.body ? att.body.toString('utf8') : att.path ? readFileSync(att.path, 'utf8') : '';
      out.push(maskExchange(JSON.parse(text) as ExchangeRecord));
    } catch { /* an unreadable attachment is left out */ }
  }
  return out;
}

/** How a run ended, for the reason of the cases it did not finish. */
export function howItEnded(status: string | undefined): string {
  switch (status) {
    case 'interrupted': return 'the run was interrupted (Ctrl-C, SIGINT or SIGTERM)';
    case 'preflight': return 'the preflight found that the run cannot succeed as configured (see Connection), and stopped it';
    case 'timedout': return 'the run reached its global time limit';
    case undefined: return 'the run was killed, or crashed, before it could write its package (rebuilt from the evidence)';
    default: return `the run ended (status ${status})`;
  }
}

/**
 * The evidence record the reporter writes for a test that ended without the case's own record:
 * a case that timed out or broke outside its body is ERROR; one whose worker died, that the runner
 * skipped, or that was stopped by an interrupt is NOT_RUN. A case that recorded its verdict in the
 * annotations but could not write its file keeps that verdict.
 */
export function recordOfResult(test: TestCase, result: TestResult, runId: string, rootDir: string): EvidenceRecord {
  const planned = manifestCase(test, rootDir);
  const a: Annotation[] = result.annotations?.length ? result.annotations : test.annotations;
  const notes: { verdict: Verdict; text: string }[] = [];
  for (const ann of a) {
    const v = NOTE_TYPES.get(ann.type);
    if (v && ann.description !== undefined) notes.push({ verdict: v, text: maskText(ann.description) });
  }
  const error = result.error?.message ? stripAnsi(result.error.message) : '';
  const recorded = first(a, 'verdict');
  let verdict: Verdict;
  if (isVerdict(recorded)) verdict = recorded;
  else if (result.status === 'interrupted') {
    verdict = 'NOT_RUN';
    notes.push({ verdict, text: 'did not finish: the run was stopped while this case was running (interrupted)' });
  } else if (result.status === 'failed' && /worker process exited unexpectedly/i.test(error)) {
    verdict = 'NOT_RUN';
    const how = /\(code=[^)]*\)/.exec(error)?.[0] ?? '';
    notes.push({ verdict, text: `did not finish: the worker process running it exited unexpectedly ${how}`.trim() });
  } else if (result.status === 'skipped') {
    verdict = 'NOT_RUN';
    notes.push({ verdict, text: maskText(`did not run: the test runner skipped it${first(a, 'skip') ? ` (${first(a, 'skip')})` : ' (the run was stopping, or had reached its maximum of failures)'}`) });
  } else {
    verdict = 'ERROR';
    const why = result.status === 'timedOut' ? 'the case did not finish within its time limit' : 'the case ended without a verdict';
    notes.push({ verdict, text: maskText(`${why}${error ? `: ${error.slice(0, 1500)}` : ''}`) });
  }
  const observation = first(a, 'observation');
  let observations: Record<string, unknown> = {};
  if (observation) { try { observations = JSON.parse(maskText(observation)) as Record<string, unknown>; } catch { observations = { raw: maskText(observation) }; } }
  const started = result.startTime instanceof Date && !Number.isNaN(result.startTime.getTime()) ? result.startTime : new Date();
  return {
    id: planned.id, runId, writtenBy: 'reporter', title: planned.title, file: planned.file, verdict, testStatus: result.status,
    level: planned.level, family: planned.family, op: planned.operation, sections: planned.sections, expectation: planned.expectation, calls: planned.calls,
    startedAt: started.toISOString(), finishedAt: new Date(started.getTime() + Math.max(0, result.duration || 0)).toISOString(), durationMs: Math.round(result.duration || 0),
    notes, observations, transient: parseFaults(first(a, 'transient')),
    annotations: a.map((x) => ({ type: x.type, ...(x.description === undefined ? {} : { description: maskText(x.description) }) })),
    exchanges: attachedExchanges(result),
  };
}


/** A case record from its evidence file. */
export function caseFromEvidence(planned: ManifestCase, ev: EvidenceRecord, runId: string, at: string): CaseReport {
  const verdict: Verdict = isVerdict(ev.verdict) ? ev.verdict : 'ERROR';
  const notes = (Array.isArray(ev.notes) ? ev.notes : [])
    .filter((n) => n && isVerdict(n.verdict) && n.verdict !== 'PASS')
    .map((n) => ({
      verdict: n.verdict, text: maskText(String(n.text)),
      ...(typeof n.cause === 'string' && n.cause ? { cause: maskText(n.cause) } : {}),
      ...(typeof n.testedBy === 'string' && n.testedBy ? { testedBy: n.testedBy } : {}),
    }));
  if (!isVerdict(ev.verdict)) notes.push({ verdict: 'ERROR', text: maskText(`the evidence file records an unknown verdict ${JSON.stringify(ev.verdict)}`) });
  let observation: Record<string, unknown> | null = null;
  if (ev.observations && typeof ev.observations === 'object' && Object.keys(ev.observations).length) {
    const text = maskText(JSON.stringify(ev.observations));
    try { observation = JSON.parse(text) as Record<string, unknown>; } catch { observation = { raw: text }; }
  }
  const transient = parseFaults(ev.transient ?? ev.annotations?.find((a) => a.type === 'transient')?.description);
  const record: CaseReport = {
    id: planned.id,
    title: maskText(planned.title),
    file: planned.file,
    operation: planned.operation,
    family: planned.family,
    level: planned.level as Level,
    sections: planned.sections,
    expectation: maskText(planned.expectation),
    verdict,
    notes,
    observation,
    ...(ev.facts && typeof ev.facts === 'object' ? { facts: Object.fromEntries(Object.entries(ev.facts).map(([k, v]) => [k, maskText(String(v))])) } : {}),
    waiver: null,
    testStatus: ev.testStatus ?? testStatusOf(verdict),
    durationMs: Math.max(0, Math.round(Number(ev.durationMs) || 0)),
    calls: planned.calls,
    evidenceFile: `evidence/${planned.id}.json`,
    runId,
    attempts: [{ runId, at, verdict }],
    transient,
    ...(Array.isArray(ev.accepted) ? { accepted: ev.accepted.map(String) } : {}),
    ...(ev.requires && typeof ev.requires.acceptance === 'string' ? { requires: { acceptance: ev.requires.acceptance } } : {}),
  };
  if (verdict !== 'PASS') record.exchanges = (Array.isArray(ev.exchanges) ? ev.exchanges : []).map(maskExchange);
  return record;
}

/** A planned case that left nothing on disk: it never started, or its run was killed while it ran. */
export function caseNotRun(planned: ManifestCase, runId: string, at: string, reason: string, testStatus = 'notRun'): CaseReport {
  return {
    id: planned.id, title: maskText(planned.title), file: planned.file, operation: planned.operation, family: planned.family,
    level: planned.level as Level, sections: planned.sections, expectation: maskText(planned.expectation),
    verdict: 'NOT_RUN', notes: [{ verdict: 'NOT_RUN', text: maskText(reason) }], observation: null, waiver: null,
    testStatus, durationMs: 0, calls: planned.calls, evidenceFile: null, exchanges: [],
    runId, attempts: [{ runId, at, verdict: 'NOT_RUN' }], transient: [],
  };
}

/** A case record as the manifest plans it, from a record of an earlier package (a resume reruns it). */
export function manifestCaseOf(c: CaseReport): ManifestCase {
  return { id: c.id, title: c.title, file: c.file, operation: c.operation, family: c.family, level: c.level, sections: c.sections, expectation: c.expectation, calls: c.calls };
}
