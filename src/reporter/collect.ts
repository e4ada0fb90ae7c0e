/**
 * From Playwright's tests and results to case records: the annotations the case framework writes
 * (src/suite/case.ts) and the evidence files it leaves in reports/evidence.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { TestCase, TestResult } from '@playwright/test/reporter';
import { maskHeaders, maskText } from '../client/redact.js';
import { VERDICT_ORDER, type Level, type Verdict } from '../suite/verdicts.js';
import type { CaseReport, ExchangeRecord } from './model.js';
import type { PlannedCase } from './plan.js';

type Annotation = { type: string; description?: string };

const NOTE_TYPES = new Map<string, Verdict>([['fail', 'FAIL'], ['warn', 'WARN'], ['error', 'ERROR'], ['skipped', 'SKIPPED'], ['not_applicable', 'NOT_APPLICABLE'], ['observed', 'OBSERVED']]);
const isVerdict = (v: string | undefined): v is Verdict => !!v && (VERDICT_ORDER as string[]).includes(v);

function annotationsOf(test: TestCase, result?: TestResult): Annotation[] {
  return result?.annotations?.length ? result.annotations : test.annotations;
}
const first = (list: Annotation[], type: string) => list.find((a) => a.type === type)?.description;

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

/** What the dry run needs, from the static annotations. */
export function plannedCase(test: TestCase): PlannedCase {
  const a = test.annotations;
  const operation = first(a, 'operation') ?? 'unknown';
  return {
    id: first(a, 'case') ?? test.title,
    operation,
    family: first(a, 'family') ?? 'unknown',
    level: first(a, 'level') ?? 'MUST',
    calls: parseCalls(first(a, 'calls'), operation),
  };
}

/** Masks an exchange once more on the way into the report: header values by name, and known secrets everywhere. */
export function maskExchange(ex: ExchangeRecord): ExchangeRecord {
  const out: ExchangeRecord = {
    label: maskText(String(ex.label ?? '')),
    request: { method: String(ex.request?.method ?? ''), url: maskText(String(ex.request?.url ?? '')), headers: maskHeaders(ex.request?.headers ?? {}), body: maskText(String(ex.request?.body ?? '')) },
  };
  if (ex.op !== undefined) out.op = String(ex.op);
  if (ex.response) out.response = { status: Number(ex.response.status), headers: maskHeaders(ex.response.headers ?? {}), body: maskText(String(ex.response.body ?? '')) };
  if (ex.error) out.error = { kind: String(ex.error.kind), message: maskText(String(ex.error.message)) };
  if (ex.startedAt !== undefined) out.startedAt = String(ex.startedAt);
  if (typeof ex.durationMs === 'number') out.durationMs = ex.durationMs;
  return out;
}

/** The evidence file name of a case, if the id is safe to use as one. */
export function evidencePath(reportsDir: string, id: string): string | null {
  if (!/^[\w.\-[\]]+$/.test(id) || id.startsWith('.')) return null;
  return join(reportsDir, 'evidence', `${id}.json`);
}

/** A case's exchanges: from its evidence file, else from the exchanges attached to the test result. */
export function readExchanges(reportsDir: string, id: string, result?: TestResult): ExchangeRecord[] {
  const file = evidencePath(reportsDir, id);
  if (file && existsSync(file)) {
    try {
      const data = JSON.parse(readFileSync(file, 'utf8')) as { exchanges?: ExchangeRecord[] };
      if (Array.isArray(data.exchanges)) return data.exchanges.map(maskExchange);
    } catch { /* fall back to the attachments */ }
  }
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

export function caseRecord(test: TestCase, result: TestResult | undefined, reportsDir: string, rootDir: string, runStatus: string): CaseReport {
  const a = annotationsOf(test, result);
  const planned = plannedCase(test);
  const notes: { verdict: Verdict; text: string }[] = [];
  for (const ann of a) {
    const v = NOTE_TYPES.get(ann.type);
    if (v && ann.description !== undefined) notes.push({ verdict: v, text: maskText(ann.description) });
  }
  let verdict: Verdict;
  const recorded = first(a, 'verdict');
  const testStatus: string = result?.status ?? 'notRun';
  if (isVerdict(recorded)) verdict = recorded;
  else if (!result || result.status === 'interrupted') {
    verdict = 'SKIPPED';
    notes.push({ verdict, text: `did not run: the run ended before this case finished (run status ${runStatus})` });
  } else if (result.status === 'skipped') {
    verdict = 'SKIPPED';
    notes.push({ verdict, text: maskText(first(a, 'skip') || 'skipped by the test runner') });
  } else {
    verdict = 'ERROR';
    const why = result.status === 'timedOut' ? 'the case did not finish within its time limit' : 'the case ended without a verdict';
    const msg = result.error?.message ? `: ${result.error.message.replace(/\u001b\[[0-9;]*m/g, '').slice(0, 1500)}` : '';
    notes.push({ verdict, text: maskText(`${why}${msg}`) });
  }
  let observation: Record<string, unknown> | null = null;
  const rawObs = first(a, 'observation');
  if (rawObs) {
    try { observation = JSON.parse(maskText(rawObs)) as Record<string, unknown>; } catch { observation = { raw: maskText(rawObs) }; }
  }
  const file = evidencePath(reportsDir, planned.id);
  const record: CaseReport = {
    id: planned.id,
    title: maskText(test.title),
    file: relative(rootDir, test.location.file).split('\\').join('/'),
    operation: planned.operation,
    family: planned.family,
    level: (first(a, 'level') ?? 'MUST') as Level,
    sections: (first(a, 'sections') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    expectation: maskText(first(a, 'expectation') ?? ''),
    verdict,
    notes,
    observation,
    waiver: null,
    testStatus,
    durationMs: Math.round(result?.duration ?? 0),
    calls: planned.calls,
    evidenceFile: file && existsSync(file) ? `evidence/${planned.id}.json` : null,
  };
  if (verdict !== 'PASS') record.exchanges = readExchanges(reportsDir, planned.id, result);
  return record;
}
