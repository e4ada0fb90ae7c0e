/**
 * The mock as the network tests need it: listening like startMock, and counting what reached it,
 * by the address each connection came from (a call through the forward proxy arrives from the
 * proxy's source address, a direct one from 127.0.0.1) and by HTTP request.
 */
import type { AddressInfo, Socket } from 'node:net';
import { SadadClient } from '../../src/client/client.js';
import type { Exchange } from '../../src/client/exchange.js';
import { registerSecret } from '../../src/client/redact.js';
import { configFromVariables, secretValues } from '../../src/config/index.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { buildMockServer, resolveMockOptions, type MockOptions } from '../../src/mock/index.js';
import { LocalPacer } from '../../src/pacer/pacer.js';
import { limitsOf, tokenSource } from '../../src/suite/runtime.js';

export interface CountedMock {
  url: string;
  port: number;
  options: MockOptions;
  /** TCP connections accepted, by remote address. */
  connections: Map<string, number>;
  /** HTTP requests parsed (over TLS: only after a handshake that succeeded). */
  requests(): number;
  /** TLS handshakes that failed (a client that did not trust the server, or showed no certificate). */
  tlsFailures(): number;
  close(): Promise<void>;
}

export async function startCountedMock(partial: Partial<MockOptions> = {}): Promise<CountedMock> {
  const options = resolveMockOptions({ port: 0, ...partial });
  const { app } = await buildMockServer(options);
  const connections = new Map<string, number>();
  const counts = { requests: 0, tlsFailures: 0 };
  app.server.on('connection', (s: Socket) => { const from = s.remoteAddress ?? '?'; connections.set(from, (connections.get(from) ?? 0) + 1); });
  app.server.on('request', () => { counts.requests++; });
  app.server.on('tlsClientError', () => { counts.tlsFailures++; });
  await app.listen({ host: options.host, port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return {
    url: `${options.tls ? 'https' : 'http'}://${options.host}:${port}`, port, options: { ...options, port }, connections,
    requests: () => counts.requests, tlsFailures: () => counts.tlsFailures,
    close: () => app.close().then(() => undefined),
  };
}

/** The environment that points the suite at a mock the test started, with its credentials and limits. */
export function targetEnv(mock: { url: string; options: MockOptions }): Record<string, string> {
  const o = mock.options;
  return {
    SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: o.accessToken, SADAD_COMPANY_ID: o.companyId, SADAD_CLIENT_ID: o.clientId, SADAD_CLIENT_SECRET: o.clientSecret,
    SADAD_RATE_WINDOW_SECONDS: String(o.rateWindowSeconds), SADAD_RATE_LIMIT_BILL: String(o.rateLimits.bill), SADAD_RATE_LIMIT_MOI: String(o.rateLimits.moi),
  };
}

/** Limits no test here comes near: these tests are about the way to the target, not its budget. */
export const RAISED = { rateWindowSeconds: 1, rateLimits: { bill: 1000, moi: 1000 } };

/** The suite's client, configured from `env` over the mock's target variables, as a worker builds it (secrets registered). */
export function clientFor(mock: { url: string; options: MockOptions }, env: Record<string, string> = {}): SadadClient {
  const config = configFromVariables({ ...targetEnv(mock), SADAD_REQUEST_TIMEOUT_MS: '5000', ...env });
  for (const s of secretValues(config)) registerSecret(s);
  return new SadadClient(config, { pacer: new LocalPacer({ windowSeconds: config.rateWindowSeconds, limits: limitsOf(config) }), tokens: tokenSource(config), signer: undefined });
}

/** One bill enquiry the mock accepts when it is reached. */
export const enquire = (client: SadadClient): Promise<Exchange> => client.send('bill-enquiry', { body: new RequestGenerator({ seed: 1 }).build('bill-enquiry') });
