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
