/**
 * The shared store (MOCK_REDIS_URL): everything the mock remembers lives in Redis, so any number
 * of replicas behind a load balancer are one sandbox, and a restart forgets nothing acknowledged.
 *
 * Atomicity: every change is one Lua script, never a value the process read and wrote back.
 * A payment reads its record and whether its SequenceNumber was used, the rules decide in
 * TypeScript (one copy of them, rules.ts), and a compare-and-set script applies the decision only
 * if the record and the number are still as read; otherwise it reads again and decides again.
 * Within one process, payments of one record are queued, so only replicas race. Rate limits are
 * one script per call (limit.lua below), on the Redis server's clock, so the whole set shares
 * one budget per company and operation.
 *
 * Redis down or slow: the client does not queue commands while disconnected and gives up on one
 * after COMMAND_TIMEOUT_MS, so a call fails fast with StoreUnavailable (answered 503 with
 * Retry-After); it reconnects by itself, forever, at most a second apart.
 *
 * Key layout (prefix `sadad-mock:` by default, MOCK_REDIS_PREFIX): see docs/mock.md "The shared
 * store". The keys one script touches share a hash tag (the braces), so that the scripts would
 * still be legal on a Redis Cluster, where a script may only touch keys of one slot.
 */
import { createHash, randomInt } from 'node:crypto';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import { Redis, type RedisOptions } from 'ioredis';
import type { Decision, LimiterKind, LimiterRouteOptions } from '../limiters.js';
import { DEFAULT_STATE_LIMITS, type Bill, type FeeSubject, type StateLimits } from '../state.js';
import { newToken } from '../token.js';
import { billFacts, feeFacts, normalizeBillerId } from '../world.js';
import { StoreUnavailable, type Decide, type MockStore, type PayOptions, type TokenStore } from './index.js';

export const DEFAULT_REDIS_PREFIX = 'sadad-mock:';
/** A command Redis has not answered by then fails: a slow Redis gives a 503 within the client's patience, not a hang. */
export const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 1_000;
/** How long startup waits for Redis before serving anyway (503 until it comes). */
const STARTUP_WAIT_MS = 3_000;
/** A bill or fee subject not used for this long is dropped (derived again on next sight), like the memory store's LRU. */
export const RECORD_IDLE_MS = 30 * 24 * 60 * 60 * 1000;
/** A scenario magic value fires once per key within this time. */
const ONCE_MS = 24 * 60 * 60 * 1000;
/** Compare-and-set rounds before a payment gives up (503): only replicas racing on one record ever retry. */
const MAX_ROUNDS = 100;

/** Reads a record (refreshing its idle time) and whether a SequenceNumber was used. */
const READ = `
local v = redis.call('GET', KEYS[1])
if v then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
local used = 0
if ARGV[1] ~= '' and redis.call('ZSCORE', KEYS[2], ARGV[1]) then used = 1 end
return {v or '', used}`;

/** The record, created from the facts the caller derived when it does not exist yet (first sight wins). */
const GET_OR_CREATE = `
local v = redis.call('GET', KEYS[1])
if v then redis.call('PEXPIRE', KEYS[1], ARGV[2]); return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ARGV[1]`;

/**
 * Applies a payment's decision if nothing changed since it was read: the record is still the one
 * read (ARGV[1]) and, when guarded (ARGV[2]), the SequenceNumber's use is still as seen (ARGV[3]).
 * Then the new record (ARGV[4]) and the SequenceNumber's use (ARGV[5]), trimmed like the memory
 * store: past the cap (ARGV[9]) the oldest go, but never one accepted within the horizon (ARGV[8]).
 * 1: applied; 0: changed meanwhile, decide again.
 */
