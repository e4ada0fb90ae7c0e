import { expect, test } from '@playwright/test';
import { startMock } from '../../src/mock/index.js';
import { ClientCredentialsToken, TokenError } from '../../src/client/token.js';
import { maskText } from '../../src/client/redact.js';
import { SadadClient } from '../../src/client/client.js';
import { configFromVariables } from '../../src/config/index.js';
import { LocalPacer } from '../../src/pacer/pacer.js';
import { limitsOf, tokenSource } from '../../src/suite/runtime.js';
import { classify } from '../../src/client/outcome.js';
import { RequestGenerator } from '../../src/generators/requests.js';

test('client-credentials tokens: fetched once, shared by concurrent callers, cached, fetched again near expiry, masked everywhere', async () => {
  const mock = await startMock({ port: 0, tokenLifetimeSeconds: 100 });
  try {
    let now = Date.now();
    const source = new ClientCredentialsToken({ url: `${mock.url}/oauth2/token`, clientId: 'mock-client', clientSecret: 'mock-client-secret', timeoutMs: 5000, now: () => now });
    const [a, b] = await Promise.all([source.token(), source.token()]);
    expect(a).toBe(b);
    expect(await source.token()).toBe(a);
    expect(maskText(`header Bearer-less ${a}`)).not.toContain(a);
    now += 95_000; // past the refresh point (10% before expiry)
    const c = await source.token();
    expect(c).not.toBe(a);
    // the whole client, configured for a token URL, gets its calls accepted by the target
    const config = configFromVariables({ SADAD_BASE_URL: mock.url, SADAD_TOKEN_URL: `${mock.url}/oauth2/token`, SADAD_CLIENT_ID: 'mock-client', SADAD_CLIENT_SECRET: 'mock-client-secret', SADAD_COMPANY_ID: 'MYCOMPANY' });
    const client = new SadadClient(config, { pacer: new LocalPacer({ windowSeconds: 60, limits: limitsOf(config) }), tokens: tokenSource(config), signer: undefined });
    const ex = await client.send('bill-enquiry', { body: new RequestGenerator({ seed: 1 }).build('bill-enquiry') });
    expect(classify('bill-enquiry', ex, 'Svc').kind).toBe('accepted');
    expect(ex.request.headers.Authorization).toBe('Bearer «masked»');
  } finally {
    await mock.close();
  }
});

test('bad client credentials give a TokenError that names the endpoint, not the secret', async () => {
  const mock = await startMock({ port: 0 });
  try {
    const source = new ClientCredentialsToken({ url: `${mock.url}/oauth2/token`, clientId: 'mock-client', clientSecret: 'wrong-secret-value', timeoutMs: 5000 });
    const error = await source.token().catch((e) => e);
    expect(error).toBeInstanceOf(TokenError);
    expect(String(error.message)).toContain('HTTP 401');
    expect(String(error.message)).not.toContain('wrong-secret-value');
  } finally {
    await mock.close();
  }
});
