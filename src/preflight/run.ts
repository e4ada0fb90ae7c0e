/**
 * The preflight (design.md §10): before the first case, walk the path a call takes, layer by layer,
 * and stop a run that cannot succeed in seconds, with a diagnosis that names what to change. A
 * first configuration is usually wrong somewhere; without this, a closed port cost hours of retries
 * and a wrong base path a whole 46-minute run that reported 181 PASS.
 *
 * Steps, in order: the configuration as the run will use it; DNS; TCP (and the proxy's tunnel);
 * the TLS handshake; the access token; one call per operation through the pacer (an enquiry each,
 * and for each payment a request the target must refuse: its TransactionData left out, so nothing
 * can be paid); the server's clock. A step that cannot succeed skips those that depend on it. At
 * most 15 s and 4 API calls (plus the token endpoint), at any rate limit.
 */
import { operations, type OperationId } from '../contract/catalogue.js';
import { referenceIdHeader } from '../contract/headers.js';
import { requestItems } from '../contract/message.js';
import { RequestGenerator } from '../generators/requests.js';
import type { SuiteConfig } from '../config/index.js';
import type { TargetData } from '../config/target-data.js';
import type { SadadClient } from '../client/client.js';
import { maskText } from '../client/redact.js';
import { ClientCredentialsToken } from '../client/token.js';
import type { Socket } from 'node:net';
import type { CertInfo, NetFailure } from '../net/index.js';
import { connectTcp, firstHop, handshake, openTunnel, resolveHost, trustFailure, type TlsResult } from '../net/inspect.js';
import { clientCertificateRefusal, clockSkew, diagnoseProbes, probeLine, type Probe } from './diagnose.js';
import { classify } from '../client/outcome.js';
import { curlCommand, curlOptionsOf } from '../client/curl.js';
import { PREFLIGHT_FORMAT, STEP_TITLES, type Finding, type PreflightExchange, type PreflightReport, type Step, type StepId } from './model.js';

/** The whole preflight's time, at any rate limit (issue 18: at most 15 s). */
export const PREFLIGHT_BUDGET_MS = 15_000;
/** Certificates and tokens closer than this to their end are worth a warning before a long run. */
const SOON_DAYS = 14;
/** A clock further off than this is a warning: real gateways check DateTimeStamp. */
export const MAX_SKEW_SECONDS = 60;

export interface PreflightOptions {
  config: SuiteConfig;
  /** Sends through the run's pacer, so the calls count against the budgets like any case's. */
  client: SadadClient;
  targetData?: TargetData | undefined;
  runId?: string | null;
  /** SADAD_PROFILE and the other run settings the configuration step reports. */
  /** The variables the configuration was read from (what the configuration step reports of them). */
  env: Readonly<Record<string, string | undefined>>;
  /** The run's estimated duration, to warn about a token that will not last it. */
  estimatedSeconds?: number;
  budgetMs?: number;
  /** Each step as it ends (`npm run doctor` prints the checklist as it goes). */
  onStep?: (step: Step, findings: Finding[]) => void;
}

/**
 * The TLS step's line on the client certificate: whether the server insists on one (a second
 * handshake without it tells), and what became of the one offered. A completed handshake is not
 * acceptance: nginx with `ssl_verify_client on` completes it with any certificate, or none, and
 * refuses over HTTP. So the line says "accepted" nowhere, and once the calls show a refusal for
 * the certificate it says so (issue 24: it said "accepted" for another CA's certificate).
 */
