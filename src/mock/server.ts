/**
 * The fastify application: one POST route per catalogue operation, the token endpoint, and the
 * robustness edges (malformed JSON, wrong content type, oversized body, unknown path, other
 * methods), each answered with a 4xx and the error body; nothing a client sends yields a 5xx
 * (unless a robustness defect is injected, defects.ts).
 *
 * Life of an API call: onRequest authenticates the headers (401) -> the body is parsed (413, 415,
 * 400 malformed) -> preValidation verifies the signature (401), then counts the call against the
 * rate limit (429) -> the handler validates against the contract (400 or in-band) and applies the
 * business rules to each entry in order (422/409 or in-band). Injected faults (faults.ts) come first,
 * at onRequest before authentication, and last, when the answer is sent (latency, a lost answer).
 */
import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { operation, operations, tagsOf, type Operation, type OperationId } from '../contract/catalogue.js';
import type { Fields } from '../contract/message.js';
import type { Finding } from '../contract/validator.js';
import { AccessLog } from './access-log.js';
import { Authenticator } from './auth.js';
import { CompanyRegistry } from './companies.js';
import { Defects } from './defects.js';
import { errorBody, malformed, MockError, REJECTIONS, type Rejection } from './errors.js';
import { Faults } from './faults.js';
import { attachRequestLog, loggingOptions } from './logging.js';
import type { MockOptions } from './options.js';
import { rateLimitFor, registerRateLimiter } from './rate-limit.js';
import { DEFAULT_LATE_ANSWER_MS } from './magic.js';
import { failedEntries, renderResponse, type ItemResult, type RenderContext } from './responses.js';
import { billEnquiry, billPayment, moiEnquiry, moiPayment, type EntryContext, type Outcome } from './rules.js';
import { Scenarios } from './scenarios.js';
import type { MockRecorder } from './recorder.js';
import { MockState } from './state.js';
import { StoreUnavailable, STORE_RETRY_AFTER_SECONDS, type MockStore, type TokenStore } from './store/index.js';
import { openStore } from './store/open.js';
import { registerTokenEndpoint } from './token.js';
import { validate } from './validation.js';

/** 1 MiB: generous for these messages, small enough that a flood of bodies cannot exhaust memory. */
export const BODY_LIMIT = 1024 * 1024;
/**
 * Bodies are read in full up to this size before BODY_LIMIT is applied: answering 413 while the
 * client is still uploading makes many clients fail with EPIPE before they can read the answer.
 */
const READ_LIMIT = 16 * BODY_LIMIT;
const tooLarge = () => new MockError(413, 'MW-413', `Request body larger than ${BODY_LIMIT} bytes`);
const OTHER_METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * Node's HTTP parser refused the request (a bad request line or header, headers over 16 KiB): the
 * error body and `Connection: close`, then the socket is closed. Fastify's own handler leaves the
 * header out, so a keep-alive client reuses the socket being closed and its next request fails.
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const mock = err.code === 'HPE_HEADER_OVERFLOW' ? new MockError(431, 'MW-431', 'Request headers larger than the server accepts')
    : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? new MockError(408, 'MW-408', 'Request not received in time')
      : malformed('not a valid HTTP/1.1 request');
  // the answer to a HEAD request has no body (a client would read one as garbage after the answer)
  const head = (err as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  const body = head ? '' : JSON.stringify(errorBody(mock, randomUUID()));
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${mock.statusCode} ${STATUS_CODES[mock.statusCode]}\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  }
  socket.destroy(err);
}

