/**
 * "Reproduce it" (issue 18): the curl command of a recorded exchange is run, not just read. Against
 * a capture server, every byte of a set of hostile bodies must arrive as recorded and every secret
 * must come from the environment; against the real mock, the commands of a failing run must get
 * the answers the run recorded; with the network settings of a company (private CA, PKCS#12 client
 * certificate, a proxy with a password, NO_PROXY), the options must be there and the secrets not,
 * and the command must get through that proxy and that mutual TLS. A payment's command, sent again
 * against the mock, is the duplicate its comment says it is; with the SequenceNumber line changed,
 * a new payment.
 */
import { spawn } from 'node:child_process';
import { createPrivateKey, createPublicKey, randomBytes, sign, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { curlCommand, curlOptionsOf, type CurlExchange } from '../../src/client/curl.js';
import { MAX_BODY } from '../../src/client/exchange.js';
import { MASK, maskHeaders } from '../../src/client/redact.js';
import { SadadClient } from '../../src/client/client.js';
import { configFromVariables } from '../../src/config/index.js';
import { startMock, type RunningMock } from '../../src/mock/index.js';
import { networkFromEnv } from '../../src/net/index.js';
import { ROOT, SCHEMAS_DIR } from '../../src/paths.js';
import { runSuite, type SuiteRun } from '../suite/run-suite.js';
import { pki } from '../net/pki.js';
import { freshAccount, MockClient } from '../mock/helpers.js';
import { startForwardProxy } from '../net/forward-proxy.js';

const TOKEN = `tok-${randomBytes(9).toString('hex')}`;
const CLIENT_SECRET = `cs-${randomBytes(9).toString('hex')}`;
const KEYS = join(ROOT, 'data/test-keys');
const SIGNING_PASSPHRASE = 'test-only-passphrase';

interface Captured { method: string; headers: IncomingMessage['headers']; raw: string[]; body: Buffer }

/** A server that answers 204 and keeps what it was sent, byte for byte. */
async function captureServer(): Promise<{ url: string; got: Captured[]; server: Server }> {
  const got: Captured[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => { got.push({ method: req.method ?? '', headers: req.headers, raw: req.rawHeaders, body: Buffer.concat(chunks) }); res.writeHead(204).end(); });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, got, server };
}

/**
 * Runs a command as a user would paste it, in bash, with only these variables (and PATH) set. Not
 * spawnSync: the servers it talks to live in this process. No rc files: bash reads ~/.bashrc when
 * its stdin is a socket, as Node's pipes are.
 */
function sh(command: string, env: Record<string, string> = {}): Promise<{ status: number | null; stdout: Buffer; stderr: Buffer }> {
  const child = spawn('bash', ['--norc', '--noprofile', '-c', command], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr: Buffer.concat(err) })));
}

/** The exchange as the client records it: secret headers masked by name. */
function recorded(url: string, body: string, headers: Record<string, string> = {}, method = 'POST'): CurlExchange {
  const all = { 'Content-Type': 'application/json', CompanyId: 'CURLTEST', Device: 'Web', Authorization: 'Bearer real-token-never-recorded', clientsecret: 'never-recorded', 'Content-Length': '9', ...headers };
  return { label: 'a label with $(touch /tmp/never) `x` and "quotes"; | &', request: { method, url: `${url}/api/enquiry/sadad/bill`, headers: maskHeaders(all), body }, response: { status: 400 } };
}

// the canary: a body written to break out of its quotes would create it
const CANARY = join(mkdtempSync(join(tmpdir(), 'sadad-curl-')), 'pwned');
const NASTY: [string, string][] = [
  ['double quotes', '{"a":"say \\"hi\\"","b":"\\u0000"}'],
  ['single quotes', "it's 'quoted' ''"],
  ['a lone single quote', "'"],
  ['expansions', '$HOME ${HOME} $(id) `id` $((1+1)) !! !$ ~ *'],
  ['breaking out of the quotes', `'; touch ${CANARY}; echo '`],
  ['breaking out of double quotes', `"; touch ${CANARY}; echo "`],
  ['newlines', 'line 1\nline 2\n\n'],
  ['CR LF and tab', 'a\r\nb\tc\r'],
  ['backslashes', 'back\\slash \\\\ \\n \\t \\x41 \\0'],
  ['printf directives', '%s %d %% %b %n \\c'],
  ['NUL and escape bytes', 'a\u0000b\u001b[31mred\u0007'],
  ['unicode', 'مرحبا 😀 é ∑ \u2028 \ufeff'],
  ['empty', ''],
  ['curl file syntax', '@/etc/passwd'],
  ['a leading dash', '-H x --data @-'],
  ['a leading dash and a NUL (printf)', '-n \u0000 -e %s'],
  ['a heredoc terminator', 'EOF\nSADAD_BODY\n'],
  ['large', 'x'.repeat(40_000) + "'" + '$'.repeat(1000)],
];

