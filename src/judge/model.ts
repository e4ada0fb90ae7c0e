/**
 * The client certification package (issue 11, design.md §9) as data: what
 * `reports/client-certification.json` holds (schemas/client-certification.schema.json) and what
 * `client-certification.html` renders. Its cases are the service package's CaseReport, so one
 * verdict model, one JUnit renderer and one set of counting helpers serve both packages; a case
 * says which side it judges: the client's traffic, or (proxy mode) the sandbox's answers.
 */
import type { SpecCoverage } from '../reporter/spec-coverage.js';
import type { ClientProfile } from '../vocabulary/profile.js';
import type { CaseReport, MatrixCell, VerdictCounts } from '../reporter/model.js';
import type { ExchangeRecord } from '../evidence/record.js';
import type { Level, Verdict } from '../vocabulary/verdicts.js';

export const CLIENT_FORMAT = 'sadad-client-certification';
export const CLIENT_FORMAT_VERSION = 1;

export const CLIENT_PACKAGE_FILE = 'client-certification.json';
export const CLIENT_HTML_FILE = 'client-certification.html';
export const CLIENT_JUNIT_FILE = 'client-junit.xml';
export const CLIENT_CHECKSUM_FILE = 'client-certification.sha256';

/** Client rule families (the matrix's columns); proxy mode adds the service families its sandbox checks use. */
export const CLIENT_FAMILIES = {
  'client-request': 'Requests valid against the request schema, TransactionType of the endpoint',
  'client-headers': 'Headers of §5 present and well formed, DateTimeStamp current, signature',
  'client-identifiers': 'Reference id, SequenceNumber and TransactionReferenceNumber never reused for another request',
  'client-pacing': 'Within the rate limit; no call before Retry-After',
  'client-payment-safety': 'Payments follow an enquiry, pay what is due, never twice under a new SequenceNumber',
  'client-scenarios': 'Scenarios the integration must have met',
} as const;
export type ClientFamily = keyof typeof CLIENT_FAMILIES;

/** Which side of the wire a case judges. */
export type Side = 'client' | 'sandbox';

export interface ClientCase extends CaseReport {
  side: Side;
  /** Scenario cases: how an integration reaches it (the magic value or control). */
  trigger?: string;
}

export interface ScenarioReport {
  id: string;
  operation: string;
  title: string;
  trigger: string;
  reached: boolean;
  /** Calls of the traffic that reached it. */
  calls: number;
}

export interface ClientRun {
  /** The command run with the credentials exported, masked; null when serving until Ctrl-C / --duration. */
  command: string | null;
  exitCode: number | null;
  signal: string | null;
  /** The last lines of the command's output (stdout and stderr interleaved), masked. */
  outputTail: string;
  /** Why the serving ended: `command exited`, `duration`, `SIGINT`, ... */
  ended: string;
}

export interface TrafficSummary {
  calls: number;
  /** Per operation (and `other` for any other path): calls and HTTP statuses answered. */
  byOperation: Record<string, { calls: number; statuses: Record<string, number> }>;
  /** 429s the judge sent because the client went past a limit (scenario 429s not included). */
  rateLimited: number;
  /** Calls whose answer the client did not wait for (it closed the connection first). */
  abandoned: number;
  /** Answers the scenarios gave, by status (`429` rate-limited, `503` unavailable, ...): what the client met besides its own refusals. */
  scenarioAnswers?: Record<string, number>;
  /** Answers the judge dropped (a `lost` fault): the client saw a reset. */
  lost?: number;
}

export interface ClientFingerprint {
  suite: { name: string; version: string; commit: string | null; localChanges: boolean | null };
  schemaHash: string;
  schemaFiles: string[];
  /** `judge`: the mock answers; `proxy`: calls are forwarded to `upstream` and both sides judged. */
  mode: 'judge' | 'proxy';
  /** The base URL the client was given. */
  baseUrl: string;
  upstream: string | null;
  limits: { windowSeconds: number; bill: number; moi: number };
  /** Operations the integration is certified for (`--operations`); the others are NOT_APPLICABLE. */
  operations: string[];
  signature: 'verified' | 'not configured';
  lateAnswerMs: number;
  /** SADAD_CLIENT_PROFILE the client was judged under (absent in packages of earlier suites). */
  clientProfile?: ClientProfile;
  /** The zone a zoneless DateTimeStamp was read in (absent in packages of earlier suites). */
  timeZone?: string;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  node: string;
}

export interface ClientOutcome {
  certifies: boolean;
  summary: string;
  reasons: string[];
  /** Client cases with FAIL or ERROR. */
  unexpected: string[];
  /** Client cases NOT_RUN: scenarios never reached, operations never called. */
  notRun: string[];
  /** Sandbox cases with FAIL (proxy mode): reported, they do not decide the client's certification. */
  sandboxFailures: string[];
}

export interface ClientCertificationReport {
  format: typeof CLIENT_FORMAT;
  formatVersion: typeof CLIENT_FORMAT_VERSION;
  outcome: ClientOutcome;
  fingerprint: ClientFingerprint;
  client: ClientRun;
  traffic: TrafficSummary;
  scenarios: ScenarioReport[];
  counts: { cases: number; byVerdict: VerdictCounts; bySide: Record<Side, VerdictCounts> };
  matrix: { operations: string[]; families: { id: string; title: string }[]; cells: MatrixCell[] };
  specSections: Record<string, string>;
  /** The document's rows, endpoints, headers, rules and limits the client's traffic exercised (coverage.ts); absent in packages of earlier suites. */
  specCoverage?: SpecCoverage;
  /** Client cases first, then (proxy mode) sandbox cases. */
  cases: ClientCase[];
}

/** What a rule's judge returns; the package turns it into a ClientCase. */
export interface Judgement {
  verdict: Verdict;
  notes: { verdict: Verdict; text: string }[];
  observation: Record<string, unknown> | null;
  /** Masked exchanges that show the verdict (violations first), at most a few. */
  exchanges: ExchangeRecord[];
  /** How many calls the rule looked at. */
  judged: number;
}

export interface RuleInfo {
  id: string;
  side: Side;
  operation: string;
  family: string;
  level: Level;
  sections: string[];
  expectation: string;
  trigger?: string;
}
