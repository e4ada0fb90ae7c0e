/**
 * Transient faults (design.md §8): the target's bad moments, not its rules. A gateway's 502, 503
 * or 504, a 429 outside the rate-limit cases, a connection refused or reset, no answer in time.
 * An HTTP 500 is not among them: it is the service's own answer and is judged like any other.
 */
import { createHash } from 'node:crypto';
import type { Exchange } from './exchange.js';

export type FaultKind = 'HTTP 502' | 'HTTP 503' | 'HTTP 504' | 'HTTP 429' | 'reset' | 'refused' | 'timeout' | 'token refused';

/** One transient fault a case met, and whether the case got past it. */
export interface Fault {
  op: string;
  kind: FaultKind;
  recovered: boolean;
  /** The gateway's limiter refused it outside a burst: the pacing slowed down and sent it again, not a retry of the case's. */
  paced?: boolean;
}

const GATEWAY = new Set([502, 503, 504]);

/** The kind of transient fault an exchange shows, or undefined when it is an answer to judge. */
export function transientKind(ex: Exchange, options: { allow429?: boolean } = {}): FaultKind | undefined {
  if (ex.error) {
    // a certificate, a proxy's credentials, a name that does not resolve: sending again cannot heal it
    if (ex.error.kind === 'configuration') return undefined;
    if (ex.error.kind === 'timeout') return 'timeout';
    return ex.error.code === 'ECONNREFUSED' ? 'refused' : 'reset';
  }
  const status = ex.response!.status;
  if (GATEWAY.has(status)) return `HTTP ${status}` as FaultKind;
  if (status === 429 && !options.allow429) return 'HTTP 429';
  return undefined;
}

/**
 * What an answer looks like without what changes from call to call: its status, content type and
 * body with digits and spacing folded. nginx's limit_req page and its maintenance page share a
 * status but not a body; two refusals of one limiter share all three (pacer/over-limit.ts).
 */
export function answerSignature(ex: Exchange): string {
  const r = ex.response;
  if (!r) return `no answer: ${ex.error?.kind ?? 'unknown'}`;
  const type = (r.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // identifiers (correlation ids, request ids: letters and digits mixed) and numbers (times, counts) vary per call
  const body = r.body.replace(/\b(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{8,}\b/g, '#').replace(/\d+/g, '#').replace(/\s+/g, ' ').trim().slice(0, 300);
  return `${r.status} ${type} ${createHash('sha256').update(body).digest('hex').slice(0, 16)}`;
}

/** `Retry-After` in milliseconds (delta seconds or an HTTP date), when the answer gives one. */
export function retryAfterMs(ex: Exchange, now = Date.now()): number | undefined {
  const raw = ex.response?.headers['retry-after']?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/**
 * How long to wait before attempt `attempt + 1`: the target's Retry-After when it gives one (never
 * longer than two windows: a longer one would stall the run, and the pacer guards the budget
 * anyway), else exponential backoff with full jitter on a base that scales with the window, so a
 * 60 s sandbox is given seconds to recover and a 1 s mock only tenths.
 */
export function retryDelayMs(ex: Exchange, attempt: number, windowSeconds: number, random: () => number = Math.random): number {
  const cap = Math.max(5_000, 2 * windowSeconds * 1000);
  const after = retryAfterMs(ex);
  if (after !== undefined) return Math.min(cap, after + 50);
  const base = Math.min(2_000, Math.max(100, windowSeconds * 100));
  const ceiling = Math.min(cap, base * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * ceiling / 2);
}

/** `HTTP 503 on 4 attempts`, `reset, HTTP 503 on 4 attempts`: the ERROR text when retries run out. */
export function exhausted(kinds: FaultKind[]): string {
  return `transient: ${[...new Set(kinds)].join(', ')} on ${kinds.length} attempt${kinds.length === 1 ? '' : 's'}`;
}

/**
 * How often a burst bent by a transient fault is repeated from a fresh window. A burst of n calls
 * meets a fault n times as often as one call does (11 calls at a 4% fault rate: 4 in 10 bursts),
 * so a burst gets three repeats for each retry a single call gets.
 */
export const burstRepeats = (retries: number) => 3 * retries;

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