/** CONNECT is a proxy's method: Node hands it to a 'connect' listener and, without one, drops the connection unanswered. */
function refuseConnect(_req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  const body = JSON.stringify(errorBody(new MockError(405, 'MW-405', 'Method CONNECT not allowed: use POST'), randomUUID()));
  socket.end(`HTTP/1.1 405 Method Not Allowed\r\nAllow: POST\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
}

declare module 'fastify' {
  interface FastifyRequest {
    correlationId: string;
    /** The company an API call is attributed to, set by authentication (its budget and its state). */
    company: string;
  }
}

/** Paths a load balancer probes: answered also while shutting down. */
const PROBES = new Set(['/health', '/ready']);

/** A rule answers at once in memory; it yields with the shared store, or under a defect (`duplicate-when-concurrent`). */
const RULES: Record<OperationId, (ctx: EntryContext, entry: Fields) => Outcome<unknown> | Promise<Outcome<unknown>>> = {
  'bill-enquiry': billEnquiry,
  'bill-payment': billPayment,
  'moi-enquiry': moiEnquiry,
  'moi-payment': moiPayment,
};

const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

interface LocatedItem { request: Fields; entries: Fields[]; pointer: string }

/**
 * The request's items and entries when the body has the envelope's structure down to the entries,
 * even if fields inside are wrong; null when there is nothing to answer entry by entry.
 */
function locateItems(op: Operation, body: unknown, tagPrefix: string): LocatedItem[] | null {
  const { requestRoot, listTag } = tagsOf(op, tagPrefix);
  if (!isRecord(body) || !isRecord(body.Message) || !isRecord(body.Message[requestRoot])) return null;
  const list = body.Message[requestRoot][listTag];
  if (!Array.isArray(list) || list.length === 0) return null;
  const items: LocatedItem[] = [];
  for (const [i, item] of list.entries()) {
    if (!isRecord(item) || !Array.isArray(item.TransactionData) || item.TransactionData.length === 0) return null;
    if (!item.TransactionData.every(isRecord)) return null;
    items.push({ request: item, entries: item.TransactionData as Fields[], pointer: `/Message/${requestRoot}/${listTag}/${i}` });
  }
  return items;
}

/**
 * At most this many findings are named in an error body: a 1 MiB body of empty entries has hundreds
 * of thousands, and naming them all made an answer larger than V8 can build as one string.
 */
export const MAX_ERROR_DETAILS = 100;
const detailsOf = (findings: Finding[]) => findings.slice(0, MAX_ERROR_DETAILS).map(({ pointer, expected, found }) => ({ pointer, expected, found }));

/**
 * The findings inside each entry, by the entry's pointer (`.../TransactionData/<j>`): grouped once,
 * so a request of thousands of bad entries costs time linear in its findings, not their product.
 */
function findingsByEntry(findings: Finding[]): Map<string, Finding[]> {
  const byEntry = new Map<string, Finding[]>();
  for (const f of findings) {
    const entry = /^(.*?\/TransactionData\/\d+)(?:\/|$)/.exec(f.pointer)?.[1];
    if (entry === undefined) continue;
    const list = byEntry.get(entry);
    if (list) list.push(f);
    else byEntry.set(entry, [f]);
  }
  return byEntry;
}

/** The validation rejection of one entry, naming the findings inside it (`own`), or all if none is. */
function validationRejection(findings: Finding[], own: Finding[] | undefined): Rejection {
  const named = (own !== undefined && own.length > 0 ? own : findings).slice(0, 5);
  const base = REJECTIONS.validation();
  return { ...base, message: `${base.message}: ${named.map((f) => `${f.pointer} expected ${f.expected}, found ${f.found}`).join('; ')}` };
}

/**
 * A MockError without a stack trace, for the rejections `answer` throws on every invalid or refused
 * call: they are control flow, turned into the error body by the error handler and never logged, and
 * capturing the stack (about ten frames of optimized code) cost as much as the rest of a rejection.
 */
function quietError(...args: ConstructorParameters<typeof MockError>): MockError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new MockError(...args);
  } finally {
    Error.stackTraceLimit = limit;
  }
}

const unsupportedMediaType = () => new MockError(415, 'MW-415', 'Unsupported media type: send Content-Type application/json');

function toMockError(err: FastifyError | MockError | Error): MockError {
  if (err instanceof MockError) return err;
  // the shared store is away: a client may retry, as after a gateway's 503 (never a 500, never a hang)
  if (err instanceof StoreUnavailable) return new MockError(503, 'MW-503', 'Service unavailable: the sandbox cannot reach its store, try again later', undefined, { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) });
  const e = err as FastifyError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return tooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return unsupportedMediaType();
    case 'FST_ERR_CTP_EMPTY_JSON_BODY': return malformed('empty body');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH': return malformed('Content-Length does not match the body');
  }
  if (err instanceof SyntaxError || e.statusCode === 400) return malformed('not valid JSON');
  const status = e.statusCode ?? 500;
  if (status >= 400 && status < 500) return new MockError(status, `MW-${status}`, e.message);
  return new MockError(500, 'MW-500', 'Internal error of the mock');
}

/** `proto-keys-500`: a body with a `__proto__` or `constructor` key anywhere. */
const PROTOTYPE_KEY = /"(?:__proto__|constructor)"\s*:/;

/** Operation paths, for the defects that bend one route's parsing or error answers. */
const pathOf = (id: OperationId) => operation(id).path;

export interface MockServer {
  app: FastifyInstance;
  /** Where state, tokens and budgets are kept: in memory, or in Redis (MOCK_REDIS_URL). */
  store: MockStore;
  /** The in-memory state (the memory store's; empty and unused with MOCK_REDIS_URL). */
  state: MockState;
  tokens: TokenStore;
  companies: CompanyRegistry;
  /**
   * Graceful shutdown, first half: /ready answers 503, new API calls get a 503 with Retry-After
   * and Connection: close, and this resolves once the calls in flight have been answered (or after
   * `graceMs`). close() then ends what is left and releases the store.
   */
  drain(graceMs: number): Promise<void>;
  /** The injected faults and their counters (`faults.counts()`). */
  faults: Faults;
}

/** What a caller adds to the app: a recorder of the traffic (certify-client's judge). */
export interface MockExtras {
  recorder?: MockRecorder;
}

/**
 * Fastify's `https` option when MOCK_TLS_* are set. With a client CA, the handshake itself refuses a
 * client without a certificate that CA signed (as a gateway doing mutual TLS does), before any route.
 */
function httpsOf(options: MockOptions): { https?: { cert: string; key: string; ca?: string; requestCert?: boolean; rejectUnauthorized?: boolean } } {
  const tls = options.tls;
  if (!tls) return {};
  return { https: { cert: tls.cert, key: tls.key, ...(tls.clientCa !== undefined ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}) } };
}

/**
 * forceCloseConnections ends the HTTP connections, and a TLS connection becomes one only once its
 * handshake is done: one left halfway (a client that stopped answering, a proxy's tunnel whose
 * client gave up) would hold close() open for good.
 */
function endHandshakesOnClose(app: FastifyInstance): void {
  const sockets = new Set<Duplex>();
  app.server.on('connection', (s: Duplex) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  app.addHook('preClose', (done) => { for (const s of sockets) s.destroy(); done(); });
}

export async function buildMockServer(options: MockOptions, extras: MockExtras = {}): Promise<MockServer> {
  const app = Fastify({ ...loggingOptions(options.logLevel), bodyLimit: READ_LIMIT, exposeHeadRoutes: false, forceCloseConnections: true, clientErrorHandler, ...httpsOf(options) });
  app.server.on('connect', refuseConnect);
  if (options.tls) endHandshakesOnClose(app);
  extras.recorder?.attach(app);
  const state = new MockState();
  const store = await openStore(options, state);
  app.addHook('onClose', async () => store.close());
  const tokens = store.tokens;
  const companies = new CompanyRegistry(options);
  // Each place that can misbehave on purpose gets the defects and asks `defects.has(name)` there.
  const defects = new Defects(options.defects);
  const auth = new Authenticator(options, companies, tokens, defects);
  const faults = new Faults(options.faults ?? {}, tokens);
  const scenarios = new Scenarios(options.tagPrefix, options.lateAnswerMs ?? DEFAULT_LATE_ANSWER_MS, (key) => store.once(key));

  registerBodyParsers(app, defects);
  const calls = trackCalls(app);
  // the access log (MOCK_ACCESS_LOG) and the request log (MOCK_LOG_LEVEL info or finer): each one onRequest hook, only when asked for
  if (options.accessLog !== undefined) (await AccessLog.open(options.accessLog, options.headerPrefix)).attach(app);
  attachRequestLog(app, options.logLevel);
  registerErrorAnswers(app, defects);
  await registerRateLimiter(app, options.limiter, store);
  registerTokenEndpoint(app, options.tokenLifetimeSeconds, companies, tokens, methodNotAllowed);
  registerProbes(app, store, calls);
  registerOperations(app, { options, store, defects, auth, faults, scenarios, companies });
  return { app, store, state, tokens, companies, faults, drain: calls.drain };
}

/**
 * Only JSON is a request body here; `__proto__` and `constructor.prototype` keys are dropped while
 * parsing. Two defects bend it: `proto-keys-500` and `content-type-unchecked`.
 */
function registerBodyParsers(app: FastifyInstance, defects: Defects): void {
  app.removeAllContentTypeParsers();
  const parseJson = app.getDefaultJsonParser('remove', 'remove');
  const json: typeof parseJson = (req, body, done) => {
    req.rawBody = String(body); // for a recorder (recorder.ts)
    return Buffer.byteLength(String(body)) > BODY_LIMIT ? done(tooLarge(), undefined) : parseJson(req, body, done);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: READ_LIMIT }, !defects.has('proto-keys-500') ? json : (req, body, done) => {
    // defect: bill payments feed prototype keys into code that crashes on them
    if (req.routeOptions.url === pathOf('bill-payment') && PROTOTYPE_KEY.test(String(body))) return done(new TypeError('Cannot convert object to primitive value'), undefined);
    json(req, body, done);
  });
  if (defects.has('content-type-unchecked')) {
    // defect: MOI payments read a text/plain body as JSON; elsewhere it stays a 415
    app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: READ_LIMIT }, (req, body, done) => {
      if (req.routeOptions.url !== pathOf('moi-payment')) return done(unsupportedMediaType(), undefined);
      json(req, String(body), done);
    });
  }
}

/** The calls in flight, for a graceful shutdown: `drain` turns new API calls away and waits for those. */
interface CallTracker {
  draining(): boolean;
  drain(graceMs: number): Promise<void>;
}

/** Every call gets its correlation id and is counted while in flight; during a drain, API calls are turned away. */
function trackCalls(app: FastifyInstance): CallTracker {
  app.decorateRequest('correlationId', '');
  app.decorateRequest('company', '');
  let inFlight = 0;
  let draining = false;
  let whenIdle: (() => void) | undefined;
  const settle = () => {
    inFlight -= 1;
    if (inFlight === 0) whenIdle?.();
  };
  app.addHook('onRequest', async (req, reply) => {
    req.correlationId = randomUUID();
    reply.header('x-correlation-id', req.correlationId);
    inFlight += 1;
    reply.raw.once('close', settle);
    if (draining && !PROBES.has(req.url)) {
      reply.header('connection', 'close');
      throw new MockError(503, 'MW-503', 'Service unavailable: this replica is shutting down, try again', undefined, { 'retry-after': '1' });
    }
  });
  return {
    draining: () => draining,
    drain: async (graceMs) => {
      draining = true;
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        whenIdle = () => { clearTimeout(timer); resolve(); };
      });
    },
  };
}

/** Every error, ours or fastify's, answered with the error body; an unknown path is a 404 of ours. */
function registerErrorAnswers(app: FastifyInstance, defects: Defects): void {
  /** The error answers the robustness defects turn into an internal error, each on its own route. */
  const crashes = (mock: MockError, err: FastifyError | MockError, req: FastifyRequest): boolean => {
    const route = req.routeOptions.url;
    if (defects.has('malformed-json-500') && route === pathOf('bill-enquiry')) return (err as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY';
    if (defects.has('oversized-500') && route === pathOf('moi-enquiry')) return mock.statusCode === 413;
    return false;
  };
  app.setErrorHandler((err: FastifyError | MockError, req, reply) => {
    let mock = toMockError(err);
    if (mock.statusCode >= 500 && !(err instanceof MockError)) req.log.error({ err }, 'internal error of the mock');
    if (crashes(mock, err, req)) mock = new MockError(500, 'MW-500', 'Internal error of the mock');
    for (const [k, v] of Object.entries(mock.headers)) reply.header(k, v);
    reply.code(mock.statusCode).type('application/json; charset=utf-8').send(errorBody(mock, req.correlationId || randomUUID()));
  });
  app.setNotFoundHandler((req) => {
    throw new MockError(404, 'MW-404', `No operation at ${req.method} ${(req.url.split('?')[0] ?? '').slice(0, 200)}`);
  });
}

function methodNotAllowed(req: FastifyRequest, reply: FastifyReply): never {
  reply.header('allow', 'POST');
  throw new MockError(405, 'MW-405', `Method ${req.method} not allowed: use POST`);
}

/**
 * For a load balancer: /health says the process answers; /ready that it can serve calls (its
 * store is reachable, and it is not shutting down). Neither is authenticated nor limited.
 */
function registerProbes(app: FastifyInstance, store: MockStore, calls: CallTracker): void {
  app.get('/health', async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/ready', async (_req, reply) => {
    const ok = !calls.draining() && await store.ready();
    reply.header('cache-control', 'no-store');
    if (ok) return reply.send({ status: 'ready', store: store.kind });
    const why = calls.draining() ? 'shutting down' : `store unavailable${store.notReadyReason ? `: ${store.notReadyReason}` : ''}`;
    return reply.code(503).header('retry-after', '1').send({ status: 'not ready', store: store.kind, reason: why });
  });
}

/** What answering an API call needs, made once: no closures made per call. */
interface Answering {
  options: MockOptions;
  store: MockStore;
  defects: Defects;
  /** One render context for every answer (it names nothing of a request). */
  render: RenderContext;
}

/** One POST route per catalogue operation, its hooks in the order of a call's life (top of this file); other methods a 405. */
function registerOperations(app: FastifyInstance, o: { options: MockOptions; store: MockStore; defects: Defects; auth: Authenticator; faults: Faults; scenarios: Scenarios; companies: CompanyRegistry }): void {
  const { options, store, defects, auth } = o;
  const answering: Answering = {
    options, store, defects,
    render: { style: options.style, tagPrefix: options.tagPrefix, defects, bankReferenceNumber: () => `BRN${store.nextReference()}`, reference: () => store.nextReference() },
  };
  for (const op of operations) {
    const injected = o.faults.hooks(op.id);
    const scenario = o.scenarios.hooks(op);
    app.route({
      method: 'POST',
      url: op.path,
      config: { rateLimit: rateLimitFor(op, options, defects, o.companies) },
      onRequest: [...injected.onRequest, async (req) => {
        const company = auth.checkHeaders(op, req.headers);
        req.company = company instanceof Promise ? await company : company;
      }],
      onSend: [scenario.onSend, ...injected.onSend],
      preValidation: async (req) => auth.checkSignature(req.body, req.headers, req.company),
      preHandler: scenario.preHandler,
      // A payment's duplicate check and its debit are one transaction of the store (rules.ts): in
      // memory they happen in one tick (answer() awaits only a rule that yields, which only a
      // defect or the shared store does).
      handler: async (req, reply) => reply.code(200).send(await answer(op, req, answering)),
    });
    app.route({ method: [...OTHER_METHODS], url: op.path, handler: methodNotAllowed });
  }
}

/** The answer to a call that passed authentication, its signature and the rate limit: validation, then the rules entry by entry. */
async function answer(op: Operation, req: FastifyRequest, { options, store, defects, render }: Answering): Promise<Fields> {
  const company = req.company;
  const items = locateItems(op, req.body, options.tagPrefix);

  const { valid, findings } = validate(op, req.body, options.tagPrefix, defects);
  if (!valid) {
    if (options.errors === 'in-band' && items) {
      const byEntry = findingsByEntry(findings);
      return renderResponse(op, items.map((it) => ({
        request: it.request,
        entries: failedEntries(it.entries, (j) => validationRejection(findings, byEntry.get(`${it.pointer}/TransactionData/${j}`))),
      })), render);
    }
    throw quietError(400, 'MW-400-VALIDATION', REJECTIONS.validation().message, detailsOf(findings));
  }
  if (!items) throw quietError(400, 'MW-400-VALIDATION', REJECTIONS.validation().message); // valid implies located

  const results: ItemResult[] = [];
  for (const it of items) {
    const entries: ItemResult['entries'] = [];
    for (const [j, request] of it.entries.entries()) {
      const outcome = RULES[op.id]({ store, company, defects, pointer: `${it.pointer}/TransactionData/${j}` }, request);
      entries.push({ request, outcome: outcome instanceof Promise ? await outcome : outcome });
    }
    results.push({ request: it.request, entries });
  }
  const outcomes = results.flatMap((r) => r.entries.map((e) => e.outcome));
  const failed = outcomes.filter((o): o is Extract<Outcome<unknown>, { ok: false }> => !o.ok);
  // In http mode a request whose entries all failed is an HTTP error. Once any entry succeeded
  // (a payment may have debited) the answer must carry it, so failures beside it go in-band.
  if (options.errors === 'http' && failed.length > 0 && failed.length === outcomes.length && !failed.some((f) => f.rejection.inBand)) {
    const first = failed[0]!.rejection;
    throw quietError(first.status, first.code, first.message, failed.flatMap((f) => (f.rejection.detail ? [f.rejection.detail] : [])));
  }
  return renderResponse(op, results, render);
}
