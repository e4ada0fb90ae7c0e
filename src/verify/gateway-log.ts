/**
 * The gateway-log cross-check (design.md §11): a signature says who made a package, only the bank's
 * own log says the target really answered that way. The log is JSON Lines, one call a line:
 * `{"time","method","path","status","companyId","referenceId"}` (what the mock writes with
 * MOCK_ACCESS_LOG; `status` null when no answer was sent, `referenceId` the `<prefix>ReferenceID`
 * request header). Every exchange of the evidence that got an answer must be in it: the same
 * reference id, path and status (and method and company, when both sides name them), logged within
 * 5 s of the exchange's `startedAt`. Each log line stands for one exchange at most.
 */
import { readFileSync } from 'node:fs';

export interface GatewayEntry {
  line: number;
  time: number;
  method: string | null;
  path: string;
  status: number | null;
  companyId: string | null;
  referenceId: string | null;
}

export class GatewayLogError extends Error {}

/** How far the gateway's time of a call may be from the exchange's `startedAt`. */
export const GATEWAY_WINDOW_MS = 5_000;

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
const pathOnly = (p: string) => p.replace(/[?#].*$/, '');

export function parseGatewayLog(content: string, file = 'the gateway log'): GatewayEntry[] {
  const out: GatewayEntry[] = [];
  content.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let v: Record<string, unknown>;
    try { v = JSON.parse(line) as Record<string, unknown>; } catch (e) { throw new GatewayLogError(`${file}, line ${i + 1}: not JSON (${(e as Error).message})`); }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new GatewayLogError(`${file}, line ${i + 1}: not a JSON object`);
    const time = typeof v.time === 'number' ? v.time : Date.parse(String(v.time));
    if (!Number.isFinite(time)) throw new GatewayLogError(`${file}, line ${i + 1}: no readable "time"`);
    if (typeof v.path !== 'string') throw new GatewayLogError(`${file}, line ${i + 1}: no "path"`);
    const status = v.status === null || v.status === undefined ? null : Number(v.status);
    out.push({ line: i + 1, time, method: text(v.method)?.toUpperCase() ?? null, path: pathOnly(v.path), status: Number.isFinite(status) ? status : null, companyId: text(v.companyId), referenceId: text(v.referenceId) });
  });
  return out;
}

export function readGatewayLog(file: string): GatewayEntry[] {
  let content: string;
  try { content = readFileSync(file, 'utf8'); } catch (e) { throw new GatewayLogError(`cannot read the gateway log ${JSON.stringify(file)}: ${(e as Error).message}`); }
  return parseGatewayLog(content, file);
}

/** An exchange of the evidence, as the cross-check reads it. */
export interface LoggedExchange {
  /** Where it is: `evidence/<case>.json`, exchange "<label>". */
  where: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  status: number;
  startedAt: string | undefined;
}

const header = (headers: Record<string, string>, test: (name: string) => boolean) => {
  const k = Object.keys(headers).find((h) => test(h.toLowerCase()));
  return k === undefined ? null : text(headers[k]);
};
/** `<prefix>ReferenceID`, whatever the prefix (the deployment's: `SVReferenceID`, the spec's `SvcReferenceID`). */
export const referenceIdOf = (headers: Record<string, string>) => header(headers, (h) => h.endsWith('referenceid'));
const companyIdOf = (headers: Record<string, string>) => header(headers, (h) => h === 'companyid');

function pathOf(url: string): string {
  try { return pathOnly(new URL(url).pathname); } catch { return pathOnly(url.replace(/^[a-z]+:\/\/[^/]*/i, '')); }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Each exchange not in the log, with why: what the log has for its reference id, if anything. One
 * call recorded in several evidence files (the accepted answer the response rules of an operation
 * share) is one exchange: it stands for one log line.
 */
export function crossCheck(exchanges: LoggedExchange[], log: GatewayEntry[]): { matched: number; missing: string[] } {
  const used = new Set<GatewayEntry>();
  const byKey = new Map<string, GatewayEntry[]>();
  const key = (ref: string | null, path: string) => `${ref ?? ''}\u0000${path}`;
  for (const e of log) {
    const k = key(e.referenceId, e.path);
    (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(e);
  }
  const calls = new Map<string, LoggedExchange[]>();
  for (const x of exchanges) {
    const k = JSON.stringify([x.startedAt ?? null, x.method, x.url, referenceIdOf(x.headers), x.status]);
    (calls.get(k) ?? calls.set(k, []).get(k)!).push(x);
  }
  const sorted = [...calls.values()].sort((a, b) => Date.parse(a[0]!.startedAt ?? '') - Date.parse(b[0]!.startedAt ?? ''));
  let matched = 0;
  const missing: string[] = [];
  for (const group of sorted) {
    const x = group[0]!;
    const ref = referenceIdOf(x.headers);
    const path = pathOf(x.url);
    const company = companyIdOf(x.headers);
    const at = Date.parse(x.startedAt ?? '');
    const same = (byKey.get(key(ref, path)) ?? []).filter((e) => !used.has(e)
      && (!e.method || e.method === x.method.toUpperCase())
      && (!e.companyId || !company || e.companyId === company));
    const near = (e: GatewayEntry) => !Number.isFinite(at) || Math.abs(e.time - at) <= GATEWAY_WINDOW_MS;
    const fits = same.filter((e) => e.status === x.status && near(e));
    if (fits.length) {
      const best = fits.reduce((a, b) => (Math.abs(a.time - at) <= Math.abs(b.time - at) ? a : b));
      used.add(best);
      matched += group.length;
      continue;
    }
    const what = `${group.map((g) => g.where).join(', ')} (${x.method} ${path} answered ${x.status} at ${x.startedAt ?? 'an unknown time'}, ${ref ? `reference ${ref}` : 'no reference id'})`;
    const otherStatus = same.filter(near);
    const otherTime = same.filter((e) => e.status === x.status);
    let why: string;
    if (otherStatus.length) why = `the gateway answered ${otherStatus.map((e) => e.status ?? 'nothing').join(', ')} (log line ${otherStatus.map((e) => e.line).join(', ')}), not ${x.status}: the evidence was altered`;
    else if (otherTime.length) why = `the gateway logged it ${seconds(Math.abs(otherTime[0]!.time - at))} away from the exchange's time (log line ${otherTime[0]!.line}), more than ${seconds(GATEWAY_WINDOW_MS)}`;
    else why = `the gateway log has no such call: fabricated, or altered evidence`;
    missing.push(`${what}: ${why}`);
  }
  return { matched, missing };
}