test.describe('quoting: every body reaches the target byte for byte, secrets from the environment', () => {
  let cap: Awaited<ReturnType<typeof captureServer>>;
  test.beforeAll(async () => { cap = await captureServer(); });
  test.afterAll(async () => { await new Promise((r) => cap.server.close(r)); });

  for (const [name, body] of NASTY) {
    test(name, async () => {
      const command = curlCommand(recorded(cap.url, body, { Device: '' }), undefined, { timeoutMs: 10_000 });
      const before = cap.got.length;
      const r = await sh(command, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET });
      expect(r.status, `${command}\n${r.stderr.toString()}`).toBe(0);
      expect(cap.got.length - before, 'one request').toBe(1);
      const got = cap.got.at(-1)!;
      expect(got.method).toBe('POST');
      expect(got.body.equals(Buffer.from(body, 'utf8')), `body received: ${JSON.stringify(got.body.toString('utf8').slice(0, 200))}`).toBe(true);
      expect(got.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(got.headers.clientsecret).toBe(CLIENT_SECRET);
      expect(got.headers['content-type']).toBe('application/json');
      // an empty header is sent empty, not dropped; the recorded Content-Length is curl's to set
      expect(got.headers.device).toBe('');
      expect(got.raw.filter((h) => h.toLowerCase() === 'content-length')).toHaveLength(1);
      expect(existsSync(CANARY), 'nothing in the body ran').toBe(false);
      expect(command).not.toContain('real-token-never-recorded');
      // comment lines hold nothing a shell acts on: zsh without interactivecomments runs them
      for (const line of command.split('\n').filter((l) => l.startsWith('#'))) expect(line).toMatch(/^# [^'"`$\\;&|<>(){}[\]*?!~^#]*$/);
    });
  }

  test('a secret the body held (masked in the record) comes back from its variable; a body-less GET sends none', async () => {
    const form = `grant_type=client_credentials&client_secret=${MASK}&scope=a'b`;
    const command = curlCommand({ ...recorded(cap.url, form, { 'Content-Type': 'application/x-www-form-urlencoded' }) }, undefined);
    expect(command).toContain('# reads SADAD_ACCESS_TOKEN, SADAD_CLIENT_SECRET from the environment');
    expect((await sh(command, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET })).status).toBe(0);
    expect(cap.got.at(-1)!.body.toString()).toBe(`grant_type=client_credentials&client_secret=${CLIENT_SECRET}&scope=a'b`);
    const get = curlCommand(recorded(cap.url, '', {}, 'GET'), undefined);
    expect((await sh(get, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET })).status).toBe(0);
    expect([cap.got.at(-1)!.method, cap.got.at(-1)!.body.length, cap.got.at(-1)!.headers['content-type']]).toEqual(['GET', 0, 'application/json']);
  });

  test('an unset secret variable stops the command before anything is sent', async () => {
    const before = cap.got.length;
    const r = await sh(curlCommand(recorded(cap.url, '{}'), undefined), { SADAD_CLIENT_SECRET: CLIENT_SECRET });
    expect(r.status).not.toBe(0);
    expect(r.stderr.toString()).toContain('SADAD_ACCESS_TOKEN');
    expect(cap.got.length).toBe(before);
  });

  test('no Content-Type recorded: the text/plain the client really sent, not curl\'s form type', async () => {
    const ex = recorded(cap.url, '{"a":1}');
    delete ex.request.headers['Content-Type'];
    expect((await sh(curlCommand(ex, undefined), { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET })).status).toBe(0);
    expect(cap.got.at(-1)!.headers['content-type']).toBe('text/plain;charset=UTF-8');
  });

  test('a clipped body is said to be one, and sent whole from the file the reader names', async () => {
    const whole = `{"Padding":"${'y'.repeat(MAX_BODY + 500)}"}`;
    const clipped = `${whole.slice(0, MAX_BODY)}… (${whole.length - MAX_BODY} more characters not recorded)`;
    const command = curlCommand(recorded(cap.url, clipped), undefined);
    expect(command).toMatch(/# the body was \d+ characters and the evidence keeps the first 65536: this cannot resend it as it was/);
    expect(command).not.toContain('yyyyyyyy');
    const file = join(mkdtempSync(join(tmpdir(), 'sadad-curl-')), 'body.json');
    writeFileSync(file, whole);
    expect((await sh(command, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET, SADAD_BODY_FILE: file })).status).toBe(0);
    expect(cap.got.at(-1)!.body.toString()).toBe(whole);
  });

  for (const key of ['signing-private.pem', 'signing-private.p12']) {
    test(`the built-in signer's X-Signature is recomputed over the body's Message, and verifies (${key})`, async () => {
      const body = JSON.stringify({ Message: { Name: "O'Brien $HOME `id` مرحبا", Amount: 10.5, List: [1, null] }, Other: 1 });
      const options = curlOptionsOf({ requestTimeoutMs: 5000, signer: undefined, signingKeyPassphrase: key.endsWith('.p12') ? SIGNING_PASSPHRASE : undefined, tlsPassphrase: undefined }, { name: 'built-in', headerNames: ['X-Signature'], sign: () => ({}) });
      const command = curlCommand(recorded(cap.url, body, { 'X-Signature': 'recorded-signature' }), undefined, options);
      expect(command).not.toContain('recorded-signature');
      const r = await sh(command, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET, SADAD_SIGNING_KEY: join(KEYS, key), ...(key.endsWith('.p12') ? { SADAD_SIGNING_KEY_PASSPHRASE: SIGNING_PASSPHRASE } : {}) });
      expect(r.status, r.stderr.toString()).toBe(0);
      const got = cap.got.at(-1)!;
      const signature = String(got.headers['x-signature']);
      const publicKey = createPublicKey(readFileSync(join(KEYS, 'signing-public.pem')));
      // the mock's check (src/mock/auth.ts): RSA-SHA256 over JSON.stringify(Message)
      expect(verify('sha256', Buffer.from(JSON.stringify(JSON.parse(body).Message)), publicKey, Buffer.from(signature, 'base64'))).toBe(true);
      expect(got.body.toString()).toBe(body);
    });
  }

  test('a body that is not JSON is signed as the client signs it: null (the robustness cases)', async () => {
    const body = '-not json, a NUL \u0000 and 100%';
    const options = curlOptionsOf({ requestTimeoutMs: 5000, signer: undefined, signingKeyPassphrase: undefined, tlsPassphrase: undefined }, { name: 'built-in', headerNames: ['X-Signature'], sign: () => ({}) });
    const r = await sh(curlCommand(recorded(cap.url, body, { 'X-Signature': 'x' }), undefined, options), { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET, SADAD_SIGNING_KEY: join(KEYS, 'signing-private.pem') });
    expect(r.status, r.stderr.toString()).toBe(0);
    const got = cap.got.at(-1)!;
    expect(got.body.equals(Buffer.from(body))).toBe(true);
    const publicKey = createPublicKey(readFileSync(join(KEYS, 'signing-public.pem')));
    expect(verify('sha256', Buffer.from('null'), publicKey, Buffer.from(String(got.headers['x-signature']), 'base64'))).toBe(true);
  });
});

