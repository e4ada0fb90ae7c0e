/**
 * The path a call takes, one layer at a time, for the preflight (design.md §10): the name, the TCP
 * connection (to the target, or to the proxy and through its CONNECT tunnel), and the TLS handshake
 * with what each side showed. A call that fails says only "fetch failed"; these say which layer and
 * why. The tunnel is undici's own (Client#connect), not hand-written; the handshake is node:tls on
 * the socket it yields, with verification done here rather than by OpenSSL, so that an untrusted or
 * mismatched certificate is still inspected and described instead of cutting the handshake short.
 */
import { lookup } from 'node:dns/promises';
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { checkServerIdentity, connect as tlsConnect, type PeerCertificate, type TLSSocket } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { Client } from 'undici';
import { certInfo, type CertInfo } from './material.js';
import { describeNetworkError, describeTlsCode, type NetFailure } from './errors.js';
import { routeOf, tlsOptions, type NetworkConfig } from './index.js';
import type { ProxyEndpoint } from './proxy.js';

export interface Endpoint { host: string; port: number }

/** Where the first TCP connection of a call to `url` goes: the target itself, or its proxy. */
export function firstHop(net: NetworkConfig, url: string): { target: Endpoint; proxy: ProxyEndpoint | null; connectTo: Endpoint; bypassedBy: string | null } {
  const u = new URL(url);
  const target = { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || (u.protocol === 'https:' ? 443 : 80) };
  const route = routeOf(net, url);
  if (!route.proxy) return { target, proxy: null, connectTo: target, bypassedBy: route.bypassedBy };
  const p = new URL(route.proxy.url);
  return { target, proxy: route.proxy, connectTo: { host: p.hostname.replace(/^\[|\]$/g, ''), port: Number(p.port) || (p.protocol === 'https:' ? 443 : 80) }, bypassedBy: null };
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> => new Promise<T>((resolve, reject) => {
  const t = setTimeout(() => reject(Object.assign(new Error(`${what}: no answer within ${ms} ms`), { code: 'ETIMEDOUT' })), ms);
  p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
});

export interface DnsResult { host: string; addresses: string[]; ms: number; failure?: NetFailure }

export async function resolveHost(host: string, timeoutMs: number): Promise<DnsResult> {
  const started = Date.now();
  if (isIP(host)) return { host, addresses: [host], ms: 0 };
  try {
    const found = await withTimeout(lookup(host, { all: true }), timeoutMs, `resolving ${host}`);
    return { host, addresses: found.map((a) => a.address), ms: Date.now() - started };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const failure: NetFailure = code === 'ENOTFOUND'
      ? { kind: 'dns', class: 'configuration', code, message: `${host} does not resolve (ENOTFOUND)` }
      : code === 'ETIMEDOUT' ? { kind: 'dns', class: 'transient', code, message: `the name server gave no answer for ${host} within ${timeoutMs} ms` }
        : { kind: 'dns', class: 'transient', ...(code ? { code } : {}), message: `${host} could not be resolved: ${(e as Error).message}` };
    return { host, addresses: [], ms: Date.now() - started, failure };
  }
}

export interface TcpResult { endpoint: Endpoint; ms: number; address?: string; failure?: NetFailure }

export function connectTcp(endpoint: Endpoint, timeoutMs: number): Promise<TcpResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: endpoint.host, port: endpoint.port });
    const done = (r: Omit<TcpResult, 'endpoint' | 'ms'>) => { socket.destroy(); resolve({ endpoint, ms: Date.now() - started, ...r }); };
    socket.setTimeout(timeoutMs, () => done({ failure: { kind: 'timeout', class: 'transient', code: 'ETIMEDOUT', message: `no answer from ${endpoint.host}:${endpoint.port} within ${timeoutMs} ms (a firewall dropping the connection, or the host down)` } }));
    socket.once('connect', () => done({ ...(socket.remoteAddress ? { address: socket.remoteAddress } : {}) }));
    socket.once('error', (e) => done({ failure: describeNetworkError(e) }));
  });
}

export interface TunnelResult { ms: number; socket?: Socket; status?: number; failure?: NetFailure }