const REQUIRED_WORDS = {
  yes: 'asked for and required (a handshake without one was refused)',
  no: 'not required by the handshake (one without it completed too)',
  unknown: 'not known whether required',
} as const;
const OFFERED_WORDS = {
  refused: 'was refused',
  unjudged: 'was not judged (the handshake failed)',
  // the server would not complete a handshake without one, and did with this one
  passed: 'passed the handshake',
  // the server did not insist: only an answer over HTTP can tell
  completed: 'completed the handshake; a gateway may still judge it over HTTP, which the calls show',
  refusedOverHttp: 'completed the handshake, but the gateway refused it at the HTTP layer: see the operations step',
} as const;
const certificateLine = (required: keyof typeof REQUIRED_WORDS, subject: string, offered: keyof typeof OFFERED_WORDS) =>
  `client certificate: ${REQUIRED_WORDS[required]}; the one offered (${subject}) ${OFFERED_WORDS[offered]}`;
const NONE_REFUSED_OVER_HTTP = 'client certificate: none configured; the handshake completed without one, but the gateway refused the calls at the HTTP layer for want of one: see the operations step';

const days = (c: CertInfo) => `${c.notAfter.slice(0, 10)}, in ${c.daysLeft} day${Math.abs(c.daysLeft) === 1 ? '' : 's'}`;
const certLine = (c: CertInfo) => `${c.subject}, issued by ${c.issuer}, expires ${days(c)}`;

/** The run's request generator: its seed, prefix and the body identification the configuration names (or the seed draws). */
export const generatorFor = (config: Pick<SuiteConfig, 'seed' | 'tagPrefix' | 'bankCode' | 'companyCode'>) =>
  new RequestGenerator({ seed: config.seed, tagPrefix: config.tagPrefix, ...(config.bankCode ? { bankCode: config.bankCode } : {}), ...(config.companyCode ? { companyCode: config.companyCode } : {}) });

/** A request a conformant target answers, which changes nothing: an enquiry (of a known subject when there is a data file). */
export function minimalEnquiry(op: OperationId, gen: RequestGenerator, targetData?: TargetData): unknown {
  const known = op === 'bill-enquiry' ? targetData?.bills[0] : targetData?.fees[0];
  if (!known) return gen.build(op);
  const fields = op === 'bill-enquiry' ? ['BillerId', 'BillCategory', 'SubscriberNumber', 'AccountNumber'] : ['POINum', 'POIType', 'AccountNumber', 'BillerID', 'BillCategory', 'ServiceCode', 'BranchCode', 'RequestType', 'ID', 'Duration'];
  return gen.build(op, { entry: Object.fromEntries(fields.map((f) => [f, (known as unknown as Record<string, unknown>)[f]])) });
}

/** A payment request with its TransactionData left out: a conformant target refuses it, and even a lax one has nothing to pay. */
export function unpayablePayment(op: OperationId, gen: RequestGenerator): unknown {
  const body = gen.build(op);
  for (const item of requestItems(op, body, gen.tagPrefix)) delete item.TransactionData;
  return body;
}

/** A JWT's `exp` and `iat`, when the static token is one (many gateways issue them); null otherwise. */
export function jwtTimes(token: string): { exp?: number; iat?: number } | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown; iat?: unknown };
    const out: { exp?: number; iat?: number } = {};
    if (typeof payload.exp === 'number') out.exp = payload.exp;
    if (typeof payload.iat === 'number') out.iat = payload.iat;
    return out;
  } catch {
    return null;
  }
}

/** Where a call goes and what the steps may spend: the same for every step. */
interface Path {
  o: PreflightOptions;
  config: SuiteConfig;
  client: SadadClient;
  env: Readonly<Record<string, string | undefined>>;
  baseUrl: string;
  net: SuiteConfig['network'];
  hop: ReturnType<typeof firstHop>;
  https: boolean;
  /** `direct`, or the proxy and the variable it came from, in words. */
  routeText: string;
  /** The time a step may wait for one answer: at most `cap`, and no later than the preflight's budget (at least 500 ms). */
  left: (cap: number) => number;
}

