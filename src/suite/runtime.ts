/**
 * Everything a worker needs to run cases, built once per worker process from the environment the
 * global setup prepared (target URL, pacer coordinator, seed).
 */
import { createHash } from 'node:crypto';
import { secretValues, type SuiteConfig } from '../config/index.js';
import type { Settings } from '../config/settings.js';
import type { Profile } from '../vocabulary/profile.js';
import type { Waiver } from '../vocabulary/baseline.js';
import { SadadClient } from '../client/client.js';
import { loadSigner } from '../client/signer.js';
import { ClientCredentialsToken, StaticToken, type TokenSource } from '../client/token.js';
import { registerSecret } from '../client/redact.js';
import { LocalPacer, type Pacer } from '../pacer/pacer.js';
import { RemotePacer } from '../pacer/remote.js';
import { LocalFacts, RemoteFacts, type RunFacts } from '../pacer/facts.js';
import { operations, type OperationId } from '../contract/catalogue.js';
import { RequestGenerator } from '../generators/requests.js';
import { generatorFor } from '../preflight/run.js';
import { loadTargetData, type TargetData } from '../config/target-data.js';

/**
 * What the cases use of the client: sending, the signer (whether one is configured, and a signature
 * of another body for the forged-signature case) and the token's renewal. A run gives its
 * SadadClient; a re-judge (src/replay) a client that answers from the evidence.
 */
export type CaseClient = Pick<SadadClient, 'send' | 'signer' | 'tokens' | 'refuseToken'>;

export interface Runtime {
  config: SuiteConfig;
  /** The run's id (SADAD_RUN_ID), its profile and its baseline's waivers: what a case's evidence and test status record. */
  runId: string | undefined;
  profile: Profile;
  waivers: readonly Waiver[];
  client: CaseClient;
  pacer: Pacer;
  /** Preconditions shared by every worker of the run (a step refused often enough is not tried again). */
  facts: RunFacts;
  /** A generator seeded by the run seed and a key (a case id): reproducible whatever the worker. */
  generator(key: string): RequestGenerator;
  /** Calls per window of an operation at the target. */
  limitOf(op: OperationId): number;
  /** SADAD_DATA_FILE, when configured. */
  targetData: TargetData | undefined;
  /** The next unused index of a data-file list for this run (shared by all workers), or null. */
  claim(kind: 'bills' | 'fees'): Promise<number | null>;
  /** Where the cases' evidence goes (SADAD_REPORTS_DIR): one folder per target in a multi-target run. */
  reportsDir: string;
  /** What the worker keeps across cases for this target, per operation (a payable subject, an accepted answer), by name. */
  kept<T>(name: string): Map<OperationId, T>;
  /**
   * Whether each exchange is also attached to its Playwright test (for Playwright's own reports).
   * Not for a target of a multi-target run: nothing reads its Playwright reports, the evidence file
   * holds every exchange, and an attachment is a folder, a file and a message to the runner each.
   */
  attachExchanges: boolean;
  /**
   * The worker (and target) whose state the cases share (the payable base, the accepted answer):
   * recorded with each case's evidence, with its place in the worker's order (`nextSeq`), so that a
   * re-judge (src/replay) gives each case the worker state it met.
   */
  worker: string;
  nextSeq(): number;
}

/**
 * What a case's verdict depends on in the configuration, recorded with its evidence so that a
 * re-judge needs nothing of the machine that ran it: no secret, no key, no URL.
 */
export interface JudgingConfig {
  seed: number;
  tagPrefix: string;
  headerPrefix: string;
  companyId: string;
  bankCode: string | null;
  companyCode: string | null;
  retries: number;
  rateWindowSeconds: number;
  rateLimits: { bill: number; moi: number };
  /** SADAD_RATE_SHAPE: what the rate-limit cases check. Absent in evidence of older suites: `burst`. */
  rateShape?: 'burst' | 'spaced';
  payments: boolean;
  /** A request signer was configured (the signature cases run). */
  signer: boolean;
  /** The token came from SADAD_TOKEN_URL (a refused one can be fetched again). */
  renewableToken: boolean;
  /** clientid/clientsecret were configured (sent on the operations that take them). */
  clientHeaders: boolean;
  /** SADAD_PROFILE: the smoke profile's cases send fewer bursts. */
  profile: string;
}

export function judgingConfig(rt: Runtime, profile: string): JudgingConfig {
  const c = rt.config;
  return {
    seed: c.seed, tagPrefix: c.tagPrefix, headerPrefix: c.headerPrefix, companyId: c.companyId,
    bankCode: c.bankCode ?? null, companyCode: c.companyCode ?? null, retries: c.retries,
    rateWindowSeconds: c.rateWindowSeconds, rateLimits: { ...c.rateLimits }, rateShape: c.rateShape, payments: c.payments,
    signer: rt.client.signer !== undefined, renewableToken: rt.client.tokens.renewable,
    clientHeaders: !!(c.clientId && c.clientSecret), profile,
  };
}

/**
 * The judging configuration a case's evidence records (`replay.config`), checked field by field:
 * the configuration, or why the evidence does not hold one (the case then needs a new run).
 */
