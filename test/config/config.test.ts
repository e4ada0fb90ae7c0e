import { expect, test } from '@playwright/test';
import { configFromVariables, ConfigError, EMBEDDED_MOCK_WINDOW_SECONDS, MOCK_DEFAULTS } from '../../src/config/index.js';

const sandbox = { SADAD_BASE_URL: 'https://sandbox.bank.example/', SADAD_ACCESS_TOKEN: 'tok-123456', SADAD_COMPANY_ID: 'ACME' };

test('no configuration at all: the embedded mock, its credentials and a short window', () => {
  const c = configFromVariables({});
  expect(c.baseUrl).toBeUndefined();
  expect(c.accessToken).toBe(MOCK_DEFAULTS.accessToken);
  expect(c.companyId).toBe(MOCK_DEFAULTS.companyId);
  expect(c.rateWindowSeconds).toBe(EMBEDDED_MOCK_WINDOW_SECONDS);
  expect(c.rateLimits).toEqual({ bill: 10, moi: 3 });
  expect(c.tagPrefix).toBe('Svc');
});

test('a sandbox configuration: trailing slash dropped, 60 s window by default', () => {
  const c = configFromVariables(sandbox);
  expect(c.baseUrl).toBe('https://sandbox.bank.example');
  expect(c.rateWindowSeconds).toBe(60);
  expect(c.clientId).toBeUndefined();
});

const mistakes: [string, Record<string, string>, string][] = [
  ['a URL that is not one', { ...sandbox, SADAD_BASE_URL: 'sandbox.bank' }, 'SADAD_BASE_URL'],
  ['credentials inside the URL', { ...sandbox, SADAD_BASE_URL: 'https://u:p@sandbox.bank.example' }, 'SADAD_BASE_URL'],
  ['a sandbox without a token', { SADAD_BASE_URL: sandbox.SADAD_BASE_URL, SADAD_COMPANY_ID: 'ACME' }, 'SADAD_ACCESS_TOKEN'],
  ['a sandbox without a company', { SADAD_BASE_URL: sandbox.SADAD_BASE_URL, SADAD_ACCESS_TOKEN: 'tok-1' }, 'SADAD_COMPANY_ID'],
  ['a token URL without a client secret', { ...sandbox, SADAD_TOKEN_URL: 'https://auth.example/token', SADAD_CLIENT_ID: 'c' }, 'SADAD_CLIENT_SECRET'],
  ['a window of zero', { SADAD_RATE_WINDOW_SECONDS: '0' }, 'SADAD_RATE_WINDOW_SECONDS'],
  ['a fractional limit', { SADAD_RATE_LIMIT_MOI: '2.5' }, 'SADAD_RATE_LIMIT_MOI'],
  ['a rate shape neither burst nor spaced', { SADAD_RATE_SHAPE: 'smooth' }, 'SADAD_RATE_SHAPE'],
  ['a seed that is not a number', { SADAD_SEED: 'x1' }, 'SADAD_SEED'],
  ['a data file that does not exist', { SADAD_DATA_FILE: '/nonexistent/data.json' }, 'SADAD_DATA_FILE'],
  ['a signing key that does not exist', { SADAD_SIGNING_KEY: '/nonexistent/key.pem' }, 'SADAD_SIGNING_KEY'],
  ['a header value with a line break', { SADAD_DEVICE: 'Web\r\nX-Injected: 1' }, 'SADAD_DEVICE'],
  ['payments neither on nor off', { SADAD_PAYMENTS: 'maybe' }, 'SADAD_PAYMENTS'],
  ['a malformed tag prefix', { SADAD_TAG_PREFIX: 'O-SV' }, 'SADAD_TAG_PREFIX'],
];
for (const [what, env, variable] of mistakes) {
  test(`${what} stops with a message naming ${variable}`, () => {
    let error: unknown;
    try { configFromVariables(env); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as Error).message.startsWith(`${variable}: `)).toBe(true);
  });
}
