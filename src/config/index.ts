/**
 * The configuration contract (design.md §5), read from the environment and validated before the
 * first call: a missing or malformed variable throws a ConfigError naming it.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, SPEC_PREFIX } from '../contract/prefix.js';
import { DEFAULT_RATE_WINDOW_SECONDS, operations, type RateGroup } from '../contract/catalogue.js';
import { randomInt } from 'node:crypto';
import { nonNegativeInteger, oneOf, positiveInteger, positiveNumber, type Variables } from './env-values.js';
import { networkFromEnv, type NetworkConfig } from '../net/index.js';
import { KeyError, readPrivateKey } from '../attest/keys.js';
import type { KeyObject } from 'node:crypto';

export { ConfigError } from '../contract/prefix.js';
export { loadEnvFile } from './env-file.js';
export type { Variables } from './env-values.js';

/** Credentials the embedded mock accepts unless told otherwise; also shipped in .env.example. */
export const MOCK_DEFAULTS = { accessToken: 'mock-access-token-0123456789', companyId: 'MYCOMPANY', clientId: 'mock-client', clientSecret: 'mock-client-secret' } as const;
/**
 * Window of the embedded mock when the user sets none. The rules need the real limits (the document's) in
 * some window, not a 60 s one; a short window makes a full run take seconds. Chosen by measurement
 * (`npm run bench:pacing -- --window ... --load 0,2`): see docs/running.md, "The embedded mock's window".
 */
export const EMBEDDED_MOCK_WINDOW_SECONDS = 0.05;

export interface SuiteConfig {
  /** Target base URL without trailing slash; undefined means: start the embedded mock. */
  baseUrl: string | undefined;
  accessToken: string;
  companyId: string;
  device: string;
  clientId: string | undefined;
  clientSecret: string | undefined;
  bankCode: string | undefined;
  companyCode: string | undefined;
  rateWindowSeconds: number;
  rateLimits: { bill: number; moi: number };
  /**
   * SADAD_RATE_SHAPE: how the target's limit is documented. `burst` (default): `limit` calls per
   * window, which calls sent together may use at once ("10 calls per minute"); `spaced`: one call per
   * window / limit (a smoothing limiter), which the rate-limit cases then check instead.
   */
  rateShape: 'burst' | 'spaced';
  seed: number;
  seedFromEnv: boolean;
  dataFile: string | undefined;
  tagPrefix: string;
  headerPrefix: string;
  tokenUrl: string | undefined;
  signer: string | undefined;
  signingKey: string | undefined;
  signingKeyPassphrase: string | undefined;
  requestTimeoutMs: number;
  /** SADAD_RETRIES: how often a call met by a transient fault is sent again where that is safe. */
  retries: number;
  /** `off` when the target profile has payments disabled: payment cases become NOT_APPLICABLE. */
  payments: boolean;
  /** SADAD_TLS_PASSPHRASE: opens the client certificate's key (a secret). */
  tlsPassphrase: string | undefined;
  /** Proxy, trusted roots and client certificate: what every outbound call goes through (src/net). */
  network: NetworkConfig;
  /** SADAD_PREFLIGHT: `on` checks the path to the target before the first case (the default against a configured target). */
  preflight: boolean;
  /** SADAD_MAX_OUTAGE_SECONDS: how long the run waits for a target that went down before it stops (resumable). */
  maxOutageSeconds: number;
  /** SADAD_PACKAGE_KEY: the Ed25519 private key (PEM file) that signs the certification package; not the request signer's SADAD_SIGNING_KEY. */
  packageKey?: string | undefined;
  /** SADAD_PACKAGE_VALID_DAYS: how long a signed package is valid after its run (the predicate's `validUntil`). */
  packageValidDays?: number;
}

type Env = Variables;
/** The sandbox limit the API document states for the group (the catalogue's, from data/spec.json): the default when no variable sets one. */
const documentedLimit = (group: RateGroup) => operations.find((o) => o.rateGroup === group)!.defaultRateLimit;
const str = (env: Env, name: string) => { const v = env[name]; return v === undefined || v.trim() === '' ? undefined : v.trim(); };