/** What the steps found, which the steps after them read. */
interface Found {
  steps: Step[];
  findings: Finding[];
  /** False once the name does not resolve or the connection (or the proxy's tunnel) fails. */
  reachable: boolean;
  /** Whether the server insists on a client certificate, as the TLS step saw it. */
  tlsRequired: keyof typeof REQUIRED_WORDS;
  /** False when there is no valid token to send. */
  tokenOk: boolean;
  /** The operations step's calls, their count per operation, and their records (masked, with a curl command each). */
  probes: Probe[];
  calls: Record<string, number>;
  exchanges: PreflightExchange[];
}

type Find = (f: Omit<Finding, 'step'>) => void;

interface PreflightStep {
  id: StepId;
  /** Why the step is not taken, given what the steps before it found; null: it is taken. */
  skip?: (found: Found, path: Path) => string | null;
  /** The step: what it saw goes in `ev`, what is wrong to `find`. A step that throws is a blocking finding. */
  run: (path: Path, found: Found, ev: string[], find: Find) => Promise<void> | void;
  /** After the step, taken or skipped. */
  after?: (path: Path, found: Found) => void;
}

/**
 * The steps, in order. A step that cannot succeed makes those that depend on it skip, naming why:
 * no TCP without a name, no TLS without a connection, no calls without a connection, a completed
 * handshake or a token, no clock without an answer.
 */
const STEPS: PreflightStep[] = [
  // 1. the configuration, as the run will use it
  { id: 'configuration', run: configurationStep },
  // 2. DNS: the target's name, or the proxy's (which resolves the target itself)
  { id: 'dns', run: dnsStep },
  // 3. TCP, and the proxy's tunnel
  { id: 'tcp', skip: (f) => (f.reachable ? null : 'not checked: the name does not resolve'), run: tcpStep },
  // 4. TLS: the server's chain, and whether it insists on a client certificate
  { id: 'tls', skip: (f, p) => (!p.https ? 'not applicable: the target is plain http' : !f.reachable ? 'not checked: the target cannot be reached' : null), run: tlsStep },
  // 5. the access token
  { id: 'token', run: tokenStep },
  // 6. one call per operation, all four at once, each through the pacer; what they show of the
  //    client certificate then amends the TLS step's line
  {
    id: 'operations',
    skip: (f) => (!f.reachable || f.steps.some((s) => s.id === 'tls' && s.status === 'blocking') ? 'not sent: the target cannot be reached' : !f.tokenOk ? 'not sent: there is no valid token to send' : null),
    run: operationsStep,
    after: amendCertificateLine,
  },
  // 7. the server's clock against ours
  { id: 'clock', skip: (f) => (f.probes.some((p) => p.ex.response) ? null : 'not checked: no answer to read a Date header from'), run: clockStep },
];

export async function runPreflight(o: PreflightOptions): Promise<PreflightReport> {
  const { config } = o;
  const started = Date.now();
  const deadline = started + (o.budgetMs ?? PREFLIGHT_BUDGET_MS);
  const baseUrl = config.baseUrl!;
  const hop = firstHop(config.network, baseUrl);
  const path: Path = {
    o, config, client: o.client, env: o.env, baseUrl, net: config.network, hop,
    https: new URL(baseUrl).protocol === 'https:',
    routeText: hop.proxy ? `through the proxy ${hop.proxy.display} (${hop.proxy.variable})` : hop.bypassedBy ? `direct (${hop.bypassedBy} bypasses the proxy)` : 'direct',
    left: (cap) => Math.max(500, Math.min(cap, deadline - Date.now())),
  };
  const found: Found = { steps: [], findings: [], reachable: true, tlsRequired: 'unknown', tokenOk: true, probes: [], calls: {}, exchanges: [] };
  for (const step of STEPS) {
    const why = step.skip?.(found, path) ?? null;
    if (why === null) await take(step, path, found);
    else skip(step.id, why, path, found);
    step.after?.(path, found);
  }

  const { steps, findings, calls, exchanges, probes } = found;
  const blocking = findings.some((f) => f.severity === 'blocking');
  return {
    format: PREFLIGHT_FORMAT, formatVersion: 1, runId: o.runId ?? null, startedAt: new Date(started).toISOString(), durationMs: Date.now() - started,
    target: maskText(baseUrl), route: maskText(path.routeText), result: blocking ? 'blocked' : findings.length ? 'warnings' : 'ok',
    steps, findings, calls, exchanges, accepted: probes.filter((p) => classify(p.op, p.ex, config.tagPrefix).kind === 'accepted').map((p) => p.op),
  };
}

