/**
 * What the preflight's four calls say about the configuration. Each answer is read for the mistakes
 * a first configuration usually has, and the finding names the variable to change: a base URL
 * whose path is wrong (404/405 everywhere), a credential refused (which one, from the error body
 * when it says), a login or proxy block page instead of JSON, a request refused for its form
 * (often another deployment's tag or header prefix, which the error body then names), and a
 * gateway that refuses the client certificate with an HTTP answer after the handshake (nginx's
 * `ssl_verify_client on` does: the TLS step alone cannot see it).
 */
import { operation, type OperationId } from '../contract/catalogue.js';
import { referenceIdHeader } from '../contract/headers.js';
import type { Exchange } from '../client/exchange.js';
import type { SuiteConfig } from '../config/index.js';
import { classify, type Outcome } from '../client/outcome.js';
import { transientKind } from '../client/transient.js';
import type { Finding } from './model.js';

export interface Probe { op: OperationId; ex: Exchange }

const squash = (s: string, n = 160) => { const t = s.replace(/\s+/g, ' ').trim(); return t.length > n ? `${t.slice(0, n)}…` : t; };
const contentType = (ex: Exchange) => ex.response?.headers['content-type'] ?? '(none)';
const isJsonAnswer = (ex: Exchange) => ex.response !== undefined && ex.json !== undefined;
const hasBody = (ex: Exchange) => (ex.response?.body ?? '').trim() !== '';

/** One line of evidence per call. */
export function probeLine(p: Probe, tagPrefix: string): string {
  const ex = p.ex;
  const where = `POST ${ex.request.url}`;
  if (ex.error) return `${where} → no answer: ${ex.error.message} (${ex.durationMs} ms)`;
  const o = classify(p.op, ex, tagPrefix);
  return `${where} → ${o.detail}, ${contentType(ex)} (${ex.durationMs} ms)`;
}

/** Another deployment's prefixes, when an answer names them: `OSVSadadBillEnquiryRequest`, `SVReferenceID`. */
export function prefixHints(text: string, config: Pick<SuiteConfig, 'tagPrefix' | 'headerPrefix'>): string[] {
  const hints = new Set<string>();
  for (const m of text.matchAll(/\b([A-Za-z][A-Za-z0-9]{0,15})Sadad(?:Bill|MOI)(?:Enquiry|Payment)(?:Request|Response)?\b/g)) {
    if (m[1] !== config.tagPrefix) hints.add(`the answer names the tag ${m[0]}: set SADAD_TAG_PREFIX=${m[1]} (now ${config.tagPrefix})`);
  }
  for (const m of text.matchAll(/\b([A-Za-z][A-Za-z0-9]{0,15})ReferenceID\b/g)) {
    if (m[1] !== config.headerPrefix && m[0] !== referenceIdHeader(config.headerPrefix)) hints.add(`the answer names the header ${m[0]}: set SADAD_HEADER_PREFIX=${m[1]} (now ${config.headerPrefix}, so the suite sends ${referenceIdHeader(config.headerPrefix)})`);
  }
  return [...hints];
}

/**
 * Gateways that judge the client certificate after the handshake and answer over HTTP. The TLS
 * step cannot see these (the handshake completes, with a certificate or without), and the answers
 * read like a refused message form (nginx's 400) or a refused credential (Kong's 401): without
 * this, the preflight blamed SADAD_TAG_PREFIX for a missing certificate (issue 24). A row matches
 * on the status and on words of the body or a header that name the certificate, so an API's own
 * 400/401/403 (a field, a token) keeps its diagnosis. `missing`: the gateway saw no certificate;
 * `refused`: it saw one and did not accept it. Gateways that refuse in the handshake (HAProxy
 * `verify required`, Envoy `require_client_certificate`, AWS API Gateway's mutual TLS without a
 * certificate) are the TLS step's, and never reach this table.
 */
interface CertificateAnswer {
  /** Whose answer it is and what it means, in the finding's words. */
  says: string;
  statuses: readonly number[];
  /** Words of the body or of a header value; none: the status alone says it. */
  text?: RegExp;
  kind: 'missing' | 'refused';
}