export function judgingConfigFrom(recorded: Record<string, unknown>): JudgingConfig | string {
  const r = recorded;
  const str = (k: string) => typeof r[k] === 'string';
  const num = (k: string) => typeof r[k] === 'number' && Number.isFinite(r[k]);
  const bool = (k: string) => typeof r[k] === 'boolean';
  const orNull = (k: string) => r[k] === null || r[k] === undefined || str(k);
  const limits = r.rateLimits as { bill?: unknown; moi?: unknown } | undefined;
  const bad = [
    ...['tagPrefix', 'headerPrefix', 'companyId', 'profile'].filter((k) => !str(k)),
    ...['seed', 'retries', 'rateWindowSeconds'].filter((k) => !num(k)),
    ...['payments', 'signer', 'renewableToken', 'clientHeaders'].filter((k) => !bool(k)),
    ...['bankCode', 'companyCode'].filter((k) => !orNull(k)),
    ...(typeof limits?.bill === 'number' && typeof limits.moi === 'number' ? [] : ['rateLimits']),
    ...(r.rateShape === undefined || r.rateShape === 'burst' || r.rateShape === 'spaced' ? [] : ['rateShape']),
  ];
  if (bad.length) return `its evidence records no usable judging configuration (${bad.join(', ')})`;
  return {
    seed: r.seed as number, tagPrefix: r.tagPrefix as string, headerPrefix: r.headerPrefix as string, companyId: r.companyId as string,
    bankCode: (r.bankCode as string | null | undefined) ?? null, companyCode: (r.companyCode as string | null | undefined) ?? null,
    retries: r.retries as number, rateWindowSeconds: r.rateWindowSeconds as number,
    rateLimits: { bill: limits!.bill as number, moi: limits!.moi as number },
    ...(r.rateShape ? { rateShape: r.rateShape as 'burst' | 'spaced' } : {}),
    payments: r.payments as boolean, signer: r.signer as boolean, renewableToken: r.renewableToken as boolean,
    clientHeaders: r.clientHeaders as boolean, profile: r.profile as string,
  };
}

export function tokenSource(config: SuiteConfig): TokenSource {
  if (config.tokenUrl) return new ClientCredentialsToken({ url: config.tokenUrl, clientId: config.clientId!, clientSecret: config.clientSecret!, timeoutMs: config.requestTimeoutMs, network: config.network });
  return new StaticToken(config.accessToken);
}

/** The client of a configuration (its token source and signer) on `pacer`: the workers', the preflight's, the probe's, the doctor's. */
export async function configuredClient(config: SuiteConfig, pacer: Pacer = new LocalPacer({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config) })): Promise<SadadClient> {
  const signer = await loadSigner({ signer: config.signer, signingKey: config.signingKey, passphrase: config.signingKeyPassphrase });
  return new SadadClient(config, { pacer, tokens: tokenSource(config), signer });
}

export function limitsOf(config: SuiteConfig): Record<OperationId, number> {
  return Object.fromEntries(operations.map((op) => [op.id, config.rateLimits[op.rateGroup]])) as Record<OperationId, number>;
}

/** Each case's generator, seeded by the run seed and its id: the same in a run and in a re-judge (src/replay). */
export function caseGenerators(config: SuiteConfig): (key: string) => RequestGenerator {
  // bank and company codes, when not configured, are drawn once per run from the seed
  const identity = generatorFor(config);
  return (key) => new RequestGenerator({
    seed: createHash('sha256').update(`${config.seed}:${key}`).digest().readUInt32BE(0),
    tagPrefix: config.tagPrefix, bankCode: identity.bankCode, companyCode: identity.companyCode,
  });
}

const built = new Map<string, Promise<Runtime>>();

/**
 * The worker's runtime, built on first use. `key` names a target of a multi-target run
 * (suite/targets.ts), whose settings are the run's with that target's variables over them.
 */
export function runtime(settings: Settings, key = ''): Promise<Runtime> {
  let rt = built.get(key);
  if (!rt) built.set(key, (rt = build(settings, key === '', key)));
  return rt;
}

async function build(settings: Settings, attachExchanges: boolean, key: string): Promise<Runtime> {
  const { suite: config, run } = settings;
  for (const s of secretValues(config)) registerSecret(s);
  const pacer: Pacer = run.pacerUrl ? new RemotePacer(run.pacerUrl) : new LocalPacer({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config) });
  const client = await configuredClient(config, pacer);
  const targetData = loadTargetData(config.dataFile);
  const localClaims = new Map<string, number>();
  const keptMaps = new Map<string, Map<OperationId, unknown>>();
  const claim = async (kind: 'bills' | 'fees') => {
    if (pacer instanceof RemotePacer) return pacer.claim(kind);
    const next = localClaims.get(kind) ?? 0;
    if (next >= (targetData?.[kind].length ?? 0)) return null;
    localClaims.set(kind, next + 1);
    return next;
  };
  let seq = 0;
  return {
    // a worker process serves one worker index; its run and target complete the key
    worker: `${run.runId ?? 'run'}/worker ${settings.variables.TEST_WORKER_INDEX ?? process.pid}${key ? `/${key}` : ''}`,
    nextSeq: () => ++seq,
    config,
    runId: run.runId,
    profile: run.profile,
    waivers: run.waivers,
    reportsDir: run.reportsDir,
    attachExchanges,
    kept: <T>(name: string) => {
      let m = keptMaps.get(name);
      if (!m) keptMaps.set(name, (m = new Map()));
      return m as Map<OperationId, T>;
    },
    client,
    pacer,
    facts: run.pacerUrl ? new RemoteFacts(run.pacerUrl) : new LocalFacts(),
    targetData,
    claim,
    limitOf: (op) => config.rateLimits[operations.find((o) => o.id === op)!.rateGroup],
    generator: caseGenerators(config),
  };
}