/** Runs one step: its evidence and findings masked, its status from its findings, told to `onStep` as it ends. */
async function take(step: PreflightStep, path: Path, found: Found): Promise<void> {
  const { id } = step;
  const t = Date.now();
  const evidence: string[] = [];
  const mine: Finding[] = [];
  try {
    await step.run(path, found, evidence, (f) => mine.push({ ...f, step: id }));
  } catch (e) {
    // a step that breaks is a finding, never a crash of the run
    mine.push({ severity: 'blocking', step: id, text: `the ${STEP_TITLES[id]} step broke: ${(e as Error).message}` });
  }
  const s: Step = { id, status: mine.some((f) => f.severity === 'blocking') ? 'blocking' : mine.length ? 'warning' : 'ok', ms: Date.now() - t, evidence: evidence.map(maskText) };
  const masked = mine.map((f) => ({ ...f, text: maskText(f.text), ...(f.fix ? { fix: maskText(f.fix) } : {}) }));
  found.steps.push(s);
  found.findings.push(...masked);
  path.o.onStep?.(s, masked);
}

function skip(id: StepId, why: string, path: Path, found: Found): void {
  const s: Step = { id, status: 'skipped', ms: 0, evidence: [why] };
  found.steps.push(s);
  path.o.onStep?.(s, []);
}

const fromFailure = (f: NetFailure, fallbackFix: string): Omit<Finding, 'step'> => ({ severity: 'blocking', text: f.message, fix: f.advice ?? fallbackFix });

function configurationStep({ config, env, baseUrl, routeText, net, https }: Path, _found: Found, ev: string[], find: Find): void {
  ev.push(`target ${baseUrl} (SADAD_BASE_URL)`, `route: ${routeText}`);
  ev.push(`profile ${env.SADAD_PROFILE?.trim() || 'full'}; limits: bill ${config.rateLimits.bill}, MOI ${config.rateLimits.moi} calls per ${config.rateWindowSeconds} s; payments ${config.payments ? 'on' : 'off'}`);
  ev.push(`token: ${config.tokenUrl ? `client credentials from ${config.tokenUrl} (SADAD_TOKEN_URL)` : 'static (SADAD_ACCESS_TOKEN)'}; company ${config.companyId}; device ${config.device}${config.clientId ? `; client id ${config.clientId}` : ''}`);
  ev.push(`signature: ${config.signer ? `module ${config.signer} (SADAD_SIGNER)` : config.signingKey ? 'built-in RSA-SHA256 over Message, X-Signature (SADAD_SIGNING_KEY)' : 'none (unsigned requests)'}`);
  ev.push(`message tags ${config.tagPrefix}SadadBillEnquiryRequest... (SADAD_TAG_PREFIX), header ${referenceIdHeader(config.headerPrefix)} (SADAD_HEADER_PREFIX)`);
  const ca = net.tls.ca;
  if (ca) {
    ev.push(`CA bundle ${ca.file} (SADAD_CA_FILE), added to the default roots: ${ca.certs.length} certificate${ca.certs.length === 1 ? '' : 's'}`);
    for (const c of ca.certs) ev.push(`  ${certLine(c)}`);
    for (const c of ca.certs.filter((x) => x.daysLeft < 0)) find({ severity: 'warning', text: `a certificate in SADAD_CA_FILE has expired (${c.subject}, ${c.notAfter.slice(0, 10)})`, fix: 'ask the bank for its current CA bundle' });
  } else ev.push('trusted roots: the default ones (no SADAD_CA_FILE)');
  const cc = net.tls.client;
  if (cc) {
    ev.push(`client certificate (${cc.variable}): ${certLine(cc.info)}`);
    if (cc.info.daysLeft < SOON_DAYS) find({ severity: 'warning', text: `the client certificate expires in ${cc.info.daysLeft} days (${cc.info.notAfter.slice(0, 10)})`, fix: `ask the bank to issue a new one before it does; ${cc.variable} names it` });
    if (!https) find({ severity: 'warning', text: `a client certificate is configured (${cc.variable}) but the target is plain http: it is not used`, fix: 'use the https:// address of the sandbox in SADAD_BASE_URL' });
  } else ev.push('client certificate: none configured');
  if (!https && ca) find({ severity: 'warning', text: 'SADAD_CA_FILE is set but the target is plain http: it is not used', fix: 'use the https:// address of the sandbox in SADAD_BASE_URL' });
}

