/**
 * The settings object: everything a run is configured by, read from the environment (and `.env`)
 * once, validated (a mistake is a ConfigError naming the variable) and handed down as parameters.
 * This module and the entry points in src/cli are the only code that reads `process.env`
 * (test/architecture/settings.test.ts holds the project to it).
 *
 * A run spans processes: the Playwright runner (its config, the global setup, the reporters) and
 * its workers. The global setup decides what the workers must agree on (the run id, the seed, the
 * embedded mock's address, the pacer's) and publishes the run's variables as one serialised value
 * (SADAD_SETTINGS, `publishSettings`); every process of the run reads its settings from that value,
 * so they all read the same, parsed the same way.
 */
import { ConfigError } from '../contract/prefix.js';
import { operations } from '../contract/catalogue.js';
import { reportsDir, resultsDir } from '../paths.js';
import { readBaseline, type Waiver } from '../vocabulary/baseline.js';
import { FAIL_ON_VALUES, type FailOn } from '../vocabulary/fail-on.js';
import type { Limits, PlanContext } from '../vocabulary/plan.js';
import { PROFILES, type Profile } from '../vocabulary/profile.js';
import { readRunOnly, selectionOf, type Selection } from '../vocabulary/selection.js';
import { loadEnvFile, SETTINGS_ENV } from './env-file.js';
import { oneOf, positiveInteger, unset, type Variables } from './env-values.js';
import { configFromVariables, EMBEDDED_MOCK_WINDOW_SECONDS, secretValues, type SuiteConfig } from './index.js';

export type { Variables } from './env-values.js';
export { childEnvironment, SETTINGS_ENV } from './env-file.js';
/** Internal, set by `--resume` with SADAD_RUN_ONLY: the folder of the package this run continues. */
export const RESUME_FROM_ENV = 'SADAD_RESUME_FROM';
/** Internal: a file of case ids, one a line, that `--resume` narrows the run to. */
export const RUN_ONLY_ENV = 'SADAD_RUN_ONLY';
/** Internal: the plan file of a multi-target run (`npm run prove`). */
export const TARGETS_ENV = 'SADAD_TARGETS';
/** Internal, set by the multi-target global setup: each target's variables for the workers. */
export const TARGETS_RUNTIME_ENV = 'SADAD_TARGETS_RUNTIME';

/** What a run is besides its target: identity, selection, what fails it, where it writes. */
export interface RunSettings {
  /** SADAD_RUN_ID: set by the global setup (or `--resume`) for every process of the run. */
  runId: string | undefined;
  /** SADAD_DRY_RUN: the plan only (`npm run certify -- --list`). */
  dryRun: boolean;
  /** SADAD_PROFILE. */
  profile: Profile;
  /** SADAD_CASES, SADAD_SKIP_CASES, SADAD_RUN_ONLY and the profile. */
  selection: Selection;
  /** SADAD_RESUME_FROM (internal): the package folder a resume continues. */
  resumeFrom: string | undefined;
  /** SADAD_BASELINE: the file of accepted deviations, and its waivers. */
  baselineFile: string | undefined;
  waivers: Waiver[];
  /** SADAD_COMPARE: the previous package's certification.json, as given. */
  compareFile: string | undefined;
  /** SADAD_FAIL_ON. */
  failOn: FailOn;
  /** Whether payments may be sent without asking: the embedded mock, or SADAD_PAYMENTS set. */
  paymentsSettled: boolean;
  /** The limits the run paces at, known before anything is sent (the plan, the cases' planned calls). */
  limits: Limits;
  /** What a plan assumes of the run besides its limits and worker count. */
  plan: Omit<PlanContext, 'workers'>;
  /** SADAD_REPORTS_DIR and SADAD_RESULTS_DIR, absolute. */
  reportsDir: string;
  resultsDir: string;
  /** SADAD_TARGET_PROFILE: the target's description (the embedded mock's style, a sandbox's name). */
  targetProfile: string | undefined;
  /** SADAD_PACER_URL (internal): the run's pacing coordinator. */
  pacerUrl: string | undefined;
  /** SADAD_WORKERS: Playwright workers, when set. */
  workers: number | undefined;
  /** SADAD_TARGETS and SADAD_TARGETS_RUNTIME (internal): a multi-target run's plan file and each target's variables. */
  targetsFile: string | undefined;
  targetsRuntime: Record<string, Record<string, string>>;
}