const COMMIT = `
local cur = redis.call('GET', KEYS[1]) or ''
if cur ~= ARGV[1] then return 0 end
if ARGV[2] == '1' then
  local used = '0'
  if redis.call('ZSCORE', KEYS[2], ARGV[6]) then used = '1' end
  if used ~= ARGV[3] then return 0 end
end
if ARGV[4] ~= '' then redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[7]) end
if ARGV[5] == '1' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local horizon = tonumber(ARGV[8])
  redis.call('ZADD', KEYS[2], now, ARGV[6])
  local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[9])
  if over > 0 then
    local old = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. string.format('%d', now - horizon), 'LIMIT', 0, over)
    if #old > 0 then redis.call('ZREM', KEYS[2], unpack(old)) end
  end
  redis.call('PEXPIRE', KEYS[2], math.max(horizon, 1000))
end
return 1`;

/**
 * One call against a budget: the five kinds of limiters.ts, line for line, and the
 * `rate-limit-no-reset` block around them. KEYS[1] the budget's hash, KEYS[2] the sliding log.
 * ARGV: kind, max, window ms, block windows, now in ms ('' = the Redis server's clock, one clock
 * for every replica). Returns {current, ttl} as @fastify/rate-limit reads them.
 */
const LIMIT = `
local kind, max, W, blocks = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now
if ARGV[5] ~= '' then now = tonumber(ARGV[5]) else
  local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local h, log = KEYS[1], KEYS[2]
local function num(f) return tonumber(redis.call('HGET', h, f)) end
local EPS = 1e-9
local function take()
  if kind == 'fixed' then
    local s, c = num('s'), num('c') or 0
    if s == nil or now >= s + W then s = now; c = 0 end
    c = c + 1
    redis.call('HSET', h, 's', s, 'c', c)
    return c, s + W - now
  elseif kind == 'calendar' then
    local k = math.floor(now / W)
    local c = num('c') or 0
    if num('k') ~= k then c = 0 end
    c = c + 1
    redis.call('HSET', h, 'k', k, 'c', c)
    return c, (k + 1) * W - now
  elseif kind == 'sliding' then
    while true do
      local first = redis.call('LINDEX', log, 0)
      if first and tonumber(first) + W <= now then redis.call('LPOP', log) else break end
    end
    if max <= 0 then return 1, W end
    local len = redis.call('LLEN', log)
    if len < max then
      redis.call('RPUSH', log, now)
      return len + 1, tonumber(redis.call('LINDEX', log, 0)) + W - now
    end
    return max + 1, tonumber(redis.call('LINDEX', log, len - max)) + W - now
  elseif kind == 'spaced' then
    if max <= 0 then return 1, W end
    local interval = W / max
    -- 'a': the last accepted call; the hash outlives W (>= the interval), so a budget expired is one whose next call passes anyway
    local a = num('a')
    if a == nil or now - a >= interval - EPS then
      redis.call('HSET', h, 'a', now)
      return max, math.max(1, math.ceil(interval - EPS))
    end
    return max + 1, math.max(1, math.ceil(a + interval - now - EPS))
  else
    if max <= 0 then return 1, W end
    local perMs = max / W
    local tokens, last = num('t'), num('l') or 0
    if tokens == nil then tokens = max else tokens = math.min(max, tokens + math.max(0, now - last) * perMs) end
    local function msUntil(n) return math.max(1, math.ceil(n / perMs - EPS * 1000)) end
    local current, ttl
    if tokens + EPS >= 1 then
      tokens = math.max(0, tokens - 1)
      local whole = math.floor(tokens + EPS)
      current, ttl = max - whole, msUntil(whole + 1 - tokens)
    else
      current, ttl = max + 1, msUntil(1 - tokens)
    end
    redis.call('HSET', h, 't', string.format('%.17g', tokens), 'l', now)
    return current, ttl
  end
end
local current, ttl
local blocked = 0
if blocks > 0 then blocked = num('u') or 0 end
if now < blocked then
  current, ttl = max + 1, blocked - now
else
  current, ttl = take()
  if blocks > 0 and current > max then
    blocked = now + blocks * W
    redis.call('HSET', h, 'u', blocked)
    ttl = blocked - now
  end
end
local keep = (blocks + 1) * W + 1000
redis.call('PEXPIRE', h, keep)
if redis.call('EXISTS', log) == 1 then redis.call('PEXPIRE', log, keep) end
return {current, ttl}`;

