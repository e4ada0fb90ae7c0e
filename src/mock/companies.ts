/**
 * The companies one mock serves (design.md §12): a hosted sandbox serves many partners, each with
 * its own credentials, budgets and state. Either the single configured company (SADAD_COMPANY_ID,
 * plus MOCK_EXTRA_COMPANY_IDS sharing its credentials), or MOCK_COMPANIES: a JSON file listing each
 * company with credentials of its own, so that one partner's token can neither read nor pay
 * another's bills nor spend another's rate limit.
 */
import { createHash, createPublicKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError } from '../contract/prefix.js';
import { ROOT } from '../paths.js';

/** One company of MOCK_COMPANIES, as the mock uses it (the public key read into PEM text). */
export interface CompanyConfig {
  companyId: string;
  /** A static bearer token of this company's alone. */
  accessToken?: string;
  /** Client credentials for the token endpoint (and the bill operations' client headers). */
  clientId?: string;
  clientSecret?: string;
  /** PEM public key that verifies this company's `X-Signature`; else MOCK_SIGNATURE_PUBLIC_KEY's, if any. */
  signaturePublicKeyPem?: string;
  /** Calls per window for each operation of the group; else MOCK_RATE_LIMIT_BILL / _MOI. */
  limits?: { bill?: number; moi?: number };
}

const FIELDS = ['companyId', 'accessToken', 'clientId', 'clientSecret', 'signaturePublicKey', 'limits'] as const;
const NO_SPACE = /^\S+$/;

export function sameSecret(a: string, b: string | Buffer): boolean {
  const x = Buffer.from(a);
  const y = typeof b === 'string' ? Buffer.from(b) : b;
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A PEM public key given inline, or the path of one (relative to the companies file, then the working folder, then the project). */
function publicKeyOf(value: string, base: string, fail: (why: string) => never): string {
  let pem = value;
  if (!value.trimStart().startsWith('-----BEGIN')) {
    const places = isAbsolute(value) ? [value] : [resolve(base, value), resolve(process.cwd(), value), resolve(ROOT, value)];
    const found = places.map((p) => { try { return readFileSync(p, 'utf8'); } catch { return undefined; } }).find((t) => t !== undefined);
    if (found === undefined) fail(`signaturePublicKey: cannot read the file ${JSON.stringify(value)}`);
    pem = found!;
  }
  try {
    createPublicKey(pem);
  } catch {
    fail('signaturePublicKey: not a PEM public key (inline, or the path of a .pem file)');
  }
  return pem;
}

/**
 * Checks a parsed MOCK_COMPANIES document; every problem names the entry. `base` is the folder
 * relative key paths are read from; `variable` names the source in errors.
 */
export function parseCompanies(doc: unknown, base: string, variable = 'MOCK_COMPANIES'): CompanyConfig[] {
  if (!Array.isArray(doc) || doc.length === 0) throw new ConfigError(variable, 'must be a JSON array of at least one company: [{ "companyId": "...", "accessToken": "..." }, ...]');
  const out: CompanyConfig[] = [];
  const seen = { companyId: new Map<string, number>(), accessToken: new Map<string, number>(), clientId: new Map<string, number>() };
  doc.forEach((entry: unknown, i) => {
    const label = () => `entry ${i + 1}${entry !== null && typeof entry === 'object' && typeof (entry as { companyId?: unknown }).companyId === 'string' ? ` (${JSON.stringify((entry as { companyId: string }).companyId)})` : ''}`;
    const fail = (why: string): never => { throw new ConfigError(variable, `${label()}: ${why}`); };
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) fail('must be an object');
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => !(FIELDS as readonly string[]).includes(k));
    if (unknown.length) fail(`unknown field ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${FIELDS.join(', ')})`);
    const str = (k: 'companyId' | 'accessToken' | 'clientId' | 'clientSecret'): string | undefined => {
      const v = e[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || !NO_SPACE.test(v)) fail(`${k} must be a non-empty string without white space`);
      return v as string;
    };
    const c: CompanyConfig = { companyId: str('companyId') ?? fail('companyId is required') };
    const accessToken = str('accessToken');
    const clientId = str('clientId');
    const clientSecret = str('clientSecret');
    if ((clientId === undefined) !== (clientSecret === undefined)) fail('clientId and clientSecret go together');
    if (accessToken === undefined && clientId === undefined) fail('needs an accessToken, or clientId and clientSecret (for the token endpoint), or both');
    if (accessToken !== undefined) c.accessToken = accessToken;
    if (clientId !== undefined) { c.clientId = clientId; c.clientSecret = clientSecret!; }
    for (const k of ['companyId', 'accessToken', 'clientId'] as const) {
      const v = c[k];
      if (v === undefined) continue;
      const other = seen[k].get(v);
      // a token or a client id shared by two companies could not say which one a call is for
      if (other !== undefined) fail(`${k} is the same as entry ${other}'s: each company needs its own`);
      seen[k].set(v, i + 1);
    }
    if (e.signaturePublicKey !== undefined) {
      if (typeof e.signaturePublicKey !== 'string' || e.signaturePublicKey.trim() === '') fail('signaturePublicKey must be a PEM public key or the path of one');
      c.signaturePublicKeyPem = publicKeyOf(e.signaturePublicKey as string, base, fail);
    }
    if (e.limits !== undefined) {
      const l = e.limits as Record<string, unknown>;
      if (l === null || typeof l !== 'object' || Array.isArray(l)) fail('limits must be an object { "bill": <n>, "moi": <n> }');
      const extra = Object.keys(l).filter((k) => k !== 'bill' && k !== 'moi');
      if (extra.length) fail(`limits: unknown field ${extra.map((k) => JSON.stringify(k)).join(', ')} (known: bill, moi)`);
      c.limits = {};
      for (const g of ['bill', 'moi'] as const) {
        if (l[g] === undefined) continue;
        if (!Number.isSafeInteger(l[g]) || (l[g] as number) < 1) fail(`limits.${g} must be a positive whole number of calls per window, got ${JSON.stringify(l[g])}`);
        c.limits[g] = l[g] as number;
      }
    }
    out.push(c);
  });
  return out;
}

