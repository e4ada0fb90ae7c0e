/**
 * The client certification package: `client-certification.json` (schemas/client-certification.schema.json),
 * `client-certification.html`, `client-junit.xml` and `client-certification.sha256`, written beside
 * the service package in the reports folder. The JUnit and counting machinery are the service
 * package's; only the outcome differs: the client's cases decide it, the sandbox's are reported.
 */
import { clientSpecCoverage } from './coverage.js';
import { currentSpec } from '../contract/spec-refs.js';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { maskText } from '../client/redact.js';
import { DEFAULT_RATE_WINDOW_SECONDS } from '../contract/catalogue.js';
import { writeFileAtomic } from '../base/atomic.js';
import { gitState, schemaHash, suiteVersion } from '../reporter/fingerprint.js';
import { renderJunit } from '../reporter/junit.js';
import { buildMatrix, countVerdicts, familyTitle, SPEC_SECTIONS } from '../reporter/model.js';
import { renderClientHtml } from './html.js';
import {
  CLIENT_CHECKSUM_FILE, CLIENT_FAMILIES, CLIENT_FORMAT, CLIENT_FORMAT_VERSION, CLIENT_HTML_FILE, CLIENT_JUNIT_FILE, CLIENT_PACKAGE_FILE,
  type ClientCase, type ClientCertificationReport, type ClientFingerprint, type ClientOutcome, type ClientRun, type ScenarioReport, type TrafficSummary,
} from './model.js';
import { SCENARIOS, scenarioId } from './scenarios.js';
import type { TrafficRecord } from './traffic.js';

/** What the client saw of a call's answer: its status, or no answer, whatever the judge had produced. */
function statusSeen(r: TrafficRecord): string {
  if (r.clientSaw === 'reset') return 'no answer (reset)';
  if (r.status === null) return 'no answer';
  return r.delivered ? String(r.status) : 'no answer (the client gave up)';
}

const countBy = (keys: string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
};

export function summarizeTraffic(records: TrafficRecord[]): TrafficSummary {
  const byOperation: TrafficSummary['byOperation'] = {};
  for (const r of records) {
    const key = r.op ?? 'other';
    const o = (byOperation[key] ??= { calls: 0, statuses: {} });
    o.calls++;
    const status = statusSeen(r);
    o.statuses[status] = (o.statuses[status] ?? 0) + 1;
  }
  return {
    calls: records.length, byOperation,
    rateLimited: records.filter((r) => r.status === 429 && r.source === 'judge' && r.scenario === null).length,
    abandoned: records.filter((r) => r.tEnd !== null && !r.delivered && r.clientSaw !== 'reset').length,
    scenarioAnswers: countBy(records.filter((r) => r.scenario !== null && r.status !== null).map((r) => String(r.status))),
    lost: records.filter((r) => r.clientSaw === 'reset').length,
  };
}

export function decideClientOutcome(cases: ClientCase[], client: ClientRun, window: number = DEFAULT_RATE_WINDOW_SECONDS): ClientOutcome {
  const mine = cases.filter((c) => c.side === 'client');
  const unexpected = mine.filter((c) => c.verdict === 'FAIL' || c.verdict === 'ERROR').map((c) => c.id);
  const notRun = mine.filter((c) => c.verdict === 'NOT_RUN').map((c) => c.id);
  const sandboxFailures = cases.filter((c) => c.side === 'sandbox' && c.verdict === 'FAIL').map((c) => c.id);
  const reasons: string[] = [];
  const short: string[] = [];
  const s = (n: number) => (n === 1 ? '' : 's');
  const nFail = mine.filter((c) => c.verdict === 'FAIL').length;
  if (nFail) { reasons.push(`${nFail} client rule${s(nFail)} FAIL: the integration's traffic breaks a rule`); short.push(`${nFail} FAIL`); }
  const nError = mine.filter((c) => c.verdict === 'ERROR').length;
  if (nError) { reasons.push(`${nError} case${s(nError)} ERROR: the judge could not decide`); short.push(`${nError} ERROR`); }
  const scenarios = notRun.filter((id) => id.includes('.scenario.'));
  if (scenarios.length) { reasons.push(`${scenarios.length} scenario${s(scenarios.length)} not reached (NOT_RUN); the report says how to trigger each`); short.push(`${scenarios.length} scenario${s(scenarios.length)} not reached`); }
  const rules = notRun.length - scenarios.length;
  if (rules) { reasons.push(`${rules} rule${s(rules)} NOT_RUN: the traffic never put ${rules === 1 ? 'it' : 'them'} to the test`); short.push(`${rules} rule${s(rules)} not exercised`); }
  if (client.command !== null && client.exitCode !== 0) {
    reasons.push(`the client command ${client.exitCode === null ? `ended by ${client.signal ?? 'a signal'}` : `exited with ${client.exitCode}`}: its own run failed`);
    short.push('client command failed');
  }
  if (!mine.length) { reasons.push('no client case was judged'); short.push('nothing judged'); }
  const certifies = reasons.length === 0;
  const warn = mine.filter((c) => c.verdict === 'WARN').length;
  if (certifies && warn) reasons.push(`${warn} WARN: common practice not followed; this does not prevent certification`);
  if (certifies && window !== DEFAULT_RATE_WINDOW_SECONDS) reasons.push(`judged with a ${window} s rate-limit window, not the spec's ${DEFAULT_RATE_WINDOW_SECONDS} s: pacing was proven at this window only`);
  if (sandboxFailures.length) reasons.push(`the sandbox broke ${sandboxFailures.length} check${s(sandboxFailures.length)} of its answers: reported for the bank, not held against the client`);
  const summary = certifies ? `Certifies: the integration's traffic broke no client rule and met every scenario (${mine.length} cases).` : `Does not certify: ${short.join('; ')}.`;
  return { certifies, summary, reasons, unexpected, notRun, sandboxFailures };
}

