/**
 * The corporate proxy (design.md §10) with a real forward proxy between the suite and the mock:
 * HTTP_PROXY and HTTPS_PROXY are taken (a CONNECT tunnel each, counted by the proxy, and the mock
 * sees the call arrive from the proxy), NO_PROXY bypasses in either case, a proxy wanting
 * credentials is a configuration error until they are in its URL, and the password never reaches a
 * recorded exchange. The token endpoint goes the same way as the calls.
 */
import { createServer, type AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { defaultMockOptions, TOKEN_PATH } from '../../src/mock/index.js';
import { maskText } from '../../src/client/redact.js';
import { ClientCredentialsToken, TokenError } from '../../src/client/token.js';
import { transientKind } from '../../src/client/transient.js';
import { networkFromEnv, routeOf } from '../../src/net/index.js';
import { PROXY_SOURCE, startForwardProxy, type ForwardProxy } from './forward-proxy.js';
import { mockTls, pki } from './pki.js';
import { clientFor, enquire, RAISED, startCountedMock, type CountedMock } from './servers.js';

const DIRECT = '127.0.0.1';

/** What reached the mock and the proxy since `before`: tunnels opened, connections by source. */
function since(mock: CountedMock, proxy: ForwardProxy, before: { tunnels: number; direct: number; proxied: number }) {
  return { tunnels: proxy.tunnelCount() - before.tunnels, direct: (mock.connections.get(DIRECT) ?? 0) - before.direct, proxied: (mock.connections.get(PROXY_SOURCE) ?? 0) - before.proxied };
}
const snapshot = (mock: CountedMock, proxy: ForwardProxy) => since(mock, proxy, { tunnels: 0, direct: 0, proxied: 0 });

test('HTTP_PROXY (either case): a call to a plain-HTTP target is tunnelled through the proxy; NO_PROXY / no_proxy bypass it', async () => {
  const mock = await startCountedMock(RAISED);
  const proxy = await startForwardProxy();
  try {
    for (const variable of ['HTTP_PROXY', 'http_proxy']) {
      const before = snapshot(mock, proxy);
      const ex = await enquire(clientFor(mock, { [variable]: proxy.url }));
      expect(ex.response?.status, variable).toBe(200);
      expect(since(mock, proxy, before), variable).toEqual({ tunnels: 1, direct: 0, proxied: 1 });
    }
    expect([...proxy.tunnels.keys()]).toEqual([`127.0.0.1:${mock.port}`]);
    expect(proxy.requests, 'absolute-URI requests: undici tunnels plain HTTP too').toBe(0);

    // an entry for another host leaves the call on the proxy; the target's host (with or without its port), or *, bypasses it
    const cases: [Record<string, string>, 'proxy' | 'direct'][] = [
      [{ NO_PROXY: 'example.com' }, 'proxy'],
      [{ NO_PROXY: `example.com,127.0.0.1:${mock.port + 1}` }, 'proxy'],
      [{ NO_PROXY: '127.0.0.1' }, 'direct'],
      [{ no_proxy: '127.0.0.1' }, 'direct'],
      [{ NO_PROXY: `example.com, 127.0.0.1:${mock.port}` }, 'direct'],
      [{ no_proxy: '*' }, 'direct'],
    ];
    for (const [env, way] of cases) {
      const before = snapshot(mock, proxy);
      const client = clientFor(mock, { HTTP_PROXY: proxy.url, ...env });
      const ex = await enquire(client);
      expect(ex.response?.status, JSON.stringify(env)).toBe(200);
      expect(since(mock, proxy, before), JSON.stringify(env)).toEqual(way === 'proxy' ? { tunnels: 1, direct: 0, proxied: 1 } : { tunnels: 0, direct: 1, proxied: 0 });
      // what a report says about the route agrees with the route taken
      expect(routeOf(client.config.network, mock.url).proxy === null, JSON.stringify(env)).toBe(way === 'direct');
    }
  } finally {
    await proxy.close();
    await mock.close();
  }
});

test('HTTPS_PROXY to the mTLS target (private CA, PKCS#12): tunnelled and answered; HTTP_PROXY alone serves https targets too', async () => {
  const p = pki();
  const mock = await startCountedMock({ ...RAISED, tls: mockTls(true) });
  const proxy = await startForwardProxy();
  try {
    const tls = { SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase };
    for (const variable of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY']) {
      const before = snapshot(mock, proxy);
      const ex = await enquire(clientFor(mock, { ...tls, [variable]: proxy.url }));
      expect(ex.error, variable).toBeUndefined();
      expect(ex.response?.status, variable).toBe(200);
      expect(since(mock, proxy, before), variable).toEqual({ tunnels: 1, direct: 0, proxied: 1 });
    }
    // the client certificate is checked end to end inside the tunnel, not by the proxy
    const before = snapshot(mock, proxy);
    const none = await enquire(clientFor(mock, { SADAD_CA_FILE: p.caCert, HTTPS_PROXY: proxy.url }));
    expect(none.error).toMatchObject({ kind: 'configuration', code: 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED' });
    expect(since(mock, proxy, before).tunnels).toBe(1);
  } finally {
    await proxy.close();
    await mock.close();
  }
});

test('a proxy that wants credentials: without them a configuration error naming the 407; with them answered; the password in no recorded exchange', async () => {
  const password = 'proxy-Pa55word-not-for-reports';
  const mock = await startCountedMock(RAISED);
  const proxy = await startForwardProxy({ auth: { user: 'suite', password } });
  const withCredentials = (user: string, pass: string) => proxy.url.replace('http://', `http://${user}:${encodeURIComponent(pass)}@`);
  try {
    const none = await enquire(clientFor(mock, { HTTP_PROXY: proxy.url }));
    expect(none.error).toMatchObject({ kind: 'configuration', code: 'PROXY_407' });
    expect(none.error?.message).toContain(`the proxy http://127.0.0.1:${proxy.port}/ requires authentication (HTTP 407)`);
    expect(none.error?.advice).toContain('http://user:password@proxy:port');
    expect(transientKind(none)).toBeUndefined();

    const wrongPassword = 'wrong-Pa55word-not-for-reports';
    const wrong = await enquire(clientFor(mock, { HTTP_PROXY: withCredentials('suite', wrongPassword) }));
    expect(wrong.error).toMatchObject({ kind: 'configuration', code: 'PROXY_407' });
    // the message names the proxy, its password masked
    expect(wrong.error?.message).toContain(`http://suite:«masked»@127.0.0.1:${proxy.port}`);
    expect(JSON.stringify(wrong)).not.toContain(wrongPassword);
    expect(proxy.refused).toBe(2);
    expect(mock.requests()).toBe(0);

    const client = clientFor(mock, { HTTP_PROXY: withCredentials('suite', password) });
    const ok = await enquire(client);
    expect(ok.response?.status).toBe(200);
    expect(JSON.stringify(ok)).not.toContain(password);
    expect(proxy.tunnelCount()).toBe(1);
    // the password is among the configuration's secrets, so any text a report writes is masked
    expect(client.config.network.secrets).toContain(password);
    expect(maskText(`proxy said: ${password}`)).toBe('proxy said: «masked»');
    expect(routeOf(client.config.network, mock.url).proxy?.display).not.toContain(password);
  } finally {
    await proxy.close();
    await mock.close();
  }
});

test('a target the proxy cannot reach is a transient fault (the proxy answers CONNECT with a 5xx), not a configuration error', async () => {
  const closed = createServer();
  await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((done) => closed.close(done));
  const proxy = await startForwardProxy();
  try {
    const target = { url: `http://127.0.0.1:${port}`, options: defaultMockOptions() };
    const ex = await enquire(clientFor(target, { HTTP_PROXY: proxy.url }));
    expect(ex.error).toMatchObject({ kind: 'network', code: 'PROXY_500' });
    expect(transientKind(ex)).toBe('reset');
  } finally {
    await proxy.close();
  }
});

test('the client-credentials token comes through the proxy from the HTTPS target, with its CA and client certificate', async () => {
  const p = pki();
  const mock = await startCountedMock({ ...RAISED, tls: mockTls(true) });
  const proxy = await startForwardProxy();
  const tokenAt = (env: Record<string, string>) => new ClientCredentialsToken({
    url: `${mock.url}${TOKEN_PATH}`, clientId: mock.options.clientId, clientSecret: mock.options.clientSecret, timeoutMs: 5000, network: networkFromEnv(env),
  });
  try {
    const token = await tokenAt({ HTTPS_PROXY: proxy.url, SADAD_CA_FILE: p.caCert, SADAD_TLS_PFX: p.clientPfx, SADAD_TLS_PASSPHRASE: p.passphrase }).token();
    expect(token).toMatch(/^mock-/);
    expect(snapshot(mock, proxy)).toEqual({ tunnels: 1, direct: 0, proxied: 1 });
    // the same material as the calls: without the CA, the token endpoint says which variable
    const untrusted = await tokenAt({ HTTPS_PROXY: proxy.url }).token().catch((e: unknown) => e);
    expect(untrusted).toBeInstanceOf(TokenError);
    expect((untrusted as Error).message).toContain('SADAD_CA_FILE');
  } finally {
    await proxy.close();
    await mock.close();
  }
});
