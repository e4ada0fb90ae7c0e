/**
 * `certify-client --upstream` reaches the sandbox through the same network as the suite (design.md
 * §10): in front of the mTLS mock, behind the forward proxy, a forwarded enquiry is answered; with
 * no client certificate, the client under test gets the proxy's 502 naming what is missing.
 */
import { expect, test } from '@playwright/test';
import { startJudge } from '../../src/judge/index.js';
import { networkFromEnv } from '../../src/net/index.js';
import { startForwardProxy } from './forward-proxy.js';
import { mockTls, pki } from './pki.js';
import { clientFor, enquire, RAISED, startCountedMock } from './servers.js';

test('certify-client --upstream in front of the HTTPS mTLS mock, through HTTPS_PROXY: a forwarded enquiry is answered', async () => {
  const p = pki();
  const sandbox = await startCountedMock({ ...RAISED, tls: mockTls(true) });
  const proxy = await startForwardProxy();
  const judge = (env: Record<string, string>) => startJudge({ mock: { port: 0, ...RAISED }, upstream: sandbox.url, network: networkFromEnv({ HTTPS_PROXY: proxy.url, SADAD_CA_FILE: p.caCert, ...env }) });
  const good = await judge({ SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase });
  const bare = await judge({});
  try {
    // the client under test talks plain HTTP to the judge, with the sandbox's credentials
    const ex = await enquire(clientFor({ url: good.url, options: sandbox.options }));
    expect(ex.response?.status, ex.response?.body).toBe(200);
    expect(sandbox.requests()).toBe(1);
    expect([...proxy.tunnels.keys()]).toEqual([`127.0.0.1:${sandbox.port}`]);

    const refused = await enquire(clientFor({ url: bare.url, options: sandbox.options }));
    expect(refused.response?.status).toBe(502);
    expect(refused.response?.body).toContain('requires a client certificate');
    expect(sandbox.requests(), 'nothing more reached the sandbox').toBe(1);
  } finally {
    await good.close();
    await bare.close();
    await proxy.close();
    await sandbox.close();
  }
});