interface Scripts {
  sbxRead(record: string, seqs: string, sequence: string, idleMs: number): Promise<[string, number]>;
  sbxGetOrCreate(record: string, json: string, idleMs: number): Promise<string>;
  sbxCommit(key: string, seqs: string, expected: string, guard: string, used: string, next: string, record: string, sequence: string, idleMs: number, horizonMs: number, cap: number): Promise<number>;
  sbxLimit(hash: string, log: string, kind: string, max: number, windowMs: number, blocks: number, now: string): Promise<[number, number]>;
}
type Client = Redis & Scripts;

const digest = (s: string) => createHash('sha256').update(s).digest('base64url');
const part = (s: string) => encodeURIComponent(s);

/** Turns whatever went wrong talking to Redis into a 503 for the caller. */
function unavailable(e: unknown): StoreUnavailable {
  return e instanceof StoreUnavailable ? e : new StoreUnavailable(e instanceof Error ? e.message : String(e));
}

async function guarded<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    throw unavailable(e);
  }
}

/** Payments of one record wait for each other within a process: no point racing ourselves. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(task);
    const tail = result.then(() => undefined, () => undefined);
    this.tails.set(key, tail);
    void tail.then(() => { if (this.tails.get(key) === tail) this.tails.delete(key); });
    return result;
  }
}

/** The options that make a Redis outage a fast 503 instead of a hang, and a recovery automatic. */
export function clientOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableReadyCheck: true,
    // reconnect forever, backing off to one attempt a second
    retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    lazyConnect: false,
  };
}

export interface RedisStoreOptions {
  url: string;
  prefix?: string;
  limits?: Partial<StateLimits>;
}

export class RedisStore implements MockStore {
  readonly kind = 'redis' as const;
  readonly tokens: TokenStore;
  private readonly redis: Client;
  private readonly prefix: string;
  private readonly limits: StateLimits;
  private readonly queue = new KeyedQueue();
  /** This replica's start, numbered by Redis: references are unique across replicas and restarts. */
  private tag: string | undefined;
  private counter = 0;
  /** The last connection error, for /ready's answer. */
  lastError: string | undefined;
  private closed = false;

  private constructor(o: RedisStoreOptions) {
    this.prefix = o.prefix ?? DEFAULT_REDIS_PREFIX;
    this.limits = { ...DEFAULT_STATE_LIMITS, ...o.limits };
    this.redis = new Redis(o.url, clientOptions()) as Client;
    this.redis.defineCommand('sbxRead', { numberOfKeys: 2, lua: READ });
    this.redis.defineCommand('sbxGetOrCreate', { numberOfKeys: 1, lua: GET_OR_CREATE });
    this.redis.defineCommand('sbxCommit', { numberOfKeys: 2, lua: COMMIT });
    this.redis.defineCommand('sbxLimit', { numberOfKeys: 2, lua: LIMIT });
    // without a listener ioredis prints every failed reconnection
    this.redis.on('error', (e: Error) => { this.lastError = e.message; });
    this.redis.on('ready', () => { this.lastError = undefined; void this.numberReplica(); });
    this.tokens = this.tokenStore();
  }

  /** Connects, waiting a little for Redis: a replica whose Redis is down still starts, and answers 503 until it comes. */
  static async connect(o: RedisStoreOptions): Promise<RedisStore> {
    const store = new RedisStore(o);
    const deadline = Date.now() + STARTUP_WAIT_MS;
    while (store.tag === undefined && Date.now() < deadline && !store.closed) await new Promise((r) => setTimeout(r, 25));
    return store;
  }

  private async numberReplica(): Promise<void> {
    if (this.tag !== undefined) return;
    try {
      const n = await this.redis.incr(`${this.prefix}replicas`);
      this.tag ??= String(100_000 + (n % 900_000));
    } catch (e) {
      this.lastError = (e as Error).message;
    }
  }

