/**
 * The evidence record: what a case leaves in reports/evidence/<case id>.json the moment it ends, and
 * all that a package, a re-judge (src/replay) and a verification (src/verify) rest on. Written by the
 * case (src/suite/case.ts), by the reporter for a case that ended without a verdict, and by a re-judge
 * (its new verdict); read by the package (src/reporter), the re-judge and the verifier. Masked where it
 * is written, masked again where it is read.
 */
import type { Verdict } from '../vocabulary/verdicts.js';

/** The folder of the evidence files in a reports folder. */
export const EVIDENCE_DIR = 'evidence';

/** One request and its answer (or the error that took its place), masked. */
export interface ExchangeRecord {
  label: string;
  op?: string;
  request: { method: string; url: string; headers: Record<string, string>; body: string };
  response?: { status: number; headers: Record<string, string>; body: string };
  error?: { kind: string; message: string; code?: string; advice?: string };
  startedAt?: string;
  durationMs?: number;
  /** When the request left on its connection, in ms after `startedAt` (absent in evidence of earlier suites). */
  sentAfterMs?: number;
  /** The curl command that sends the request again (src/client/curl.ts); on the exchanges of a case that is not PASS. */
  curl?: string;
}

/** What a case leaves in evidence/<id>.json. Fields are optional where evidence of earlier suites lacks them. */
export interface EvidenceRecord {
  id: string;
  runId?: string;
  /** `case` when the case wrote it at its end; `reporter` for a case that ended without a verdict. */
  writtenBy?: 'case' | 'reporter';
  title?: string;
  file?: string;
  verdict: Verdict;
  /** What Playwright reports for the test: passed, failed, skipped, timedOut, interrupted. */
  testStatus?: string;
  level?: string;
  family?: string;
  op?: string;
  sections?: string[];
  expectation?: string;
  calls?: Record<string, number>;
  startedAt?: string;
  finishedAt?: string;
  durationMs?: number;
  notes?: { verdict: Verdict; text: string; cause?: unknown; testedBy?: unknown }[];
  observations?: Record<string, unknown>;
  /** What the target does in words that hold from run to run (CaseContext.stableFacts): what `--compare` reads. */
  facts?: Record<string, string>;
  transient?: { op: string; kind: string; recovered: boolean }[];
  /** Operations whose answer the case saw accepted. */
  accepted?: string[];
  /** The case's PASS on a rejection holds only if some request of this operation was accepted in the run. */
  requires?: { acceptance: string };
  annotations?: { type: string; description?: string }[];
  exchanges?: ExchangeRecord[];
  /** What a re-judge needs besides the exchanges (src/replay; absent in evidence of suites before re-judging). */
  replay?: { worker: string; seq: number; config: Record<string, unknown>; inputs: { kind: string; key: string; value: unknown }[] };
  /**
   * What of the API document the case tests (`tests`) and what it was built from, each reference with
   * a digest of what the document said there when it ran (`refs`; src/contract/spec-refs.ts): a
   * re-judge under another version of the document keeps the verdict only where every digest holds.
   * Absent in evidence of suites before the document was imported.
   */
  spec?: { tests: string[]; refs: Record<string, string> };
  /** Set by a re-judge (npm run certify -- --rejudge): the verdict the run recorded, when the re-judge gave another. */
  rejudged?: { recorded: Verdict; divergence?: string };
}
