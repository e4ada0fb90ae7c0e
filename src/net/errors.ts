/**
 * What went wrong on the way to the target, in words that name what to change. A certificate the
 * suite does not trust, a host name that does not match, a client certificate the server wants or
 * refuses, a proxy that wants credentials: none of these heals by sending again, so they are
 * configuration failures (the case is an ERROR at once, the preflight stops the run), never the
 * transient faults a retry is for. Refused, reset and timed-out connections stay transient.
 */

/** `configuration`: the run cannot succeed until something is changed; `transient`: it may heal by itself. */
export type FailureClass = 'configuration' | 'transient';

export type FailureKind = 'timeout' | 'refused' | 'reset' | 'unreachable' | 'dns' | 'tls' | 'proxy';

export interface NetFailure {
  kind: FailureKind;
  class: FailureClass;
  /** The lowest-level error code seen (ECONNREFUSED, SELF_SIGNED_CERT_IN_CHAIN, ...). */
  code?: string;
  /** What happened, in words. */
  message: string;
  /** What to change, naming the variable, when the fix is on this side. */
  advice?: string;
}

type AnyError = Error & { code?: string; cause?: unknown; errors?: unknown[] };

/** The chain of causes, outermost first (fetch wraps the socket's error; happy eyeballs aggregate several). */
function chain(e: unknown): AnyError[] {
  const out: AnyError[] = [];
  let cur: unknown = e;
  for (let i = 0; cur && typeof cur === 'object' && i < 6; i++) {
    const err = cur as AnyError;
    out.push(err);
    if (Array.isArray(err.errors) && err.errors.length) out.push(...(err.errors as AnyError[]).filter((x) => x && typeof x === 'object'));
    cur = err.cause;
  }
  return out;
}

const UNKNOWN_CA = new Set(['UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_UNTRUSTED', 'CERT_SIGNATURE_FAILURE']);
const CLIENT_CERT_REQUIRED = /CERTIFICATE_REQUIRED|ALERT_HANDSHAKE_FAILURE/;
const CLIENT_CERT_REFUSED = /ALERT_UNKNOWN_CA|ALERT_BAD_CERTIFICATE|ALERT_CERTIFICATE_UNKNOWN|ALERT_ACCESS_DENIED|ALERT_CERTIFICATE_EXPIRED|ALERT_CERTIFICATE_REVOKED|ALERT_UNSUPPORTED_CERTIFICATE|ALERT_DECRYPT_ERROR/;

const CA_ADVICE = 'set SADAD_CA_FILE to the PEM bundle of the CA that issued the server\'s certificate (ask the bank for its sandbox CA); it is added to the default roots, never replacing them';
const CLIENT_ADVICE = 'set SADAD_TLS_CERT and SADAD_TLS_KEY (PEM), or SADAD_TLS_PFX with SADAD_TLS_PASSPHRASE (PKCS#12), to the client certificate the bank issued for this company';

/** Describes a TLS verification result or handshake failure by its code. */
export function describeTlsCode(code: string, detail: string, context: { host?: string; clientCertificate?: boolean } = {}): NetFailure {
  const base = { kind: 'tls' as const, class: 'configuration' as const, code };
  if (UNKNOWN_CA.has(code)) return { ...base, message: `the server's certificate is not signed by a CA this suite trusts (${code}: ${detail})`, advice: CA_ADVICE };
  if (code === 'CERT_HAS_EXPIRED') return { ...base, message: `the server's certificate has expired (${detail})`, advice: 'the bank must renew its sandbox certificate; nothing on this side fixes it (check this machine\'s clock too)' };
  if (code === 'CERT_NOT_YET_VALID') return { ...base, message: `the server's certificate is not valid yet (${detail})`, advice: 'check this machine\'s clock' };
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'HOSTNAME_MISMATCH') return { ...base, message: `the server's certificate is not for ${context.host ?? 'this host'} (${detail})`, advice: 'use the host name the certificate names in SADAD_BASE_URL (not an IP address or an alias)' };
  if (CLIENT_CERT_REQUIRED.test(code)) {
    return context.clientCertificate
      ? { ...base, message: `the server ended the handshake (${code}): it did not accept the client certificate offered`, advice: 'check that SADAD_TLS_CERT / SADAD_TLS_PFX is the certificate the bank issued for this sandbox' }
      : { ...base, message: `the server requires a client certificate (mutual TLS) and none is configured (${code})`, advice: CLIENT_ADVICE };
  }
  if (CLIENT_CERT_REFUSED.test(code)) return { ...base, message: `the server refused the client certificate (${code}: ${detail})`, advice: 'the certificate in SADAD_TLS_CERT / SADAD_TLS_PFX is not one the server trusts (issued by another CA, expired or revoked): use the one the bank issued for this sandbox' };
  if (/WRONG_VERSION_NUMBER|UNKNOWN_PROTOCOL|PACKET_LENGTH_TOO_LONG/.test(code)) return { ...base, message: `the port does not speak TLS (${code})`, advice: 'the target answers plain HTTP on that port: check http:// against https:// (and the port) in SADAD_BASE_URL' };
  return { ...base, message: `TLS failed (${code}: ${detail})` };
}

