/**
 * The target's availability as the run met it (design.md §8): the transient faults the cases ran
 * into (gateway 502/503/504, a 429 outside the rate-limit cases, resets, refusals, timeouts, a
 * refused token), per operation and kind, how many the cases got past, against the calls sent.
 * The API document says nothing about availability; this is recorded, it never fails a run.
 */

import type { Outage } from '../pacer/outage.js';

/** One fault a case met (src/client/transient.ts), as its evidence and its `transient` annotation carry it. */
export interface TransientFault { op: string; kind: string; recovered: boolean; paced?: boolean }

export interface FaultCount { faults: number; recovered: number }

export interface Availability {
  /** In words: `no transient fault seen in 531 calls`, or `4 transient faults in 531 calls (3 recovered)`. */
  summary: string;
  faults: number;
  recovered: number;
  /** Calls sent over every run of the package; null when no run's count is known. */
  calls: number | null;
  byOperation: Record<string, FaultCount & { calls: number | null; byKind: Record<string, FaultCount> }>;
  /** Every fault with the case that met it. */
  cases: ({ case: string } & TransientFault)[];
  /**
   * Spans in which the target was down (design.md §10): the whole run paused and probed until it
   * came back; each run's in order. A failure inside one never counted against a case's retries.
   */
  outages: (Outage & { runId: string })[];
  /**
   * What the target's gateway turned out to allow (design.md §6): per operation the spacing the
   * pacing started from, how often the gateway refused a call as over its limit outside the
   * rate-limit cases (each slowed the operation down and was sent again), the widest spacing that
   * took and the one it ended at, and the time it cost; the over-limit answers other than 429 the
   * rate-limit cases identified. Absent in packages of suites before it.
   */
  pacing?: PacingSummary;
}

