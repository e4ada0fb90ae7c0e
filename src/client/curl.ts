/**
 * "Reproduce it" (issue 18): the curl command of one recorded exchange, for a person who wants to
 * send the very request again from a shell, against the target or a colleague's machine.
 *
 * The record is masked (redact.ts), so every secret becomes a shell variable the reader already has
 * (`${SADAD_ACCESS_TOKEN:?}`: the `:?` stops the command instead of sending an empty credential).
 * Never a secret value: only variable names; the command is masked once more anyway. Quoting is
 * POSIX single quotes, which pass every byte but NUL literally; a body with NUL or other control
 * characters (which a terminal paste may eat) goes through printf's octal escapes instead. Comment
 * lines hold no shell metacharacters: zsh without `interactivecomments` runs `#` as a command.
 *
 * The network options follow the configuration the call went through (src/net): the CA file, the
 * client certificate, and the proxy `routeOf` says the call took, tunnelled as undici tunnels.
 *
 * A payment is not an enquiry: the same request sent again repeats its SequenceNumber, so where
 * the recorded payment took effect the target should refuse it as a duplicate (the mock: 409, or
 * 422 once the subject is paid), and one that does not pays twice. The command still sends the
 * request as recorded (that is what reproduces the evidence), but it says so, and holds each
 * SequenceNumber in a variable set on a line of its own, so that a new payment is one deliberate
 * edit away and the signature line signs the body that is sent; never a fresh value by default,
 * which would make pasting a command a payment.
 */
import type { NetworkConfig } from '../net/index.js';
import { routeOf } from '../net/index.js';
import type { SuiteConfig } from '../config/index.js';
import { operations } from '../contract/catalogue.js';
import { MAX_BODY, type Exchange } from './exchange.js';
import { MASK, maskText } from './redact.js';
import { SIGNATURE_HEADER, type Signer } from './signer.js';

/** What curl needs of a recorded exchange (an `Exchange`, or an `ExchangeRecord` read back from evidence). */
export interface CurlExchange {
  label?: string;
  /** The operation: a payment's command says what sending it again does. */
  op?: string | undefined;
  request: Exchange['request'];
  response?: { status: number } | undefined;
  error?: { kind: string; message: string } | undefined;
}

export interface CurlOptions {
  /** The request's timeout, for `--max-time`. */
  timeoutMs?: number;
  /** Header names the configured signer writes (default: none; X-Signature is recognised anyway). */
  signatureHeaders?: string[];
  /** The built-in RSA-SHA256 signer made them: the command recomputes X-Signature for its body. */
  builtInSigner?: boolean;
  /** SADAD_SIGNING_KEY_PASSPHRASE is set (openssl then reads it to open the key). */
  signingKeyPassphrase?: boolean;
  /** SADAD_TLS_PASSPHRASE is set (the client certificate's key needs it). */
  tlsPassphrase?: boolean;
  /** The case the exchange belongs to: the header cases send a wrong credential on purpose, which the configured one would not reproduce. */
  caseId?: string;
}

/** The options a suite run's configuration and signer imply. */
export function curlOptionsOf(config: Pick<SuiteConfig, 'requestTimeoutMs' | 'signer' | 'signingKeyPassphrase' | 'tlsPassphrase'>, signer?: Signer, caseId?: string): CurlOptions {
  return {
    timeoutMs: config.requestTimeoutMs,
    signatureHeaders: signer?.headerNames ?? [],
    builtInSigner: !!signer && !config.signer,
    signingKeyPassphrase: !!config.signingKeyPassphrase,
    tlsPassphrase: !!config.tlsPassphrase,
    ...(caseId ? { caseId } : {}),
  };
}

/** POSIX single quotes: every byte but NUL stands for itself; a `'` closes, is escaped, reopens. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** `${NAME:?}`, double-quoted: expands, and stops the command when the variable is unset or empty. */
const ref = (name: string) => `"\${${name}:?}"`;

