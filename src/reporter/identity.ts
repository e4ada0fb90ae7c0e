/**
 * A run's identity: what must be the same for two runs' verdicts to belong in one package. A
 * resume (`npm run certify -- --resume`) refuses to merge when any part differs, since a merged
 * verdict would then judge another suite, another target, or another set of cases.
 */
import { maskText } from '../client/redact.js';
import { ConfigError } from '../contract/prefix.js';
import { readSettingsOrError, type Settings, type Variables } from '../config/settings.js';
import { gitState, schemaHash } from './fingerprint.js';
import { narrowingArgs } from './narrowing.js';

export interface RunIdentity {
  /** git commit of the suite (null outside a git checkout). */
  suiteCommit: string | null;
  /** `sha256:<hex>` of schemas/*.json. */
  schemaHash: string;
  /** The target as configured: its URL, or `embedded mock` with the MOCK_* settings that shape it. */
  target: string;
  /** SADAD_PROFILE: `full` or `smoke`. */
  profile: string;
  /** `shape` only when SADAD_RATE_SHAPE=spaced: identities of runs before it existed stay equal. */
  limits: { windowSeconds: number; bill: number; moi: number; shape?: 'spaced' } | null;
  /** SADAD_CASES, SADAD_SKIP_CASES and Playwright's filters; all null for the whole suite. */
  selection: { cases: string | null; skipCases: string | null; args: string | null };
}

const blank = (v: string | undefined) => v === undefined || v.trim() === '';
/**
 * Mock settings that hold credentials say nothing about the target's behaviour, and must not reach
 * a report; where the mock writes its logs, and at what level, say nothing of it either (a resume
 * with another log file is the same target).
 */
const NOT_IDENTITY = /TOKEN|SECRET|PASS|^MOCK_PORT$|^MOCK_ACCESS_LOG$|^MOCK_LOG_LEVEL$/;

/** The target as configured, before the global setup starts the embedded mock (whose port changes every run). */
export function configuredTarget(env: Variables): string {
  if (!blank(env.SADAD_BASE_URL)) return maskText(env.SADAD_BASE_URL!.trim().replace(/\/+$/, ''));
  const settings = Object.keys(env).filter((k) => k.startsWith('MOCK_') && !NOT_IDENTITY.test(k) && !blank(env[k])).sort()
    .map((k) => `${k}=${maskText(env[k]!.trim())}`);
  return settings.length ? `embedded mock (${settings.join(', ')})` : 'embedded mock';
}

/** The limits a run with these settings paces at, as its identity records them. */
export function limitsOf(settings: Settings): NonNullable<RunIdentity['limits']> {
  const l = settings.run.limits;
  return { windowSeconds: l.windowSeconds, bill: l.perOperation['bill-enquiry']!, moi: l.perOperation['moi-enquiry']!, ...(settings.suite.rateShape === 'spaced' ? { shape: 'spaced' as const } : {}) };
}

/**
 * The identity of a run about to start with these variables and these `playwright test` arguments.
 * Must be called with the variables as configured, before the global setup (which points
 * SADAD_BASE_URL at the embedded mock's address). A configuration error leaves the limits unknown
 * (the global setup stops the run on it, naming the variable).
 */
export function runIdentity(env: Variables, argv: string[]): RunIdentity {
  const settings = readSettingsOrError(env);
  let limits: RunIdentity['limits'] = null;
  let profile = String(env.SADAD_PROFILE);
  if (!(settings instanceof ConfigError)) {
    limits = limitsOf(settings);
    profile = settings.run.profile;
  }
  return {
    suiteCommit: gitState().commit,
    schemaHash: `sha256:${schemaHash().hash}`,
    target: configuredTarget(env),
    profile,
    limits,
    selection: { cases: env.SADAD_CASES?.trim() || null, skipCases: env.SADAD_SKIP_CASES?.trim() || null, args: narrowingArgs(argv) },
  };
}

const show = (v: unknown) => (v === null || v === undefined ? 'none' : typeof v === 'string' ? v : JSON.stringify(v));
const limitsText = (l: RunIdentity['limits']) => (l ? `bill ${l.bill}, MOI ${l.moi} per ${l.windowSeconds} s${l.shape ? `, ${l.shape}` : ''}` : 'unknown');

/** Each part that differs, in words (`target: the previous run's was X, this one's is Y`); empty when the runs match. */
export function identityDifferences(previous: RunIdentity, now: RunIdentity): string[] {
  const out: string[] = [];
  const differ = (what: string, a: string, b: string) => { if (a !== b) out.push(`${what}: the previous run's was ${a}, this one's is ${b}`); };
  differ('suite commit', show(previous.suiteCommit), show(now.suiteCommit));
  differ('schema hash (schemas/*.json)', show(previous.schemaHash), show(now.schemaHash));
  differ('target', show(previous.target), show(now.target));
  differ('profile (SADAD_PROFILE)', show(previous.profile), show(now.profile));
  differ('limits (SADAD_RATE_WINDOW_SECONDS, SADAD_RATE_LIMIT_BILL, SADAD_RATE_LIMIT_MOI, SADAD_RATE_SHAPE)', limitsText(previous.limits), limitsText(now.limits));
  differ('selection SADAD_CASES', show(previous.selection.cases), show(now.selection.cases));
  differ('selection SADAD_SKIP_CASES', show(previous.selection.skipCases), show(now.selection.skipCases));
  differ('selection by Playwright arguments (--grep, --shard, spec files)', show(previous.selection.args), show(now.selection.args));
  return out;
}

export const isNarrowed = (s: RunIdentity['selection']) => !!(s.cases || s.skipCases || s.args);
