/**
 * MOCK_LOG_LEVEL: `npm run mock` writes pino JSON lines on stdout (`info` by default): one line per
 * call with method, url, status, response time and company id; at `debug` the headers too, with
 * the secrets redacted. No token, client secret or signature ever reaches the output. `startMock`
 * stays silent unless asked.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { operation } from '../../src/contract/catalogue.js';
import { specTimestamp } from '../../src/contract/headers.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { defaultMockOptions, mockOptionsFromEnv, TOKEN_PATH } from '../../src/mock/index.js';
import { REDACTED } from '../../src/mock/logging.js';
import { ROOT } from '../../src/paths.js';

const TOKEN = 'static-token-Zq8w3LkP0aa';
const CLIENT_SECRET = 'client-secret-Hh5tYv2Rr9b';
const SIGNATURE = 'c2lnbmF0dXJlLXZhbHVlLVg3bTJwUTlr';

function runCli(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli', 'mock.ts')], {
    cwd: ROOT,
    // no .env of the working tree: SADAD_ENV_FILE names an empty one
    env: { PATH: process.env.PATH ?? '', SADAD_ENV_FILE: '/dev/null', MOCK_PORT: '0', SADAD_ACCESS_TOKEN: TOKEN, SADAD_CLIENT_SECRET: CLIENT_SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { err += String(d); });
  const done = new Promise<{ code: number | null }>((resolve) => child.on('exit', (code) => resolve({ code })));
  return { child, out: () => out, err: () => err, done };
}

async function urlOf(run: ReturnType<typeof runCli>): Promise<string> {
  const started = Date.now();
  let m: RegExpMatchArray | null = null;
  while (!(m = run.out().match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)) && Date.now() - started < 20_000) await new Promise((r) => setTimeout(r, 50));
  if (!m) throw new Error(`the mock did not start:\n${run.out()}\n${run.err()}`);
  return m[1]!;
}

/** Some calls carrying every secret: a token request, an enquiry with an issued token, one with the static token, a refused one. */
async function traffic(url: string): Promise<string> {
  const tokenRes = await fetch(`${url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'mock-client', client_secret: CLIENT_SECRET }) });
  expect(tokenRes.status).toBe(200);
  const issued = ((await tokenRes.json()) as { access_token: string }).access_token;
  const gen = new RequestGenerator({ seed: 3 });
  for (const token of [issued, TOKEN, 'wrong-token']) {
    const res = await fetch(`${url}${operation('bill-enquiry').path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json', Authorization: `Bearer ${token}`, CompanyId: 'MYCOMPANY', SvcReferenceID: 'SV150619940615',
        DateTimeStamp: specTimestamp(), Device: 'Web', clientid: 'mock-client', clientsecret: CLIENT_SECRET, 'X-Signature': SIGNATURE,
      },
      body: JSON.stringify(gen.build('bill-enquiry')),
    });
    expect(res.status).toBe(token === 'wrong-token' ? 401 : 200);
    await res.arrayBuffer();
  }
  return issued;
}

async function logsOf(env: Record<string, string>): Promise<{ lines: Record<string, unknown>[]; text: string; issued: string }> {
  const run = runCli(env);
  try {
    const url = await urlOf(run);
    const issued = await traffic(url);
    // the last call's line is written when its exchange closes
    await expect.poll(() => run.out().split('\n').filter((l) => l.includes('request completed')).length).toBe(4);
    run.child.kill('SIGTERM');
    expect((await run.done).code).toBe(0);
    const text = run.out() + run.err();
    const lines = run.out().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    return { lines, text, issued };
  } finally {
    run.child.kill('SIGKILL');
  }
}

test('npm run mock logs one JSON line per call at info, and never a secret', async () => {
  const { lines, text, issued } = await logsOf({});
  expect(text).toContain('logs: info (MOCK_LOG_LEVEL)');
  const completed = lines.filter((l) => l.msg === 'request completed');
  expect(completed.map((l) => [l.method, l.url, l.statusCode, l.companyId])).toEqual([
    ['POST', TOKEN_PATH, 200, null],
    ['POST', operation('bill-enquiry').path, 200, 'MYCOMPANY'],
    ['POST', operation('bill-enquiry').path, 200, 'MYCOMPANY'],
    ['POST', operation('bill-enquiry').path, 401, 'MYCOMPANY'],
  ]);
  for (const l of completed) {
    expect(typeof l.responseTime).toBe('number');
    expect(l.level).toBe(30);
    expect(typeof l.time).toBe('number');
    expect(String(l.correlationId)).toMatch(/^[0-9a-f-]{36}$/);
  }
  expect(lines.some((l) => l.msg === 'incoming request'), 'no headers at info').toBe(false);
  for (const secret of [TOKEN, issued, CLIENT_SECRET, SIGNATURE]) expect(text).not.toContain(secret);
});

test('at debug the headers are logged with authorization, clientsecret and the signature redacted', async () => {
  const { lines, text, issued } = await logsOf({ MOCK_LOG_LEVEL: 'debug' });
  const incoming = lines.filter((l) => l.msg === 'incoming request');
  expect(incoming).toHaveLength(4);
  const enquiries = incoming.map((l) => l.headers as Record<string, string>).filter((h) => h.companyid !== undefined);
  expect(enquiries).toHaveLength(3);
  for (const h of enquiries) {
    expect(h.authorization).toBe(REDACTED);
    expect(h.clientsecret).toBe(REDACTED);
    expect(h['x-signature']).toBe(REDACTED);
    expect(h.companyid).toBe('MYCOMPANY');
  }
  for (const secret of [TOKEN, issued, CLIENT_SECRET, SIGNATURE]) expect(text).not.toContain(secret);
});

test('silent unless asked: startMock and the embedded mock default to silent; a bad level stops npm run mock', async () => {
  expect(defaultMockOptions().logLevel).toBe('silent');
  expect(mockOptionsFromEnv({}).logLevel).toBe('silent');
  expect(mockOptionsFromEnv({ MOCK_LOG_LEVEL: 'warn' }).logLevel).toBe('warn');
  const quiet = runCli({ MOCK_LOG_LEVEL: 'silent' });
  try {
    const url = await urlOf(quiet);
    await traffic(url);
    quiet.child.kill('SIGTERM');
    await quiet.done;
    expect(quiet.out().split('\n').filter((l) => l.startsWith('{'))).toEqual([]);
  } finally {
    quiet.child.kill('SIGKILL');
  }
  const bad = runCli({ MOCK_LOG_LEVEL: 'verbose' });
  expect((await bad.done).code).toBe(2);
  expect(bad.err()).toContain('MOCK_LOG_LEVEL: must be one of silent, fatal, error, warn, info, debug, trace');
});
