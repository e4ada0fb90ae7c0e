/**
 * The bearer token: a static one (SADAD_ACCESS_TOKEN), or OAuth2 client credentials from
 * SADAD_TOKEN_URL, cached and fetched again shortly before it expires. Every token is registered
 * as a secret before anything can record it.
 */
import { registerSecret } from './redact.js';
import { describeNetworkError, netFetch, routeOf, type NetworkConfig } from '../net/index.js';

export interface TokenSource {
  token(): Promise<string>;
  /** Whether a refused token can be replaced by a fresh one (client credentials), or not (static). */
  readonly renewable: boolean;
  /** The target refused this token (revoked or expired early): the next token() fetches a new one. */
  invalidate(value: string): void;
}

export class StaticToken implements TokenSource {
  readonly renewable = false;
  constructor(private readonly value: string) { registerSecret(value); }
  async token() { return this.value; }
  invalidate(): void { /* a static token cannot be renewed */ }
}

export class TokenError extends Error {}

export class ClientCredentialsToken implements TokenSource {
  private cached: { value: string; refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;
  readonly renewable = true;

  /** The lifetime the endpoint gave the last token, in seconds (the preflight reports it). */
  lifetimeSeconds: number | undefined;
  /** Whether the endpoint said so (`expires_in`), or the lifetime is the assumed 3600 s. */
  lifetimeStated = false;

  constructor(private readonly options: { url: string; clientId: string; clientSecret: string; timeoutMs: number; now?: () => number; network?: NetworkConfig }) {
    registerSecret(options.clientSecret);
  }

  private now() { return (this.options.now ?? Date.now)(); }

  async token(): Promise<string> {
    if (this.cached && this.now() < this.cached.refreshAt) return this.cached.value;
    // one fetch at a time: concurrent callers share it
    this.pending ??= this.fetchToken().finally(() => { this.pending = undefined; });
    return this.pending;
  }

  invalidate(value: string): void {
    if (this.cached?.value === value) this.cached = undefined;
  }

  private async fetchToken(): Promise<string> {
    const { url, clientId, clientSecret, timeoutMs } = this.options;
    let res: Awaited<ReturnType<typeof fetch>>;
    const net = this.options.network;
    // through the configured proxy and TLS material, like every other call (design.md §10)
    const send = (init: RequestInit) => (net ? netFetch(net, url, init as Parameters<typeof netFetch>[2]) as unknown as Promise<Response> : fetch(url, init));
    try {
      res = await send({
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        // client_code is the name one real deployment uses for the secret (domain notes)
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, client_code: clientSecret }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (e) {
      const f = describeNetworkError(e, { host: new URL(url).hostname, ...(net ? { via: routeOf(net, url).proxy?.display, clientCertificate: !!net.tls.client } : {}) });
      throw new TokenError(`token endpoint ${url} unreachable: ${f.message}${f.advice ? `; ${f.advice}` : ''}`);
    }
    const text = await res.text();
    let body: { access_token?: unknown; expires_in?: unknown } = {};
    try { body = JSON.parse(text); } catch { /* reported below */ }
    if (!res.ok || typeof body.access_token !== 'string' || !body.access_token) {
      throw new TokenError(`token endpoint ${url} answered HTTP ${res.status} without an access_token`);
    }
    registerSecret(body.access_token);
    this.lifetimeStated = typeof body.expires_in === 'number' && body.expires_in > 0;
    const lifetime = this.lifetimeStated ? body.expires_in as number : 3600;
    this.lifetimeSeconds = lifetime;
    // refresh a little early (10%, at most 60 s) so a token never expires in flight
    this.cached = { value: body.access_token, refreshAt: this.now() + lifetime * 1000 - Math.min(60_000, lifetime * 100) };
    return body.access_token;
  }
}
