/**
 * The validating proxy (`certify-client --upstream <sandbox>`): the client talks to it as to the
 * sandbox, every call is forwarded with its bytes and headers unchanged (the proxy adds no
 * credentials of its own; only hop-by-hop headers and Host are the connection's), and both sides
 * are recorded for the judge. The proxy enforces the spec's limits before forwarding, so a client
 * going past them is refused here (and judged) instead of spending the sandbox's budget, and it
 * injects the gateway scenarios (a 429, a 503 blip, a held answer) that a sandbox cannot be asked
 * for. A sandbox that fails to answer gets a 502 from the proxy, recorded as the sandbox's fault.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'undici';
import { describeNetworkError, dispatcherFor, routeOf, type NetworkConfig } from '../net/index.js';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { operations } from '../contract/catalogue.js';
import { CompanyRegistry } from '../mock/companies.js';
import { Defects } from '../mock/defects.js';
import { errorBody, MockError } from '../mock/errors.js';
import type { MockOptions } from '../mock/options.js';
import { rateLimitFor, registerRateLimiter } from '../mock/rate-limit.js';
import { Scenarios } from '../mock/scenarios.js';
import { DEFAULT_LATE_ANSWER_MS } from '../mock/magic.js';
import type { TrafficRecorder } from './traffic.js';

/** Headers of one connection, never forwarded (RFC 9110 §7.6.1), and Host, which names the upstream. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host']);
/** How long the sandbox may take before the proxy answers 502 for it. */
export const UPSTREAM_TIMEOUT_MS = 60_000;
const READ_LIMIT = 16 * 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    rawBytes?: Buffer;
  }
}

interface Upstream { status: number; headers: IncomingHttpHeaders; body: Buffer }

/**
 * Forwards through the configured network (design.md §10): the corporate proxy, the bank's CA and
 * the company's client certificate serve the sandbox behind the judge as they serve the suite.
 */
async function forward(base: URL, req: FastifyRequest, net: NetworkConfig): Promise<Upstream> {
  const target = new URL(req.url, base.href.endsWith('/') ? base.href : `${base.href}/`);
  // a base URL with a path prefix keeps it: <base>/api/enquiry/sadad/bill
  if (base.pathname !== '/' && !target.pathname.startsWith(base.pathname)) target.pathname = `${base.pathname.replace(/\/$/, '')}${req.url.split('?')[0]}`;
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP_BY_HOP.has(k.toLowerCase())) headers[k] = v;
  const body = req.rawBytes;
  try {
    const res = await request(target, {
      method: req.method as 'POST', headers, body: body && body.length ? body : null, dispatcher: dispatcherFor(net),
      headersTimeout: UPSTREAM_TIMEOUT_MS, bodyTimeout: UPSTREAM_TIMEOUT_MS,
    });
    return { status: res.statusCode, headers: res.headers as IncomingHttpHeaders, body: Buffer.from(await res.body.arrayBuffer()) };
  } catch (e) {
    const route = routeOf(net, target.href);
    const f = describeNetworkError(e, { host: target.hostname, clientCertificate: !!net.tls.client, ...(route.proxy ? { via: route.proxy.display } : {}) });
    throw new Error(f.kind === 'timeout' && !f.code ? `no answer within ${UPSTREAM_TIMEOUT_MS / 1000} s` : `${f.message}${f.advice ? ` (${f.advice})` : ''}`);
  }
}

export async function buildProxy(upstream: string, options: MockOptions, recorder: TrafficRecorder, net: NetworkConfig): Promise<FastifyInstance> {
  const base = new URL(upstream);
  const app = Fastify({ logger: false, bodyLimit: READ_LIMIT, exposeHeadRoutes: false, forceCloseConnections: true });
  recorder.attach(app);
  app.decorateRequest('company', '');
  app.decorateRequest('correlationId', '');
  app.addHook('onRequest', async (req) => { req.company = String(req.headers.companyid ?? ''); });

  // Every body is kept as bytes for forwarding; JSON bodies are also parsed, for the scenarios.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: READ_LIMIT }, (req, body, done) => {
    const bytes = body as Buffer;
    req.rawBytes = bytes;
    req.rawBody = bytes.toString('utf8');
    let parsed: unknown = undefined;
    if (/json/i.test(String(req.headers['content-type'] ?? ''))) { try { parsed = JSON.parse(req.rawBody); } catch { /* forwarded as sent; the sandbox judges it */ } }
    done(null, parsed);
  });

  app.setErrorHandler((err: Error, req, reply) => {
    const mock = err instanceof MockError ? err : new MockError((err as { statusCode?: number }).statusCode ?? 502, 'PROXY', err.message);
    for (const [k, v] of Object.entries(mock.headers)) reply.header(k, v);
    reply.code(mock.statusCode).type('application/json; charset=utf-8').send(errorBody(mock));
  });

  const relay = async (req: FastifyRequest, reply: FastifyReply) => {
    let answer: Upstream;
    try {
      answer = await forward(base, req, net);
    } catch (e) {
      req.answerSource = 'proxy-fault';
      req.upstreamError = `the sandbox gave no answer: ${(e as Error).message}`;
      throw new MockError(502, 'PROXY-502', req.upstreamError);
    }
    req.answerSource = 'upstream';
    reply.code(answer.status);
    for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'content-length') reply.header(k, v);
    return reply.send(answer.body);
  };

  await registerRateLimiter(app, options.limiter);
  const scenarios = new Scenarios(options.tagPrefix, options.lateAnswerMs ?? DEFAULT_LATE_ANSWER_MS);
  const noDefects = new Defects([]);
  // MOCK_COMPANIES: each company (by its CompanyId header) within its own limits
  const companies = new CompanyRegistry(options);
  for (const op of operations) {
    const s = scenarios.hooks(op);
    app.route({ method: 'POST', url: op.path, config: { rateLimit: rateLimitFor(op, options, noDefects, companies) }, preHandler: s.preHandler, onSend: s.onSend, handler: relay });
  }
  // everything else (a token endpoint, other methods and paths) is passed through unjudged
  app.setNotFoundHandler(relay);
  return app;
}
