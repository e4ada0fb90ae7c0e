/**
 * Whether the request a case's script would send now is the one its evidence records. Exact, but
 * for what no re-run can reproduce: identifiers made unique per call (SequenceNumber,
 * TransactionReferenceNumber, the reference-id header; generators/unique.ts) and masked secrets.
 * Unique identifiers are matched as a renaming, one to one over the whole case: two requests that
 * shared a SequenceNumber in the run must share one now, and two that did not must not.
 */
import { MASK } from '../client/redact.js';

/** generators/unique.ts: an optional one-letter prefix, 9 base-36 digits of ms time, 8 of process tag, 3 of counter. */
const UNIQUE = /^[A-Z]?([0-9A-Z]{9})[0-9A-Z]{11}$/;
/** The short form (the last 16 characters) used in length-limited headers. */
const SHORT_UNIQUE = /^[0-9A-Z]{16}$/;

function looksUnique(v: string): boolean {
  const m = UNIQUE.exec(v);
  if (m) {
    const ms = parseInt(m[1]!, 36);
    // a time between 2020 and 2100: what a generated identifier carries, and few other values do
    return ms > 1.5e12 && ms < 4.2e12;
  }
  return SHORT_UNIQUE.test(v);
}

/** A one-to-one renaming of unique identifiers between the run (recorded) and the re-judge (now). */
export class Renaming {
  private readonly forward = new Map<string, string>();
  private readonly backward = new Map<string, string>();

  same(now: string, recorded: string): boolean {
    if (now === recorded && !this.forward.has(now) && !this.backward.has(recorded)) return true;
    if (!looksUnique(now) || !looksUnique(recorded)) return now === recorded;
    const f = this.forward.get(now);
    const b = this.backward.get(recorded);
    if (f !== undefined || b !== undefined) return f === recorded && b === now;
    this.forward.set(now, recorded);
    this.backward.set(recorded, now);
    return true;
  }

  /**
   * A recorded answer in the identifiers of the re-judge: an echoed SequenceNumber reads as the
   * one the script now holds for that request, so the rules compare what they compared in the
   * run. An identifier the requests never carried (a wrong echo) stays as recorded.
   */
  toNow(text: string): string {
    if (!this.backward.size) return text;
    return text.replace(/[0-9A-Z]{16,}/g, (t) => this.backward.get(t) ?? t);
  }
}

/** The first difference between a JSON value now and as recorded (a JSON pointer and both values), or null. */
export function jsonDifference(now: unknown, recorded: unknown, names: Renaming, at = ''): string | null {
  if (recorded === MASK && (typeof now === 'string' || typeof now === 'number')) return null;
  if (typeof now === 'string' && typeof recorded === 'string') return names.same(now, recorded) ? null : `${at || '/'}: now ${JSON.stringify(now)}, recorded ${JSON.stringify(recorded)}`;
  if (Array.isArray(now) && Array.isArray(recorded)) {
    if (now.length !== recorded.length) return `${at || '/'}: now ${now.length} entries, recorded ${recorded.length}`;
    for (let i = 0; i < now.length; i++) {
      const d = jsonDifference(now[i], recorded[i], names, `${at}/${i}`);
      if (d) return d;
    }
    return null;
  }
  if (now && recorded && typeof now === 'object' && typeof recorded === 'object' && !Array.isArray(now) && !Array.isArray(recorded)) {
    const a = Object.keys(now).join(',');
    const b = Object.keys(recorded).join(',');
    // key order is part of the bytes sent, and JSON.stringify keeps it: a difference is a different request
    if (a !== b) return `${at || '/'}: now keys ${a}, recorded ${b}`;
    for (const k of Object.keys(now)) {
      const d = jsonDifference((now as Record<string, unknown>)[k], (recorded as Record<string, unknown>)[k], names, `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(now, recorded) ? null : `${at || '/'}: now ${JSON.stringify(now)}, recorded ${JSON.stringify(recorded)}`;
}

/** Bodies compared as JSON when both parse, else as text (unique identifiers renamed in both). */
export function bodyDifference(now: string, recorded: string, names: Renaming): string | null {
  let a: unknown;
  let b: unknown;
  try { a = JSON.parse(now); b = JSON.parse(recorded); } catch {
    const tokens = (s: string) => s.split(/([0-9A-Z]{16,21})/);
    const ta = tokens(now);
    const tb = tokens(recorded);
    if (ta.length === tb.length && ta.every((t, i) => (i % 2 ? names.same(t, tb[i]!) : t === tb[i]))) return null;
    const at = [...now].findIndex((ch, i) => ch !== recorded[i]);
    return `the body differs from character ${at < 0 ? Math.min(now.length, recorded.length) : at} (now ${now.length} characters, recorded ${recorded.length})`;
  }
  return jsonDifference(a, b, names);
}
