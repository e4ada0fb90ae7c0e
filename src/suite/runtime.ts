/**
 * Everything a worker needs to run cases, built once per worker process from the environment the
 * global setup prepared (target URL, pacer coordinator, seed).
 */
import { createHash } from 'node:crypto';
import { configFromEnv, loadEnvFile, type SuiteConfig } from '../config/index.js';
import { SadadClient } from '../client/client.js';
import { loadSigner } from '../client/signer.js';
import { ClientCredentialsToken, StaticToken, type TokenSource } from '../client/token.js';
import { registerSecret } from '../client/redact.js';
import { LocalPacer, type Pacer } from '../pacer/pacer.js';
import { RemotePacer } from '../pacer/remote.js';
import { operations, type OperationId } from '../contract/catalogue.js';
import { RequestGenerator } from '../generators/requests.js';
import { loadTargetData, type TargetData } from '../config/target-data.js';

export interface Runtime {
  config: SuiteConfig;
  client: SadadClient;
  pacer: Pacer;
  /** A generator seeded by the run seed and a key (a case id): reproducible whatever the worker. */
  generator(key: string): RequestGenerator;
  /** Calls per window of an operation at the target. */
  limitOf(op: OperationId): number;
  /** SADAD_DATA_FILE, when configured. */
  targetData: TargetData | undefined;
  /** The next unused index of a data-file list for this run (shared by all workers), or null. */
  claim(kind: 'bills' | 'fees'): Promise<number | null>;
}

export function tokenSource(config: SuiteConfig): TokenSource {
  if (config.tokenUrl) return new ClientCredentialsToken({ url: config.tokenUrl, clientId: config.clientId!, clientSecret: config.clientSecret!, timeoutMs: config.requestTimeoutMs });
  return new StaticToken(config.accessToken);
}

export function limitsOf(config: SuiteConfig): Record<OperationId, number> {
  return Object.fromEntries(operations.map((op) => [op.id, config.rateLimits[op.rateGroup]])) as Record<OperationId, number>;
}

let current: Promise<Runtime> | undefined;

export function runtime(env: NodeJS.ProcessEnv = process.env): Promise<Runtime> {
  current ??= build(env);
  return current;
}

async function build(env: NodeJS.ProcessEnv): Promise<Runtime> {
  loadEnvFile(env);
  const config = configFromEnv(env);
  for (const s of [config.accessToken, config.clientSecret, config.signingKeyPassphrase]) registerSecret(s);
  const pacer: Pacer = env.SADAD_PACER_URL ? new RemotePacer(env.SADAD_PACER_URL) : new LocalPacer({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config) });
  const signer = await loadSigner({ signer: config.signer, signingKey: config.signingKey, passphrase: config.signingKeyPassphrase });
  const client = new SadadClient(config, { pacer, tokens: tokenSource(config), signer });
  const targetData = loadTargetData(config.dataFile);
  const localClaims = new Map<string, number>();
  const claim = async (kind: 'bills' | 'fees') => {
    if (pacer instanceof RemotePacer) return pacer.claim(kind);
    const next = localClaims.get(kind) ?? 0;
    if (next >= (targetData?.[kind].length ?? 0)) return null;
    localClaims.set(kind, next + 1);
    return next;
  };
  // bank and company codes, when not configured, are drawn once per run from the seed
  const identity = new RequestGenerator({ seed: config.seed, tagPrefix: config.tagPrefix, bankCode: config.bankCode, companyCode: config.companyCode });
  return {
    config,
    client,
    pacer,
    targetData,
    claim,
    limitOf: (op) => config.rateLimits[operations.find((o) => o.id === op)!.rateGroup],
    generator: (key) => new RequestGenerator({
      seed: createHash('sha256').update(`${config.seed}:${key}`).digest().readUInt32BE(0),
      tagPrefix: config.tagPrefix, bankCode: identity.bankCode, companyCode: identity.companyCode,
    }),
  };
}
