/**
 * A judging session: the mock in judging mode (or the validating proxy in front of a sandbox), its
 * recorded traffic, and at the end the client certification package. `certify-client` drives one;
 * tests start one directly.
 */
import { createPublicKey } from 'node:crypto';
import { operations } from '../contract/catalogue.js';
import { registerSecret } from '../client/redact.js';
import { resolveMockOptions, startMock, TOKEN_PATH, type MockOptions, type RunningMock } from '../mock/index.js';
import { newRunId } from '../reporter/journal.js';
import { judgeClient, judgeSandbox } from './judge.js';
import type { ClientCertificationReport, ClientRun } from './model.js';
import { buildClientReport, writeClientPackage } from './package.js';
import { buildProxy } from './proxy.js';
import type { NetworkConfig } from '../net/index.js';
import { TrafficRecorder } from './traffic.js';

export interface JudgeOptions {
  mock: Partial<MockOptions>;
  /** Proxy mode: the sandbox's base URL. */
  upstream?: string | undefined;
  /** Operations the integration is certified for (default: all four). */
  operations?: string[] | undefined;
  /** Proxy mode: how the sandbox is reached (proxy, CA, client certificate); default: from the environment. */
  network?: NetworkConfig | undefined;
}

export interface JudgeSession {
  url: string;
  mode: 'judge' | 'proxy';
  options: MockOptions;
  recorder: TrafficRecorder;
  /** What the client is given (judge mode: the mock's credentials; proxy mode: only the URL and limits). */
  clientEnv: Record<string, string>;
  /** Stops serving and judges what was recorded. */
  finish(client: ClientRun): Promise<ClientCertificationReport>;
  close(): Promise<void>;
}

export async function startJudge(o: JudgeOptions): Promise<JudgeSession> {
  const options = resolveMockOptions(o.mock);
  const startedAt = new Date();
  const recorder = new TrafficRecorder();
  for (const s of [options.accessToken, options.clientSecret]) registerSecret(s);
  let url: string;
  let close: () => Promise<void>;
  let mock: RunningMock | undefined;
  if (o.upstream) {
    const app = await buildProxy(o.upstream, options, recorder, o.network);
    await app.listen({ host: options.host, port: options.port });
    const address = app.server.address();
    url = `http://${options.host}:${typeof address === 'object' && address ? address.port : options.port}`;
    close = () => app.close();
  } else {
    mock = await startMock(options, { recorder });
    url = mock.url;
    close = () => mock!.close();
  }
  const limits = { windowSeconds: options.rateWindowSeconds, bill: options.rateLimits.bill, moi: options.rateLimits.moi };
  const clientEnv: Record<string, string> = {
    SADAD_BASE_URL: url,
    SADAD_RATE_WINDOW_SECONDS: String(limits.windowSeconds),
    SADAD_RATE_LIMIT_BILL: String(limits.bill),
    SADAD_RATE_LIMIT_MOI: String(limits.moi),
    SADAD_TAG_PREFIX: options.tagPrefix,
    SADAD_HEADER_PREFIX: options.headerPrefix,
  };
  if (!o.upstream) {
    Object.assign(clientEnv, {
      SADAD_ACCESS_TOKEN: options.accessToken, SADAD_COMPANY_ID: options.companyId,
      SADAD_CLIENT_ID: options.clientId, SADAD_CLIENT_SECRET: options.clientSecret, SADAD_TOKEN_URL: `${url}${TOKEN_PATH}`,
    });
  }
  const certified = o.operations ?? operations.map((x) => x.id);
  let closed: Promise<void> | undefined;
  const closeOnce = () => (closed ??= close());
  return {
    url, mode: o.upstream ? 'proxy' : 'judge', options, recorder, clientEnv,
    close: closeOnce,
    async finish(client) {
      await closeOnce();
      const finishedAt = new Date();
      const records = recorder.ended();
      const input = {
        records, tagPrefix: options.tagPrefix, headerPrefix: options.headerPrefix, limits,
        signatureKey: options.signaturePublicKeyPem ? createPublicKey(options.signaturePublicKeyPem) : null,
        requireClientHeaders: options.requireClientHeaders, operations: certified, runId: newRunId(startedAt), startedAt: startedAt.toISOString(),
      };
      const cases = [...judgeClient(input), ...(o.upstream ? judgeSandbox(input) : [])];
      return buildClientReport({
        cases, records, client,
        fingerprint: {
          mode: o.upstream ? 'proxy' : 'judge', baseUrl: url, upstream: o.upstream ?? null, limits, operations: certified,
          signature: options.signaturePublicKeyPem ? 'verified' : 'not configured', lateAnswerMs: options.lateAnswerMs ?? 0,
          startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString(), durationMs: finishedAt.getTime() - startedAt.getTime(),
        },
      });
    },
  };
}

export { writeClientPackage };
export * from './model.js';