/** Reads and checks the MOCK_COMPANIES file. */
export function readCompaniesFile(path: string, variable = 'MOCK_COMPANIES'): CompanyConfig[] {
  const places = isAbsolute(path) ? [path] : [resolve(process.cwd(), path), resolve(ROOT, path)];
  for (const full of places) {
    let text: string;
    try { text = readFileSync(full, 'utf8'); } catch { continue; }
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new ConfigError(variable, `${JSON.stringify(path)} is not valid JSON: ${(e as Error).message}`);
    }
    return parseCompanies(doc, dirname(full), variable);
  }
  throw new ConfigError(variable, `cannot read the file ${JSON.stringify(path)}`);
}

const digest = (s: string) => createHash('sha256').update(s).digest('base64');

/**
 * What the registry reads of the mock's options (options.ts's MockOptions has them all): declared
 * here so that the registry does not import the module that parses the options, which imports it.
 */
export interface CompanyOptions {
  signaturePublicKeyPem?: string;
  companies?: CompanyConfig[];
  companyId: string;
  extraCompanyIds?: string[];
  accessToken: string;
  clientId: string;
  clientSecret: string;
  rateLimits: { bill: number; moi: number };
}

/**
 * Who a credential belongs to. Built once per mock from its options: with `companies`, each
 * company alone; without, the configured company and MOCK_EXTRA_COMPANY_IDS sharing one set of
 * credentials (the mock's behaviour before MOCK_COMPANIES, unchanged).
 */
export class CompanyRegistry {
  readonly ids: readonly string[];
  /** The company a call is attributed to when none it may name is given (the `company-id-unchecked` defect). */
  readonly first: string;
  /** Legacy mode's static token, compared directly: the embedded mock's hot path takes no hash. */
  private readonly sharedToken?: Buffer;
  private readonly byToken = new Map<string, readonly string[]>();
  private readonly byClient = new Map<string, { secret: Buffer; companies: readonly string[] }>();
  private readonly configs = new Map<string, CompanyConfig>();
  private readonly keys = new Map<string, KeyObject | undefined>();
  private readonly defaultKey?: KeyObject;

  constructor(private readonly options: CompanyOptions) {
    if (options.signaturePublicKeyPem !== undefined) this.defaultKey = createPublicKey(options.signaturePublicKeyPem);
    const companies = options.companies;
    if (companies && companies.length > 0) {
      this.ids = companies.map((c) => c.companyId);
      for (const c of companies) {
        this.configs.set(c.companyId, c);
        if (c.accessToken !== undefined) this.byToken.set(digest(c.accessToken), [c.companyId]);
        if (c.clientId !== undefined) this.byClient.set(c.clientId, { secret: Buffer.from(c.clientSecret ?? ''), companies: [c.companyId] });
        this.keys.set(c.companyId, c.signaturePublicKeyPem !== undefined ? createPublicKey(c.signaturePublicKeyPem) : this.defaultKey);
      }
    } else {
      this.ids = [...new Set([options.companyId, ...(options.extraCompanyIds ?? [])])];
      this.sharedToken = Buffer.from(options.accessToken);
      this.byClient.set(options.clientId, { secret: Buffer.from(options.clientSecret), companies: this.ids });
      for (const id of this.ids) this.keys.set(id, this.defaultKey);
    }
    this.first = this.ids[0]!;
  }

  /** Whether companies have credentials of their own (MOCK_COMPANIES). */
  get separate(): boolean {
    return this.configs.size > 0;
  }

  /** The companies a static access token serves; undefined for a token that is none of them. */
  companiesOfToken(token: string): readonly string[] | undefined {
    if (this.sharedToken !== undefined) return sameSecret(token, this.sharedToken) ? this.ids : undefined;
    return this.byToken.get(digest(token));
  }

  /** The companies client credentials serve (the owner of a token they obtained). */
  companiesOfClient(clientId: string): readonly string[] {
    return this.byClient.get(clientId)?.companies ?? [];
  }

  /** Whether `secret` is the secret of client `id` (compared in constant time). */
  clientMatches(id: string, secret: string): boolean {
    const c = this.byClient.get(id);
    return c !== undefined && sameSecret(secret, c.secret);
  }

  /** The client credentials the `clientid`/`clientsecret` headers of a company's calls must carry, if any. */
  clientOf(company: string): { id: string; secret: string } | undefined {
    if (!this.separate) return { id: this.options.clientId, secret: this.options.clientSecret };
    const c = this.configs.get(company);
    return c?.clientId !== undefined ? { id: c.clientId, secret: c.clientSecret ?? '' } : undefined;
  }

  /** Calls per window for each operation of `group`, for this company. */
  limit(company: string, group: 'bill' | 'moi'): number {
    return this.configs.get(company)?.limits?.[group] ?? this.options.rateLimits[group];
  }

  /** The key that verifies this company's signatures; undefined: none required. */
  signatureKey(company: string): KeyObject | undefined {
    return this.keys.has(company) ? this.keys.get(company) : this.defaultKey;
  }

  config(company: string): CompanyConfig | undefined {
    return this.configs.get(company);
  }
}
