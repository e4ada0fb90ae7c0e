/**
 * The preflight's result as data (design.md §10): each step with its evidence, the findings in
 * words that name what to change, and the calls it made. `reports/preflight.json` holds it; the
 * package's "Connection" section and `npm run doctor` render it.
 */
import type { Exchange } from '../client/exchange.js';
import { operations } from '../contract/catalogue.js';

/** A call as the evidence records it (masked), without the parsed body. */
export type PreflightExchange = Omit<Exchange, 'json' | 'parseError'> & { curl?: string };

/** The preflight's API calls: one per operation (an enquiry each; each payment a request to be refused). */
export const PREFLIGHT_CALLS: Readonly<Record<string, number>> = Object.fromEntries(operations.map((op) => [op.id, 1]));

export type StepId = 'configuration' | 'dns' | 'tcp' | 'tls' | 'token' | 'operations' | 'clock';
export type StepStatus = 'ok' | 'warning' | 'blocking' | 'skipped';

export const STEP_TITLES: Record<StepId, string> = {
  configuration: 'Configuration',
  dns: 'DNS',
  tcp: 'TCP connect',
  tls: 'TLS handshake',
  token: 'Access token',
  operations: 'One call per operation',
  clock: 'Clock',
};

export interface Finding {
  severity: 'blocking' | 'warning';
  step: StepId;
  /** What was found, in words. */
  text: string;
  /** What to change, naming the variable. */
  fix?: string;
}

export interface Step {
  id: StepId;
  status: StepStatus;
  ms: number;
  /** What was seen, one fact a line (masked). */
  evidence: string[];
}

export const PREFLIGHT_FORMAT = 'sadad-preflight';
export const PREFLIGHT_FILE = 'preflight.json';

export interface PreflightReport {
  format: typeof PREFLIGHT_FORMAT;
  formatVersion: 1;
  /** The run it preceded (null for `npm run doctor`). */
  runId: string | null;
  startedAt: string;
  durationMs: number;
  /** The target's base URL (masked). */
  target: string;
  /** How a call reaches it: `direct`, or the proxy's masked URL and the variable it came from. */
  route: string;
  /** `blocked`: a blocking finding stops the run before its first case. */
  result: 'ok' | 'warnings' | 'blocked';
  steps: Step[];
  findings: Finding[];
  /** Operations whose preflight call the target accepted (an enquiry answered with success). */
  accepted: string[];
  /** API calls sent per operation (the token endpoint is not an operation). */
  calls: Record<string, number>;
  /** The calls, masked, as the cases' evidence records them. */
  exchanges: PreflightExchange[];
}

/** The blocking findings, or the warnings, as lines for a console. */
export function findingLines(report: PreflightReport, severity: Finding['severity']): string[] {
  return report.findings.filter((f) => f.severity === severity).map((f) => `${f.text}${f.fix ? `\n    → ${f.fix}` : ''}`);
}
