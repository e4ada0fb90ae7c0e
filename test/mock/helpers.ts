/** A small client of the mock for its own tests: the spec's headers, JSON in and out. */
import { operation, tagsOf, type OperationId } from '../../src/contract/catalogue.js';
import { referenceIdHeader, specTimestamp } from '../../src/contract/headers.js';
import type { Fields } from '../../src/contract/message.js';
import { shortUniqueId } from '../../src/base/unique.js';
import { RequestGenerator, type BillSubject, type BuildOptions, type MoiSubject } from '../../src/generators/requests.js';
import { startMock, TOKEN_PATH, type MockOptions, type RunningMock } from '../../src/mock/index.js';
import { uniquePrefix } from '../../src/mock/store/redis.js';
import { startRedis, type RunningRedis } from '../support/redis.js';

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** Options for tests that are not about rate limits: budgets no test reaches. */
export const UNLIMITED: Partial<MockOptions> = { rateLimits: { bill: 100_000, moi: 100_000 } };

/** The stores the mock keeps state in; tests of state, duplicates and budgets run against each. */
export const STORES = ['memory', 'redis'] as const;
export type StoreKind = (typeof STORES)[number];

let workerRedis: Promise<RunningRedis> | undefined;
/** One redis-server per test worker, started on first use, ended with the worker. */
export const sharedRedis = () => (workerRedis ??= startRedis());

/** Options that put a mock on `store`: for Redis, the worker's server and a key prefix of this mock's own. */
export async function storeOptions(store: StoreKind = 'memory'): Promise<Partial<MockOptions>> {
  return store === 'redis' ? { redisUrl: (await sharedRedis()).url, redisPrefix: uniquePrefix() } : {};
}

export async function withMock<T>(options: Partial<MockOptions> & { store?: StoreKind }, use: (c: MockClient) => Promise<T>): Promise<T> {
  const { store, ...rest } = options;
  const mock = await startMock({ port: 0, ...rest, ...(await storeOptions(store)) });
  try {
    return await use(new MockClient(mock));
  } finally {
    await mock.close();
  }
}

export class MockClient {
  readonly gen: RequestGenerator;

  constructor(readonly mock: RunningMock, seed = 11) {
    this.gen = new RequestGenerator({ seed, tagPrefix: mock.options.tagPrefix });
  }

  get options(): MockOptions {
    return this.mock.options;
  }

  headers(opId: OperationId): Record<string, string> {
    const o = this.mock.options;
    void opId;
    return {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${o.accessToken}`,
      CompanyId: o.companyId,
      [referenceIdHeader(o.headerPrefix)]: shortUniqueId(16),
      DateTimeStamp: specTimestamp(),
      Device: 'Web',
    };
  }

  /**
   * POSTs a body to the operation; `headers` entries set to undefined are left out. Rejects when no
   * answer arrives (a dropped connection, or `signal` aborting: a client that gives up).
   */
  async post(opId: OperationId, body: unknown, opts: { headers?: Record<string, string | undefined>; raw?: string | Buffer; method?: string; path?: string; signal?: AbortSignal } = {}): Promise<Answer> {
    const merged: Record<string, string | undefined> = { ...this.headers(opId), ...opts.headers };
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(merged)) if (v !== undefined) headers[k] = v;
    const res = await fetch(`${this.mock.url}${opts.path ?? operation(opId).path}`, {
      method: opts.method ?? 'POST',
      headers,
      // bytes, not a string: fetch would add a text/plain Content-Type to a string body
      body: opts.method === 'GET' || opts.method === 'HEAD' ? undefined : Buffer.from(opts.raw ?? JSON.stringify(body)),
      signal: opts.signal,
    });
    const text = await res.text();
    let json: unknown = text;
    try { json = text === '' ? undefined : JSON.parse(text); } catch { /* keep the text */ }
    return { status: res.status, headers: res.headers, body: json };
  }

  build(opId: OperationId, options: BuildOptions = {}) {
    return this.gen.build(opId, options);
  }

  /** The response's items (list tag under the root). */
  items(opId: OperationId, answer: Answer): Fields[] {
    const { responseRoot, listTag } = tagsOf(operation(opId), this.mock.options.tagPrefix);
    return answer.body?.[responseRoot]?.[listTag] ?? [];
  }

  entries(opId: OperationId, answer: Answer): Fields[] {
    return (this.items(opId, answer)[0]?.TransactionData as Fields[] | undefined) ?? [];
  }

  async enquireBill(subject: Pick<BillSubject, 'BillerId' | 'AccountNumber'> & Partial<BillSubject>): Promise<Fields> {
    const a = await this.post('bill-enquiry', this.build('bill-enquiry', { entry: { BillerId: subject.BillerId, AccountNumber: subject.AccountNumber } }));
    if (a.status !== 200) throw new Error(`bill enquiry: HTTP ${a.status} ${JSON.stringify(a.body)}`);
    return this.entries('bill-enquiry', a)[0]!;
  }

  /** A bill payment body for a subject; Amount and PayExactDue as given. */
  billPayment(subject: { BillerId: string; AccountNumber: string }, amount: number, exact: boolean, entry: Fields = {}) {
    return this.build('bill-payment', { entry: { BillerId: subject.BillerId, BillAccountID: subject.AccountNumber, Amount: amount, PayExactDue: exact, ...entry } });
  }

  async enquireFee(subject: Pick<MoiSubject, 'BillerID' | 'ID' | 'RequestType'>): Promise<Answer> {
    return this.post('moi-enquiry', this.build('moi-enquiry', { entry: { BillerID: subject.BillerID, ID: subject.ID, POINum: subject.ID, RequestType: subject.RequestType } }));
  }

  /** An MOI payment body repeating what an enquiry entry gave. */
  feePayment(subject: Pick<MoiSubject, 'BillerID' | 'ID' | 'RequestType'>, enquiryEntry: Fields, entry: Fields = {}) {
    return this.build('moi-payment', {
      entry: {
        BillerID: subject.BillerID, ID: subject.ID, NationalID: subject.ID, RequestType: subject.RequestType,
        FeeReferenceId: String(enquiryEntry.FeeReferenceId), GroupPayId: String(enquiryEntry.GroupPayId),
        SADADReferenceId: String(enquiryEntry.SadadReferenceId), DueAmount: Number(enquiryEntry.DueAmount), ...entry,
      },
    });
  }
}

/** A token from the mock's token endpoint, with its client credentials. */
export async function issueToken(mock: RunningMock): Promise<string> {
  const res = await fetch(`${mock.url}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: mock.options.clientId, client_secret: mock.options.clientSecret }),
  });
  if (res.status !== 200) throw new Error(`token endpoint: HTTP ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** An account number of an ordinary bill, unique per call, not ending in a magic suffix. */
let accounts = 0;
export function freshAccount(suffix = ''): string {
  accounts += 1;
  const base = `7${String(Date.now() % 1e7).padStart(7, '0')}${String(process.pid % 1000).padStart(3, '0')}${String(accounts).padStart(4, '0')}`;
  const tail = suffix === '' ? base.slice(-4).replace(/^9/, '8') : suffix;
  return `${base.slice(0, -4)}${tail}`;
}

/** A 10-digit ID of an ordinary fee subject, unique per call. */
export function freshId(suffix = ''): string {
  return freshAccount(suffix).slice(-10).replace(/^./, '2');
}