function url(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try { parsed = new URL(raw); } catch { throw new ConfigError(name, `must be an absolute http(s) URL, got ${JSON.stringify(raw)}`); }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(name, `must use http or https, got ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new ConfigError(name, 'must not carry credentials in the URL; use the token and client variables');
  return raw.replace(/\/+$/, '');
}

function existingFile(env: Env, name: string): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  const file = resolve(raw);
  if (!existsSync(file)) throw new ConfigError(name, `file ${JSON.stringify(raw)} does not exist`);
  return file;
}

function headerValue(env: Env, name: string, fallback: string | undefined): string | undefined {
  const v = str(env, name) ?? fallback;
  // a header value cannot carry control characters; catching it here beats a TypeError mid-run
  if (v !== undefined && /[\r\n\0]/.test(v)) throw new ConfigError(name, 'must not contain line breaks or NUL');
  return v;
}

/** The suite's configuration these variables make (settings.ts reads them once: `readSettings`). */
export function configFromVariables(env: Env): SuiteConfig {
  const baseUrl = url(env, 'SADAD_BASE_URL');
  const embedded = baseUrl === undefined;
  const tokenUrl = url(env, 'SADAD_TOKEN_URL');
  const clientId = headerValue(env, 'SADAD_CLIENT_ID', undefined);
  const clientSecret = headerValue(env, 'SADAD_CLIENT_SECRET', undefined);
  const accessToken = headerValue(env, 'SADAD_ACCESS_TOKEN', embedded || tokenUrl ? MOCK_DEFAULTS.accessToken : undefined);
  if (!accessToken && !tokenUrl) throw new ConfigError('SADAD_ACCESS_TOKEN', 'is required when SADAD_BASE_URL is set (or set SADAD_TOKEN_URL with SADAD_CLIENT_ID and SADAD_CLIENT_SECRET)');
  if (tokenUrl && (!clientId || !clientSecret)) throw new ConfigError(clientId ? 'SADAD_CLIENT_SECRET' : 'SADAD_CLIENT_ID', 'is required with SADAD_TOKEN_URL');
  const companyId = headerValue(env, 'SADAD_COMPANY_ID', embedded ? MOCK_DEFAULTS.companyId : undefined);
  if (!companyId) throw new ConfigError('SADAD_COMPANY_ID', 'is required when SADAD_BASE_URL is set');
  const payments = oneOf(env, 'SADAD_PAYMENTS', ['on', 'off'] as const, 'on');
  const { seed, fromEnv } = seedOf(env);
  return {
    baseUrl,
    accessToken: accessToken ?? '',
    companyId,
    device: headerValue(env, 'SADAD_DEVICE', 'Web')!,
    clientId: clientId ?? (embedded ? MOCK_DEFAULTS.clientId : undefined),
    clientSecret: clientSecret ?? (embedded ? MOCK_DEFAULTS.clientSecret : undefined),
    bankCode: str(env, 'SADAD_BANK_CODE'),
    companyCode: str(env, 'SADAD_COMPANY_CODE'),
    rateWindowSeconds: positiveNumber(env, 'SADAD_RATE_WINDOW_SECONDS', embedded ? EMBEDDED_MOCK_WINDOW_SECONDS : DEFAULT_RATE_WINDOW_SECONDS),
    rateLimits: { bill: positiveInteger(env, 'SADAD_RATE_LIMIT_BILL', documentedLimit('bill')), moi: positiveInteger(env, 'SADAD_RATE_LIMIT_MOI', documentedLimit('moi')) },
    rateShape: oneOf(env, 'SADAD_RATE_SHAPE', ['burst', 'spaced'] as const, 'burst'),
    seed,
    seedFromEnv: fromEnv,
    dataFile: existingFile(env, 'SADAD_DATA_FILE'),
    tagPrefix: prefixOf(env, 'SADAD_TAG_PREFIX'),
    headerPrefix: prefixOf(env, 'SADAD_HEADER_PREFIX'),
    tokenUrl,
    signer: existingFile(env, 'SADAD_SIGNER'),
    signingKey: existingFile(env, 'SADAD_SIGNING_KEY'),
    signingKeyPassphrase: str(env, 'SADAD_SIGNING_KEY_PASSPHRASE'),
    requestTimeoutMs: positiveInteger(env, 'SADAD_REQUEST_TIMEOUT_MS', 15_000),
    retries: nonNegativeInteger(env, 'SADAD_RETRIES', 3),
    payments: payments === 'on',
    tlsPassphrase: str(env, 'SADAD_TLS_PASSPHRASE'),
    network: cachedNetwork(env),
    preflight: oneOf(env, 'SADAD_PREFLIGHT', ['on', 'off'] as const, embedded ? 'off' : 'on') === 'on',
    maxOutageSeconds: positiveNumber(env, 'SADAD_MAX_OUTAGE_SECONDS', 1800),
    packageKey: packageKeyOf(env)?.file,
    packageValidDays: packageValidDaysOf(env),
  };
}

/** Days a signed package is valid after its run, unless SADAD_PACKAGE_VALID_DAYS says otherwise. */
export const DEFAULT_PACKAGE_VALID_DAYS = 90;

export function packageValidDaysOf(env: Env): number {
  return positiveInteger(env, 'SADAD_PACKAGE_VALID_DAYS', DEFAULT_PACKAGE_VALID_DAYS);
}

/**
 * SADAD_PACKAGE_KEY: the path of the Ed25519 private key (PEM) that signs the certification
 * package (reports/certification.intoto.json), read and checked; null when unset. A file that
 * cannot be read, is encrypted or holds another kind of key is a ConfigError naming the variable.
 */
export function packageKeyOf(env: Env): { file: string; key: KeyObject } | null {
  const raw = str(env, 'SADAD_PACKAGE_KEY');
  if (raw === undefined) return null;
  const file = resolve(raw);
  try {
    return { file, key: readPrivateKey(file) };
  } catch (e) {
    if (!(e instanceof KeyError)) throw e;
    throw new ConfigError('SADAD_PACKAGE_KEY', `${e.message} (SADAD_PACKAGE_KEY is the path of the Ed25519 private key, PEM, that signs the certification package, made by \`npm run keygen\`; it is not SADAD_SIGNING_KEY, the key that signs requests)`);
  }
}

