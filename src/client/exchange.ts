/** The record of one HTTP exchange, with every secret already masked: safe to attach and report. */
import { maskBody, maskHeaders, maskText } from './redact.js';

export interface Exchange {
  label: string;
  op: string | undefined;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string };
  /** The response body parsed as JSON (undefined when absent or not JSON). */
  json?: unknown;
  parseError?: string;
  /**
   * A transport failure: no HTTP answer at all. `configuration`: one that sending again cannot heal
   * (TLS trust, a client certificate, a proxy's credentials, a name that does not resolve), with
   * `advice` naming what to change.
   */
  error?: { kind: 'timeout' | 'network' | 'configuration'; message: string; code?: string; advice?: string };
  startedAt: string;
  durationMs: number;
  /** When the request's headers left on the connection, in ms after `startedAt` (absent when they never did, or in evidence of earlier suites). */
  sentAfterMs?: number;
}

/** Bodies are recorded up to this many characters (curl.ts tells a clipped one by it). */
export const MAX_BODY = 64 * 1024;
const clip = (s: string) => (s.length > MAX_BODY ? `${s.slice(0, MAX_BODY)}… (${s.length - MAX_BODY} more characters not recorded)` : s);

export function recordRequest(label: string, op: string | undefined, method: string, url: string, headers: Record<string, string>, body: string) {
  return { label, op, request: { method, url: maskText(url), headers: maskHeaders(headers), body: clip(maskBody(body)) } };
}

export function recordResponse(status: number, headers: { forEach(cb: (value: string, key: string) => void): void }, text: string): Exchange['response'] {
  const h: Record<string, string> = {};
  headers.forEach((v, k) => { h[k] = v; });
  return { status, headers: maskHeaders(h), body: clip(maskBody(text)) };
}

/** One line for a failure message: what came back. */
export function summarize(ex: Exchange): string {
  if (ex.error) return `${ex.error.kind}: ${ex.error.message}`;
  const r = ex.response!;
  const body = r.body.length > 300 ? `${r.body.slice(0, 300)}…` : r.body;
  return `HTTP ${r.status} ${body}`;
}