async function dnsStep({ hop, left }: Path, found: Found, ev: string[], find: Find): Promise<void> {
  const r = await resolveHost(hop.connectTo.host, left(3000));
  if (r.failure) {
    found.reachable = false;
    find(fromFailure(r.failure, hop.proxy ? `check the host of the proxy in ${hop.proxy.variable}` : 'check the host in SADAD_BASE_URL; behind a corporate proxy that resolves names for you, set HTTPS_PROXY'));
    return;
  }
  ev.push(`${r.host} → ${r.addresses.join(', ')} (${r.ms} ms)`);
  if (hop.proxy) ev.push(`${hop.target.host} is resolved by the proxy`);
}

async function tcpStep({ hop, net, left }: Path, found: Found, ev: string[], find: Find): Promise<void> {
  const r = await connectTcp(hop.connectTo, left(4000));
  if (r.failure) {
    found.reachable = false;
    const where = `${hop.connectTo.host}:${hop.connectTo.port}`;
    const f = r.failure.kind === 'refused'
      ? { ...r.failure, message: `connection refused by ${where}${hop.proxy ? ' (the proxy)' : ''}: nothing listens there` }
      : r.failure.kind === 'timeout' ? { ...r.failure, message: `no answer from ${where} within the time: a firewall drops the connection, or the host is down` } : r.failure;
    find(fromFailure(f, hop.proxy ? `check the proxy's host and port in ${hop.proxy.variable}` : `check the host and port in SADAD_BASE_URL (${hop.target.host}:${hop.target.port})${r.failure.kind === 'timeout' ? '; from a corporate network, set HTTPS_PROXY to its proxy' : ''}`));
    return;
  }
  ev.push(`${hop.connectTo.host}:${hop.connectTo.port} connected${r.address ? ` (${r.address})` : ''} in ${r.ms} ms`);
  if (hop.proxy) {
    const t = await openTunnel(net, hop.proxy, hop.target, left(5000));
    t.socket?.destroy();
    if (t.failure) { found.reachable = false; find(fromFailure(t.failure, `check ${hop.proxy.variable}`)); return; }
    ev.push(`the proxy opened a tunnel to ${hop.target.host}:${hop.target.port} (CONNECT, HTTP ${t.status}) in ${t.ms} ms`);
  }
}

/** A new tunnel through the proxy for a handshake, or nothing to go through (a direct connection). */
async function tunnelOrDirect({ hop, net, left }: Path): Promise<{ socket?: Socket; failure?: NetFailure }> {
  if (!hop.proxy) return {};
  const t = await openTunnel(net, hop.proxy, hop.target, left(5000));
  return t.failure ? { failure: t.failure } : { ...(t.socket ? { socket: t.socket } : {}) };
}