/** A word made of literal text and variables: literals single-quoted, variables double-quoted, side by side. */
function word(parts: (string | { v: string })[]): string {
  // one double-quoted string reads best, where no literal character means anything inside double quotes (`!`: bash's history)
  if (parts.some((p) => typeof p !== 'string') && parts.every((p) => typeof p !== 'string' || !/["$`\\!]/.test(p))) {
    return `"${parts.map((p) => (typeof p === 'string' ? p : `\${${p.v}:?}`)).join('')}"`;
  }
  return parts.map((p) => (typeof p === 'string' ? (p === '' ? '' : shellQuote(p)) : ref(p.v))).join('') || "''";
}

/** Comment text safe to paste anywhere: no quote, no expansion, no grouping or redirection characters. */
const commentSafe = (s: string) => s.replace(/[\r\n\t]+/g, ' ').replace(/['"`$\\;&|<>(){}[\]*?!#~^]/g, (c) => LOOKALIKE[c] ?? '_');
/** Characters a shell would act on, as look-alikes it does not know (full-width forms, typographic quotes). */
const LOOKALIKE: Record<string, string> = Object.fromEntries([...'$\\;&|<>(){}[]*?!#~^'].map((c) => [c, String.fromCharCode(c.charCodeAt(0) + 0xfee0)]).concat([["'", '’'], ['"', '”'], ['`', '’']]));

/** Headers curl writes itself from the command (a recorded copy would conflict or duplicate). */
const CURL_OWN = new Set(['content-length', 'host', 'transfer-encoding', 'connection']);

/** Variables named after a header, for masked values nothing more specific is known of. */
const headerVariable = (name: string) => `SADAD_HEADER_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}`;

/** The recorded body was cut to MAX_BODY characters by exchange.ts: the original is gone. */
export function clippedBody(body: string): { kept: number; dropped: number } | null {
  const m = /… \((\d+) more characters not recorded\)$/.exec(body);
  if (!m || body.length - m[0].length !== MAX_BODY) return null;
  return { kept: MAX_BODY, dropped: Number(m[1]) };
}

/** A secret a body held, masked in the record: the variable that holds it, from the key before it. */
function bodySecretVariable(before: string): string {
  if (/client[_-]?secret["']?\s*[:=]\s*"?$/i.test(before)) return 'SADAD_CLIENT_SECRET';
  if (/(access_token|token)["']?\s*[:=]\s*"?$/i.test(before) || /Bearer\s+$/.test(before)) return 'SADAD_ACCESS_TOKEN';
  if (/client[_-]?id["']?\s*[:=]\s*"?$/i.test(before)) return 'SADAD_CLIENT_ID';
  return 'SADAD_BODY_SECRET';
}

/** A piece of a body the command does not write literally: a masked secret, or a SequenceNumber, each read from its variable. */
interface Hole { at: number; length: number; variable: string }

/**
 * A shell expression that writes the body to stdout, or (plain text) the word for `--data-raw`.
 * `printf` with octal escapes carries any byte, NUL included; `%s` takes a variable's value (a
 * masked secret's, or a SequenceNumber's: `sequences`, the places of each value in the body).
 */
function bodySource(body: string, sequences: Hole[] = []): { raw: string | null; printf: string; variables: string[] } {
  const holes: Hole[] = [...sequences];
  for (let at = body.indexOf(MASK); at >= 0; at = body.indexOf(MASK, at + MASK.length)) holes.push({ at, length: MASK.length, variable: bodySecretVariable(body.slice(0, at)) });
  holes.sort((a, b) => a.at - b.at);
  const pieces: string[] = [];
  let from = 0;
  for (const h of holes) { pieces.push(body.slice(from, h.at)); from = h.at + h.length; }
  pieces.push(body.slice(from));
  const variables = holes.map((h) => h.variable);
  const plain = !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(body);
  const raw = plain ? word(pieces.flatMap((p, i) => (i === 0 ? [p] : [{ v: variables[i - 1]! }, p]))) : null;
  const fmt = pieces.map((p) => p.replace(/[\\%]/g, (c) => (c === '%' ? '%%' : '\\\\'))
      .replace(/[\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)).join('%s')
    // a format starting with `-` would be read as an option
    .replace(/^-/, '\\055');
  const printf = `printf ${fmt === '' ? "''" : shellQuote(fmt)}${variables.map((v) => ` ${ref(v)}`).join('')}`;
  return { raw, printf, variables };
}

const PAYMENT_OPS = new Set<string>(operations.filter((o) => o.kind === 'payment').map((o) => o.id));
/** A SequenceNumber the command can hold in a variable: plain text that needs no escaping in JSON or in the shell's double quotes. */
const PLAIN_SEQUENCE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The SequenceNumbers of a payment's body (every `SequenceNumber` string, whatever its depth), each
 * value with its variable and its places in the body text. One value: `SADAD_SEQUENCE_NUMBER`;
 * several entries: `SADAD_SEQUENCE_NUMBER_1`, `_2`, ... in the order of the body. None for a body
 * that is not JSON, or whose SequenceNumbers are not plain strings (the request-field cases' wrong
 * types and empty values): those are sent as recorded.
 */
function sequenceNumbers(body: string): { variable: string; value: string; holes: Hole[] }[] {
  let parsed: unknown;
  try { parsed = JSON.parse(body); } catch { return []; }
  const values: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) { v.forEach(walk); return; }
    if (!v || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v)) {
      if (k === 'SequenceNumber' && typeof x === 'string' && PLAIN_SEQUENCE.test(x) && !values.includes(x)) values.push(x);
      else walk(x);
    }
  };
  walk(parsed);
  const found = values.map((value) => {
    // the value's characters need no escaping (PLAIN_SEQUENCE): in the text it is the value between quotes
    const re = new RegExp(`("SequenceNumber"\\s*:\\s*")${value.replace(/[.]/g, '\\.')}"`, 'g');
    return { value, at: [...body.matchAll(re)].map((m) => m.index + m[1]!.length) };
  }).filter((f) => f.at.length);
  return found.map(({ value, at }, i) => {
    const variable = found.length === 1 ? 'SADAD_SEQUENCE_NUMBER' : `SADAD_SEQUENCE_NUMBER_${i + 1}`;
    return { variable, value, holes: at.map((a) => ({ at: a, length: value.length, variable })) };
  });
}

/**
 * The Message object of a body as the built-in signer serialized it (JSON.stringify of the parsed
 * body's Message, `null` when there is none or the body is not JSON), for openssl to sign.
 */
const MESSAGE_OF_STDIN = `node -e ${shellQuote('let s="";process.stdin.setEncoding("utf8").on("data",(d)=>{s+=d}).on("end",()=>{let m=null;try{m=JSON.parse(s).Message??null}catch{}process.stdout.write(JSON.stringify(m))})')}`;

const seconds = (ms: number) => String(Math.round(ms / 100) / 10);

/**
 * The curl command (a few lines of POSIX shell) that sends this exchange's request again. Comments
 * say what the reader must supply; the variables it reads are listed on its second line.
 */
export function curlCommand(ex: CurlExchange, net: NetworkConfig | undefined, options: CurlOptions = {}): string {
  // written into the evidence as a case ends: a record it cannot read must not cost the case its evidence
  try {
    return build(ex, net, options);
  } catch (e) {
    return `# ${commentSafe(`no curl command for this exchange: ${maskText((e as Error).message)}`)}`;
  }
}

/** A command as it is put together: its comment lines, the lines that set variables before it, curl's options and headers, the variables it reads. */
interface Parts {
  comments: string[];
  pre: string[];
  args: string[];
  headerArgs: string[];
  needs: Set<string>;
}

/**
 * The parts go in in this order: the request line and the network options (the route and TLS
 * material the call took), what a payment's SequenceNumbers are, the headers, the body. It is the
 * order of the comments and of the variables the second line lists.
 */
function build(ex: CurlExchange, net: NetworkConfig | undefined, options: CurlOptions): string {
  const req = ex.request;
  const method = req.method.toUpperCase();
  const parts: Parts = { comments: [], pre: [], args: ['-sS', '-i'], headerArgs: [], needs: new Set() };
  const { comments, args } = parts;

  const outcome = ex.response ? `answered HTTP ${ex.response.status}` : `got no answer${ex.error ? `: ${ex.error.kind}` : ''}`;
  comments.push(`${ex.label ? `${ex.label}: ` : ''}${method} ${pathOf(req.url)}, ${outcome}`);

  if (options.timeoutMs) args.push('--max-time', seconds(options.timeoutMs));
  if (method === 'HEAD') args.push('--head');
  else if (method !== 'GET' && method !== 'POST') args.push('-X', shellQuote(method));

  if (net) networkOptions(parts, net, req.url, options);
  if (req.url.includes(MASK)) comments.push('the URL held a secret, masked in the evidence: put it back before sending');

  const sendsBody = method !== 'GET' && method !== 'HEAD';
  const clipped = sendsBody ? clippedBody(req.body) : null;
  const sequences = sendsBody && !clipped && ex.op && PAYMENT_OPS.has(ex.op) ? sequenceNumbers(req.body) : [];
  const body = sendsBody && !clipped ? bodySource(req.body, sequences.flatMap((q) => q.holes)) : null;
  if (sequences.length) paymentLines(parts, sequences);

  headerOptions(parts, ex, body, clipped, sendsBody, options);
  const { data, stdin } = dataOptions(parts, body, clipped);

  const lines = [`curl ${args.join(' ')} ${shellQuote(req.url)}`];
  for (let i = 0; i < parts.headerArgs.length; i += 2) lines.push(`  ${parts.headerArgs[i]} ${parts.headerArgs[i + 1]}`);
  if (data.length) lines.push(`  ${data.join(' ')}`);
  const command = lines.join(' \\\n');
  const vars = [...parts.needs].filter((v) => !parts.pre.some((line) => line.startsWith(`${v}=`)));
  if (vars.length) comments.splice(1, 0, `reads ${vars.join(', ')} from the environment`);
  return maskText([...comments.map((c) => `# ${commentSafe(c)}`), ...parts.pre, stdin ? `${stdin} |\n${command}` : command].join('\n'));
}

/** The network options, as the suite's dispatcher had them: the proxy the call took (or none), the CA file, the client certificate. */
function networkOptions({ args, comments, needs }: Parts, net: NetworkConfig, url: string, options: CurlOptions): void {
  const route = routeOf(net, url);
  if (route.proxy) {
    needs.add(route.proxy.variable);
    // undici's proxy agent opens a CONNECT tunnel for http targets too
    args.push('--proxy', ref(route.proxy.variable), '--proxytunnel');
    if (net.tls.ca && route.proxy.url.startsWith('https:')) args.push('--proxy-cacert', ref('SADAD_CA_FILE'));
  } else if (net.proxy.https || net.proxy.http) {
    // a proxy is configured but this call went direct; curl would otherwise take one from the environment
    args.push('--noproxy', "'*'");
    comments.push(route.bypassedBy ? `direct, not through the proxy: ${route.bypassedBy}` : 'direct: no configured proxy applies to this URL');
  }
  if (net.tls.ca) {
    needs.add('SADAD_CA_FILE');
    args.push('--cacert', ref('SADAD_CA_FILE'));
    comments.push('--cacert replaces the default roots, which the suite keeps beside SADAD_CA_FILE: drop it if the target has a public certificate');
  }
  const client = net.tls.client;
  if (client?.source === 'pem') {
    needs.add('SADAD_TLS_CERT').add('SADAD_TLS_KEY');
    args.push('--cert', ref('SADAD_TLS_CERT'), '--key', ref('SADAD_TLS_KEY'));
    if (options.tlsPassphrase) { needs.add('SADAD_TLS_PASSPHRASE'); args.push('--pass', ref('SADAD_TLS_PASSPHRASE')); }
  } else if (client?.source === 'pfx') {
    needs.add('SADAD_TLS_PFX');
    if (options.tlsPassphrase) needs.add('SADAD_TLS_PASSPHRASE');
    args.push('--cert-type', 'P12', '--cert', options.tlsPassphrase ? `"\${SADAD_TLS_PFX:?}:\${SADAD_TLS_PASSPHRASE:?}"` : ref('SADAD_TLS_PFX'));
    comments.push('a PKCS12 file with legacy ciphers that curl refuses converts to PEM with: openssl pkcs12 -legacy -in FILE -out client.pem -nodes');
  }
}

/**
 * A payment's SequenceNumbers, each set in its variable before anything reads it (the signature
 * line signs the body with them), and what sending it again does.
 */
function paymentLines({ pre, comments }: Parts, sequences: ReturnType<typeof sequenceNumbers>): void {
  for (const q of sequences) pre.push(`${q.variable}=${shellQuote(q.value)}`);
  const one = sequences.length === 1;
  const names = sequences.map((q) => q.variable).join(', ');
  comments.push(`a payment, so sending it again as it is repeats its SequenceNumber${one ? `, set in ${names}` : `s, set in ${names}, one per entry,`} below: if the recorded payment took effect, this is its duplicate and is to be refused, by the embedded mock with HTTP 409, or 422 once the bill or fee is paid. A target that takes it pays twice`);
  comments.push(`to send it as a new payment instead, one that takes effect, set ${one ? names : 'each of them'} to a value never sent, such as S and 20 hex digits from openssl rand -hex 10. Amount, subject and TransactionReferenceNumber stay as recorded`);
}

/** The headers, in the order recorded: a masked value read from its variable, a signature recomputed where the command can. */
function headerOptions(parts: Parts, ex: CurlExchange, body: ReturnType<typeof bodySource> | null, clipped: ReturnType<typeof clippedBody>, sendsBody: boolean, options: CurlOptions): void {
  const { comments, pre, needs, headerArgs } = parts;
  const signatureNames = new Set([SIGNATURE_HEADER.toLowerCase(), ...(options.signatureHeaders ?? []).map((h) => h.toLowerCase())]);
  // a header case's own request (labelled after its header, e.g. `Authorization bad-token`), not the enquiries that prepare it
  const caseHeader = /\.hdr\.([^.]+)\./.exec(options.caseId ?? '')?.[1]?.toLowerCase();
  const onPurpose = (header: string) => caseHeader === header && (ex.label ?? '').toLowerCase().startsWith(header);
  let hasContentType = false;
  for (const [name, value] of Object.entries(ex.request.headers)) {
    const lower = name.toLowerCase();
    if (CURL_OWN.has(lower)) continue;
    if (lower === 'content-type') hasContentType = true;
    if (!value.includes(MASK)) {
      // `Name;` is how curl sends a header with an empty value (`Name:` would remove it)
      headerArgs.push('-H', shellQuote(value === '' ? `${name};` : `${name}: ${value}`));
      continue;
    }
    let variable: string;
    if (lower === 'authorization' && value === `Bearer ${MASK}` && !onPurpose('authorization')) variable = 'SADAD_ACCESS_TOKEN';
    else if (lower === 'authorization') {
      variable = 'SADAD_AUTHORIZATION';
      comments.push(`SADAD_AUTHORIZATION: the credential this request sent in Authorization, masked in the evidence${onPurpose('authorization') ? ', a wrong one this case sent on purpose, not SADAD_ACCESS_TOKEN' : ''}`);
    } else if (lower === 'clientsecret' || lower === 'client-secret') variable = 'SADAD_CLIENT_SECRET';
    else if (signatureNames.has(lower)) {
      variable = lower === SIGNATURE_HEADER.toLowerCase() ? 'SADAD_SIGNATURE' : headerVariable(name);
      signatureComment(name, variable, body, !!clipped, onPurpose('signature'), options, parts);
    } else {
      variable = headerVariable(name);
      comments.push(`${variable}: the value of ${name}, masked in the evidence`);
    }
    // not needed when a line of the command computes it
    if (!pre.some((line) => line.startsWith(`${variable}=`))) needs.add(variable);
    const pieces = value.split(MASK).flatMap((p, i) => (i === 0 ? [p] : [{ v: variable }, p]));
    pieces[0] = `${name}: ${pieces[0] as string}`;
    headerArgs.push('-H', word(pieces));
  }
  if (sendsBody && !hasContentType) {
    // WHATWG fetch (undici) labels a string body text/plain when the request names no type; curl would say form-urlencoded
    headerArgs.push('-H', shellQuote('Content-Type: text/plain;charset=UTF-8'));
    comments.push('the request named no Content-Type: the client sent text/plain with charset UTF-8, as this does');
  }
}

/** The body: from the file the reader puts it in when the evidence clipped it, else literally, or through printf on stdin. */
function dataOptions({ comments, needs, headerArgs }: Parts, body: ReturnType<typeof bodySource> | null, clipped: ReturnType<typeof clippedBody>): { data: string[]; stdin: string | null } {
  if (clipped) {
    needs.add('SADAD_BODY_FILE');
    comments.push(`the body was ${clipped.kept + clipped.dropped} characters and the evidence keeps the first ${clipped.kept}: this cannot resend it as it was. Put the whole body in a file named by SADAD_BODY_FILE`);
    // curl would wait for a 100 Continue before a body this large; the client never asks for one
    headerArgs.push('-H', shellQuote('Expect:'));
    return { data: ['--data-binary', `@${ref('SADAD_BODY_FILE')}`], stdin: null };
  }
  if (!body) return { data: [], stdin: null };
  for (const v of body.variables) needs.add(v);
  if (body.variables.includes('SADAD_BODY_SECRET')) comments.push('SADAD_BODY_SECRET: a secret the body held, masked in the evidence');
  return body.raw !== null ? { data: ['--data-raw', body.raw], stdin: null } : { data: ['--data-binary', '@-'], stdin: body.printf };
}

function signatureComment(name: string, variable: string, body: ReturnType<typeof bodySource> | null, clipped: boolean, forged: boolean, options: CurlOptions, { comments, pre, needs }: Parts): void {
  if (forged) {
    comments.push(`${variable}: this case sent on purpose a signature that does not match the body: any valid signature of another body reproduces it`);
  } else if (options.builtInSigner && name.toLowerCase() === SIGNATURE_HEADER.toLowerCase() && (body || clipped)) {
    // the built-in signer: RSA-SHA256 over the Message object serialized as JSON, Base64
    comments.push(`${variable} signs the body: RSA-SHA256 over its Message object as JSON, Base64, recomputed here with the key in SADAD_SIGNING_KEY, PEM or PKCS12`);
    needs.add('SADAD_SIGNING_KEY');
    if (options.signingKeyPassphrase) needs.add('SADAD_SIGNING_KEY_PASSPHRASE');
    const passin = options.signingKeyPassphrase ? ' -passin env:SADAD_SIGNING_KEY_PASSPHRASE' : '';
    // a clipped body is read from the file the reader puts it in, as the command below sends it
    const source = body ? body.printf : `cat ${ref('SADAD_BODY_FILE')}`;
    pre.push(`${variable}="$(${source} | ${MESSAGE_OF_STDIN} | openssl dgst -sha256 -sign "\${SADAD_SIGNING_KEY:?}"${passin} | openssl base64 -A)"`);
  } else {
    comments.push(`${variable}: the value of ${name}, a signature of ${clipped ? 'the whole' : 'this'} body by the configured signer, masked in the evidence: compute it with that signer`);
  }
}

function pathOf(url: string): string {
  try { const u = new URL(url); return `${u.pathname}${u.search}`; } catch { return url; }
}
