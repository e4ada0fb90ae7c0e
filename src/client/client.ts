/**
 * The one way the suite talks to a target: builds the headers, signs, paces, sends with a timeout
 * and records the exchange masked. Sends with undici through the configuration's one dispatcher
 * (proxy, trusted roots, client certificate: src/net), never with Playwright's request fixture, so
 * real headers never reach Playwright's own logs, traces or error call logs.
 */
import { operation, type OperationId } from '../contract/catalogue.js';
import { referenceIdHeader, specTimestamp } from '../contract/headers.js';
import { shortUniqueId } from '../base/unique.js';
import type { SuiteConfig } from '../config/index.js';
import type { Pacer } from '../pacer/pacer.js';
import { recordRequest, recordResponse, type Exchange } from './exchange.js';
import { isSecretHeader, registerSecret } from './redact.js';
import type { Signer } from './signer.js';
import type { TokenSource } from './token.js';
import { describeNetworkError, netFetch, routeOf } from '../net/index.js';
import { noteWritten, type Written } from '../net/written.js';
import { OUTAGE_KINDS, type Health } from '../pacer/outage.js';
import { retryAfterMs, transientKind } from './transient.js';

/** What an exchange says about the target's availability, for the outage watch (pacer/outage.ts). */
export function healthOf(op: string, ex: Exchange): Health {
  const kind = transientKind(ex);
  const after = retryAfterMs(ex);
  return { ok: !kind || !OUTAGE_KINDS.has(kind), op, ...(kind ? { kind } : {}), ...(after !== undefined ? { retryAfterMs: after } : {}), at: Date.parse(ex.startedAt) + ex.durationMs };
}

export interface SendOptions {
  /** JSON body, serialized with JSON.stringify (ignored when bodyText is given). */
  body?: unknown;
  /** The exact body text to send (robustness cases). */
  bodyText?: string;
  /** Header overrides; `null` removes a header the client would otherwise send. */
  headers?: Record<string, string | null>;
  method?: string;
  /** Path override (default: the operation's path). */
  path?: string;
  /** Sign the body (default: when a signer is configured). */
  sign?: boolean;
  /** Inside an exclusive hold: the hold's call function instead of the shared budget. */
  via?: <U>(send: () => Promise<U>) => Promise<U>;
  label?: string;
  /** Per-request timeout (default SADAD_REQUEST_TIMEOUT_MS): the preflight keeps to its 15 s. */
  timeoutMs?: number;
}

export class SadadClient {
  /** The bearer token each exchange was sent with, so a refused one can be dropped (never recorded). */
  private readonly tokenOf = new WeakMap<Exchange, string>();

  constructor(
    readonly config: SuiteConfig,
    private readonly deps: { pacer: Pacer; tokens: TokenSource; signer: Signer | undefined },
  ) {}

  get signer() { return this.deps.signer; }
  get pacer() { return this.deps.pacer; }
  get tokens() { return this.deps.tokens; }

  /** The target refused the token this exchange carried: the next call fetches a fresh one (when renewable). */
  refuseToken(ex: Exchange): void {
    const used = this.tokenOf.get(ex);
    if (used) this.deps.tokens.invalidate(used);
  }

  /** The headers a conformant client sends (spec §5), before signing. */
  async baseHeaders(opId: OperationId, token?: string): Promise<Record<string, string>> {
    const c = this.config;
    const h: Record<string, string> = {
      'Content-Type': 'application/json',
      CompanyId: c.companyId,
      [referenceIdHeader(c.headerPrefix)]: shortUniqueId(16),
      DateTimeStamp: specTimestamp(),
      Device: c.device,
      Authorization: `Bearer ${token ?? await this.deps.tokens.token()}`,
    };
    if (operation(opId).clientHeaders && c.clientId && c.clientSecret) Object.assign(h, { clientid: c.clientId, clientsecret: c.clientSecret });
    return h;
  }

  async send(opId: OperationId, options: SendOptions = {}): Promise<Exchange> {
    const op = operation(opId);
    const bodyText = options.bodyText ?? JSON.stringify(options.body ?? null);
    const token = await this.deps.tokens.token();
    const headers = await this.baseHeaders(opId, token);
    if ((options.sign ?? true) && this.deps.signer) {
      const signature = this.deps.signer.sign({ bodyText, body: options.bodyText === undefined ? options.body : undefined, headers });
      // a target may echo a signature back in its answer: mask the value wherever it shows up
      for (const v of Object.values(signature)) registerSecret(v);
      Object.assign(headers, signature);
    }
    for (const [k, v] of Object.entries(options.headers ?? {})) {
      if (v !== null && isSecretHeader(k)) registerSecret(v.replace(/^Bearer\s+/i, ''));
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
      if (v !== null) headers[k] = v;
    }
    const method = options.method ?? op.method;
    const url = `${this.config.baseUrl}${options.path ?? op.path}`;
    const exec = () => this.exchange(options.label ?? opId, opId, method, url, headers, method === 'GET' || method === 'HEAD' ? undefined : bodyText, options.timeoutMs);
    const ex = await (options.via ? options.via(exec) : this.deps.pacer.call(opId, exec, (e) => healthOf(opId, e)));
    // a burst's call (inside an exclusive hold) is not released through the budget: its outcome is reported apart
    if (options.via) await this.deps.pacer.report(healthOf(opId, ex)).catch(() => {});
    this.tokenOf.set(ex, token);
    return ex;
  }

  /**
   * Sends one request and records it; never throws for anything the target or the network does. A
   * failure the configuration must fix (an untrusted certificate, a proxy asking for credentials)
   * is recorded as `configuration`, with what to change: it never heals by sending again.
   */
  async exchange(label: string, op: string | undefined, method: string, url: string, headers: Record<string, string>, bodyText: string | undefined, timeoutMs = this.config.requestTimeoutMs): Promise<Exchange> {
    const started = Date.now();
    const base = recordRequest(label, op, method, url, headers, bodyText ?? '');
    const net = this.config.network;
    const written: Written = {};
    const sent = () => (written.at === undefined ? {} : { sentAfterMs: written.at - started });
    try {
      const res = await noteWritten(written, () => netFetch(net, url, { method, headers, body: bodyText ?? null, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' }));
      const text = await res.text();
      const ex: Exchange = { ...base, response: recordResponse(res.status, res.headers, text), startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, ...sent() };
      if (text.trim() !== '') {
        try { ex.json = JSON.parse(text); } catch (e) { ex.parseError = (e as Error).message; }
      }
      return ex;
    } catch (e) {
      const route = routeOf(net, url);
      const f = describeNetworkError(e, { host: new URL(url).hostname, clientCertificate: !!net.tls.client, ...(route.proxy ? { via: route.proxy.display } : {}) });
      const message = f.kind === 'timeout' && !f.code ? `no answer within ${timeoutMs} ms` : `${f.message}${f.code && !f.message.includes(f.code) ? ` (${f.code})` : ''}`;
      const kind = f.class === 'configuration' ? 'configuration' : f.kind === 'timeout' ? 'timeout' : 'network';
      return { ...base, error: { kind, message, ...(f.code ? { code: f.code } : {}), ...(f.advice ? { advice: f.advice } : {}) }, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started, ...sent() };
    }
  }
}
