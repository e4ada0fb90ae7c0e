/**
 * What the preflight's four calls say about the configuration. Each answer is read for the mistakes
 * a first configuration usually has, and the finding names the variable to change: a base URL
 * whose path is wrong (404/405 everywhere), a credential refused (which one, from the error body
 * when it says), a login or proxy block page instead of JSON, a request refused for its form
 * (often another deployment's tag or header prefix, which the error body then names).
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

/** Which credential a 401/403 is about, from what the answer says and where it happened. */
function credentialFix(probes: Probe[], refused: Probe[], config: SuiteConfig): string {
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

  const redirects = answered.filter((p) => status(p)! >= 300 && status(p)! < 400);
  if (redirects.length === answered.length) {
    const loc = redirects[0]!.ex.response!.headers.location;
    add('blocking', `every operation answered a redirect (HTTP ${status(redirects[0]!)}${loc ? ` to ${loc}` : ''}): the suite does not follow redirects, a payment must not be resent elsewhere`, loc ? `use the address it redirects to in SADAD_BASE_URL (often https:// instead of http://)` : 'check SADAD_BASE_URL');
    return out;
  }

  if (answered.length === probes.length && answered.every((p) => status(p) === 404 || status(p) === 405)) {
    add('blocking', `every operation path answered ${[...new Set(answered.map(status))].join(' or ')}: the base URL or its path prefix is wrong. Tried: ${list(answered)}`,
      `SADAD_BASE_URL is ${config.baseUrl}: the suite adds /api/enquiry/sadad/bill etc. to it; when the sandbox serves the API under a prefix (for example https://host/gateway), include the prefix in SADAD_BASE_URL, without a trailing /api`);
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
