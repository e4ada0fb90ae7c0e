/**
 * `reports/ctrf.json`: the package in the Common Test Report Format (github.com/ctrf-io/ctrf,
 * spec/ctrf.md; JSON Schema draft-07, vendored as schemas/vendor/ctrf.schema.json), for the
 * dashboards and CI tools that read CTRF. A pure function of the report, like junit.xml: one test
 * per case, every verdict mapped to a CTRF status the way junit.xml maps it to a pass or a failure,
 * the verdict itself kept in `rawStatus` and in the test's `extra`.
 *
 * | verdict                                   | status    |
 * |-------------------------------------------|-----------|
 * | PASS, WARN, OBSERVED, a waived verdict    | `passed`  |
 * | FAIL, ERROR, INCONCLUSIVE                 | `failed`  |
 * | SKIPPED, NOT_APPLICABLE                   | `skipped` |
 * | NOT_RUN (the run ended before it)         | `other`   |
 *
 * Per test: `name` and `testId` the case id, `duration` in ms, `rawStatus` the verdict, `message`
 * the expectation and the first note (a case that is not PASS), `tags` the level, family and
 * operation, `labels` the same as key and value, `suite` [operation, family], `filePath` the spec
 * file, `extra["sadad.conformance"]` the verdict, level, sections, notes, waiver, run and evidence file.
 */
import type { CaseReport, CertificationReport } from './model.js';
import { outcomeOf, type CtrfStatus } from '../evidence/outcome.js';

export const CTRF_FILE = 'ctrf.json';
/** The version of the CTRF specification the file follows (spec/ctrf.md: "Version 0.0.0", the `specVersion` field). */
export const CTRF_SPEC_VERSION = '0.0.0';
/** The one namespace of this suite's `extra` keys (spec/ctrf.md §4.6.1). */
export const CTRF_NAMESPACE = 'sadad.conformance';

export type { CtrfStatus };

/** The case's CTRF status (evidence/outcome.ts: the one table of verdicts to test statuses). */
export function ctrfStatus(c: Pick<CaseReport, 'verdict' | 'waiver'>): CtrfStatus {
  return outcomeOf(c.verdict, c.waiver?.status === 'used').ctrf;
}

const ms = (iso: string | undefined) => { const t = Date.parse(iso ?? ''); return Number.isFinite(t) ? t : 0; };

function testOf(c: CaseReport): Record<string, unknown> {
  const note = c.notes.find((n) => n.verdict === c.verdict) ?? c.notes[0];
  const message = c.verdict === 'PASS' ? undefined : [`${c.verdict}: expected ${c.expectation}`, note?.text].filter(Boolean).join('; got: ');
  return {
    name: c.id,
    testId: c.id,
    status: ctrfStatus(c),
    duration: Math.max(0, Math.round(c.durationMs || 0)),
    rawStatus: c.verdict,
    ...(message ? { message } : {}),
    tags: [c.level, c.family, c.operation],
    labels: { level: c.level, family: c.family, operation: c.operation, ...(c.sections.length ? { sections: c.sections.map((s) => `§${s}`) } : {}) },
    suite: [c.operation, c.family],
    filePath: c.file,
    type: 'conformance',
    extra: {
      [CTRF_NAMESPACE]: {
        verdict: c.verdict, level: c.level, family: c.family, operation: c.operation, sections: c.sections, expectation: c.expectation,
        notes: c.notes, waiver: c.waiver, runId: c.runId, attempts: c.attempts, evidenceFile: c.evidenceFile,
      },
    },
  };
}

/** The CTRF document of a package, as text. */
export function renderCtrf(report: CertificationReport): string {
  const tests = report.cases.map(testOf);
  const count = (s: CtrfStatus) => tests.filter((t) => t.status === s).length;
  const f = report.fingerprint;
  const start = ms(f.startedAt);
  const stop = Math.max(start, ms(f.finishedAt));
  const doc = {
    reportFormat: 'CTRF',
    specVersion: CTRF_SPEC_VERSION,
    runId: report.runs.at(-1)?.runId ?? 'unknown',
    timestamp: f.finishedAt,
    generatedBy: `${f.suite.name} ${f.suite.version}`,
    results: {
      tool: { name: f.suite.name, version: f.suite.version },
      summary: {
        tests: tests.length, passed: count('passed'), failed: count('failed'), skipped: count('skipped'), pending: count('pending'), other: count('other'),
        suites: new Set(report.cases.map((c) => c.operation)).size,
        start, stop, duration: Math.max(0, Math.round(f.durationMs || 0)),
        extra: { [CTRF_NAMESPACE]: { certifies: report.outcome.certifies, summary: report.outcome.summary, byVerdict: report.counts.byVerdict } },
      },
      tests,
      environment: {
        reportName: 'SADAD conformance certification',
        appName: 'bill and MOI fee payment API',
        ...(f.suite.commit ? { commit: f.suite.commit } : {}),
        testEnvironment: f.target.url ?? report.identity.target,
        healthy: report.outcome.certifies,
        extra: { [CTRF_NAMESPACE]: { target: report.identity.target, targetProfile: f.target.profile, profile: f.profile, schemaHash: f.schemaHash, specHash: f.specHash ?? null, limits: f.limits, runs: report.runs.map((r) => r.runId) } },
      },
    },
    extra: { [CTRF_NAMESPACE]: { format: report.format, formatVersion: report.formatVersion, outcome: report.outcome } },
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