export interface PacingOperation { spacingMs: number; refused: number; slowestSpacingMs: number; finalSpacingMs: number; lostMs: number }
export interface PacingSummary {
  /** In words: `the gateway refused no call outside the rate-limit cases`, or what it refused and cost. */
  summary: string;
  byOperation: Record<string, PacingOperation>;
  /** Over-limit answers other than 429, as a rate-limit case identified them (`HTTP 503`). */
  overLimit: { status: number; op: string }[];
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/**
 * The pacing part of pacing.json (the coordinator's budgets), or several runs' (a resumed package):
 * refusals and time lost add up, the widest spacing is the widest, the last run's spacing is the end.
 */
export function pacingSummary(runs: unknown[]): PacingSummary | undefined {
  const byOperation: Record<string, PacingOperation> = {};
  const overLimit: PacingSummary['overLimit'] = [];
  let seen = false;
  for (const raw of runs) {
    const p = raw && typeof raw === 'object' ? raw as { operations?: Record<string, Record<string, unknown>>; overLimit?: unknown } : undefined;
    if (!p?.operations) continue;
    for (const [op, s] of Object.entries(p.operations)) {
      if (typeof s?.spacingMs !== 'number') continue;
      seen = true;
      const prev = byOperation[op];
      byOperation[op] = {
        spacingMs: num(s.spacingMs), refused: (prev?.refused ?? 0) + num(s.refused), lostMs: (prev?.lostMs ?? 0) + Math.round(num(s.lostMs)),
        slowestSpacingMs: Math.max(prev?.slowestSpacingMs ?? 0, num(s.slowestSpacingMs)), finalSpacingMs: num(s.finalSpacingMs),
      };
    }
    for (const a of Array.isArray(p.overLimit) ? p.overLimit : []) {
      const status = Number((a as { status?: unknown }).status);
      const op = String((a as { op?: unknown }).op ?? '');
      if (Number.isInteger(status) && !overLimit.some((x) => x.status === status)) overLimit.push({ status, op });
    }
  }
  if (!seen) return undefined;
  const refused = Object.values(byOperation).reduce((n, o) => n + o.refused, 0);
  const lost = Object.values(byOperation).reduce((n, o) => n + o.lostMs, 0);
  const slowed = Object.entries(byOperation).filter(([, o]) => o.refused > 0).map(([op, o]) => `${op} up to ${Math.round(o.slowestSpacingMs)} ms apart (from ${Math.round(o.spacingMs)} ms), ${o.refused} refused`);
  const as = overLimit.length ? `; over-limit answer${overLimit.length === 1 ? '' : 's'} other than 429: ${overLimit.map((o) => `HTTP ${o.status}`).join(', ')}` : '';
  const summary = refused
    ? `the gateway refused ${plural(refused, 'call')} as over its limit outside the rate-limit cases; the pacing slowed down and sent ${refused === 1 ? 'it' : 'them'} again (${slowed.join('; ')}), ${spanText(lost)} lost${as}`
    : `the gateway refused no call outside the rate-limit cases at the configured spacing (${[...new Set(Object.values(byOperation).map((o) => `${Math.round(o.spacingMs)} ms`))].join(', ')})${as}`;
  return { summary, byOperation, overLimit };
}

/** `2 min 10 s`. */
export function spanText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${String(s % 60).padStart(2, '0')} s` : `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** Reads an outage list defensively (from outages.json or an earlier package). */
export function parseOutages(raw: unknown, runId: string): (Outage & { runId: string })[] {
  if (!Array.isArray(raw)) return [];
  return raw.filter((o): o is Record<string, unknown> => !!o && typeof o === 'object' && typeof (o as { start?: unknown }).start === 'string').map((o) => ({
    runId: typeof o.runId === 'string' ? o.runId : runId,
    start: String(o.start), end: typeof o.end === 'string' ? o.end : null, durationMs: Number(o.durationMs) || 0,
    kinds: o.kinds && typeof o.kinds === 'object' ? Object.fromEntries(Object.entries(o.kinds as Record<string, unknown>).map(([k, v]) => [k, Number(v) || 0])) : {},
    probes: Number(o.probes) || 0, lastProbe: typeof o.lastProbe === 'string' ? o.lastProbe : null, gaveUp: o.gaveUp === true,
  }));
}

/** Reads a `transient` list defensively: it comes from files a reader may have edited. */
export function parseFaults(raw: unknown): TransientFault[] {
  let v = raw;
  if (typeof v === 'string') {
    try { v = JSON.parse(v); } catch { return []; }
  }
  if (!Array.isArray(v)) return [];
  return v.filter((f): f is Record<string, unknown> => !!f && typeof f === 'object')
    .map((f) => ({ op: String(f.op ?? 'unknown'), kind: String(f.kind ?? 'unknown'), recovered: f.recovered === true, ...(f.paced === true ? { paced: true } : {}) }));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function aggregateAvailability(cases: { id: string; transient?: TransientFault[] }[], calls: Record<string, number> | null, outages: (Outage & { runId: string })[] = [], pacing?: PacingSummary): Availability {
  const byOperation: Availability['byOperation'] = {};
  const entry = (op: string) => (byOperation[op] ??= { calls: calls ? (calls[op] ?? 0) : null, faults: 0, recovered: 0, byKind: {} });
  for (const op of Object.keys(calls ?? {})) entry(op);
  const list: Availability['cases'] = [];
  for (const c of cases) {
    for (const f of c.transient ?? []) {
      list.push({ case: c.id, ...f });
      const e = entry(f.op);
      const k = (e.byKind[f.kind] ??= { faults: 0, recovered: 0 });
      e.faults++; k.faults++;
      if (f.recovered) { e.recovered++; k.recovered++; }
    }
  }
  const faults = list.length;
  const recovered = list.filter((f) => f.recovered).length;
  const total = calls ? Object.values(calls).reduce((a, b) => a + b, 0) : null;
  const inCalls = total === null ? '' : ` in ${plural(total, 'call')}`;
  const down = outages.length ? `; ${plural(outages.length, 'outage')} (${outages.map((o) => `${spanText(o.durationMs)}${o.gaveUp ? ', the run gave up waiting' : o.end ? '' : ', not over'}`).join('; ')})` : '';
  const summary = faults
    ? `${plural(faults, 'transient fault')}${inCalls} (${recovered} recovered, ${faults - recovered} not)${down}`
    : `no transient fault seen${inCalls}${down}`;
  return { summary, faults, recovered, calls: total, byOperation, cases: list, outages, ...(pacing ? { pacing } : {}) };
}