/** Classifies what fetch (undici) threw for one call; `via` names the proxy when the call went through one. */
export function describeNetworkError(e: unknown, context: { host?: string; via?: string; clientCertificate?: boolean } = {}): NetFailure {
  const errs = chain(e);
  const top = errs[0];
  // undici's refused tunnel is an AbortError too (RequestAbortedError, thrown as is by request())
  if (top && (top.name === 'TimeoutError' || top.name === 'AbortError') && !/^Proxy response/.test(top.message ?? '')) return { kind: 'timeout', class: 'transient', message: 'no answer in time' };
  const coded = errs.find((x) => typeof x.code === 'string' && x.code !== 'UND_ERR_SOCKET' && x.code !== 'ECONNRESET') ?? errs.find((x) => typeof x.code === 'string');
  const code = coded?.code;
  const detail = (coded ?? errs.at(-1) ?? top)?.message ?? String(e);
  const via = context.via ? ` (through the proxy ${context.via})` : '';
  const proxyText = errs.map((x) => x.message ?? '').find((m) => /Proxy/i.test(m));
  if (proxyText) {
    const status = /\((\d{3})\)/.exec(proxyText)?.[1];
    if (status === '407') return { kind: 'proxy', class: 'configuration', code: 'PROXY_407', message: `the proxy ${context.via ?? ''} requires authentication (HTTP 407)`.replace('  ', ' '), advice: 'put the proxy credentials in the proxy URL: HTTPS_PROXY=http://user:password@proxy:port (they are masked in every report)' };
    // a proxy answers 5xx to CONNECT when it cannot reach the target (Squid: 503 for a refused connection, 504 for a timeout): the target is down, which may heal
    if (status && status.startsWith('5')) return { kind: 'unreachable', class: 'transient', code: `PROXY_${status}`, message: `the proxy ${context.via ?? ''} could not reach ${context.host ?? 'the target'} (HTTP ${status} to CONNECT)`.replace('  ', ' ') };
    if (status) return { kind: 'proxy', class: 'configuration', code: `PROXY_${status}`, message: `the proxy ${context.via ?? ''} refused to open a tunnel to ${context.host ?? 'the target'} (HTTP ${status})`.replace('  ', ' '), advice: 'ask for the target host to be allowed through the proxy, or bypass it with NO_PROXY when the host is reachable directly' };
  }
  if (code === 'UND_ERR_PRX_TLS') return { kind: 'proxy', class: 'configuration', code, message: `TLS to the proxy failed: ${detail}`, advice: 'add the proxy\'s CA to SADAD_CA_FILE' };
  if (code === 'ECONNREFUSED') return { kind: 'refused', class: 'transient', code, message: `connection refused${via}` };
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE' || code === 'UND_ERR_CLOSED') return { kind: 'reset', class: 'transient', code, message: `the connection was closed before an answer${via}` };
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return { kind: 'timeout', class: 'transient', code, message: `timed out${via}` };
  if (code === 'ENOTFOUND') return { kind: 'dns', class: 'configuration', code, message: `the host name does not resolve${via}: ${detail}`, advice: 'check the host in SADAD_BASE_URL; behind a corporate proxy that resolves names for you, set HTTPS_PROXY' };
  if (code === 'EAI_AGAIN') return { kind: 'dns', class: 'transient', code, message: `the name server did not answer${via}` };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'EADDRNOTAVAIL') return { kind: 'unreachable', class: 'transient', code, message: `no route to the host${via}` };
  if (code && (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || UNKNOWN_CA.has(code) || /^CERT_|_CERT$|HOSTNAME_MISMATCH/.test(code) || code === 'EPROTO')) {
    return describeTlsCode(code === 'EPROTO' ? (/(ERR_SSL_[A-Z0-9_]+|[A-Z_]*ALERT_[A-Z_]+)/.exec(detail)?.[1] ?? code) : code, detail, context);
  }
  return { kind: 'reset', class: 'transient', ...(code ? { code } : {}), message: `${detail}${via}` };
}
