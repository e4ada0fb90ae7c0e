/**
 * The recorded traffic a client is judged from: every HTTP call that reaches the judge (the mock in
 * judging mode, or the validating proxy), with the raw request as the client sent it and the answer
 * it got. Records live in memory only and hold secrets as sent (a signature must be verified, a
 * token compared); everything that leaves this process goes through `toExchange`, which masks.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { operationByPath, type OperationId } from '../contract/catalogue.js';
import type { ExchangeRecord } from '../evidence/record.js';
import { isSecretHeader, maskBody, maskHeaders, maskText, registerSecret } from '../client/redact.js';
import type { AnswerSource, MockRecorder } from '../mock/recorder.js';

export type { AnswerSource };

export interface TrafficRecord {
  /** Arrival order, from 1. */
  seq: number;
  /** The API operation of the path; null for anything else (token endpoint, unknown paths). */
  op: OperationId | null;
  method: string;
  path: string;
  startedAt: string;
  /** ms since the recorder started (monotonic) when the call arrived, and when it ended (answer written or connection closed). */
  t: number;
  tEnd: number | null;
  /** Request headers as sent, names lower-cased. Never written anywhere unmasked. */
  headers: Record<string, string>;
  /** The request body as sent; null when the judge refused the call before reading it (e.g. a missing header). */
  body: string | null;
  status: number | null;
  responseHeaders: Record<string, string>;
  responseBody: string;
  /** The whole answer reached the client; false when it closed the connection first (or it was dropped). */
  delivered: boolean;
  /**
   * What the client saw of the answer: `answer` (it was delivered), `reset` (the judge dropped it: a
   * `lost` fault), `closed` (the client closed the connection first: it gave up waiting).
   */
  clientSaw?: 'answer' | 'reset' | 'closed';
  source: AnswerSource;
  /** A scenario the judge injected on this call (`rateLimited`, `unavailable`, `lateAnswer`), if any. */
  scenario: string | null;
  /** The sandbox's transport failure (proxy mode), in words. */
  upstreamError?: string;
}


const flat = (h: Record<string, unknown>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
  return out;
};

const asText = (payload: unknown): string => (typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '');

export class TrafficRecorder implements MockRecorder {
  readonly records: TrafficRecord[] = [];
  private readonly origin = performance.now();
  private readonly byRequest = new WeakMap<FastifyRequest, TrafficRecord>();
  private listeners: ((r: TrafficRecord) => void)[] = [];

  now(): number {
    return performance.now() - this.origin;
  }

  /** Called with each record once its call has ended. */
  onEnded(listener: (r: TrafficRecord) => void): void {
    this.listeners.push(listener);
  }

  /** Records every call of the app; must be attached before its routes are declared. */
  attach(app: FastifyInstance): void {
    app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
      const path = (req.url.split('?')[0] ?? '').slice(0, 500);
      const rec: TrafficRecord = {
        seq: this.records.length + 1, op: operationByPath(path)?.id ?? null, method: req.method, path,
        startedAt: new Date().toISOString(), t: this.now(), tEnd: null, headers: flat(req.headers), body: null,
        status: null, responseHeaders: {}, responseBody: '', delivered: false, source: 'judge', scenario: null,
      };
      this.records.push(rec);
      this.byRequest.set(req, rec);
      // whatever the client sends in secret is masked wherever it shows up later (an echo, its output)
      for (const [k, v] of Object.entries(rec.headers)) if (isSecretHeader(k)) registerSecret(v.replace(/^Bearer\s+/i, ''));
      reply.raw.once('close', () => {
        rec.tEnd = this.now();
        // a dropped answer may still report itself finished: what the client saw is the reset
        rec.delivered = reply.raw.writableFinished && !req.answerLost;
        rec.clientSaw = req.answerLost ? 'reset' : rec.delivered ? 'answer' : 'closed';
        rec.body = req.rawBody ?? rec.body;
        for (const l of this.listeners) l(rec);
      });
    });
    // App-level onSend runs before the routes' own (a held answer, an injected fault): the answer is
    // recorded as the judge produced it, whether or not the client then waits for it.
    app.addHook('onSend', async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const rec = this.byRequest.get(req);
      if (rec) {
        rec.status = reply.statusCode;
        rec.responseHeaders = flat(reply.getHeaders() as Record<string, unknown>);
        rec.responseBody = asText(payload);
        rec.body = req.rawBody ?? null;
        rec.scenario = req.scenario ?? null;
        rec.source = req.answerSource ?? 'judge';
        if (req.upstreamError !== undefined) rec.upstreamError = req.upstreamError;
      }
      return payload;
    });
  }

  /** Calls that have ended, in arrival order (a call still in flight is not judged). */
  ended(): TrafficRecord[] {
    return this.records.filter((r) => r.tEnd !== null);
  }
}

const MAX_BODY = 16 * 1024;
const clip = (s: string) => (s.length > MAX_BODY ? `${s.slice(0, MAX_BODY)}… (${s.length - MAX_BODY} more characters not recorded)` : s);

/** The masked evidence form of a record, safe for the package. */
export function toExchange(r: TrafficRecord, label = `call #${r.seq}`): ExchangeRecord {
  const ex: ExchangeRecord = {
    label: maskText(label),
    request: { method: r.method, url: maskText(r.path), headers: maskHeaders(r.headers), body: r.body === null ? '(not read: the call was refused before its body)' : clip(maskBody(r.body)) },
    startedAt: r.startedAt,
    durationMs: r.tEnd === null ? 0 : Math.round(r.tEnd - r.t),
  };
  if (r.op) ex.op = r.op;
  // what the client saw: an answer it never received is recorded as none, with what the judge had produced in words
  if (r.status !== null && r.delivered) ex.response = { status: r.status, headers: maskHeaders(r.responseHeaders), body: clip(maskBody(r.responseBody)) };
  if (!r.delivered) ex.error = { kind: r.clientSaw === 'reset' ? 'reset' : r.upstreamError ? 'not-delivered' : 'timeout', message: maskText(unseenAnswer(r)) };
  return ex;
}

/** Why the client has no answer, and what the judge had answered (the call may have taken effect). */
export function unseenAnswer(r: TrafficRecord): string {
  if (r.upstreamError) return r.upstreamError;
  const produced = r.status === null ? 'before any answer was produced' : `before the answer, HTTP ${r.status}, reached it (the call took effect as that answer says)`;
  return r.clientSaw === 'reset' ? `the connection was reset ${produced}` : `the client closed the connection ${produced}: it gave up waiting`;
}