  private key(company: string, rest: string): string {
    return `${this.prefix}{${part(company)}}:${rest}`;
  }

  private billKey(company: string, billerId: string, account: string): string {
    return this.key(company, `bill:${part(normalizeBillerId(billerId))}:${part(account)}`);
  }

  private feeKey(company: string, billerId: string, id: string, requestType: string): string {
    return this.key(company, `fee:${part(normalizeBillerId(billerId))}:${part(id)}:${part(requestType)}`);
  }

  private seqKey(company: string): string {
    return this.key(company, 'seq');
  }

  /** A record and a SequenceNumber's use; a record seen for the first time is stored from its facts. */
  private async load<S>(key: string, seqs: string, sequence: string, facts: () => S | null): Promise<{ json: string; value: S | null; used: boolean }> {
    const [json, used] = await guarded(this.redis.sbxRead(key, seqs, sequence, RECORD_IDLE_MS));
    if (json !== '') return { json, value: JSON.parse(json) as S, used: used === 1 };
    const derived = facts();
    if (derived === null) return { json: '', value: null, used: used === 1 };
    const stored = await guarded(this.redis.sbxGetOrCreate(key, JSON.stringify(derived), RECORD_IDLE_MS));
    return { json: stored, value: JSON.parse(stored) as S, used: used === 1 };
  }

  private newBill(billerId: string, account: string): Bill | null {
    const facts = billFacts(billerId, account);
    return facts && { ...facts, billerId, account, paidCents: 0, paidDate: facts.lastPaidDate };
  }

  private newFee(billerId: string, id: string, requestType: string): FeeSubject | null {
    const facts = feeFacts(billerId, id, requestType);
    return facts && { ...facts, billerId, id, requestType };
  }

  async bill(company: string, billerId: string, account: string): Promise<Bill | null> {
    return (await this.load(this.billKey(company, billerId, account), this.seqKey(company), '', () => this.newBill(billerId, account))).value;
  }

  async fee(company: string, billerId: string, id: string, requestType: string): Promise<FeeSubject | null> {
    return (await this.load(this.feeKey(company, billerId, id, requestType), this.seqKey(company), '', () => this.newFee(billerId, id, requestType))).value;
  }

  async sequenceUsed(company: string, sequence: string): Promise<boolean> {
    return (await guarded(this.redis.zscore(this.seqKey(company), sequence))) !== null;
  }

  payBill<R>(company: string, billerId: string, account: string, sequence: string, decide: Decide<Bill, R>, options: PayOptions = {}): Promise<R> {
    return this.pay(this.billKey(company, billerId, account), this.seqKey(company), sequence, () => this.newBill(billerId, account), decide, options);
  }

  payFee<R>(company: string, billerId: string, id: string, requestType: string, sequence: string, decide: Decide<FeeSubject, R>, options: PayOptions = {}): Promise<R> {
    return this.pay(this.feeKey(company, billerId, id, requestType), this.seqKey(company), sequence, () => this.newFee(billerId, id, requestType), decide, options);
  }