async function tlsStep(path: Path, found: Found, ev: string[], find: Find): Promise<void> {
  const { hop, net, left } = path;
  let required: boolean | undefined;
  if (net.tls.client) {
    // a handshake without the certificate tells whether the server insists on one
    const bare = await tunnelOrDirect(path);
    if (!bare.failure) {
      const r = await handshake(net, hop.target, { ...(bare.socket ? { socket: bare.socket } : {}), timeoutMs: left(4000), withClientCertificate: false });
      required = !!r.failure && r.failure.kind === 'tls' && /requires? a client certificate/.test(r.failure.message);
    }
  }
  const via = await tunnelOrDirect(path);
  if (via.failure) { find(fromFailure(via.failure, 'check the proxy settings')); return; }
  const r: TlsResult = await handshake(net, hop.target, { ...(via.socket ? { socket: via.socket } : {}), timeoutMs: left(4000) });
  if (r.protocol) ev.push(`${r.protocol}, ${r.cipher} (${r.ms} ms)`);
  r.chain.forEach((c, i) => ev.push(`${i === 0 ? 'server certificate' : `  chain ${i}`}: ${certLine(c)}`));
  if (r.chain.length) ev.push(`trusted: ${r.trusted ? 'yes' : `no (${r.verifyError})`}, against the default roots${net.tls.ca ? ' and SADAD_CA_FILE' : ''}; host name ${hop.target.host}: ${r.hostMatches ? 'matches' : 'does not match'}`);
  if (net.tls.client) {
    found.tlsRequired = required === true ? 'yes' : required === false ? 'no' : 'unknown';
    ev.push(certificateLine(found.tlsRequired, net.tls.client.info.subject, r.clientCertificate === 'refused' ? 'refused' : r.failure ? 'unjudged' : required === true ? 'passed' : 'completed'));
  }
  const bad = trustFailure(r, hop.target.host);
  if (bad) { find(fromFailure(bad, 'check the TLS settings (SADAD_CA_FILE, SADAD_TLS_CERT/SADAD_TLS_KEY or SADAD_TLS_PFX)')); return; }
  const leaf = r.chain[0];
  if (leaf && leaf.daysLeft < SOON_DAYS) find({ severity: 'warning', text: `the server's certificate expires in ${leaf.daysLeft} days (${leaf.notAfter.slice(0, 10)})`, fix: 'tell the bank; the run fails once it has expired' });
}

async function tokenStep({ client, config, left, o }: Path, found: Found, ev: string[], find: Find): Promise<void> {
  const tokens = client.tokens;
  if (tokens instanceof ClientCredentialsToken) {
    const t = Date.now();
    try {
      await Promise.race([tokens.token(), new Promise((_, reject) => setTimeout(() => reject(new Error(`no answer within ${left(8000)} ms`)), left(8000)).unref())]);
      ev.push(`fetched from ${config.tokenUrl} (SADAD_TOKEN_URL) in ${Date.now() - t} ms; lifetime ${tokens.lifetimeSeconds} s${tokens.lifetimeStated ? ' (expires_in)' : ' (no expires_in given: 3600 s assumed)'}; renewed before it ends`);
    } catch (e) {
      found.tokenOk = false;
      find({ severity: 'blocking', text: `the token endpoint gave no token: ${(e as Error).message}`, fix: 'check SADAD_TOKEN_URL, SADAD_CLIENT_ID and SADAD_CLIENT_SECRET' });
    }
    return;
  }
  const token = await tokens.token();
  ev.push(`static bearer token from SADAD_ACCESS_TOKEN (${token.length} characters); it cannot be renewed during the run`);
  const jwt = jwtTimes(token);
  if (jwt?.exp) {
    const leftS = Math.round(jwt.exp - Date.now() / 1000);
    ev.push(`a JWT that expires ${new Date(jwt.exp * 1000).toISOString()} (${leftS >= 0 ? `in ${Math.round(leftS / 60)} min` : `${Math.round(-leftS / 60)} min ago`})`);
    if (leftS <= 0) { found.tokenOk = false; find({ severity: 'blocking', text: `the token in SADAD_ACCESS_TOKEN expired at ${new Date(jwt.exp * 1000).toISOString()}`, fix: 'get a new one, or set SADAD_TOKEN_URL with SADAD_CLIENT_ID and SADAD_CLIENT_SECRET so the suite fetches and renews it' }); }
    else if (o.estimatedSeconds && leftS < o.estimatedSeconds) find({ severity: 'warning', text: `the token in SADAD_ACCESS_TOKEN expires in ${Math.round(leftS / 60)} min, before the run's estimated ${Math.round(o.estimatedSeconds / 60)} min are over`, fix: 'a static token cannot be renewed: set SADAD_TOKEN_URL with SADAD_CLIENT_ID and SADAD_CLIENT_SECRET' });
  }
}

