import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../src/contract/prefix.js';
import { ROOT } from '../../src/paths.js';
import { specTimestamp } from '../../src/contract/headers.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { defaultMockOptions, mockOptionsFromEnv, startMock } from '../../src/mock/index.js';

test('options come from the environment with the documented defaults', () => {
  expect(mockOptionsFromEnv({})).toEqual({ ...defaultMockOptions(), extraCompanyIds: [] });
  expect(defaultMockOptions()).toMatchObject({
    host: '127.0.0.1', port: 4010, rateWindowSeconds: 60, rateLimits: { bill: 10, moi: 3 }, style: 'sample', errors: 'http',
    accessToken: 'mock-access-token-0123456789', companyId: 'MYCOMPANY', clientId: 'mock-client', clientSecret: 'mock-client-secret',
    requireClientHeaders: false, tagPrefix: 'Svc', headerPrefix: 'Svc', tokenLifetimeSeconds: 3600, defects: [],
  });
  const o = mockOptionsFromEnv({
    MOCK_PORT: '0', MOCK_RATE_WINDOW_SECONDS: '0.5', MOCK_RATE_LIMIT_BILL: '20', MOCK_RATE_LIMIT_MOI: '6', MOCK_STYLE: 'table', MOCK_ERRORS: 'in-band',
    SADAD_ACCESS_TOKEN: 'tok', SADAD_COMPANY_ID: 'ACME', SADAD_CLIENT_ID: 'id', SADAD_CLIENT_SECRET: 'secret', MOCK_REQUIRE_CLIENT_HEADERS: '1',
    SADAD_TAG_PREFIX: 'OSV', SADAD_HEADER_PREFIX: 'SV', MOCK_SIGNATURE_PUBLIC_KEY: 'data/test-keys/signing-public.pem', MOCK_TOKEN_LIFETIME_SECONDS: '2',
    MOCK_EXTRA_COMPANY_IDS: 'B,C',
  });
  expect(o).toMatchObject({
    port: 0, rateWindowSeconds: 0.5, rateLimits: { bill: 20, moi: 6 }, style: 'table', errors: 'in-band', accessToken: 'tok', companyId: 'ACME',
    clientId: 'id', clientSecret: 'secret', requireClientHeaders: true, tagPrefix: 'OSV', headerPrefix: 'SV', tokenLifetimeSeconds: 2, extraCompanyIds: ['B', 'C'],
  });
  expect(o.signaturePublicKeyPem).toContain('BEGIN PUBLIC KEY');
});

test('a bad value is a ConfigError naming the variable', () => {
  const bad: Record<string, string> = {
    MOCK_RATE_WINDOW_SECONDS: 'abc', MOCK_PORT: '70000', MOCK_RATE_LIMIT_BILL: '0', MOCK_RATE_LIMIT_MOI: '2.5', MOCK_STYLE: 'fancy',
    MOCK_ERRORS: 'inband', MOCK_REQUIRE_CLIENT_HEADERS: 'maybe', MOCK_SIGNATURE_PUBLIC_KEY: 'no/such/key.pem', MOCK_TOKEN_LIFETIME_SECONDS: '-1',
    MOCK_DEFECTS: 'no-such-defect', SADAD_TAG_PREFIX: '1x', SADAD_CLIENT_PROFILE: 'strict', MOCK_TIME_ZONE: 'Riyadh',
  };
  for (const [variable, value] of Object.entries(bad)) {
    expect(() => mockOptionsFromEnv({ [variable]: value }), variable).toThrow(ConfigError);
    expect(() => mockOptionsFromEnv({ [variable]: value }), variable).toThrow(new RegExp(`^${variable}: `));
  }
  expect(() => mockOptionsFromEnv({ MOCK_RATE_WINDOW_SECONDS: 'abc' })).toThrow('MOCK_RATE_WINDOW_SECONDS: must be a positive number, got "abc"');
  expect(() => mockOptionsFromEnv({ MOCK_SIGNATURE_PUBLIC_KEY: 'package.json' })).toThrow(/not a PEM public key/);
});

test('startMock listens on 127.0.0.1, port 0 picks a free port, close is idempotent', async () => {
  const a = await startMock({ port: 0 });
  const b = await startMock({ port: 0 });
  try {
    expect(a.url).toBe(`http://127.0.0.1:${a.port}`);
    expect(a.port).not.toBe(b.port);
    expect(a.options.port).toBe(a.port);
  } finally {
    await Promise.all([a.close(), b.close(), a.close()]);
  }
  await expect(fetch(a.url)).rejects.toThrow();
  await expect(startMock({ port: 0, defects: ['nope'] })).rejects.toThrow(ConfigError);
});

function runCli(env: Record<string, string>) {
  const child = spawn(process.execPath, [join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(ROOT, 'src', 'cli', 'mock.ts')], {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += String(d); });
  child.stderr.on('data', (d) => { err += String(d); });
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  return { child, output: () => out, done };
}

test('npm run mock: loads the env file, prints the address, answers, and exits 0 on SIGTERM; a config error exits 2', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mock-cli-'));
  const envFile = join(dir, 'test.env');
  writeFileSync(envFile, 'MOCK_PORT=0\nSADAD_ACCESS_TOKEN=from-env-file\nMOCK_STYLE=table\n');
  const run = runCli({ SADAD_ENV_FILE: envFile });
  const started = Date.now();
  let line: RegExpMatchArray | null = null;
  while (!(line = run.output().match(/listening on (http:\/\/127\.0\.0\.1:\d+)/)) && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 50));
  try {
    expect(line, 'listening line').not.toBeNull();
    const body = new RequestGenerator({ seed: 1 }).build('bill-enquiry');
    const res = await fetch(`${line![1]}/api/enquiry/sadad/bill`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer from-env-file', CompanyId: 'MYCOMPANY', SvcReferenceID: 'SV150619940615', DateTimeStamp: specTimestamp(), Device: 'Web' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { SvcSadadBillEnquiryResponse: { SvcSadadBillEnquiry: { Status: unknown }[] } };
    expect(answer.SvcSadadBillEnquiryResponse.SvcSadadBillEnquiry[0]!.Status, 'table style from the env file').toBe(true);
  } finally {
    run.child.kill('SIGTERM');
  }
  expect((await run.done).code).toBe(0);

  const bad = await runCli({ MOCK_RATE_WINDOW_SECONDS: 'abc', SADAD_ENV_FILE: envFile }).done;
  expect(bad.code).toBe(2);
  expect(bad.err).toContain('MOCK_RATE_WINDOW_SECONDS: must be a positive number, got "abc"');
  expect(bad.out).not.toContain('listening');
});