const NETWORK_VARIABLES = ['SADAD_CA_FILE', 'SADAD_TLS_CERT', 'SADAD_TLS_KEY', 'SADAD_TLS_PFX', 'SADAD_TLS_PASSPHRASE',
  'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'NODE_EXTRA_CA_CERTS'] as const;
const networks = new Map<string, NetworkConfig>();

/**
 * The network part, read once per process for the same settings: a PKCS#12 file costs a key
 * derivation to open, and the configuration is read by the plan, the setup and every worker. One
 * object per settings also means one dispatcher, so connections are kept alive across cases.
 */
function cachedNetwork(env: Env): NetworkConfig {
  const key = JSON.stringify(NETWORK_VARIABLES.map((n) => env[n] ?? null));
  let net = networks.get(key);
  if (!net) networks.set(key, (net = networkFromEnv(env)));
  return net;
}

/** SADAD_SEED as an integer, or a fresh random one (the caller prints it so a run can be replayed). */
export function seedOf(env: Env): { seed: number; fromEnv: boolean } {
  const raw = env.SADAD_SEED;
  if (raw === undefined || raw === '') return { seed: randomInt(1, 2 ** 31 - 1), fromEnv: false };
  if (!/^\d{1,15}$/.test(raw)) throw new ConfigError('SADAD_SEED', `must be a non-negative integer, got ${JSON.stringify(raw)}`);
  return { seed: Number(raw), fromEnv: true };
}

const PREFIX_SHAPE = /^[A-Za-z][A-Za-z0-9]{0,15}$/;

/** SADAD_TAG_PREFIX, SADAD_HEADER_PREFIX: the deployment's prefixes (design.md §5), the spec's `Svc` unless set. */
export function prefixOf(env: Env, variable: 'SADAD_TAG_PREFIX' | 'SADAD_HEADER_PREFIX'): string {
  const value = env[variable];
  if (value === undefined || value === '') return SPEC_PREFIX;
  if (!PREFIX_SHAPE.test(value)) throw new ConfigError(variable, `must be 1-16 letters or digits starting with a letter, got ${JSON.stringify(value)}`);
  return value;
}

/** Every configured secret value, for masking and for the leak scans. */
export function secretValues(config: SuiteConfig): string[] {
  return [config.accessToken, config.clientSecret, config.signingKeyPassphrase, config.tlsPassphrase, ...config.network.secrets].filter((v): v is string => !!v && v.length >= 4);
}
