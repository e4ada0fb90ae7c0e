/** Calendar checks behind the `sadad-date` and `sadad-timestamp` formats of schemas/common.schema.json. */
function isCalendarDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= days[m - 1]!;
}

export function isSpecDate(value: string): boolean {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  return !!m && isCalendarDate(+m[1]!, +m[2]!, +m[3]!);
}

export function isSpecTimestamp(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(value);
  return !!m && isCalendarDate(+m[1]!, +m[2]!, +m[3]!) && +m[4]! < 24 && +m[5]! < 60 && +m[6]! < 60;
}

/**
 * The form of a header's time stamp, against the document (§5: the sample `YYYY-MM-DDTHH:MM:SS`,
 * ISO 8601 without a zone). `sample`: exactly the sample's form. `fraction`: the same with fractions
 * of a second, which ISO 8601 without a zone allows and the sample does not show. `zoned`: with `Z`
 * or an offset, which the document rules out. `invalid`: none of these, or no calendar time.
 */
export type TimestampForm = 'sample' | 'fraction' | 'zoned' | 'invalid';

export function timestampForm(value: string): TimestampForm {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})?$/.exec(value);
  if (!m || !isCalendarDate(+m[1]!, +m[2]!, +m[3]!) || +m[4]! >= 24 || +m[5]! >= 60 || +m[6]! >= 60) return 'invalid';
  return m[8] !== undefined ? 'zoned' : m[7] !== undefined ? 'fraction' : 'sample';
}

/** The zone this machine's clock reads in (an IANA name, e.g. `Asia/Riyadh`). */
export const localTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Whether `zone` is a time zone name this Node knows. */
export function isTimeZone(zone: string): boolean {
  try { Intl.DateTimeFormat('en-US', { timeZone: zone }); return true; } catch { return false; }
}

/** How far `zone`'s wall clock is ahead of UTC at `at` (ms). */
function zoneOffsetMs(zone: string, at: number): number {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    .formatToParts(new Date(at)).map((p) => [p.type, Number(p.value)]));
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!) - Math.floor(at / 1000) * 1000;
}

/**
 * The instant a zoneless time stamp (`sample` or `fraction` form) names when read in `zone`, in ms
 * since the epoch; null for any other form. A wall time skipped or repeated by a clock change reads
 * as the offset after it.
 */
export function stampInZone(value: string, zone: string): number | null {
  const form = timestampForm(value);
  if (form !== 'sample' && form !== 'fraction') return null;
  const [date, time] = value.split('T') as [string, string];
  const [y, mo, d] = date.split('-').map(Number) as [number, number, number];
  const [h, mi, s] = time.split(':').map(Number) as [number, number, number];
  const wall = Date.UTC(y, mo - 1, d, h, mi, Math.floor(s)) + Math.round((s % 1) * 1000);
  const guess = wall - zoneOffsetMs(zone, wall);
  return wall - zoneOffsetMs(zone, guess);
}