export interface Settings {
  /**
   * The variables the settings were read from, after `.env`: what a child run is given, what the
   * embedded mock's MOCK_* options and the run's identity are read from.
   */
  variables: Variables;
  /** The target, credentials, limits, network: what the cases and the client need. */
  suite: SuiteConfig;
  run: RunSettings;
}

const str = (vars: Variables, name: string) => (unset(vars[name]) ? undefined : vars[name]!.trim());

/** SADAD_DRY_RUN: set to anything but 0, false, no or off (as `certify` reads it). */
export const dryRunOf = (vars: Variables): boolean => !unset(vars.SADAD_DRY_RUN) && !/^(0|false|no|off)$/i.test(vars.SADAD_DRY_RUN.trim());

/** Whether payments may be sent without asking: the embedded mock (no SADAD_BASE_URL), or SADAD_PAYMENTS set. */
export const paymentsSettledOf = (vars: Variables): boolean => unset(vars.SADAD_BASE_URL) || !unset(vars.SADAD_PAYMENTS);

function positive(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/**
 * The limits a run will pace at, as the variables say before the run. Without SADAD_BASE_URL the
 * embedded mock is the target: its own MOCK_* settings win, else it follows the suite's settings
 * (window EMBEDDED_MOCK_WINDOW_SECONDS unless SADAD_RATE_WINDOW_SECONDS says otherwise), as the
 * global setup does.
 */
function plannedLimits(vars: Variables, config: SuiteConfig): Limits {
  const embedded = config.baseUrl === undefined;
  const windowSeconds = (embedded ? positive(vars.MOCK_RATE_WINDOW_SECONDS) : undefined) ?? config.rateWindowSeconds;
  const bill = (embedded ? positive(vars.MOCK_RATE_LIMIT_BILL) : undefined) ?? config.rateLimits.bill;
  const moi = (embedded ? positive(vars.MOCK_RATE_LIMIT_MOI) : undefined) ?? config.rateLimits.moi;
  const perOperation = Object.fromEntries(operations.map((op) => [op.id, op.rateGroup === 'bill' ? bill : moi]));
  const source = embedded
    ? `the embedded mock (no SADAD_BASE_URL)${windowSeconds === EMBEDDED_MOCK_WINDOW_SECONDS ? `, whose window is ${EMBEDDED_MOCK_WINDOW_SECONDS} s` : ''}`
    : `the target ${config.baseUrl}`;
  return { windowSeconds, perOperation, source };
}

function targetsRuntimeOf(vars: Variables): Record<string, Record<string, string>> {
  const raw = str(vars, TARGETS_RUNTIME_ENV);
  if (!raw) return {};
  try { return JSON.parse(raw) as Record<string, Record<string, string>>; } catch { throw new ConfigError(TARGETS_RUNTIME_ENV, 'is not JSON (it is set by the multi-target global setup, not by hand)'); }
}

/**
 * The selection the variables make, without the rest of the settings: what the cases are loaded with
 * when the settings are wrong (the global setup stops the run on that, naming the variable; the dry
 * run still lists the selected cases). A ConfigError when the selection itself is wrong.
 */
export function selectionOfVariables(vars: Variables): Selection {
  const profile = oneOf(vars, 'SADAD_PROFILE', PROFILES, 'full');
  const runOnlyFile = str(vars, RUN_ONLY_ENV);
  return selectionOf({ cases: vars.SADAD_CASES, skip: vars.SADAD_SKIP_CASES, runOnly: runOnlyFile ? readRunOnly(runOnlyFile) : null, profile });
}

/** The run's part of the settings, from the variables and the suite's configuration read from them. */
function runSettingsOf(vars: Variables, config: SuiteConfig): RunSettings {
  const selection = selectionOfVariables(vars);
  const profile = selection.profile;
  const baselineFile = str(vars, 'SADAD_BASELINE');
  return {
    runId: str(vars, 'SADAD_RUN_ID'),
    dryRun: dryRunOf(vars),
    profile,
    selection,
    resumeFrom: str(vars, RESUME_FROM_ENV),
    baselineFile,
    waivers: baselineFile ? readBaseline(baselineFile) : [],
    compareFile: str(vars, 'SADAD_COMPARE'),
    failOn: oneOf(vars, 'SADAD_FAIL_ON', FAIL_ON_VALUES, 'fail'),
    paymentsSettled: paymentsSettledOf(vars),
    limits: plannedLimits(vars, config),
    plan: { signer: !!(config.signer || config.signingKey), payments: config.payments, preflight: config.preflight },
    reportsDir: reportsDir(vars),
    resultsDir: resultsDir(vars),
    targetProfile: str(vars, 'SADAD_TARGET_PROFILE'),
    pacerUrl: str(vars, 'SADAD_PACER_URL'),
    workers: unset(vars.SADAD_WORKERS) ? undefined : positiveInteger(vars, 'SADAD_WORKERS', 1),
    targetsFile: str(vars, TARGETS_ENV),
    targetsRuntime: targetsRuntimeOf(vars),
  };
}

/** The settings these variables make; a ConfigError naming the first variable that is wrong. */
export function readSettings(variables: Variables): Settings {
  const vars = Object.freeze({ ...variables });
  const suite = configFromVariables(vars);
  return { variables: vars, suite, run: runSettingsOf(vars, suite) };
}

/** The settings, or the ConfigError that stops a run: for the parts that still report on a broken configuration (the dry run, a package). */
export function readSettingsOrError(variables: Variables): Settings | ConfigError {
  const key = JSON.stringify(variables);
  let s = cache.get(key);
  if (!s) {
    try {
      s = readSettings(variables);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      s = e;
    }
    cache.set(key, s);
  }
  return s;
}

/**
 * Read once for the same variables: a PKCS#12 client certificate costs a key derivation to open,
 * and every part of a run asks (a seed left unset is drawn once, too).
 */
const cache = new Map<string, Settings | ConfigError>();

/**
 * This process's variables: the run's published ones (SADAD_SETTINGS) when a global setup published
 * them, else the environment with `.env` loaded into it (once; a missing SADAD_ENV_FILE is a
 * ConfigError). The only place besides src/cli that reads `process.env`.
 */
export function processVariables(): Variables {
  const published = process.env[SETTINGS_ENV];
  if (published) {
    // over this process's own (a worker's TEST_WORKER_INDEX): the run's decisions win
    try { return { ...process.env, ...(JSON.parse(published) as Variables) }; } catch { throw new ConfigError(SETTINGS_ENV, 'is not JSON (it is set by the run, not by hand)'); }
  }
  if (!envFileLoaded) {
    envFileLoaded = true;
    loadEnvFile(process.env);
  }
  return { ...process.env };
}
let envFileLoaded = false;

/** This process's settings (a ConfigError when they are wrong). */
export function processSettings(): Settings {
  const s = processSettingsOrError();
  if (s instanceof ConfigError) throw s;
  return s;
}

export function processSettingsOrError(): Settings | ConfigError {
  // a worker asks once per case: the published value unchanged, the settings are the ones read
  const published = process.env[SETTINGS_ENV];
  if (published !== undefined && published === lastPublished?.raw) return lastPublished.settings;
  let vars: Variables;
  try { vars = processVariables(); } catch (e) { if (e instanceof ConfigError) return e; throw e; }
  const settings = readSettingsOrError(vars);
  if (published !== undefined) lastPublished = { raw: published, settings };
  return settings;
}
let lastPublished: { raw: string; settings: Settings | ConfigError } | undefined;

/**
 * Every secret the settings hold, and the credentials' variables as given even when the settings
 * are wrong: what the masking registry learns (a report may quote a value the run could not use).
 */
export function configuredSecrets(variables: Variables): string[] {
  const s = readSettingsOrError(variables);
  const raw = ['SADAD_ACCESS_TOKEN', 'SADAD_CLIENT_SECRET', 'SADAD_SIGNING_KEY_PASSPHRASE', 'SADAD_TLS_PASSPHRASE'].map((n) => variables[n]).filter((v): v is string => !!v);
  return [...(s instanceof ConfigError ? [] : secretValues(s.suite)), ...raw];
}

/**
 * Publishes the run's variables for every process the runner starts after this (its workers) and
 * for its reporters: one serialised value, read by `processVariables`.
 */
export function publishSettings(variables: Variables): Settings {
  process.env[SETTINGS_ENV] = JSON.stringify(variables);
  return processSettings();
}