async function operationsStep({ config, client, left, o }: Path, found: Found, ev: string[], find: Find): Promise<void> {
  const gen = generatorFor(config);
  const timeoutMs = left(Math.min(config.requestTimeoutMs, 10_000));
  const sent = await Promise.all(operations.map(async (op) => {
    const body = op.kind === 'enquiry' ? minimalEnquiry(op.id, gen, o.targetData) : unpayablePayment(op.id, gen);
    const label = op.kind === 'enquiry' ? 'preflight: a minimal valid enquiry' : 'preflight: a payment without TransactionData, to be refused';
    return { op: op.id, ex: await client.send(op.id, { body, label, timeoutMs }) };
  }));
  for (const p of sent) {
    found.probes.push(p);
    found.calls[p.op] = (found.calls[p.op] ?? 0) + 1;
    const { json: _json, parseError: _parse, ...record } = p.ex;
    // each call reproducible by hand, like a case's (secrets as variables, the route and TLS options it took)
    found.exchanges.push({ ...record, curl: curlCommand(record, config.network, curlOptionsOf(config, client.signer, 'preflight')) });
    ev.push(probeLine(p, config.tagPrefix));
  }
  for (const f of diagnoseProbes(found.probes, config)) find({ severity: f.severity, text: f.text, ...(f.fix ? { fix: f.fix } : {}) });
}

/**
 * The calls refused for the client certificate after a completed handshake: the TLS step, already
 * ended, must not stand as if the certificate had passed (nor be silent when none was offered).
 */
function amendCertificateLine({ net }: Path, { steps, probes, tlsRequired }: Found): void {
  const tls = steps.find((s) => s.id === 'tls' && s.status !== 'skipped');
  if (!tls || !clientCertificateRefusal(probes)) return;
  const line = net.tls.client ? certificateLine(tlsRequired, net.tls.client.info.subject, 'refusedOverHttp') : NONE_REFUSED_OVER_HTTP;
  const at = tls.evidence.findIndex((e) => e.startsWith('client certificate:'));
  if (at >= 0) tls.evidence[at] = maskText(line);
  else tls.evidence.push(maskText(line));
}

function clockStep(_path: Path, { probes }: Found, ev: string[], find: Find): void {
  const skew = clockSkew(probes);
  if (!skew) { ev.push('no Date header in the answers to compare with'); return; }
  ev.push(`server ${skew.serverDate}, ours ${skew.ours}: ${skew.skewSeconds === 0 ? 'in step' : `the server is ${Math.abs(skew.skewSeconds)} s ${skew.skewSeconds > 0 ? 'ahead' : 'behind'}`} (Date has whole seconds)`);
  if (Math.abs(skew.skewSeconds) > MAX_SKEW_SECONDS) find({ severity: 'warning', text: `this machine's clock is ${Math.abs(skew.skewSeconds)} s ${skew.skewSeconds > 0 ? 'behind' : 'ahead of'} the server's`, fix: 'real gateways check DateTimeStamp against their clock: synchronise this machine (NTP) before the run' });
}
