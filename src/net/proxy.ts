/**
 * The corporate proxy (design.md §10): HTTPS_PROXY, HTTP_PROXY and NO_PROXY, each also in lower
 * case (the lower-case one wins, as with curl and undici). Node 20's fetch ignores them all, so the
 * suite reads them here and hands them to undici's EnvHttpProxyAgent explicitly; `proxyFor` answers
 * with the same rule undici applies, so the preflight and the curl commands name the proxy a call
 * really takes. Credentials in a proxy URL are secrets: reports show the URL masked.
 */
import { ConfigError } from '../contract/prefix.js';

export interface ProxyEndpoint {
  /** The variable it came from (`HTTPS_PROXY`, `https_proxy`, ...). */
  variable: string;
  /** The URL as configured, credentials included: for the dispatcher only. */
  url: string;
  /** The URL with any password masked: safe to print. */
  display: string;
  /** The user name and password, when the URL carries them (secrets). */
  secrets: string[];
}

export interface ProxySettings {
  https: ProxyEndpoint | null;
  http: ProxyEndpoint | null;
  /** NO_PROXY as configured ('' when unset). */
  noProxy: string;
  noProxyVariable: string | null;
}

type Env = Readonly<Record<string, string | undefined>>;
const MASK = '«masked»';

function pick(env: Env, upper: string): { variable: string; value: string } | null {
  const lower = upper.toLowerCase();
  for (const name of [lower, upper]) {
    const v = env[name];
    if (v !== undefined && v.trim() !== '') return { variable: name, value: v.trim() };
  }
  return null;
}

function endpoint(env: Env, upper: string): ProxyEndpoint | null {
  const found = pick(env, upper);
  if (!found) return null;
  // `proxy.corp:3128` without a scheme is common in the wild; curl reads it as http://
  const raw = /^[a-z][a-z0-9+.-]*:\/\//i.test(found.value) ? found.value : `http://${found.value}`;
  let url: URL;
  try { url = new URL(raw); } catch { throw new ConfigError(found.variable, `must be a proxy URL like http://proxy.example:3128, got ${JSON.stringify(maskUserinfo(found.value))}`); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(found.variable, `must use http or https (a proxy speaking CONNECT), got ${url.protocol}`);
  const secrets = [decodeURIComponent(url.password), url.password].filter((s) => s.length >= 4);
  return { variable: found.variable, url: url.href, display: maskUserinfo(url.href), secrets };
}

/** `http://user:«masked»@proxy:3128/`: the password never reaches a report. */
export function maskUserinfo(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:\s]*):[^/@\s]*@/i, `$1:${MASK}@`);
}

export function proxySettingsFromEnv(env: Env): ProxySettings {
  const no = pick(env, 'NO_PROXY');
  return { https: endpoint(env, 'HTTPS_PROXY'), http: endpoint(env, 'HTTP_PROXY'), noProxy: no?.value ?? '', noProxyVariable: no?.variable ?? null };
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a call to `target` goes through, or null for a direct connection, by undici's
 * EnvHttpProxyAgent rule: NO_PROXY entries match the host or any subdomain (a leading `.` or `*.`
 * is dropped), optionally with a port, `*` bypasses everything; an https target uses HTTPS_PROXY,
 * and HTTP_PROXY when that is unset; an http target uses HTTP_PROXY.
 */
export function proxyFor(settings: ProxySettings, target: string): { proxy: ProxyEndpoint | null; bypassedBy: string | null } {
  const url = new URL(target);
  const chosen = url.protocol === 'https:' ? settings.https ?? settings.http : settings.http;
  if (!chosen) return { proxy: null, bypassedBy: null };
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  const value = settings.noProxy;
  if (value.trim() === '*') return { proxy: null, bypassedBy: `${settings.noProxyVariable}=*` };
  for (const entry of value.split(/[,\s]/).filter(Boolean)) {
    const m = /^(.+):(\d+)$/.exec(entry);
    const name = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = m ? Number.parseInt(m[2]!, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (host === name || host.endsWith(`.${name}`)) return { proxy: null, bypassedBy: `${settings.noProxyVariable} entry ${JSON.stringify(entry)}` };
  }
  return { proxy: chosen, bypassedBy: null };
}
