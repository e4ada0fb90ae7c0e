/**
 * The access log (MOCK_ACCESS_LOG=<file>): one JSON line per call, as a bank's gateway keeps it
 * (design.md §11), so that a certification package's exchanges can be checked against what the
 * server really answered (reference id, path and status, within seconds).
 *
 *   {"time":"2026-11-21T14:24:04.120Z","method":"POST","path":"/api/enquiry/sadad/bill","status":200,"companyId":"MYCOMPANY","referenceId":"SV150619940615"}
 *
 * Exactly these keys, in this order: `time` when the request arrived (ISO 8601, UTC), `method`,
 * `path` (the URL path, without the query), `status` the HTTP status sent, or null when no answer
 * was sent (the connection was dropped: a `reset`, `lost` or `hang` fault of MOCK_FAULTS, an outage
 * of kind reset, a client that gave up first), `companyId` the `CompanyId` header and `referenceId`
 * the `<header prefix>ReferenceID` header (null when absent). Never a token, a signature, a client
 * secret or a body. A line is written when the exchange ends (answered or dropped), so lines are in
 * the order calls ended, not arrived. The probes `GET /health` and `GET /ready` are not calls and
 * are not logged. Requests Node's HTTP parser refuses before they reach the app are not logged either.
 *
 * Lines are appended through one write stream (opened in append mode: a restart adds to the file),
 * flushed when the mock closes.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { referenceIdHeader } from '../contract/headers.js';
import { ConfigError } from '../contract/prefix.js';
import { PROBE_PATHS } from './logging.js';

export interface AccessLogLine {
  time: string;
  method: string;
  path: string;
  status: number | null;
  companyId: string | null;
  referenceId: string | null;
}

/** The keys of a line, in order (the verifier and the tests hold the log to them). */
export const ACCESS_LOG_KEYS = ['time', 'method', 'path', 'status', 'companyId', 'referenceId'] as const;

/** A header value or path longer than this is cut: a log line stays a line, whatever a client sends. */
const MAX_FIELD = 1024;

const headerValue = (v: string | string[] | undefined): string | null => {
  if (v === undefined) return null;
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s.length > MAX_FIELD ? s.slice(0, MAX_FIELD) : s;
};

export class AccessLog {
  private closed = false;
  private readonly referenceHeader: string;

  private constructor(private readonly stream: WriteStream, headerPrefix: string) {
    this.referenceHeader = referenceIdHeader(headerPrefix).toLowerCase();
  }

  /** Opens (creates or appends to) the file; a file that cannot be opened is a ConfigError naming MOCK_ACCESS_LOG. */
  static async open(file: string, headerPrefix: string): Promise<AccessLog> {
    const stream = createWriteStream(file, { flags: 'a' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (err) => reject(new ConfigError('MOCK_ACCESS_LOG', `cannot open ${JSON.stringify(file)} for appending: ${err.message}`)));
    });
    // a write that fails later (a full disk) must not crash the mock: the calls go on, unlogged
    stream.on('error', () => {});
    return new AccessLog(stream, headerPrefix);
  }

  /** One onRequest hook (first of all: before faults and authentication can answer) and the flush on close. */
  attach(app: FastifyInstance): void {
    app.addHook('onRequest', async (req, reply) => this.track(req, reply));
    app.addHook('onClose', async () => this.close());
  }

  private track(req: FastifyRequest, reply: FastifyReply): void {
    const time = new Date().toISOString();
    const path = (req.url.split('?')[0] ?? '').slice(0, MAX_FIELD);
    if (req.method === 'GET' && PROBE_PATHS.has(path)) return;
    const res = reply.raw;
    // 'finish': the whole answer was handed to the connection. 'close' comes after every exchange,
    // alone when the connection went first (a lost answer's writes after destroy() never finish).
    let sent = false;
    res.once('finish', () => { sent = true; });
    res.once('close', () => {
      this.write({
        time,
        method: req.method,
        path,
        status: sent ? res.statusCode : null,
        companyId: headerValue(req.headers.companyid),
        referenceId: headerValue(req.headers[this.referenceHeader]),
      });
    });
  }

  private write(line: AccessLogLine): void {
    if (this.closed) return;
    this.stream.write(`${JSON.stringify(line)}\n`);
  }

  /** Flushes and closes the file; exchanges that end in the same turn of the event loop are still written. */
  async close(): Promise<void> {
    if (this.closed) return;
    // the connections fastify has just destroyed emit 'close' on the next tick
    await new Promise((resolve) => setImmediate(resolve));
    this.closed = true;
    await new Promise<void>((resolve) => this.stream.end(() => resolve()));
  }
}
