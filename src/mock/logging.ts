/**
 * The mock's structured logs (MOCK_LOG_LEVEL): pino JSON lines through fastify's logger, on stdout.
 *
 * `silent` (the default of `startMock`, and so of the embedded mock the suite starts in-process)
 * builds fastify without a logger at all, so the mock costs nothing per call for logs it would not
 * write; `npm run mock` defaults to `info`. At `info` each call ends in one line
 * `request completed` (`method`, `url`, `statusCode`, `responseTime` in ms, `companyId`,
 * `correlationId`), or, when the connection went before an answer was sent (a dropped connection
 * of MOCK_FAULTS, a client that gave up), a `warn` line `connection closed before an answer` with
 * `statusCode` null. A load balancer's probes (`GET /health`, `/ready`) are logged at debug only. At `debug` each call also logs its arrival with its headers, the secrets among
 * them redacted: `authorization`, `clientsecret`, the signature header, `proxy-authorization`,
 * `cookie`. Bodies are never logged.
 */
import { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { SIGNATURE_HEADER } from './auth.js';

export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What pino writes instead of a secret header's value. */
export const REDACTED = '[redacted]';

const SECRET_HEADERS = ['authorization', 'clientsecret', SIGNATURE_HEADER.toLowerCase(), 'proxy-authorization', 'cookie'];

/** pino `redact` paths: the secret headers wherever a log line carries headers. */
export const REDACT_PATHS = ['req.headers', 'headers'].flatMap((base) => SECRET_HEADERS.map((h) => `${base}[${JSON.stringify(h)}]`));

const MAX_URL = 1024;

/** A load balancer's probes (GET): not calls. Left out of the access log, and of the request log below debug. */
export const PROBE_PATHS: ReadonlySet<string> = new Set(['/health', '/ready']);

/**
 * Fastify's logging options for a level: no logger when silent (no cost per call); else pino with
 * the redaction, and fastify's own request lines off (attachRequestLog writes one per call).
 */
export function loggingOptions(level: LogLevel | undefined): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (level === undefined || level === 'silent') return { logger: false };
  return { logger: { level, redact: { paths: REDACT_PATHS, censor: REDACTED } }, logController: new LogController({ disableRequestLogging: true }) };
}

/**
 * The request log: one onRequest hook, installed only when a level at which it writes is set.
 * Fastify's own request logging is off (its two lines per call carry neither the status and the
 * company together nor a dropped connection).
 */
export function attachRequestLog(app: FastifyInstance, level: LogLevel | undefined): void {
  const rank = LOG_LEVELS.indexOf(level ?? 'silent');
  if (rank < LOG_LEVELS.indexOf('info')) return;
  const debug = rank >= LOG_LEVELS.indexOf('debug');
  app.addHook('onRequest', async (req, reply) => {
    const started = performance.now();
    const url = req.url.length > MAX_URL ? req.url.slice(0, MAX_URL) : req.url;
    if (!debug && req.method === 'GET' && PROBE_PATHS.has(url.split('?')[0] ?? '')) return;
    if (debug) req.log.debug({ method: req.method, url, headers: req.headers }, 'incoming request');
    // 'finish': the whole answer was handed to the connection; 'close' alone: the connection went first
    let sent = false;
    reply.raw.once('finish', () => { sent = true; });
    reply.raw.once('close', () => {
      const fields = {
        method: req.method,
        url,
        statusCode: sent ? reply.raw.statusCode : null,
        responseTime: Math.round((performance.now() - started) * 1000) / 1000,
        companyId: req.headers.companyid ?? null,
        correlationId: req.correlationId || null,
      };
      if (fields.statusCode === null) req.log.warn(fields, 'connection closed before an answer');
      else req.log.info(fields, 'request completed');
    });
  });
}