test('a header case\'s wrong credential is not replaced by the configured one; the enquiries that prepare it are', () => {
  const ex = (label: string, headers: Record<string, string>): CurlExchange => ({ label, request: { method: 'POST', url: 'http://t.example/x', headers: maskHeaders({ 'Content-Type': 'application/json', ...headers }), body: '{"Message":{}}' } });
  const builtIn = curlOptionsOf({ requestTimeoutMs: 1000, signer: undefined, signingKeyPassphrase: undefined, tlsPassphrase: undefined }, { name: 'built-in', headerNames: ['X-Signature'], sign: () => ({}) }, 'bill-payment.hdr.Authorization.bad-token');
  const bad = curlCommand(ex('Authorization bad-token', { Authorization: 'Bearer not-a-valid-token-0000' }), undefined, builtIn);
  expect(bad).toContain('-H "Authorization: Bearer ${SADAD_AUTHORIZATION:?}"');
  expect(bad).toContain('# SADAD_AUTHORIZATION: the credential this request sent in Authorization, masked in the evidence, a wrong one this case sent on purpose');
  expect(curlCommand(ex('bill enquiry', { Authorization: 'Bearer good' }), undefined, builtIn)).toContain('-H "Authorization: Bearer ${SADAD_ACCESS_TOKEN:?}"');
  const forged = curlCommand(ex('signature of another body', { 'X-Signature': 'sig' }), undefined, { ...builtIn, caseId: 'bill-enquiry.hdr.signature.invalid' });
  expect(forged).not.toContain('SADAD_SIGNATURE="$(');
  expect(forged).toContain('# SADAD_SIGNATURE: this case sent on purpose a signature that does not match the body');
  expect(curlCommand(ex('bill enquiry', { 'X-Signature': 'sig' }), undefined, { ...builtIn, caseId: 'bill-enquiry.hdr.signature.invalid' })).toContain('SADAD_SIGNATURE="$(');
});

