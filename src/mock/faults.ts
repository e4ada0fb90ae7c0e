/**
 * Gateway-like faults (MOCK_FAULTS): a real sandbox sits behind a gateway that now and then answers
 * 502/503/504 or a spurious 429, resets or drops connections, loses an answer after the call took
 * effect, hangs, revokes a token early, and adds latency. The mock does the same on demand, so the
 * project can show the suite survives it. Only the four API routes are touched: the token endpoint
 * and the 404/405 answers never are.
 *
 * Every API call takes the same nine numbers from the generator, whatever happens to it: one per
 * kind in FAULT_KINDS order, then one for the jitter. The first kind before `lost` that fires is
 * injected at onRequest, ahead of authentication, so it has no effect and spends no budget; `lost`
 * is applied when the answer is about to be sent, after the call took effect. A seed makes the
 * sequence repeatable (the assignment of draws to concurrent calls follows their arrival order).
 *
 * An outage (`outage-after`, `outage-seconds`, `outage-kind`) is a span, not a draw: it starts at
 * the n-th API call, so it lands mid-run however fast the run goes, and for its seconds every API
 * call is answered with a maintenance page (or its connection reset) before authentication and
 * without effect. The draws go on meanwhile (nine per call), so a seeded run meets the same
 * faults before and after the outage whether it has one or not.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { operations, type OperationId } from '../contract/catalogue.js';
import { ConfigError } from '../contract/prefix.js';
import { invalidToken } from './auth.js';
import { MockError } from './errors.js';
import type { TokenStore } from './store/index.js';
import { mulberry32 } from '../generators/prng.js';

/** The probabilistic kinds, in the order they are drawn and take precedence. */
export const FAULT_KINDS = ['reset', '502', '503', '504', '429', 'revoke', 'hang', 'lost'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
const TUNING = ['latency', 'jitter', 'retry-after', 'seed'] as const;
type Tuning = (typeof TUNING)[number];
const OUTAGE = ['outage-after', 'outage-seconds', 'outage-kind'] as const;
export const OUTAGE_KINDS = ['maintenance', 'reset'] as const;
export type OutageKind = (typeof OUTAGE_KINDS)[number];
export const FAULT_PARTS: readonly string[] = [...FAULT_KINDS, ...TUNING, ...OUTAGE];

/**
 * The parts of MOCK_FAULTS by their names there: per-call probabilities of the kinds (0..1),
 * `latency` and `jitter` in ms, `retry-after` in seconds (default 1), `seed` (random when absent);
 * an outage from the `outage-after`-th API call for `outage-seconds`, of `outage-kind` (default maintenance).
 */
export type FaultSettings = { [K in FaultKind | Tuning]?: number } & {
  'outage-after'?: number;
  'outage-seconds'?: number;
  'outage-kind'?: OutageKind;
};

/** Per operation: the calls each kind answered, and those the outage answered. */
export type FaultCounts = Record<OperationId, Record<FaultKind | 'outage', number>>;

/** The outage as it went: when it started and ended (ISO; null before), and the API calls it answered. */
export interface OutageReport { startedAt: string | null; endedAt: string | null; calls: number }

/** A hung call is dropped after this long, so a client that never gives up does not pin a socket forever. */
export const HANG_LIMIT_MS = 10 * 60_000;
/** Bound of `latency` and `jitter`: more than this is a typo, not a gateway. */
const MAX_DELAY_MS = HANG_LIMIT_MS;
const DEFAULT_RETRY_AFTER_SECONDS = 1;
/** Bound of `outage-seconds`: a day, past which it is no outage but a target that is gone. */
const MAX_OUTAGE_SECONDS = 86_400;

function invalid(variable: string, name: string, value: number | string, why: string): never {
  throw new ConfigError(variable, `part ${JSON.stringify(`${name}=${value}`)}: ${why}`);
}

/** Rejects unknown parts and values out of range; `variable` names the setting in the error. */
export function checkFaults(settings: FaultSettings, variable = 'faults'): void {
  for (const [name, value] of Object.entries(settings) as [string, unknown][]) {
    if (value === undefined) continue;
    if (!FAULT_PARTS.includes(name)) throw new ConfigError(variable, `unknown part ${JSON.stringify(name)}; known: ${FAULT_PARTS.join(', ')}`);
    if (name === 'outage-kind') {
      if (!(OUTAGE_KINDS as readonly unknown[]).includes(value)) invalid(variable, name, String(value), `must be one of ${OUTAGE_KINDS.join(', ')}`);
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) invalid(variable, name, String(value), 'must be a number 0 or more');
    if ((FAULT_KINDS as readonly string[]).includes(name) && value > 1) invalid(variable, name, value, 'a probability must be between 0 and 1');
    if ((name === 'latency' || name === 'jitter') && value > MAX_DELAY_MS) invalid(variable, name, value, `at most ${MAX_DELAY_MS} ms`);
    if (name === 'retry-after' && (!Number.isInteger(value) || value > 86_400)) invalid(variable, name, value, 'must be whole seconds, at most 86400');
    if (name === 'seed' && (!Number.isInteger(value) || value > 0xffffffff)) invalid(variable, name, value, 'must be a whole number below 2^32');
    if (name === 'outage-after' && (!Number.isInteger(value) || value < 1 || value > 0xffffffff)) invalid(variable, name, value, 'must be a whole number of calls, 1 or more');
    if (name === 'outage-seconds' && (value <= 0 || value > MAX_OUTAGE_SECONDS)) invalid(variable, name, value, `must be seconds, more than 0 and at most ${MAX_OUTAGE_SECONDS}`);
  }
  // an outage needs both ends: a start without a length (or the reverse) is a mistake, not a default
  const given = OUTAGE.filter((p) => settings[p] !== undefined);
  if (given.length && (settings['outage-after'] === undefined || settings['outage-seconds'] === undefined)) {
    throw new ConfigError(variable, `part ${JSON.stringify(given[0])}: an outage needs both outage-after (the call it starts at) and outage-seconds (how long it lasts)`);
  }
}

/** `503=0.02,reset=0.01,latency=120`: comma-separated `name=value` parts, each at most once. */
export function parseFaults(raw: string | undefined, variable = 'MOCK_FAULTS'): FaultSettings {
  const settings: Record<string, number | string> = {};
  for (const part of (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = /^([^=\s]+)\s*=\s*(\S*)$/.exec(part);
    if (!m) throw new ConfigError(variable, `part ${JSON.stringify(part)}: expected name=value`);
    const [, name, value] = m as unknown as [string, string, string];
    if (!FAULT_PARTS.includes(name)) throw new ConfigError(variable, `unknown part ${JSON.stringify(part)}; known: ${FAULT_PARTS.join(', ')}`);
    if (name in settings) throw new ConfigError(variable, `part ${JSON.stringify(name)} given twice`);
    // the one part whose value is a word: checkFaults names the words it takes
    if (name === 'outage-kind') { settings[name] = value; continue; }
    if (!/^\d+(\.\d+)?$|^\.\d+$/.test(value)) invalid(variable, name, value, 'must be a number 0 or more');
    settings[name] = Number(value);
  }
  checkFaults(settings as FaultSettings, variable);
  return settings as FaultSettings;
}

/** The settings written back as MOCK_FAULTS would take them (for the mock's banner). */
export const formatFaults = (settings: FaultSettings): string =>
  FAULT_PARTS.filter((p) => settings[p as keyof FaultSettings] !== undefined).map((p) => `${p}=${settings[p as keyof FaultSettings]}`).join(',');


type BeforeKind = Exclude<FaultKind, 'lost'>;
interface Draw { before?: BeforeKind; lost: boolean; delayMs: number; outage?: boolean }

/** What a gateway serves while the service behind it is down for maintenance: a page, not the API's JSON. */
export const MAINTENANCE_PAGE = '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>Scheduled maintenance</title></head>\n' +
  '<body><h1>Scheduled maintenance</h1><p>The service is temporarily unavailable for scheduled maintenance. Please try again later.</p></body></html>\n';

const bearerOf = (req: FastifyRequest) => /^Bearer\s+(\S+)$/i.exec(String(req.headers.authorization ?? '').trim())?.[1];

function gatewayAnswer(kind: '502' | '503' | '504' | '429', retryAfter: number): MockError {
  const wait = { 'retry-after': String(retryAfter) };
  switch (kind) {
    case '502': return new MockError(502, 'MW-502', 'Bad gateway: the service behind the gateway gave no valid answer');
    case '503': return new MockError(503, 'MW-503', 'Service unavailable: try again later', undefined, wait);
    case '504': return new MockError(504, 'MW-504', 'Gateway timeout: the service behind the gateway did not answer in time');
    case '429': return new MockError(429, 'MW-429', 'Too many requests: the gateway is throttling, try again later', undefined, wait);
  }
}

type OnRequest = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
type OnSend = (req: FastifyRequest, reply: FastifyReply, payload: unknown) => Promise<unknown>;

/** The faults of one mock instance: the draws, the hooks that inject them, and the counters. */
export class Faults {
  /** Whether anything can happen at all; without it no hook is installed. */
  readonly active: boolean;
  private readonly random: () => number;
  private readonly draws = new WeakMap<FastifyRequest, Draw>();
  private readonly counters: FaultCounts;
  /** API calls so far: the outage starts at the `outage-after`-th. */
  private calls = 0;
  private outageStart: number | undefined;
  private outageCalls = 0;

  constructor(private readonly settings: FaultSettings, private readonly tokens: TokenStore) {
    this.active = FAULT_KINDS.some((k) => (settings[k] ?? 0) > 0) || (settings.latency ?? 0) > 0 || (settings.jitter ?? 0) > 0 || settings['outage-after'] !== undefined;
    this.random = mulberry32(settings.seed ?? randomInt(0, 2 ** 32 - 1));
    this.counters = Object.fromEntries(operations.map((o) => [o.id, Object.fromEntries([...FAULT_KINDS, 'outage'].map((k) => [k, 0]))])) as FaultCounts;
  }

  /** How many of each kind were injected, per operation (a copy); `outage`: the calls the outage answered. */
  counts(): FaultCounts {
    return Object.fromEntries(Object.entries(this.counters).map(([op, c]) => [op, { ...c }])) as FaultCounts;
  }

  /** When the outage started and ended (null until then), and how many API calls it answered. */
  outage(now = Date.now()): OutageReport {
    const end = this.outageEnd();
    return {
      startedAt: this.outageStart === undefined ? null : new Date(this.outageStart).toISOString(),
      endedAt: end === undefined || now < end ? null : new Date(end).toISOString(),
      calls: this.outageCalls,
    };
  }

  private outageEnd(): number | undefined {
    return this.outageStart === undefined ? undefined : this.outageStart + (this.settings['outage-seconds'] ?? 0) * 1000;
  }

  /** Counts the call; whether the outage answers it (it starts at the `outage-after`-th call). */
  private down(now: number): boolean {
    this.calls += 1;
    if (this.outageStart === undefined && this.calls === this.settings['outage-after']) this.outageStart = now;
    const end = this.outageEnd();
    return end !== undefined && now < end;
  }

  /** Route hooks of one API operation: `onRequest` must run before authentication. */
  hooks(op: OperationId): { onRequest: OnRequest[]; onSend: OnSend[] } {
    if (!this.active) return { onRequest: [], onSend: [] };
    return {
      onRequest: [async (req, reply) => this.before(op, req, reply)],
      onSend: [async (req, reply, payload) => this.after(op, req, reply, payload)],
    };
  }

  private draw(): Draw {
    const fired = FAULT_KINDS.filter((k) => this.random() < (this.settings[k] ?? 0));
    const jitter = this.random() * (this.settings.jitter ?? 0);
    return {
      before: fired.find((k): k is BeforeKind => k !== 'lost'),
      lost: fired.includes('lost'),
      delayMs: (this.settings.latency ?? 0) + jitter,
    };
  }

  private async before(op: OperationId, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | void> {
    const down = this.down(Date.now());
    const draw = this.draw();
    this.draws.set(req, down ? { ...draw, outage: true } : draw);
    if (down) {
      this.counters[op].outage += 1;
      this.outageCalls += 1;
      if ((this.settings['outage-kind'] ?? 'maintenance') === 'reset') {
        reply.hijack();
        req.raw.socket.resetAndDestroy();
        return;
      }
      // what a gateway in front of a service down for maintenance serves: HTML, whatever the client asked for
      return reply.code(503).header('retry-after', String(this.settings['retry-after'] ?? DEFAULT_RETRY_AFTER_SECONDS))
        .header('cache-control', 'no-store').type('text/html; charset=utf-8').send(MAINTENANCE_PAGE);
    }
    const kind = draw.before;
    if (kind === undefined) return;
    this.counters[op][kind] += 1;
    switch (kind) {
      case 'reset':
        // RST rather than FIN: what a client sees when a gateway or a load balancer drops it
        reply.hijack();
        req.raw.socket.resetAndDestroy();
        return;
      case 'hang': {
        // No answer; the socket goes when the client gives up, the mock closes, or at the bound.
        reply.hijack();
        const socket = req.raw.socket;
        const timer = setTimeout(() => socket.destroy(), HANG_LIMIT_MS);
        timer.unref();
        socket.once('close', () => clearTimeout(timer));
        return;
      }
      case 'revoke': {
        // An issued token is gone for good, so the client must fetch another. The static token
        // is refused this once only: revoking it would leave the client no way to go on.
        const token = bearerOf(req);
        if (token !== undefined) await this.tokens.revoke(token);
        throw invalidToken();
      }
      default:
        throw gatewayAnswer(kind, this.settings['retry-after'] ?? DEFAULT_RETRY_AFTER_SECONDS);
    }
  }

  /** Latency on every answer of the route; then, when drawn, the answer is lost instead of sent. */
  private async after(op: OperationId, req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const draw = this.draws.get(req);
    if (draw === undefined) return payload;
    if (draw.delayMs > 0) await sleep(draw.delayMs);
    // a call already answered by a fault drawn before it (a 503, a revoke) or by the outage never took effect: nothing to lose
    if (draw.lost && draw.before === undefined && !draw.outage) {
      this.counters[op].lost += 1;
      // the call has already taken effect; the writes fastify still makes go nowhere (and the response
      // may still report itself finished: the recorder reads this flag for what the client saw)
      req.answerLost = true;
      reply.raw.destroy();
    }
    return payload;
  }
}
