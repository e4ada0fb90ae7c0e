/**
 * `verify-package --csv <file>`: one row per package, for a bank's intake of many (RFC 4180: CRLF,
 * every field quoted when it needs to be). A field that a spreadsheet would read as a formula
 * (starting with = + - @, a tab or a carriage return) gets a leading apostrophe: what a package says
 * (its company, its target) comes from the company, and opening the file must not run it.
 */
import type { Verdict } from '../vocabulary/verdicts.js';
import type { PackageVerification } from './index.js';

const VERDICT_COLUMNS: Verdict[] = ['PASS', 'WARN', 'OBSERVED', 'FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN', 'SKIPPED', 'NOT_APPLICABLE'];

export const CSV_HEADER = [
  'file', 'company', 'target', 'run_date', 'suite_version', 'suite_commit', 'result', 'reason', 'cases', ...VERDICT_COLUMNS,
  'signature', 'signer', 'key_id', 'valid_until', 'validity', 'problems', 'first_problem',
];

export function csvField(value: unknown): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvRow(v: PackageVerification): string[] {
  const result = !v.valid ? 'INVALID' : v.certifies ? 'VALID, CERTIFIES' : 'VALID, DOES NOT CERTIFY';
  const reason = /^VALID, DOES NOT CERTIFY \((.*)\)$/.exec(v.result)?.[1] ?? '';
  return [
    v.path, v.company ?? '', v.target ?? '', v.runDate ?? '', v.suiteVersion ?? '', v.suiteCommit ?? '', result, reason, v.cases ?? '',
    ...VERDICT_COLUMNS.map((k) => (v.counts ? v.counts[k] ?? 0 : '')),
    v.signature.status, v.signature.signer ?? '', v.signature.keyId ?? '', v.validUntil ?? '',
    !v.validUntil ? '' : v.expired ? 'expired' : `valid (${v.validFrom})`,
    v.problems.length, v.problems[0] ? `${v.problems[0].check}: ${v.problems[0].text}` : '',
  ].map(String);
}

export function renderCsv(rows: PackageVerification[]): string {
  return [CSV_HEADER, ...rows.map(csvRow)].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
}
