/**
 * The mock's settings and where they come from (design.md §5 for the SADAD_* credentials it
 * accepts, MOCK_* for its own behaviour). Every bad value stops with a ConfigError naming the
 * variable, before anything listens.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { list, oneOf, flag, port, positiveInteger, positiveNumber, text, unset } from '../config/env-values.js';
import { ConfigError, SPEC_PREFIX } from '../contract/prefix.js';
import { prefixOf } from '../config/index.js';
import type { Variables } from '../config/env-values.js';
import { DEFAULT_RATE_WINDOW_SECONDS, operations } from '../contract/catalogue.js';
import { ROOT } from '../paths.js';
import { isTimeZone } from '../contract/formats.js';
import { CLIENT_PROFILES, type ClientProfile } from '../vocabulary/profile.js';
import { checkDefects, parseDefects } from './defects.js';
import { checkFaults, HANG_LIMIT_MS, parseFaults, type FaultSettings } from './faults.js';
import { LIMITER_KINDS, type LimiterKind } from './limiters.js';
import { DEFAULT_LATE_ANSWER_MS } from './magic.js';
import { LOG_LEVELS, type LogLevel } from './logging.js';
import { parseCompanies, readCompaniesFile, type CompanyConfig } from './companies.js';

export type ResponseStyle = 'sample' | 'table';
export type ErrorMode = 'http' | 'in-band';

export interface MockOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** The rate-limit window; decimals allowed (tests use fractions of a second). */
  rateWindowSeconds: number;
  rateLimits: { bill: number; moi: number };
  style: ResponseStyle;
  errors: ErrorMode;
  accessToken: string;
  companyId: string;
  /**
   * Further companies accepted with the same credentials (MOCK_EXTRA_COMPANY_IDS), so that budgets
   * and state kept per company can be seen apart. Optional: an addition to the published options.
   */
  extraCompanyIds?: string[];
  clientId: string;
  clientSecret: string;
  requireClientHeaders: boolean;
  /**
   * SADAD_CLIENT_PROFILE (vocabulary/profile.ts): `document` accepts every header form the API
   * document allows; `strict-deployment` also requires the forms a real deployment enforces.
   * Optional: an addition to the published options (absent is `document`).
   */
  clientProfile?: ClientProfile;
  /**
   * MOCK_TIME_ZONE: the zone the sandbox reads a DateTimeStamp in (the document's carries none), an
   * IANA name; the judge's local zone when absent.
   */
  timeZone?: string;
  tagPrefix: string;
  headerPrefix: string;
  /** PEM of the public key that verifies `X-Signature`; no signature is required when absent. */
  signaturePublicKeyPem?: string;
  tokenLifetimeSeconds: number;
  defects: string[];
  /**
   * How the rate limit counts (limiters.ts): `fixed` windows from the first counted call (the
   * default), clock-aligned `calendar` windows, a `sliding` log or a token `bucket`. Optional, like
   * the faults: additions to the published options.
   */
  limiter?: LimiterKind;
  /** Gateway-like faults (faults.ts), by the part names of MOCK_FAULTS; none when empty. */
  faults?: FaultSettings;
  /** How long the `lateAnswer` scenario (magic.ts) holds a payment's answer, in ms (MOCK_LATE_ANSWER_MS). */
  lateAnswerMs?: number;
  /** HTTPS instead of HTTP (MOCK_TLS_*): a sandbox behind a private CA, or demanding mutual TLS. Optional: an addition. */
  tls?: MockTls;
  /**
   * The shared store (MOCK_REDIS_URL, `redis://host:port[/db]`): all state and rate-limit counters
   * in Redis, so replicas behind a load balancer are one sandbox (store/redis.ts). In memory when absent.
   */
  redisUrl?: string;
  /** Prefix of every key in Redis (MOCK_REDIS_PREFIX): several sandboxes can share one Redis. */
  redisPrefix?: string;
  /**
   * The companies served, each with credentials, limits and a signature key of its own
   * (MOCK_COMPANIES, companies.ts). When given, it replaces companyId, extraCompanyIds and the
   * shared credentials, which take the first company's values.
   */
  companies?: CompanyConfig[];
  /** A file the access log is appended to, one JSON line per call (MOCK_ACCESS_LOG, access-log.ts); none when absent. */
  accessLog?: string;
  /** pino level of the JSON logs on stdout (MOCK_LOG_LEVEL, logging.ts): `silent` by default; `npm run mock` defaults to `info`. */
  logLevel?: LogLevel;
}

