/**
 * The outbound network (design.md §10): one dispatcher, built from the configuration, serves every
 * call the suite makes (the cases, the token endpoint, the preflight, `certify-client --upstream`).
 * undici's EnvHttpProxyAgent does the proxying (CONNECT tunnels, NO_PROXY, proxy credentials) and
 * takes the TLS options: the default roots plus SADAD_CA_FILE, and the client certificate. Node 20's
 * own fetch ignores HTTPS_PROXY, and NODE_EXTRA_CA_CERTS is read only when a process starts, so
 * neither is relied on. undici 7 (not 8): 8 needs Node 22.19, and these machines run Node 20.
 *
 * The lowest floor that sends anything: it knows no operation, no suite and no report.
 */
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { EnvHttpProxyAgent, fetch as undiciFetch, type Dispatcher } from 'undici';
import { proxyFor, proxySettingsFromEnv, type ProxyEndpoint, type ProxySettings } from './proxy.js';
import { tlsMaterialFromEnv, type TlsMaterial } from './material.js';
import { captureTlsAlerts } from './alerts.js';

export * from './errors.js';
export * from './material.js';
export * from './proxy.js';

export interface NetworkConfig {
  tls: TlsMaterial;
  proxy: ProxySettings;
  /** Values no report may show: the proxy passwords (the TLS passphrase is the configuration's). */
  secrets: string[];
  /** NODE_EXTRA_CA_CERTS, which Node added to its default store at start: an explicit `ca` list would drop it otherwise. */
  nodeExtraCaFile?: string;
}

/** The network part of the settings, from these variables (src/config reads them once). */
export function networkFromEnv(env: Readonly<Record<string, string | undefined>>, now = Date.now()): NetworkConfig {
  const tls = tlsMaterialFromEnv(env, now);
  const proxy = proxySettingsFromEnv(env);
  const extraCa = env.NODE_EXTRA_CA_CERTS?.trim();
  return { tls, proxy, secrets: [...(proxy.https?.secrets ?? []), ...(proxy.http?.secrets ?? [])], ...(extraCa ? { nodeExtraCaFile: extraCa } : {}) };
}

/** No TLS material and no proxy: Node's defaults would do, and the dispatcher adds nothing. */
export const isPlainNetwork = (net: NetworkConfig) => !net.tls.ca && !net.tls.client && !net.proxy.https && !net.proxy.http;

const extraRoots = new Map<string, string[]>();
/** The roots of NODE_EXTRA_CA_CERTS, read once. */
function nodeExtraRoots(file: string | undefined): string[] {
  if (!file) return [];
  let roots = extraRoots.get(file);
  if (!roots) {
    roots = [];
    try { roots = readFileSync(file, 'utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []; } catch { /* Node warned at start */ }
    extraRoots.set(file, roots);
  }
  return roots;
}

export interface TlsOptions { ca?: string[]; cert?: string; key?: string }

/** The options of every TLS connection the suite opens: the roots it trusts and the certificate it shows. */
export function tlsOptions(net: NetworkConfig): TlsOptions {
  const out: TlsOptions = {};
  if (net.tls.ca) out.ca = [...rootCertificates, ...nodeExtraRoots(net.nodeExtraCaFile), ...net.tls.ca.pems];
  if (net.tls.client) { out.cert = net.tls.client.certPem; out.key = net.tls.client.keyPem; }
  return out;
}

const dispatchers = new WeakMap<NetworkConfig, Dispatcher>();

/** The one dispatcher of a configuration (built once; connections are kept alive across calls). */
export function dispatcherFor(net: NetworkConfig): Dispatcher {
  let d = dispatchers.get(net);
  if (!d) {
    captureTlsAlerts();
    const tls = tlsOptions(net);
    d = new EnvHttpProxyAgent({
      // explicit values ('' for unset): the environment was read once, into `net`
      httpProxy: net.proxy.http?.url ?? '',
      httpsProxy: net.proxy.https?.url ?? '',
      noProxy: net.proxy.noProxy,
      // a direct connection's TLS, the TLS inside a proxy's tunnel, and TLS to an https:// proxy
      connect: tls,
      requestTls: tls,
      proxyTls: tls.ca ? { ca: tls.ca } : {},
    });
    dispatchers.set(net, d);
  }
  return d;
}

/** Closes the dispatcher of a configuration (its kept-alive connections), when one was built. */
export async function closeDispatcher(net: NetworkConfig): Promise<void> {
  const d = dispatchers.get(net);
  if (!d) return;
  dispatchers.delete(net);
  await d.close().catch(() => {});
}

/** The proxy a call to `url` takes, for the words of a report: its masked URL, or null. */
export function routeOf(net: NetworkConfig, url: string): { proxy: ProxyEndpoint | null; bypassedBy: string | null } {
  return proxyFor(net.proxy, url);
}

export type NetRequestInit = Parameters<typeof undiciFetch>[1];

/** fetch through the configuration's dispatcher. */
export function netFetch(net: NetworkConfig, url: string, init: NetRequestInit = {}) {
  return undiciFetch(url, { ...init, dispatcher: dispatcherFor(net) });
}