const CERTIFICATE_ANSWERS: readonly CertificateAnswer[] = [
  // nginx's own pages for its internal codes 496 and 495, sent as HTTP 400 (src/http/ngx_http_special_response.c,
  // ngx_http_error_496_page / ngx_http_error_495_page; seen from nginx 1.22 with `ssl_verify_client on`). The same
  // pages come from every nginx-based front: Apigee Edge's Router (docs.apigee.com, "400 Bad Request - SSL certificate
  // error": expired, wrong, or CA missing from the truststore), ingress-nginx, OpenResty: the words are the same
  // whatever the footer names (`nginx`, `openresty`, `cloudflare`)
  { says: 'nginx\'s page for a missing client certificate', statuses: [400], text: /No required SSL certificate was sent/i, kind: 'missing' },
  { says: 'nginx\'s page for a client certificate it could not verify', statuses: [400], text: /The SSL certificate error/i, kind: 'refused' },
  // nginx's codes themselves, which a site sends with `error_page 495 496 ...` or `return` (nginx docs,
  // ngx_http_ssl_module "Error processing": 495 the certificate failed verification, 496 none was presented); also
  // HAProxy's `http-request return status 495|496` after `verify optional` (its `deny` takes them only with an
  // errorfile), Kong's mtls-auth before 2.x (docs.konghq.com mtls-auth 1.5.x: "HTTP 495 ... HTTP 496"), Pomerium (495)
  { says: 'nginx\'s code for no client certificate presented, which other gateways send too', statuses: [496], kind: 'missing' },
  { says: 'nginx\'s code for a client certificate that failed verification, which other gateways send too', statuses: [495], kind: 'refused' },
  // Kong's mtls-auth plugin: HTTP 401 {"message":"No required TLS certificate was sent"} / "TLS certificate failed
  // verification" (Kong/docs.konghq.com app/_hub/kong-inc/mtls-auth/_index.md, "Usage"); 3scale APIcast's
  // tls_validation policy says the same, or "Invalid TLS certificate" / "TLS certificate validation failed", with
  // HTTP 400 unless configured (gateway/src/apicast/policy/tls_validation/tls_validation.lua)
  { says: 'Kong mtls-auth\'s (and APIcast\'s) answer to a missing client certificate', statuses: [400, 401, 403], text: /No required TLS certificate was sent/i, kind: 'missing' },
  { says: 'Kong mtls-auth\'s answer to a client certificate it could not verify', statuses: [400, 401, 403], text: /TLS certificate failed verification/i, kind: 'refused' },
  { says: 'APIcast tls_validation\'s answer to a client certificate it could not verify', statuses: [400, 401, 403], text: /Invalid TLS certificate|TLS certificate validation failed/i, kind: 'refused' },
  // Azure API Management's validate-client-certificate policy fails with HTTP 401, its context.LastError.Reason one of
  // these (ronaldbosma/mtls-with-apim, demos scenario 1 and tests/IntegrationTests/ProtectedApiTests.cs), which
  // on-error sections commonly return in a header (ErrorReason) or the body
  { says: 'Azure API Management\'s reason for a missing client certificate', statuses: [401, 403], text: /\bClientCertificate(?:NotFound|NotPresent|Missing|Required)\b/, kind: 'missing' },
  { says: 'Azure API Management\'s reason for a client certificate it refused', statuses: [401, 403], text: /\bClientCertificate(?:NotTrusted|Expired|NotYetValid|Revoked|IdentityNotMatched|Invalid|ValidationFailed)\b/, kind: 'refused' },
  // a gateway's own words, as policies write them: API Management's documented `<set-status code="403"
  // reason="Invalid client certificate" />` once the policy sets a body too (the reason phrase alone is not
  // recorded), "Client certificate required" / "Client certificate is
  // untrusted or invalid" (an APIM policy behind Application Gateway), OCI API Gateway's "Client certificate is invalid
  // for this gateway", Method's 401 "A valid client certificate is required". The certificate is named ("client", "TLS"
  // or "SSL" certificate), never "certificate" alone: a signature's certificate is the API's business, not the gateway's
  { says: 'the gateway\'s words for a missing client certificate', statuses: [400, 401, 403], text: /\bno (?:client|TLS|SSL) certificate\b|\b(?:client|TLS|SSL)[ -]certificate\b[^.;"]{0,40}\b(?:required|missing|not (?:sent|presented|provided|found)|absent)\b/i, kind: 'missing' },
  { says: 'the gateway\'s words for a client certificate it refused', statuses: [400, 401, 403], text: /\b(?:invalid|untrusted|unknown|expired|revoked|rejected|unauthori[sz]ed)\s+(?:client|TLS|SSL)[ -]certificate\b|\b(?:client|TLS|SSL)[ -]certificate\b[^.;"]{0,40}\b(?:invalid|untrusted|not trusted|expired|revoked|failed|error|not (?:valid|authori[sz]ed|allowed|accepted))\b/i, kind: 'refused' },
];

/**
 * Gateway refusals that do not name the certificate but are what some gateways answer to one they
 * refuse: the credential diagnosis stays, and its fix says this too. Each is the gateway's own
 * answer, never the API's, so the hint is not added to an ordinary 403 of the service.
 */
const MAYBE_CERTIFICATE: readonly { gateway: string; statuses: readonly number[]; matches: (r: NonNullable<Exchange['response']>) => boolean; why: string }[] = [
  // Envoy's RBAC HTTP filter denies with 403 and this body; its policies' principals are often the client
  // certificate's identity (envoyproxy/envoy docs/root/intro/arch_overview/security/rbac_filter.rst: "the URI SAN of
  // the downstream client certificate"); Istio's AuthorizationPolicy answers the same
  { gateway: 'Envoy (RBAC filter)', statuses: [403], matches: (r) => /^\s*RBAC: access denied\s*$/.test(r.body), why: 'its policies often admit a client certificate\'s identity (subject or SAN) and nothing else' },
  // AWS API Gateway with mutual TLS on a custom domain refuses a certificate whose issuer is not in its truststore,
  // a self-signed one or one with an insecure signature algorithm with 403 {"message":"Forbidden"}, the reason only
  // in its execution log (AWS Knowledge Center, "api-gateway-mutual-tls-403-errors"); without a certificate the
  // handshake fails instead
  { gateway: 'AWS API Gateway', statuses: [403], matches: (r) => /^ForbiddenException/.test(r.headers['x-amzn-errortype'] ?? '') || (/^\s*\{\s*"message"\s*:\s*"Forbidden"\s*\}\s*$/.test(r.body) && !!(r.headers['x-amzn-requestid'] ?? r.headers['x-amz-apigw-id'])), why: 'with mutual TLS on a custom domain it answers so to a client certificate whose issuer is not in its truststore, a self-signed one, or one with an insecure signature algorithm' },
  // HAProxy's default 403 page (src/http.c), which `http-request deny if !{ ssl_c_used }` or `{ ssl_c_verify }`
  // after `verify optional` sends unless an errorfile replaces it
  { gateway: 'HAProxy', statuses: [403], matches: (r) => /Request forbidden by administrative rules/i.test(r.body), why: 'a `verify optional` front end commonly denies so when no client certificate, or one it cannot verify, was shown (ssl_c_used, ssl_c_verify)' },
  // Cloudflare's block response (default HTTP 403) from a WAF rule on `not cf.tls_client_auth.cert_verified`, the
  // rule API Shield's mTLS sets up (cloudflare-docs api-shield/security/mtls/configure.mdx; waf/reference/
  // response-for-blocked-requests)
  { gateway: 'Cloudflare', statuses: [403], matches: (r) => /cloudflare/i.test(r.headers.server ?? '') && /you have been blocked|error code:? ?10(?:10|20)|"cloudflare_error"|Attention Required/i.test(r.body), why: 'API Shield\'s mutual TLS blocks so every call without a verified client certificate (cf.tls_client_auth.cert_verified)' },
];

const answerText = (r: NonNullable<Exchange['response']>) => `${r.body}\n${Object.values(r.headers).join('\n')}`;

/** Which row of CERTIFICATE_ANSWERS an answer is, and the words that say so. */
function certificateAnswer(ex: Exchange): { row: CertificateAnswer; quote: string } | undefined {
  const r = ex.response;
  if (!r) return undefined;
  for (const row of CERTIFICATE_ANSWERS) {
    if (!row.statuses.includes(r.status)) continue;
    if (!row.text) return { row, quote: `HTTP ${r.status}` };
    const m = row.text.exec(answerText(r));
    if (m) return { row, quote: `HTTP ${r.status} "${squash(m[0], 80)}"` };
  }
  return undefined;
}

export interface CertificateRefusal {
  /** `missing`: the gateway saw no client certificate; `refused`: it did not accept the one offered. */
  kind: 'missing' | 'refused';
  /** What the answer is (whose page or code, meaning what). */
  says: string;
  /** The calls it refused so, and what it answered (status and its words). */
  probes: Probe[];
  quote: string;
}

/**
 * A gateway that refused the calls for the client certificate, over HTTP after the handshake; the
 * operations step makes it its finding, and the TLS step then never calls the certificate accepted.
 */
export function clientCertificateRefusal(probes: Probe[]): CertificateRefusal | undefined {
  const found = probes.map((p) => ({ p, a: certificateAnswer(p.ex) })).filter((x): x is { p: Probe; a: NonNullable<ReturnType<typeof certificateAnswer>> } => !!x.a);
  if (!found.length) return undefined;
  const first = found[0]!.a;
  return { kind: first.row.kind, says: first.row.says, probes: found.map((x) => x.p), quote: first.quote };
}

/** How to configure the client certificate, or replace the one configured. */
const SET_CERTIFICATE = 'set SADAD_TLS_PFX to the PKCS#12 file (.p12/.pfx) of the client certificate the bank issued for this sandbox, with SADAD_TLS_PASSPHRASE, or SADAD_TLS_CERT and SADAD_TLS_KEY to its PEM certificate and key (SADAD_TLS_PASSPHRASE when the key is encrypted)';

/** The blocking finding for a certificate refused over HTTP, naming the variable to change. */
function certificateFinding(refusal: CertificateRefusal, probes: Probe[], config: SuiteConfig): { text: string; fix: string } {
  const cc = config.network.tls.client;
  const which = refusal.probes.length === probes.length ? `every call (all ${probes.length} operations)` : refusal.probes.map((p) => operation(p.op).title).join(', ');
  const said = `${refusal.quote}: ${refusal.says}`;
  if (!cc) {
    return {
      text: `the gateway requires a client certificate (mutual TLS) and none is configured: it completed the TLS handshake without one, then refused ${which} at the HTTP layer (${said})`,
      fix: `${SET_CERTIFICATE}; \`npm run doctor\` checks it in seconds`,
    };
  }
  const offered = `${cc.variable}: ${cc.info.subject}, issued by ${cc.info.issuer}, expires ${cc.info.notAfter.slice(0, 10)}`;
  if (refusal.kind === 'missing') {
    return {
      text: `the gateway says no client certificate reached it, though one is configured (${offered}): it refused ${which} at the HTTP layer (${said})`,
      fix: `something between this machine and the sandbox ends the TLS connection and cannot pass the certificate on (a TLS-inspecting proxy or load balancer): have the sandbox exempted from inspection, or reach it directly (NO_PROXY); and check with the bank that ${cc.variable} is the certificate it issued for this sandbox`,
    };
  }
  return {
    text: `the gateway refused the client certificate offered (${offered}): the TLS handshake completed, then it refused ${which} at the HTTP layer (${said})`,
    fix: `this certificate is not issued by the CA the gateway trusts, has expired or been revoked, or is another company's: ${cc.variable === 'SADAD_TLS_PFX' ? 'point SADAD_TLS_PFX (with SADAD_TLS_PASSPHRASE)' : 'point SADAD_TLS_CERT and SADAD_TLS_KEY'} at the client certificate the bank issued to ${config.companyId} for this sandbox, and ask the bank which CA it trusts`,
  };
}

/** The hint a gateway's bare refusal adds to the credential diagnosis: it may be the client certificate. */
function certificateHint(refused: Probe[], config: SuiteConfig): string | undefined {
  for (const g of MAYBE_CERTIFICATE) {
    const r = refused.map((p) => p.ex.response!).find((x) => g.statuses.includes(x.status) && g.matches(x));
    if (!r) continue;
    const cc = config.network.tls.client;
    return `the refusal is ${g.gateway}'s own, not the API's, and ${g.why}: ${cc ? `when the sandbox requires mutual TLS, check that ${cc.variable} (${cc.info.subject}, issued by ${cc.info.issuer}) is the certificate the bank issued for it` : `when the sandbox requires mutual TLS, ${SET_CERTIFICATE}`}`;
  }
  return undefined;
}

/** Which credential a 401/403 is about, from what the answer says and where it happened. */
function credentialFix(probes: Probe[], refused: Probe[], config: SuiteConfig): string {
  const fix = credentialCause(probes, refused, config);
  const hint = certificateHint(refused, config);
  return hint ? `${fix}; ${hint}` : fix;
}

function credentialCause(probes: Probe[], refused: Probe[], config: SuiteConfig): string {
  const text = refused.map((p) => `${p.ex.response?.body ?? ''} ${Object.entries(p.ex.response?.headers ?? {}).map(([k, v]) => `${k}: ${v}`).join(' ')}`).join(' ');
  const hints = prefixHints(text, config);
  if (hints.length) return hints.join('; ');
  if (/signature/i.test(text)) {
    return config.signer || config.signingKey
      ? 'the signature was refused: check that SADAD_SIGNING_KEY is the company\'s registered private key (SADAD_SIGNING_KEY_PASSPHRASE opens it), and SADAD_SIGNER when the bank uses another scheme than RSA-SHA256 over Message in X-Signature'
      : 'the target requires a signature: set SADAD_SIGNING_KEY to the company\'s private key (PEM or PKCS#12), and SADAD_SIGNER for another scheme';
  }
  if (/DateTimeStamp/i.test(text)) return 'the target refused DateTimeStamp: check this machine\'s clock and time zone (TZ); the suite sends local time as YYYY-MM-DDTHH:MM:SS';
  if (/company/i.test(text)) return `the target does not accept SADAD_COMPANY_ID=${config.companyId} with these credentials: check it against the onboarding documents`;
  if (/client.?(id|secret)/i.test(text)) return 'the target refused the client credentials: check SADAD_CLIENT_ID and SADAD_CLIENT_SECRET (sent as clientid/clientsecret on the bill operations)';
  const billOnly = refused.every((p) => operation(p.op).clientHeaders) && probes.some((p) => !operation(p.op).clientHeaders && !refused.includes(p));
  if (billOnly) return 'only the bill operations were refused, and they alone carry clientid/clientsecret: check SADAD_CLIENT_ID and SADAD_CLIENT_SECRET';
  if (refused.every((p) => p.ex.response?.status === 403)) return `the credentials were read, but SADAD_COMPANY_ID=${config.companyId} may not call this: ask the bank whether the company is enabled on the sandbox for these operations (and whether this machine's address is allowed)`;
  return config.tokenUrl
    ? 'a bearer token freshly fetched from SADAD_TOKEN_URL was refused: check that SADAD_TOKEN_URL is this sandbox\'s token endpoint and that SADAD_CLIENT_ID belongs to SADAD_COMPANY_ID'
    : 'the bearer token in SADAD_ACCESS_TOKEN was refused: it is wrong, expired, or for another environment; get a new one, or set SADAD_TOKEN_URL with SADAD_CLIENT_ID and SADAD_CLIENT_SECRET so the suite fetches (and renews) it';
}

/** The findings the operations step contributes. */
export function diagnoseProbes(probes: Probe[], config: SuiteConfig): Finding[] {
  const out: Finding[] = [];
  const add = (severity: Finding['severity'], text: string, fix?: string) => out.push({ severity, step: 'operations', text, ...(fix ? { fix } : {}) });
  const outcome = new Map<Probe, Outcome>(probes.map((p) => [p, classify(p.op, p.ex, config.tagPrefix)]));
  const status = (p: Probe) => p.ex.response?.status;
  const list = (ps: Probe[]) => ps.map((p) => `POST ${p.ex.request.url} → ${p.ex.response ? `HTTP ${status(p)}` : p.ex.error?.message}`).join('; ');

  // a certificate, a proxy's credentials: the network layer already knows what to change
  const config_ = probes.find((p) => p.ex.error?.kind === 'configuration');
  if (config_) { add('blocking', config_.ex.error!.message, config_.ex.error!.advice); return out; }

  const answered = probes.filter((p) => p.ex.response);
  if (!answered.length) {
    const e = probes[0]?.ex.error;
    add('blocking', `none of the ${probes.length} operations answered (${e?.message ?? 'no answer'})`, e?.kind === 'timeout'
      ? `the target accepted the connection but did not answer within the preflight's time: check SADAD_BASE_URL, or try again later (SADAD_REQUEST_TIMEOUT_MS is ${config.requestTimeoutMs} ms)`
      : 'check SADAD_BASE_URL (host and port), and the proxy settings (HTTPS_PROXY, NO_PROXY)');
    return out;
  }

  // a gateway that refused the client certificate over HTTP: its 400 is no message form, its 401 no token
  const refusal = clientCertificateRefusal(answered);
  if (refusal) { const f = certificateFinding(refusal, probes, config); add('blocking', f.text, f.fix); return out; }

  const redirects = answered.filter((p) => status(p)! >= 300 && status(p)! < 400);
  if (redirects.length === answered.length) {
    const loc = redirects[0]!.ex.response!.headers.location;
    add('blocking', `every operation answered a redirect (HTTP ${status(redirects[0]!)}${loc ? ` to ${loc}` : ''}): the suite does not follow redirects, a payment must not be resent elsewhere`, loc ? `use the address it redirects to in SADAD_BASE_URL (often https:// instead of http://)` : 'check SADAD_BASE_URL');
    return out;
  }

  if (answered.length === probes.length && answered.every((p) => status(p) === 404 || status(p) === 405)) {
    add('blocking', `every operation path answered ${[...new Set(answered.map(status))].join(' or ')}: the base URL or its path prefix is wrong. Tried: ${list(answered)}`,
      `SADAD_BASE_URL is ${config.baseUrl}: the suite adds ${operation('bill-enquiry').path} etc. to it; when the sandbox serves the API under a prefix (for example https://host/gateway), include the prefix in SADAD_BASE_URL, without a trailing /${operation('bill-enquiry').path.split('/')[1]}`);
    return out;
  }

  const refused = answered.filter((p) => status(p) === 401 || status(p) === 403);
  if (refused.length) {
    const first = refused[0]!;
    const which = refused.length === probes.length ? `all ${probes.length} operations` : refused.map((p) => operation(p.op).title).join(', ');
    add('blocking', `the target refused the credentials on ${which} (HTTP ${[...new Set(refused.map(status))].join('/')})${hasBody(first.ex) ? `: ${squash(first.ex.response!.body, 300)}` : ''}`, credentialFix(probes, refused, config));
    return out;
  }

  const notJson = answered.filter((p) => status(p)! >= 200 && status(p)! < 300 && !isJsonAnswer(p.ex));
  if (notJson.length) {
    const p = notJson[0]!;
    add('blocking', `${operation(p.op).title} answered HTTP ${status(p)} with ${hasBody(p.ex) ? `${contentType(p.ex)}, not JSON: ${JSON.stringify(squash(p.ex.response!.body, 120))}` : 'an empty body'}: a login page, a proxy's block page, or another service at this address`,
      'check SADAD_BASE_URL, and whether a proxy intercepts the call (HTTPS_PROXY, NO_PROXY); open the URL in a browser from this machine to see the page');
    return out;
  }

  const unavailable = answered.filter((p) => { const k = transientKind(p.ex); return k !== undefined && k !== 'HTTP 429'; });
  if (unavailable.length === probes.length || (unavailable.length === answered.length && answered.length < probes.length)) {
    const p = unavailable[0]!;
    const after = p.ex.response?.headers['retry-after'];
    add('blocking', `the target is unavailable: ${list(unavailable)}${!isJsonAnswer(p.ex) && hasBody(p.ex) ? ` (${contentType(p.ex)}: ${JSON.stringify(squash(p.ex.response!.body, 100))})` : ''}${after ? `, Retry-After ${after}` : ''}`,
      'a maintenance window or a redeploy: try again later (`npm run doctor` checks it in seconds)');
    return out;
  }

  for (const p of probes) {
    const o = outcome.get(p)!;
    const title = operation(p.op).title;
    const body = p.ex.response?.body ?? '';
    const hints = p.ex.response ? prefixHints(body, config) : [];
    if (operation(p.op).kind === 'enquiry') {
      if (o.kind === 'accepted') continue;
      if (status(p) === 400) { add('blocking', `a minimal valid ${title} request was refused with HTTP 400: ${squash(body, 300)}`, hints.length ? hints.join('; ') : `compare the request in the evidence with what the bank expects; the message root is ${config.tagPrefix}… (SADAD_TAG_PREFIX) and the reference header ${referenceIdHeader(config.headerPrefix)} (SADAD_HEADER_PREFIX)`); continue; }
      if (o.kind === 'server-error' && !transientKind(p.ex)) { add('blocking', `a minimal valid ${title} request failed with HTTP ${status(p)}: ${squash(body, 200)}`, 'the target fails on a request it should answer: tell the bank; a run now would fail most cases'); continue; }
      if (hints.length && o.kind === 'unclear') { add('blocking', `${title} answered a message the suite cannot read (${o.detail})`, hints.join('; ')); continue; }
      if (status(p) === 429) { add('warning', `${title} was rate limited (HTTP 429) before the run began: another client is spending this company's budget`, 'the run paces itself as if it had the budget alone: stop other clients of this company on the sandbox during the run'); continue; }
      if (o.kind === 'rejected' && o.form === 'in-band') {
        add('warning', `${title}: a minimal valid request was refused in-band (${o.detail})`, config.dataFile ? 'the subject taken from SADAD_DATA_FILE was refused: check the file lists bills and fees the sandbox knows' : 'a sandbox that knows only its own test bills and fees refuses generated ones: list them in SADAD_DATA_FILE; without an accepted enquiry, the cases that need one are INCONCLUSIVE');
        continue;
      }
      if (transientKind(p.ex)) { add('warning', `${title}: ${o.detail} (a transient fault; the run retries such calls)`); continue; }
      add('warning', `${title}: a minimal valid request got ${o.detail}: ${squash(body, 200)}`, hints.join('; ') || undefined);
    } else {
      if (o.kind === 'accepted') { add('warning', `${title} accepted a request without TransactionData (nothing to pay, so nothing was paid): ${o.detail}`, 'the suite\'s request-field cases will show it; a conformant target refuses it'); continue; }
      if ((status(p) === 404 || status(p) === 405) && probes.some((q) => operation(q.op).kind === 'enquiry' && outcome.get(q)!.kind === 'accepted')) {
        add('warning', `${title}: the payment path answered HTTP ${status(p)} while the enquiries answer`, 'this sandbox may not offer payments: SADAD_PAYMENTS=off runs without them (the payment cases become NOT_APPLICABLE)');
        continue;
      }
      if (transientKind(p.ex)) { add('warning', `${title}: ${o.detail} (a transient fault; the run retries such calls)`); continue; }
      if (hints.length) add('warning', `${title}: ${o.detail}`, hints.join('; '));
    }
  }
  return out;
}

/** The server's clock against ours, from the answers' Date headers (second resolution). */
export function clockSkew(probes: Probe[]): { skewSeconds: number; serverDate: string; ours: string } | null {
  for (const p of probes) {
    const date = p.ex.response?.headers.date;
    const server = date ? Date.parse(date) : NaN;
    if (!Number.isFinite(server)) continue;
    // the server stamped its answer between our send and its arrival, and Date drops the fraction:
    // its clock read somewhere in [date, date + 1 s); only a gap beyond both is skew
    const sent = Date.parse(p.ex.startedAt);
    const received = sent + p.ex.durationMs;
    const gapMs = server + 1000 < sent ? server + 1000 - sent : server > received ? server - received : 0;
    return { skewSeconds: Math.round(gapMs / 1000), serverDate: new Date(server).toISOString(), ours: new Date(sent + p.ex.durationMs / 2).toISOString() };
  }
  return null;
}