/** PEM text. The URL names 127.0.0.1, so the certificate must name that address for a client to accept it. */
export interface MockTls {
  cert: string;
  /** Unencrypted: the mock has no passphrase to ask for. */
  key: string;
  /** When set, a client must show a certificate this CA (bundle) signed, or the handshake fails. */
  clientCa?: string;
}

const defaultLimit = (group: 'bill' | 'moi') => operations.find((o) => o.rateGroup === group)!.defaultRateLimit;

export function defaultMockOptions(): MockOptions {
  return {
    host: '127.0.0.1',
    port: 4010,
    rateWindowSeconds: DEFAULT_RATE_WINDOW_SECONDS,
    rateLimits: { bill: defaultLimit('bill'), moi: defaultLimit('moi') },
    style: 'sample',
    errors: 'http',
    accessToken: 'mock-access-token-0123456789',
    companyId: 'MYCOMPANY',
    clientId: 'mock-client',
    clientSecret: 'mock-client-secret',
    requireClientHeaders: false,
    tagPrefix: SPEC_PREFIX,
    headerPrefix: SPEC_PREFIX,
    tokenLifetimeSeconds: 3600,
    defects: [],
    limiter: 'fixed',
    faults: {},
    lateAnswerMs: DEFAULT_LATE_ANSWER_MS,
    logLevel: 'silent',
  };
}

