/**
 * The target's availability as the run met it (design.md §8): the transient faults the cases ran
 * into (gateway 502/503/504, a 429 outside the rate-limit cases, resets, refusals, timeouts, a
 * refused token), per operation and kind, how many the cases got past, against the calls sent.
 * The API document says nothing about availability; this is recorded, it never fails a run.
 */

import type { Outage } from '../pacer/outage.js';

/** One fault a case met (src/client/transient.ts), as its evidence and its `transient` annotation carry it. */
export interface TransientFault { op: string; kind: string; recovered: boolean }

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
    .map((f) => ({ op: String(f.op ?? 'unknown'), kind: String(f.kind ?? 'unknown'), recovered: f.recovered === true }));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function aggregateAvailability(cases: { id: string; transient?: TransientFault[] }[], calls: Record<string, number> | null, outages: (Outage & { runId: string })[] = []): Availability {
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
  return { summary, faults, recovered, calls: total, byOperation, cases: list, outages };
}