/** Opens the proxy's CONNECT tunnel to the target, as undici's ProxyAgent does for every call. */
export async function openTunnel(net: NetworkConfig, proxy: ProxyEndpoint, target: Endpoint, timeoutMs: number): Promise<TunnelResult> {
  const started = Date.now();
  const p = new URL(proxy.url);
  const ca = tlsOptions(net).ca;
  const client = new Client(p.origin, { connect: { ...(ca ? { ca } : {}), timeout: timeoutMs } });
  const headers: Record<string, string> = { host: `${target.host}:${target.port}` };
  if (p.username) headers['proxy-authorization'] = `Basic ${Buffer.from(`${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`).toString('base64')}`;
  try {
    const { statusCode, socket } = await client.connect({ path: `${target.host}:${target.port}`, headers, signal: AbortSignal.timeout(timeoutMs) });
    if (statusCode !== 200) {
      socket.destroy();
      const failure = describeNetworkError(new Error(`Proxy response (${statusCode}) !== 200 when HTTP Tunneling`), { host: target.host, via: proxy.display });
      return { ms: Date.now() - started, status: statusCode, failure };
    }
    // the socket now belongs to the caller; the client must not reuse or close it
    return { ms: Date.now() - started, status: statusCode, socket: socket as Socket };
  } catch (e) {
    return { ms: Date.now() - started, failure: describeNetworkError(e, { host: target.host, via: proxy.display }) };
  } finally {
    client.close().catch(() => {});
  }
}

export interface TlsResult {
  ms: number;
  protocol?: string;
  cipher?: string;
  /** The server's chain, leaf first, as it was presented. */
  chain: CertInfo[];
  /** Whether the chain verifies against the roots in use (the defaults, plus SADAD_CA_FILE when set). */
  trusted: boolean;
  verifyError?: string;
  /** Whether the certificate is for the host name. */
  hostMatches: boolean;
  hostError?: string;
  /** A client certificate was offered (one is configured) and the server did not end the connection over it. */
  clientCertificate: 'none configured' | 'accepted' | 'refused';
  failure?: NetFailure;
}

function chainOf(peer: PeerCertificate | undefined, now: number): CertInfo[] {
  const out: CertInfo[] = [];
  const seen = new Set<string>();
  let cur = peer as (PeerCertificate & { issuerCertificate?: PeerCertificate }) | undefined;
  while (cur && cur.raw && !seen.has(cur.fingerprint256)) {
    seen.add(cur.fingerprint256);
    out.push(certInfo(new X509Certificate(cur.raw), now));
    cur = cur.issuerCertificate as typeof cur;
  }
  return out;
}

/**
 * One TLS handshake with the suite's own TLS options (trusted roots, client certificate), over
 * `socket` (a proxy tunnel) or a direct connection. With TLS 1.3 the server judges a client
 * certificate after the client considers the handshake done, so the result waits for the server's
 * session ticket (it sends one only to a client it accepted) or its alert, at most `settleMs`.
 */
export function handshake(net: NetworkConfig, target: Endpoint, options: { socket?: Socket; timeoutMs: number; withClientCertificate?: boolean; settleMs?: number; now?: number }): Promise<TlsResult> {
  const started = Date.now();
  const tls = tlsOptions(net);
  const offer = options.withClientCertificate ?? !!net.tls.client;
  const servername = isIP(target.host) ? undefined : target.host;
  return new Promise((resolve) => {
    let settled = false;
    let socket: TLSSocket;
    const base: TlsResult = { ms: 0, chain: [], trusted: false, hostMatches: false, clientCertificate: offer ? 'accepted' : 'none configured' };
    let result: TlsResult = base;
    const finish = (r: Partial<TlsResult>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      options.socket?.destroy();
      resolve({ ...result, ...r, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish({ failure: { kind: 'timeout', class: 'transient', code: 'ETIMEDOUT', message: `the TLS handshake with ${target.host}:${target.port} did not finish within ${options.timeoutMs} ms` } }), options.timeoutMs);
    socket = tlsConnect({
      ...(options.socket ? { socket: options.socket } : { host: target.host, port: target.port }),
      ...(servername ? { servername } : {}),
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(offer && tls.cert ? { cert: tls.cert, key: tls.key } : {}),
      // verified below, so that an untrusted certificate is still read and described
      rejectUnauthorized: false,
    });
    socket.once('secureConnect', () => {
      const peer = socket.getPeerCertificate(true);
      const chain = chainOf(peer, options.now ?? Date.now());
      const verifyError = socket.authorizationError ? String(socket.authorizationError) : undefined;
      const hostError = peer && peer.raw ? checkServerIdentity(target.host, peer)?.message : 'the server presented no certificate';
      result = {
        ...base, chain, trusted: socket.authorized, ...(verifyError ? { verifyError } : {}), hostMatches: !hostError, ...(hostError ? { hostError } : {}),
        protocol: socket.getProtocol() ?? 'unknown', cipher: socket.getCipher()?.name ?? 'unknown',
      };
      if (socket.getProtocol() !== 'TLSv1.3') return finish({});
      // TLS 1.3: the verdict on a client certificate arrives after the handshake
      socket.once('session', () => finish({}));
      // some servers (Node's among them) refuse a certificate from another CA by closing, without an alert
      socket.once('end', () => finish(offer
        ? { clientCertificate: 'refused', failure: { kind: 'tls', class: 'configuration', code: 'CLOSED_AFTER_HANDSHAKE', message: `the server closed the connection right after the handshake, without a word: it did not accept the client certificate offered (${net.tls.client?.info.subject}, issued by ${net.tls.client?.info.issuer})`, advice: 'use the certificate the bank issued for this sandbox in SADAD_TLS_CERT / SADAD_TLS_PFX: this one is issued by a CA the server does not trust, expired or revoked' } }
        : { failure: { kind: 'tls', class: 'configuration', code: 'CLOSED_AFTER_HANDSHAKE', message: 'the server closed the connection right after the handshake: it may require a client certificate (mutual TLS)', advice: 'set SADAD_TLS_CERT and SADAD_TLS_KEY (PEM), or SADAD_TLS_PFX with SADAD_TLS_PASSPHRASE (PKCS#12), to the client certificate the bank issued' } }));
      setTimeout(() => finish({}), options.settleMs ?? 1500).unref();
    });
    socket.once('error', (e) => {
      const failure = describeNetworkError(e, { host: target.host, clientCertificate: offer });
      const refused = failure.kind === 'tls' && /client certificate/.test(failure.message);
      finish({ failure, ...(refused && offer ? { clientCertificate: 'refused' as const } : {}) });
    });
  });
}

/** The configuration failure a handshake result amounts to, if any (the server's certificate, the host name). */
export function trustFailure(r: TlsResult, host: string): NetFailure | undefined {
  if (r.failure) return r.failure;
  if (!r.trusted && r.verifyError) return describeTlsCode(r.verifyError, r.chain[0] ? `${r.chain[0].subject}, issued by ${r.chain[0].issuer}` : 'no certificate', { host });
  if (!r.hostMatches) return describeTlsCode('ERR_TLS_CERT_ALTNAME_INVALID', `${r.hostError ?? ''}${r.chain[0]?.altNames ? `; it names ${r.chain[0].altNames}` : ''}`, { host });
  return undefined;
}