test.describe('a payment\'s command: sent again it is a duplicate, and says so; a fresh SequenceNumber makes it a new payment', () => {
  const builtIn = curlOptionsOf({ requestTimeoutMs: 10_000, signer: undefined, signingKeyPassphrase: undefined, tlsPassphrase: undefined }, { name: 'built-in', headerNames: ['X-Signature'], sign: () => ({}) });
  const signingKey = createPrivateKey(readFileSync(join(KEYS, 'signing-private.pem')));
  const env = { SADAD_ACCESS_TOKEN: TOKEN, SADAD_SIGNING_KEY: join(KEYS, 'signing-private.pem') };
  /** The line a reader writes in place of the recorded value (docs/certification.md shows it). */
  const fresh = (variable: string) => `${variable}="S$(openssl rand -hex 10 | tr a-f A-F)"`;

  test('against the mock: as recorded, 409 and no debit; with a fresh SequenceNumber, a payment (signed anew); on the paid bill, 422', async () => {
    const mock = await startMock({ port: 0, accessToken: TOKEN, companyId: 'CURLTEST', rateLimits: { bill: 1000, moi: 1000 }, signaturePublicKeyPem: readFileSync(join(KEYS, 'signing-public.pem'), 'utf8') });
    try {
      const c = new MockClient(mock);
      const signed = (body: Record<string, unknown>) => ({ 'X-Signature': sign('sha256', Buffer.from(JSON.stringify(body.Message)), signingKey).toString('base64') });
      const subject = { BillerId: '001', AccountNumber: freshAccount() };
      const balance = async () => {
        const body = c.build('bill-enquiry', { entry: { BillerId: subject.BillerId, AccountNumber: subject.AccountNumber } });
        const a = await c.post('bill-enquiry', body, { headers: signed(body) });
        expect(a.status).toBe(200);
        return Number(c.entries('bill-enquiry', a)[0]!.Balance);
      };
      const due = await balance();
      expect(due).toBeGreaterThan(3);
      // a partial payment, as a case records it (secrets masked)
      const body = c.billPayment(subject, 1, false);
      const sequence = String(((body.Message as any).SvcSadadBillPaymentRequest.SvcSadadBillPayment[0].TransactionData[0]).SequenceNumber);
      const headers = { ...c.headers('bill-payment'), ...signed(body) };
      const paid = await c.post('bill-payment', body, { headers });
      expect(paid.status, JSON.stringify(paid.body)).toBe(200);
      expect(await balance()).toBeCloseTo(due - 1, 2);
      const command = curlCommand({ label: 'partial payment', op: 'bill-payment', request: { method: 'POST', url: `${mock.url}/api/payment/sadad/bill`, headers: maskHeaders(headers), body: JSON.stringify(body) }, response: { status: 200 } }, undefined, builtIn);

      const comments = command.split('\n').filter((l) => l.startsWith('#'));
      expect(comments.join('\n')).toContain('# a payment, so sending it again as it is repeats its SequenceNumber, set in SADAD_SEQUENCE_NUMBER below: if the recorded payment took effect, this is its duplicate and is to be refused, by the embedded mock with HTTP 409, or 422 once the bill or fee is paid. A target that takes it pays twice');
      expect(comments.join('\n')).toContain('# to send it as a new payment instead, one that takes effect, set SADAD_SEQUENCE_NUMBER to a value never sent, such as S and 20 hex digits from openssl rand -hex 10.');
      for (const line of comments) expect(line).toMatch(/^# [^'"`$\\;&|<>(){}[\]*?!~^#]*$/);
      // the variable is the command's own (set on a line of it), not one it reads from the environment
      expect(command).toContain(`\nSADAD_SEQUENCE_NUMBER='${sequence}'\n`);
      expect(command).not.toMatch(/reads [^\n]*SADAD_SEQUENCE_NUMBER/);
      expect(command.split(sequence)).toHaveLength(2);

      // as it is: the duplicate, refused, nothing debited (a variable left in the environment changes nothing)
      const again = await sh(command, { ...env, SADAD_SEQUENCE_NUMBER: 'SFROMTHEENVIRONMENT01' });
      expect(again.status, again.stderr.toString()).toBe(0);
      expect(lastStatus(again.stdout.toString()), again.stdout.toString()).toBe(409);
      expect(again.stdout.toString()).toContain('MW-409-DUPLICATE');
      expect(await balance()).toBeCloseTo(due - 1, 2);

      // a new payment: the one line changed; the signature line signs the body with the new number
      const renewed = command.replace(/^SADAD_SEQUENCE_NUMBER=.*$/m, fresh('SADAD_SEQUENCE_NUMBER'));
      const second = await sh(renewed, env);
      expect(lastStatus(second.stdout.toString()), second.stdout.toString() + second.stderr.toString()).toBe(200);
      expect(await balance()).toBeCloseTo(due - 2, 2);

      // the bill paid in full, a new SequenceNumber meets the paid bill
      const rest = c.billPayment(subject, Math.round((due - 2) * 100) / 100, true);
      expect((await c.post('bill-payment', rest, { headers: signed(rest) })).status).toBe(200);
      const third = await sh(renewed, env);
      expect(lastStatus(third.stdout.toString()), third.stdout.toString()).toBe(422);
    } finally {
      await mock.close();
    }
  });

  test('several entries: one variable each, the bytes as recorded until one is changed; an enquiry\'s SequenceNumber stays literal', async () => {
    const cap = await captureServer();
    try {
      const entries = [{ SequenceNumber: 'SAAAA0000000000000001', Amount: 1 }, { SequenceNumber: 'SAAAA0000000000000002', Amount: 2 }, { SequenceNumber: 'SAAAA0000000000000001', Amount: 3 }];
      const body = JSON.stringify({ Message: { SvcSadadBillPaymentRequest: { TransactionType: 'SADADTRN', SvcSadadBillPayment: [{ MessageDescription: 'say "SequenceNumber":"SAAAA0000000000000002"', TransactionData: entries }] } } });
      const ex = (op: string): CurlExchange => ({ label: 'three entries', op, request: { method: 'POST', url: `${cap.url}/api/payment/sadad/bill`, headers: { 'Content-Type': 'application/json', 'X-Signature': MASK }, body }, response: { status: 400 } });
      const command = curlCommand(ex('bill-payment'), undefined, builtIn);
      expect(command).toContain("\nSADAD_SEQUENCE_NUMBER_1='SAAAA0000000000000001'\nSADAD_SEQUENCE_NUMBER_2='SAAAA0000000000000002'\n");
      expect(command).toContain('set in SADAD_SEQUENCE_NUMBER_1, SADAD_SEQUENCE_NUMBER_2, one per entry, below');
      expect((await sh(command, env)).status).toBe(0);
      expect(cap.got.at(-1)!.body.toString()).toBe(body);
      const renewed = command.replace(/^SADAD_SEQUENCE_NUMBER_1=.*$/m, 'SADAD_SEQUENCE_NUMBER_1=SNEW1').replace(/^SADAD_SEQUENCE_NUMBER_2=.*$/m, 'SADAD_SEQUENCE_NUMBER_2=SNEW2');
      expect((await sh(renewed, env)).status).toBe(0);
      const got = cap.got.at(-1)!;
      // every entry's value, and only there: text that merely looks like one (in MessageDescription) is kept
      expect(got.body.toString()).toBe(body.replace(/"SequenceNumber":"SAAAA0000000000000001"/g, '"SequenceNumber":"SNEW1"').replace(/"SequenceNumber":"SAAAA0000000000000002"/g, '"SequenceNumber":"SNEW2"'));
      expect(got.body.toString()).toContain('say \\"SequenceNumber\\":\\"SAAAA0000000000000002\\"');
      const publicKey = createPublicKey(readFileSync(join(KEYS, 'signing-public.pem')));
      expect(verify('sha256', Buffer.from(JSON.stringify(JSON.parse(got.body.toString()).Message)), publicKey, Buffer.from(String(got.headers['x-signature']), 'base64')), 'signed as sent').toBe(true);
      // an enquiry changes nothing: sent again it is the same enquiry, and the command is as before
      const enquiry = curlCommand(ex('bill-enquiry'), undefined, builtIn);
      expect(enquiry).not.toContain('SADAD_SEQUENCE_NUMBER');
      expect(enquiry).not.toContain('a payment');
      // a payment whose SequenceNumber is not a plain string (a request-field case) is sent as recorded, without the variable
      const wrongType = curlCommand({ ...ex('bill-payment'), request: { ...ex('bill-payment').request, body: '{"Message":{"X":[{"TransactionData":[{"SequenceNumber":12}]}]}}' } }, undefined, builtIn);
      expect(wrongType).not.toContain('SADAD_SEQUENCE_NUMBER');
    } finally {
      await new Promise((r) => cap.server.close(r));
    }
  });
});

// one worker makes the test PKI (six RSA keys) once for both
test.describe('a company network', () => {
test.describe.configure({ mode: 'serial' });

test('the network options: CA file, PKCS#12 or PEM client certificate, the proxy the call takes, NO_PROXY; never a secret', () => {
  const p = pki();
  const proxyPassword = `pw-${randomBytes(8).toString('hex')}`;
  const env = { SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase, HTTPS_PROXY: `http://corp:${proxyPassword}@proxy.corp.example:3128`, NO_PROXY: 'internal.example,.svc.example' };
  const net = networkFromEnv(env);
  const options = { timeoutMs: 15_000, tlsPassphrase: true };
  const ex = (url: string): CurlExchange => ({ request: { method: 'POST', url, headers: { 'Content-Type': 'application/json' }, body: '{}' } });

  const proxied = curlCommand(ex('https://sandbox.bank.example/api/enquiry/sadad/bill'), net, options);
  expect(proxied).toContain('--proxy "${HTTPS_PROXY:?}" --proxytunnel');
  expect(proxied).toContain('--cacert "${SADAD_CA_FILE:?}"');
  expect(proxied).toContain('--cert-type P12 --cert "${SADAD_TLS_PFX:?}:${SADAD_TLS_PASSPHRASE:?}"');
  expect(proxied).toContain('--max-time 15');
  expect(proxied).not.toContain('--noproxy');

  const bypassed = curlCommand(ex('https://api.svc.example/x'), net, options);
  expect(bypassed).toContain("--noproxy '*'");
  expect(bypassed).not.toContain('--proxy ');
  expect(bypassed).toMatch(/# direct, not through the proxy: NO_PROXY entry .\.svc\.example./);
  // an http target: HTTPS_PROXY does not apply (undici's rule, and curl's), and the environment's must not either
  expect(curlCommand(ex('http://plain.example/x'), net, options)).toContain("--noproxy '*'");
  // the lower-case variable wins, and is the one named
  expect(curlCommand(ex('https://a.example/x'), networkFromEnv({ https_proxy: 'http://p.example:8080', HTTPS_PROXY: 'http://other:1' }), {})).toContain('--proxy "${https_proxy:?}"');

  const pem = curlCommand(ex('https://sandbox.bank.example/x'), networkFromEnv({ SADAD_TLS_CERT: p.clientCert, SADAD_TLS_KEY: p.clientKeyEncrypted, SADAD_TLS_PASSPHRASE: p.passphrase }), options);
  expect(pem).toContain('--cert "${SADAD_TLS_CERT:?}" --key "${SADAD_TLS_KEY:?}" --pass "${SADAD_TLS_PASSPHRASE:?}"');
  expect(pem).not.toMatch(/--proxy|--noproxy|--cacert/);

  // a record it cannot read costs the command, never the case's evidence
  expect(curlCommand(ex('not a url'), net, options)).toMatch(/^# no curl command for this exchange: Invalid URL$/);

  for (const command of [proxied, bypassed, pem]) {
    for (const secret of [p.passphrase, proxyPassword, 'corp:']) expect(command).not.toContain(secret);
    // file names are the reader's to set: the command names the variables
    expect(command).not.toContain(p.dir);
  }
});

test('through an authenticating proxy to a mutual-TLS target behind a private CA: the command gets the answer the client got', async () => {
  const p = pki();
  const mock = await startMock({ port: 0, accessToken: TOKEN, companyId: 'CURLTEST', tls: { cert: p.pem.serverCert, key: p.pem.serverKey, clientCa: p.pem.caCert } });
  const auth = { user: 'corp', password: `pw-${randomBytes(8).toString('hex')}` };
  const proxy = await startForwardProxy({ auth });
  try {
    const proxyUrl = `http://${auth.user}:${auth.password}@127.0.0.1:${proxy.port}`;
    const env = { SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: TOKEN, SADAD_COMPANY_ID: 'CURLTEST', SADAD_PAYMENTS: 'off',
      SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase, HTTPS_PROXY: proxyUrl };
    const config = configFromVariables(env);
    // the suite's own client, through its dispatcher: the exchange a case would record
    const client = new SadadClient(config, { pacer: undefined as never, tokens: undefined as never, signer: undefined });
    const ex = await client.exchange('enquiry', 'bill-enquiry', 'POST', `${mock.url}/api/enquiry/sadad/bill`, { 'Content-Type': 'application/json', CompanyId: 'CURLTEST', Authorization: `Bearer ${TOKEN}` }, '{"Message":{}}');
    expect(ex.response?.status, JSON.stringify(ex.error)).toBeGreaterThanOrEqual(400);
    const tunnels = proxy.tunnelCount();
    const command = curlCommand(ex, config.network, curlOptionsOf(config));
    const r = await sh(command, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase, HTTPS_PROXY: proxyUrl });
    expect(r.status, `${command}\n${r.stderr.toString()}`).toBe(0);
    expect(lastStatus(r.stdout.toString())).toBe(ex.response!.status);
    expect(proxy.tunnelCount(), 'curl went through the proxy').toBe(tunnels + 1);
    for (const secret of [p.passphrase, auth.password, TOKEN]) expect(command).not.toContain(secret);
  } finally {
    await proxy.close();
    await mock.close();
  }
});
});

/** The status of the last HTTP response in `curl -i` output (a proxy's CONNECT answer comes first). */
function lastStatus(out: string): number {
  const all = [...out.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
  return Number(all.at(-1)?.[1]);
}

test.describe('a failing run against the mock', () => {
  test.describe.configure({ mode: 'serial', timeout: 180_000 });
  let mock: RunningMock;
  let run: SuiteRun;
  const FAILING = 'bill-enquiry.robust.malformed-json';
  const PASSING = 'bill-enquiry.hdr.Device.empty';

  test.beforeAll(async () => {
    test.setTimeout(180_000);
    mock = await startMock({
      port: 0, accessToken: TOKEN, companyId: 'CURLTEST', clientId: 'curl-client', clientSecret: CLIENT_SECRET, rateWindowSeconds: 1, rateLimits: { bill: 100, moi: 100 },
      defects: ['malformed-json-500', 'empty-string-accepted', 'account-number-25-accepted', 'company-id-unchecked', 'response-field-missing', 'oversized-500'],
      signaturePublicKeyPem: readFileSync(join(KEYS, 'signing-public.pem'), 'utf8'),
    });
    run = await runSuite({
      SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: TOKEN, SADAD_COMPANY_ID: 'CURLTEST', SADAD_CLIENT_ID: 'curl-client', SADAD_CLIENT_SECRET: CLIENT_SECRET,
      SADAD_SIGNING_KEY: join(KEYS, 'signing-private.p12'), SADAD_SIGNING_KEY_PASSPHRASE: SIGNING_PASSPHRASE,
      SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '100', SADAD_RATE_LIMIT_MOI: '100', SADAD_SEED: '1818',
      SADAD_CASES: [FAILING, PASSING, 'bill-enquiry.req.SubscriberNumber.empty', 'bill-enquiry.req.AccountNumber.over-limit', 'moi-enquiry.hdr.CompanyId.*', 'moi-enquiry.res.schema', 'moi-enquiry.robust.oversized-body'].join(','),
    });
  });
  test.afterAll(async () => { await mock?.close(); });

  const evidence = () => readdirSync(join(run.reportsDir, 'evidence')).filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(run.reportsDir, 'evidence', f), 'utf8')) as { id: string; verdict: string; exchanges: (CurlExchange & { curl?: string })[] });

  test('every exchange of a case that is not PASS carries its command, and the mock answers it as it answered the run', async () => {
    expect(run.code, run.output.slice(-3000)).toBe(1);
    const cases = evidence();
    const failing = cases.filter((c) => c.verdict !== 'PASS');
    expect(failing.map((c) => c.id)).toEqual(expect.arrayContaining([FAILING, 'bill-enquiry.req.AccountNumber.over-limit', 'moi-enquiry.hdr.CompanyId.missing', 'moi-enquiry.robust.oversized-body']));
    expect(cases.find((c) => c.id === PASSING)?.verdict).toBe('PASS');
    for (const c of cases.filter((x) => x.verdict === 'PASS')) for (const ex of c.exchanges) expect(ex.curl, `${c.id}: PASS, no command`).toBeUndefined();
    const bodyFile = join(mkdtempSync(join(tmpdir(), 'sadad-curl-')), 'oversized.json');
    // the 2 MiB body is beyond the evidence: the reader supplies one as large (the mock's defect answers 500 to any)
    writeFileSync(bodyFile, `{"Padding":"${'x'.repeat(2 * 1024 * 1024)}"}`);
    let replayed = 0;
    for (const c of failing) {
      for (const ex of c.exchanges) {
        expect(ex.curl, `${c.id}: ${ex.label}`).toEqual(expect.stringContaining('curl -sS -i'));
        for (const secret of [TOKEN, CLIENT_SECRET, SIGNING_PASSPHRASE]) expect(ex.curl).not.toContain(secret);
        if (!ex.response) continue;
        const r = await sh(ex.curl!, { SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET, SADAD_SIGNING_KEY: join(KEYS, 'signing-private.p12'), SADAD_SIGNING_KEY_PASSPHRASE: SIGNING_PASSPHRASE, SADAD_BODY_FILE: bodyFile });
        expect(r.status, `${c.id} ${ex.label}: ${r.stderr.toString()}`).toBe(0);
        expect(lastStatus(r.stdout.toString()), `${c.id} ${ex.label}: ${r.stdout.toString().slice(0, 600)}`).toBe(ex.response.status);
        replayed++;
      }
    }
    expect(replayed).toBeGreaterThanOrEqual(6);
  });

  test('certification.json keeps the commands (and validates); certification.html shows them under the failing case only', () => {
    const report = JSON.parse(readFileSync(join(run.reportsDir, 'certification.json'), 'utf8')) as { cases: { id: string; exchanges?: { curl?: string }[] }[] };
    // the schema's exchange definition (the whole package's validation is certification.test.ts's)
    const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, 'certification.schema.json'), 'utf8')) as { $id: string };
    const ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });
    ajv.addSchema(schema);
    const validate = ajv.getSchema(`${schema.$id}#/$defs/exchange`)!;
    const exchanges = report.cases.flatMap((c) => c.exchanges ?? []);
    expect(exchanges.filter((ex) => ex.curl).length).toBeGreaterThanOrEqual(6);
    for (const ex of exchanges) expect(validate(ex) ? [] : validate.errors).toEqual([]);
    const failing = report.cases.find((c) => c.id === FAILING)!;
    expect(failing.exchanges?.every((ex) => ex.curl?.includes('curl -sS -i'))).toBe(true);
    const html = readFileSync(join(run.reportsDir, 'certification.html'), 'utf8');
    // a case's rows, up to the next case (its header tables have tbody elements of their own)
    const block = (id: string) => {
      const start = html.indexOf(`<tbody class="case" id="case-${id}"`);
      expect(start, id).toBeGreaterThan(0);
      const next = html.indexOf('<tbody class="case" ', start + 1);
      return html.slice(start, next < 0 ? undefined : next);
    };
    expect(block(FAILING)).toContain('<summary>Reproduce it: curl</summary><pre class="body curl">');
    expect(block(FAILING)).toContain('curl -sS -i --max-time 15 &#39;http://127.0.0.1:');
    expect(block(FAILING)).toContain('-H &quot;Authorization: Bearer ${SADAD_ACCESS_TOKEN:?}&quot;');
    expect(block(PASSING)).not.toContain('Reproduce it');
    for (const secret of [TOKEN, CLIENT_SECRET]) expect(html).not.toContain(secret);
  });
});