  /**
   * Read, decide, compare-and-set, until the record and the SequenceNumber were not changed by
   * another replica in between. The answer is given only once the script has stored the effect.
   */
  private pay<S, R>(key: string, seqs: string, sequence: string, facts: () => S | null, decide: Decide<S, R>, options: PayOptions): Promise<R> {
    const guard = !options.ignoreSequence;
    return this.queue.run(key, async () => {
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const { json, value, used } = await this.load(key, seqs, guard ? sequence : '', facts);
        const d = decide(value, guard && used);
        if (!d.next && !d.record) return d.result;
        const applied = await guarded(this.redis.sbxCommit(
          key, seqs, json, guard ? '1' : '0', used ? '1' : '0', d.next ? JSON.stringify(d.next) : '', d.record ? '1' : '0', sequence,
          RECORD_IDLE_MS, this.limits.duplicateHorizonMs, this.limits.maxSequences,
        ));
        if (applied === 1) return d.result;
      }
      throw new StoreUnavailable(`the record changed under ${MAX_ROUNDS} attempts in a row`);
    });
  }

  nextReference(): string {
    // a reference from no replica number could repeat another replica's: refuse rather than risk it
    if (this.tag === undefined) throw new StoreUnavailable('not connected yet');
    this.counter += 1;
    return `${this.tag}${String(this.counter).padStart(9, '0')}`;
  }

  private tokenStore(): TokenStore {
    // the token itself never reaches Redis, only its hash: a dump of the store holds no bearer secret
    const key = (token: string) => `${this.prefix}token:${digest(token)}`;
    return {
      issue: async (owner, lifetimeSeconds) => {
        const token = newToken();
        await guarded(this.redis.set(key(token), owner, 'PX', Math.max(1, Math.round(lifetimeSeconds * 1000))));
        return { token, expiresIn: Math.max(1, Math.ceil(lifetimeSeconds)) };
      },
      owner: async (token) => (await guarded(this.redis.get(key(token)))) ?? undefined,
      revoke: async (token) => (await guarded(this.redis.del(key(token)))) > 0,
    };
  }

  async once(key: string): Promise<boolean> {
    return (await guarded(this.redis.set(`${this.prefix}once:${digest(key)}`, '1', 'PX', ONCE_MS, 'NX'))) === 'OK';
  }

  /** One call against a budget, on a given clock (`now`, ms) or Redis's (tests pass a fake one). */
  async take(kind: LimiterKind, key: string, max: number, windowMs: number, blockWindows = 0, now?: number): Promise<Decision> {
    // one hash tag for the budget and its log: the script touches both
    const hash = `${this.prefix}rl:{${kind}:${part(key)}}`;
    const [current, ttl] = await guarded(this.redis.sbxLimit(hash, `${hash}:log`, kind, max, Math.max(1, Math.round(windowMs)), blockWindows, now === undefined ? '' : String(now)));
    return { current, ttl };
  }

  limiterStore(kind: LimiterKind, now?: () => number): FastifyRateLimitStoreCtor {
    const store = this;
    class RedisLimiterStore implements FastifyRateLimitStore {
      constructor(_options?: unknown, private readonly blockWindows = 0) {}

      incr(key: string, callback: (error: Error | null, result?: Decision) => void, timeWindow: number, max: number): void {
        store.take(kind, key, max, timeWindow, this.blockWindows, now?.()).then((d) => callback(null, d), (e: unknown) => callback(unavailable(e)));
      }

      child(routeOptions: object): FastifyRateLimitStore {
        return new RedisLimiterStore(undefined, (routeOptions as LimiterRouteOptions).blockWindows ?? 0);
      }
    }
    return RedisLimiterStore as unknown as FastifyRateLimitStoreCtor;
  }

  get notReadyReason(): string | undefined {
    return this.lastError;
  }

  async ready(): Promise<boolean> {
    if (this.redis.status !== 'ready' || this.tag === undefined) return false;
    try {
      return (await this.redis.ping()) === 'PONG';
    } catch (e) {
      this.lastError = (e as Error).message;
      return false;
    }
  }

  /** Deletes every key under this store's prefix (tests; a sandbox reset). */
  async flush(): Promise<number> {
    let n = 0;
    let cursor = '0';
    do {
      const [next, keys] = await guarded(this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 500));
      cursor = next;
      if (keys.length) n += await guarded(this.redis.del(...keys));
    } while (cursor !== '0');
    return n;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect(); // Redis is away: nothing to say goodbye to
    }
  }
}

/** A prefix of its own for a store that must not meet another's keys (tests, several sandboxes on one Redis). */
export const uniquePrefix = (name = 'test') => `${DEFAULT_REDIS_PREFIX}${name}-${randomInt(1e9)}:`;