export function buildClientReport(input: {
  cases: ClientCase[];
  records: TrafficRecord[];
  client: ClientRun;
  fingerprint: Omit<ClientFingerprint, 'suite' | 'schemaHash' | 'schemaFiles' | 'node'>;
}): ClientCertificationReport {
  const { cases } = input;
  const schemas = schemaHash();
  const matrix = buildMatrix(cases);
  matrix.families = matrix.families.map((f) => ({ id: f.id, title: CLIENT_FAMILIES[f.id as keyof typeof CLIENT_FAMILIES] ?? familyTitle(f.id) }));
  const scenarios: ScenarioReport[] = SCENARIOS.map((s) => {
    const c = cases.find((x) => x.id === scenarioId(s));
    return { id: scenarioId(s), operation: s.op, title: s.title, trigger: s.trigger, reached: c?.verdict === 'PASS', calls: c?.calls[s.op] ?? 0 };
  });
  return {
    format: CLIENT_FORMAT, formatVersion: CLIENT_FORMAT_VERSION,
    outcome: decideClientOutcome(cases, input.client, input.fingerprint.limits.windowSeconds),
    fingerprint: { suite: { ...suiteVersion(), ...gitState() }, schemaHash: `sha256:${schemas.hash}`, schemaFiles: schemas.files, node: process.version, ...input.fingerprint },
    client: { ...input.client, command: input.client.command === null ? null : maskText(input.client.command), outputTail: maskText(input.client.outputTail) },
    traffic: summarizeTraffic(input.records),
    scenarios,
    counts: {
      cases: cases.length, byVerdict: countVerdicts(cases),
      bySide: { client: countVerdicts(cases.filter((c) => c.side === 'client')), sandbox: countVerdicts(cases.filter((c) => c.side === 'sandbox')) },
    },
    matrix,
    specSections: SPEC_SECTIONS,
    specCoverage: clientSpecCoverage(cases, input.records, currentSpec()),
    cases: [...cases.filter((c) => c.side === 'client'), ...cases.filter((c) => c.side === 'sandbox')],
  };
}

/** Writes the package; returns the files written, relative to `dir`. */
export function writeClientPackage(dir: string, report: ClientCertificationReport): string[] {
  mkdirSync(dir, { recursive: true });
  const junit = renderJunit({
    cases: report.cases, matrix: report.matrix, runs: [],
    outcome: report.outcome,
    fingerprint: { suite: report.fingerprint.suite, schemaHash: report.fingerprint.schemaHash, target: { url: report.fingerprint.upstream ?? report.fingerprint.baseUrl, profile: `client ${report.fingerprint.mode}` }, startedAt: report.fingerprint.startedAt },
  });
  const files: [string, string][] = [
    [CLIENT_PACKAGE_FILE, `${JSON.stringify(report, null, 2)}\n`],
    [CLIENT_HTML_FILE, renderClientHtml(report)],
    [CLIENT_JUNIT_FILE, junit],
  ];
  for (const [name, text] of files) writeFileAtomic(join(dir, name), text);
  const sums = files.map(([name]) => `${createHash('sha256').update(readFileSync(join(dir, name))).digest('hex')}  ${name}`);
  writeFileAtomic(join(dir, CLIENT_CHECKSUM_FILE), `${sums.join('\n')}\n`);
  return [...files.map(([n]) => n), CLIENT_CHECKSUM_FILE];
}