/** Reads a PEM public key file (relative paths from the project root, where `npm run mock` runs). */
export function readPublicKeyPem(path: string, variable = 'MOCK_SIGNATURE_PUBLIC_KEY'): string {
  const full = isAbsolute(path) ? path : resolve(process.cwd(), path);
  let pem: string;
  try {
    pem = readFileSync(full, 'utf8');
  } catch {
    try {
      pem = readFileSync(resolve(ROOT, path), 'utf8');
    } catch {
      throw new ConfigError(variable, `cannot read the public key file ${JSON.stringify(path)}`);
    }
  }
  try {
    createPublicKey(pem);
  } catch {
    throw new ConfigError(variable, `${JSON.stringify(path)} is not a PEM public key`);
  }
  return pem;
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Checks TLS material before anything listens, naming what to change (`names`: the variables, or the
 * option fields): a failed handshake later would only tell a client something is wrong.
 */
function checkTls(tls: MockTls, names: { cert: string; key: string; clientCa: string }): void {
  const certs = (pem: string, name: string, what: string) => {
    const found = typeof pem === 'string' ? pem.match(PEM_CERT) ?? [] : [];
    if (!found.length) throw new ConfigError(name, `holds no PEM certificate (-----BEGIN CERTIFICATE-----): ${what}`);
    return found.map((c, i) => { try { return new X509Certificate(c); } catch (e) { throw new ConfigError(name, `certificate ${i + 1} cannot be read: ${(e as Error).message}`); } });
  };
  const leaf = certs(tls.cert, names.cert, 'the server certificate')[0]!;
  let key;
  try {
    key = createPrivateKey({ key: tls.key, format: 'pem' });
  } catch (e) {
    const encrypted = /passphrase|bad decrypt|interrupted or cancelled/i.test((e as Error).message) || /ENCRYPTED/.test(String(tls.key));
    throw new ConfigError(names.key, encrypted ? 'is an encrypted key: the mock takes an unencrypted PEM key (openssl pkey -in <file> -out <plain file>)' : `holds no PEM private key: ${(e as Error).message}`);
  }
  if (!leaf.checkPrivateKey(key)) throw new ConfigError(names.key, `does not belong to the certificate ${leaf.subject.replace(/\n/g, ', ')}`);
  if (tls.clientCa !== undefined) certs(tls.clientCa, names.clientCa, 'the CA that signs the client certificates');
}

const TLS_VARIABLES = { cert: 'MOCK_TLS_CERT', key: 'MOCK_TLS_KEY', clientCa: 'MOCK_TLS_CLIENT_CA' } as const;

/** MOCK_TLS_CERT + MOCK_TLS_KEY (PEM files), and MOCK_TLS_CLIENT_CA for mutual TLS; undefined when unset. */
function tlsFromEnv(env: Variables): MockTls | undefined {
  const [cert, key, clientCa] = (['cert', 'key', 'clientCa'] as const).map((k) => (unset(env[TLS_VARIABLES[k]]) ? undefined : env[TLS_VARIABLES[k]]!.trim()));
  if (cert === undefined && key === undefined) {
    if (clientCa !== undefined) throw new ConfigError('MOCK_TLS_CLIENT_CA', 'needs MOCK_TLS_CERT and MOCK_TLS_KEY: a client certificate is asked for only over HTTPS');
    return undefined;
  }
  if (cert === undefined) throw new ConfigError('MOCK_TLS_CERT', 'is required with MOCK_TLS_KEY (the server certificate, PEM)');
  if (key === undefined) throw new ConfigError('MOCK_TLS_KEY', 'is required with MOCK_TLS_CERT (its private key, PEM)');
  const tls: MockTls = { cert: readTextFile(cert, 'MOCK_TLS_CERT'), key: readTextFile(key, 'MOCK_TLS_KEY') };
  if (clientCa !== undefined) tls.clientCa = readTextFile(clientCa, 'MOCK_TLS_CLIENT_CA');
  checkTls(tls, TLS_VARIABLES);
  return tls;
}

/** A file named by a variable (relative paths from the working folder, then the project root). */
function readTextFile(path: string, variable: string): string {
  for (const full of isAbsolute(path) ? [path] : [resolve(process.cwd(), path), resolve(ROOT, path)]) {
    try { return readFileSync(full, 'utf8'); } catch { /* the next place, or the error below */ }
  }
  throw new ConfigError(variable, `cannot read the file ${JSON.stringify(path)}`);
}

/** `redis://[user:password@]host:port[/db]` (or `rediss://`, over TLS); a ConfigError naming `name` otherwise. */
export function redisUrl(raw: string, name: string): string {
  let u: URL;
  try { u = new URL(raw); } catch { throw new ConfigError(name, `must be a URL like redis://127.0.0.1:6379/0, got ${JSON.stringify(raw)}`); }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new ConfigError(name, `must start with redis:// (or rediss:// for TLS), got ${JSON.stringify(u.protocol)}`);
  if (u.hostname === '') throw new ConfigError(name, 'names no host');
  if (!/^\/?(\d{1,2})?$/.test(u.pathname)) throw new ConfigError(name, `the path is the database number (/0 to /15), got ${JSON.stringify(u.pathname)}`);
  return raw;
}

/** The mock's options from these variables (`npm run mock` and the embedded mock give theirs). */
export function mockOptionsFromEnv(env: Variables): MockOptions {
  const d = defaultMockOptions();
  const keyPath = env.MOCK_SIGNATURE_PUBLIC_KEY;
  const options: MockOptions = {
    host: d.host,
    port: port(env, 'MOCK_PORT', d.port),
    rateWindowSeconds: positiveNumber(env, 'MOCK_RATE_WINDOW_SECONDS', d.rateWindowSeconds),
    rateLimits: {
      bill: positiveInteger(env, 'MOCK_RATE_LIMIT_BILL', d.rateLimits.bill),
      moi: positiveInteger(env, 'MOCK_RATE_LIMIT_MOI', d.rateLimits.moi),
    },
    style: oneOf(env, 'MOCK_STYLE', ['sample', 'table'] as const, d.style),
    errors: oneOf(env, 'MOCK_ERRORS', ['http', 'in-band'] as const, d.errors),
    accessToken: text(env, 'SADAD_ACCESS_TOKEN', d.accessToken),
    companyId: text(env, 'SADAD_COMPANY_ID', d.companyId),
    extraCompanyIds: list(env, 'MOCK_EXTRA_COMPANY_IDS'),
    clientId: text(env, 'SADAD_CLIENT_ID', d.clientId),
    clientSecret: text(env, 'SADAD_CLIENT_SECRET', d.clientSecret),
    requireClientHeaders: flag(env, 'MOCK_REQUIRE_CLIENT_HEADERS'),
    tagPrefix: prefixOf(env, 'SADAD_TAG_PREFIX'),
    headerPrefix: prefixOf(env, 'SADAD_HEADER_PREFIX'),
    tokenLifetimeSeconds: positiveNumber(env, 'MOCK_TOKEN_LIFETIME_SECONDS', d.tokenLifetimeSeconds),
    defects: parseDefects(env.MOCK_DEFECTS),
    limiter: oneOf(env, 'MOCK_LIMITER', LIMITER_KINDS, d.limiter ?? 'fixed'),
    faults: parseFaults(env.MOCK_FAULTS),
    lateAnswerMs: positiveInteger(env, 'MOCK_LATE_ANSWER_MS', d.lateAnswerMs ?? DEFAULT_LATE_ANSWER_MS),
    logLevel: oneOf(env, 'MOCK_LOG_LEVEL', LOG_LEVELS, d.logLevel ?? 'silent'),
  };
  if (!unset(env.SADAD_CLIENT_PROFILE)) options.clientProfile = oneOf(env, 'SADAD_CLIENT_PROFILE', CLIENT_PROFILES, 'document');
  if (!unset(env.MOCK_TIME_ZONE)) {
    const zone = env.MOCK_TIME_ZONE.trim();
    if (!isTimeZone(zone)) throw new ConfigError('MOCK_TIME_ZONE', `must be a time zone name such as Asia/Riyadh or UTC, got ${JSON.stringify(zone)}`);
    options.timeZone = zone;
  }
  if (!unset(env.MOCK_ACCESS_LOG)) options.accessLog = env.MOCK_ACCESS_LOG.trim();
  if (!unset(keyPath)) options.signaturePublicKeyPem = readPublicKeyPem(keyPath.trim());
  const tls = tlsFromEnv(env);
  if (tls) options.tls = tls;
  if (!unset(env.MOCK_HOST)) options.host = text(env, 'MOCK_HOST', d.host);
  if (!unset(env.MOCK_REDIS_URL)) options.redisUrl = redisUrl(env.MOCK_REDIS_URL.trim(), 'MOCK_REDIS_URL');
  if (!unset(env.MOCK_REDIS_PREFIX)) options.redisPrefix = text(env, 'MOCK_REDIS_PREFIX', '');
  if (!unset(env.MOCK_COMPANIES)) {
    if (options.extraCompanyIds?.length) throw new ConfigError('MOCK_EXTRA_COMPANY_IDS', 'cannot be used with MOCK_COMPANIES: list every company in that file');
    options.companies = readCompaniesFile(env.MOCK_COMPANIES.trim());
    delete options.extraCompanyIds;
  }
  return options;
}

/** Completes programmatic options with the defaults and rejects values the server cannot run with. */
export function resolveMockOptions(partial: Partial<MockOptions> = {}): MockOptions {
  const d = defaultMockOptions();
  const o: MockOptions = { ...d, ...partial, rateLimits: { ...d.rateLimits, ...partial.rateLimits } };
  const bad = (field: string, why: string): never => { throw new ConfigError(field, why); };
  if (o.redisUrl !== undefined) redisUrl(o.redisUrl, 'redisUrl');
  if (o.companies !== undefined) {
    if (o.extraCompanyIds?.length) bad('extraCompanyIds', 'cannot be used with companies: list every company there');
    // checked like the file, so that a test's companies meet the same rules
    o.companies = parseCompanies(o.companies.map(({ signaturePublicKeyPem, ...c }) => ({ ...c, ...(signaturePublicKeyPem !== undefined ? { signaturePublicKey: signaturePublicKeyPem } : {}) })), process.cwd(), 'companies');
    // the single-company fields name the first company, for code that reads them (the judge, the suite's setup)
    const first = o.companies[0]!;
    o.companyId = first.companyId;
    if (first.accessToken !== undefined) o.accessToken = first.accessToken;
    if (first.clientId !== undefined) { o.clientId = first.clientId; o.clientSecret = first.clientSecret!; }
  }
  if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) bad('port', `must be a port number 0-65535, got ${o.port}`);
  if (!(o.rateWindowSeconds > 0) || !Number.isFinite(o.rateWindowSeconds)) bad('rateWindowSeconds', `must be a positive number, got ${o.rateWindowSeconds}`);
  if (Math.round(o.rateWindowSeconds * 1000) < 1) bad('rateWindowSeconds', 'must be at least 0.001');
  for (const g of ['bill', 'moi'] as const) {
    if (!Number.isInteger(o.rateLimits[g]) || o.rateLimits[g] < 1) bad(`rateLimits.${g}`, `must be a positive integer, got ${o.rateLimits[g]}`);
  }
  if (!(o.tokenLifetimeSeconds > 0)) bad('tokenLifetimeSeconds', `must be a positive number, got ${o.tokenLifetimeSeconds}`);
  if (o.style !== 'sample' && o.style !== 'table') bad('style', `must be sample or table, got ${JSON.stringify(o.style)}`);
  if (o.errors !== 'http' && o.errors !== 'in-band') bad('errors', `must be http or in-band, got ${JSON.stringify(o.errors)}`);
  if (o.signaturePublicKeyPem !== undefined) {
    try { createPublicKey(o.signaturePublicKeyPem); } catch { bad('signaturePublicKeyPem', 'is not a PEM public key'); }
  }
  checkDefects(o.defects, 'defects');
  if (o.limiter !== undefined && !LIMITER_KINDS.includes(o.limiter)) bad('limiter', `must be one of ${LIMITER_KINDS.join(', ')}, got ${JSON.stringify(o.limiter)}`);
  if (o.faults !== undefined && (o.faults === null || typeof o.faults !== 'object' || Array.isArray(o.faults))) bad('faults', 'must be an object of MOCK_FAULTS parts, e.g. { 503: 0.02, latency: 120 }');
  checkFaults(o.faults ?? {}, 'faults');
  if (o.tls !== undefined) {
    if (o.tls === null || typeof o.tls !== 'object') bad('tls', 'must be { cert, key, clientCa? } (PEM text)');
    checkTls(o.tls, { cert: 'tls.cert', key: 'tls.key', clientCa: 'tls.clientCa' });
  }
  if (o.accessLog !== undefined && (typeof o.accessLog !== 'string' || o.accessLog.trim() === '')) bad('accessLog', 'must be the path of a file');
  if (o.logLevel !== undefined && !LOG_LEVELS.includes(o.logLevel)) bad('logLevel', `must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(o.logLevel)}`);
  if (o.lateAnswerMs !== undefined && !(Number.isInteger(o.lateAnswerMs) && o.lateAnswerMs >= 0 && o.lateAnswerMs <= HANG_LIMIT_MS)) bad('lateAnswerMs', `must be whole milliseconds 0-${HANG_LIMIT_MS}, got ${o.lateAnswerMs}`);
  return o;
}
