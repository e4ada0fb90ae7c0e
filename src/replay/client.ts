/**
 * The world a re-judged case meets: a client that answers from the case's evidence instead of the
 * network, a pacer that never waits, shared preconditions that only listen. A request the script
 * would send now is matched with a recorded one by operation and label (concurrent calls of a burst
 * finish in any order), then compared with it (compare.ts); any difference, or a request the
 * evidence does not hold, is a divergence: the case needs a new run.
 */
import { operation, type OperationId } from '../contract/catalogue.js';
import { MAX_BODY, type Exchange } from '../client/exchange.js';
import { maskBody, MASK } from '../client/redact.js';
import type { SendOptions } from '../client/client.js';
import type { Signer } from '../client/signer.js';
import type { Pacer } from '../pacer/pacer.js';
import type { RunFacts } from '../pacer/facts.js';
import type { CaseContext } from '../suite/case.js';
import { bodyDifference, Renaming } from './compare.js';

/** An exchange as an evidence file records it. */
export interface RecordedExchange {
  label: string;
  op: string | undefined;
  request: Exchange['request'];
  response?: Exchange['response'];
  error?: Exchange['error'];
  startedAt: string;
  durationMs: number;
  sentAfterMs?: number;
}

const clipped = (s: string) => s.length > MAX_BODY && s.includes('more characters not recorded');

/** What each exchange handed to a case was in the evidence (its answer is given in the re-judge's identifiers). */
export const recordedOf = new WeakMap<Exchange, RecordedExchange>();

/** The exchange a case's code reads: the recorded one, its answer in `names`' identifiers, parsed as the client parses an answer. */
export function rehydrate(r: RecordedExchange, names?: Renaming): Exchange {
  const response = r.response && names ? { ...r.response, body: names.toNow(r.response.body), headers: Object.fromEntries(Object.entries(r.response.headers).map(([k, v]) => [k, names.toNow(v)])) } : r.response;
  const ex: Exchange = { label: r.label, op: r.op, request: r.request, ...(response ? { response } : {}), ...(r.error ? { error: r.error } : {}), startedAt: r.startedAt, durationMs: r.durationMs, ...(r.sentAfterMs === undefined ? {} : { sentAfterMs: r.sentAfterMs }) };
  recordedOf.set(ex, r);
  const text = response?.body ?? '';
  if (text.trim() !== '') {
    try { ex.json = JSON.parse(text); } catch (e) { ex.parseError = (e as Error).message; }
  }
  return ex;
}

export class ReplayClient {
  private readonly used = new Set<number>();
  readonly names = new Renaming();
  readonly tokens: { renewable: boolean; token(): Promise<string>; invalidate(): void };
  readonly signer: Signer | undefined;

  constructor(private readonly c: () => CaseContext, readonly recorded: RecordedExchange[], options: { renewableToken: boolean; signer: boolean }) {
    this.tokens = { renewable: options.renewableToken, token: async () => MASK, invalidate: () => {} };
    // the signature cases need a signer to run; what it signs is masked in the evidence, so any value will do
    // no header names: the curl commands of a re-judge are the run's, read from the evidence
    this.signer = options.signer ? { name: 'recorded', headerNames: [], sign: () => ({ 'X-Signature': MASK }) } : undefined;
  }

  refuseToken(): void {}

  /** Recorded exchanges no send of this case took (the shared ones it read are checked apart). */
  unused(): RecordedExchange[] {
    return this.recorded.filter((_, i) => !this.used.has(i));
  }

  async send(opId: OperationId, options: SendOptions = {}): Promise<Exchange> {
    const c = this.c();
    const op = operation(opId);
    const label = options.label ?? opId;
    const idx = this.recorded.findIndex((r, i) => !this.used.has(i) && r.label === label && r.op === opId);
    if (idx < 0) return c.diverged(`the case now sends "${label}" (${opId}), which its evidence does not record`);
    this.used.add(idx);
    const r = this.recorded[idx]!;
    const method = options.method ?? op.method;
    const path = options.path ?? op.path;
    if (r.request.method !== method) c.diverged(`"${label}": the case now sends ${method}, the evidence records ${r.request.method}`);
    if (!r.request.url.endsWith(path)) c.diverged(`"${label}": the case now sends to ${path}, the evidence records ${r.request.url}`);
    const bodyText = method === 'GET' || method === 'HEAD' ? '' : options.bodyText ?? JSON.stringify(options.body ?? null);
    const now = maskBody(bodyText);
    if (clipped(r.request.body)) {
      if (r.request.body.slice(0, MAX_BODY) !== now.slice(0, MAX_BODY)) c.diverged(`"${label}": the body the case now sends differs from the recorded one (recorded clipped at ${MAX_BODY} characters)`);
    } else {
      const d = bodyDifference(now, r.request.body, this.names);
      if (d) c.diverged(`"${label}": the body the case now sends differs from the recorded one at ${d}`);
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      const recorded = Object.entries(r.request.headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
      if (value === null) {
        if (recorded !== undefined) c.diverged(`"${label}": the case now leaves out ${name}, the evidence records it sent`);
      } else if (recorded === undefined) c.diverged(`"${label}": the case now sends ${name}, the evidence records none`);
      else if (!recorded.includes(MASK) && !this.names.same(value, recorded)) c.diverged(`"${label}": the case now sends ${name}: ${JSON.stringify(value)}, the evidence records ${JSON.stringify(recorded)}`);
    }
    if (r.response && clipped(r.response.body)) c.diverged(`"${label}": the answer was recorded clipped at ${MAX_BODY} characters, so it cannot be judged again`);
    const ex = rehydrate(r, this.names);
    // a burst's calls go through the hold's gate together, as in the run
    return options.via ? options.via(async () => ex) : ex;
  }
}

/** The pacer of a re-judge: nothing waits; the outages are the recorded ones (inputs), never asked for here. */
export const replayPacer: Pacer = {
  call: async (_op, send) => send(),
  exclusive: async (_op, body) => body((send) => send()),
  stats: async () => ({}),
  report: async () => {},
  outages: async () => [],
  // what the pacer said of a refusal is a recorded input of the case (CaseContext.overLimit), never asked for here
  refused: async () => false,
  learnOverLimit: async () => {},
} as Pacer;

/** Shared preconditions of a re-judge: what the cases were told is recorded (inputs); reports go nowhere. */
export const replayFacts: RunFacts = {
  failed: async () => null,
  report: async () => {},
};
