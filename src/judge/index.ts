/**
 * A judging session: the mock in judging mode (or the validating proxy in front of a sandbox), its
 * recorded traffic, and at the end the client certification package. `certify-client` drives one;
 * tests start one directly.
 */
import { localTimeZone } from '../contract/formats.js';
import { createPublicKey } from 'node:crypto';
import { operations } from '../contract/catalogue.js';
import { CompanyRegistry } from '../mock/companies.js';
import { registerSecret } from '../client/redact.js';
import { resolveMockOptions, startMock, TOKEN_PATH, type MockOptions, type RunningMock } from '../mock/index.js';
import { newRunId } from '../reporter/journal.js';
import { judgeClient, judgeSandbox } from './judge.js';
import type { ClientCertificationReport, ClientRun } from './model.js';
import { buildClientReport, writeClientPackage } from './package.js';
import { buildProxy } from './proxy.js';
import { networkFromEnv, type NetworkConfig } from '../net/index.js';
import { TrafficRecorder, type TrafficRecord } from './traffic.js';

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
  /**
   * MOCK_COMPANIES: each company's own settings, for its client; its traffic is judged apart
   * (finishByCompany). Empty without the file.
   */
  companies: { companyId: string; clientEnv: Record<string, string> }[];
  /** Stops serving and judges what was recorded. */
  finish(client: ClientRun): Promise<ClientCertificationReport>;
  /**
   * Stops serving and judges each company's traffic apart, with its own limits and signature key:
   * one package per company. A call is the company's its CompanyId names (else its credentials'
   * company); calls no company can be told from are judged in no package.
   */
  finishByCompany(client: ClientRun): Promise<{ companyId: string; report: ClientCertificationReport; calls: number }[]>;
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
    const app = await buildProxy(o.upstream, options, recorder, o.network ?? networkFromEnv({}));
    await app.listen({ host: options.host, port: options.port });
    const address = app.server.address();
    url = `http://${options.host}:${typeof address === 'object' && address ? address.port : options.port}`;
    close = () => app.close();
  } else {
    mock = await startMock(options, { recorder });
    url = mock.url;
    close = () => mock!.close();
  }
  const registry = new CompanyRegistry(options);
  const limitsOf = (company?: string) => ({
    windowSeconds: options.rateWindowSeconds,
    bill: company === undefined ? options.rateLimits.bill : registry.limit(company, 'bill'),
    moi: company === undefined ? options.rateLimits.moi : registry.limit(company, 'moi'),
  });
  const envOf = (company?: string): Record<string, string> => {
    const limits = limitsOf(company);
    const env: Record<string, string> = {
      SADAD_BASE_URL: url,
      SADAD_RATE_WINDOW_SECONDS: String(limits.windowSeconds),
      SADAD_RATE_LIMIT_BILL: String(limits.bill),
      SADAD_RATE_LIMIT_MOI: String(limits.moi),
      SADAD_TAG_PREFIX: options.tagPrefix,
      SADAD_HEADER_PREFIX: options.headerPrefix,
    };
    if (o.upstream) return env;
    if (company === undefined) {
      return Object.assign(env, {
        SADAD_ACCESS_TOKEN: options.accessToken, SADAD_COMPANY_ID: options.companyId,
        SADAD_CLIENT_ID: options.clientId, SADAD_CLIENT_SECRET: options.clientSecret, SADAD_TOKEN_URL: `${url}${TOKEN_PATH}`,
      });
    }
    const c = registry.config(company)!;
    env.SADAD_COMPANY_ID = company;
    if (c.accessToken !== undefined) env.SADAD_ACCESS_TOKEN = c.accessToken;
    if (c.clientId !== undefined) Object.assign(env, { SADAD_CLIENT_ID: c.clientId, SADAD_CLIENT_SECRET: c.clientSecret ?? '', SADAD_TOKEN_URL: `${url}${TOKEN_PATH}` });
    return env;
  };
  for (const c of options.companies ?? []) for (const s of [c.accessToken, c.clientSecret]) if (s !== undefined) registerSecret(s);
  const companies = registry.separate ? registry.ids.map((companyId) => ({ companyId, clientEnv: envOf(companyId) })) : [];
  const clientEnv = companies[0]?.clientEnv ?? envOf();
  const certified = o.operations ?? operations.map((x) => x.id);
  let closed: Promise<void> | undefined;
  const closeOnce = () => (closed ??= close());

  const judge = (records: TrafficRecord[], client: ClientRun, finishedAt: Date, company?: string): ClientCertificationReport => {
    const limits = limitsOf(company);
    const key = company === undefined ? (options.signaturePublicKeyPem ? createPublicKey(options.signaturePublicKeyPem) : undefined) : registry.signatureKey(company);
    const input = {
      records, tagPrefix: options.tagPrefix, headerPrefix: options.headerPrefix, limits,
      signatureKey: key ?? null,
      requireClientHeaders: options.requireClientHeaders, operations: certified,
      ...(options.clientProfile ? { clientProfile: options.clientProfile } : {}), ...(options.timeZone ? { timeZone: options.timeZone } : {}), runId: newRunId(startedAt), startedAt: startedAt.toISOString(),
    };
    const cases = [...judgeClient(input), ...(o.upstream ? judgeSandbox(input) : [])];
    return buildClientReport({
      cases, records, client,
      fingerprint: {
        mode: o.upstream ? 'proxy' : 'judge', baseUrl: url, upstream: o.upstream ?? null, limits, operations: certified,
        signature: key ? 'verified' : 'not configured', lateAnswerMs: options.lateAnswerMs ?? 0,
        clientProfile: options.clientProfile ?? 'document', timeZone: options.timeZone ?? localTimeZone(),
        startedAt: startedAt.toISOString(), finishedAt: finishedAt.toISOString(), durationMs: finishedAt.getTime() - startedAt.getTime(),
      },
    });
  };

  return {
    url, mode: o.upstream ? 'proxy' : 'judge', options, recorder, clientEnv, companies,
    close: closeOnce,
    async finish(client) {
      await closeOnce();
      return judge(recorder.ended(), client, new Date());
    },
    async finishByCompany(client) {
      await closeOnce();
      const finishedAt = new Date();
      const records = recorder.ended();
      const owner = records.map((r) => companyOfRecord(r, registry));
      return registry.ids.map((companyId) => {
        const mine = records.filter((_, i) => owner[i] === companyId);
        return { companyId, report: judge(mine, client, finishedAt, companyId), calls: mine.length };
      });
    },
  };
}

/**
 * The company a recorded call belongs to: the CompanyId it names when that is a company served,
 * else the company of its credentials (a static token, or the client id of a token request).
 */
export function companyOfRecord(r: TrafficRecord, registry: CompanyRegistry): string | undefined {
  const named = r.headers.companyid;
  if (named !== undefined && registry.ids.includes(named)) return named;
  const bearer = /^Bearer\s+(\S+)$/i.exec(r.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return registry.companiesOfToken(bearer)?.[0];
  let clientId: string | undefined;
  try {
    clientId = new URLSearchParams(r.body ?? '').get('client_id') ?? (JSON.parse(r.body ?? '{}') as { client_id?: string }).client_id;
  } catch { /* a body that is neither form nor JSON names no client */ }
  const basic = /^Basic\s+(\S+)$/i.exec(r.headers.authorization ?? '')?.[1];
  if (clientId === undefined && basic !== undefined) clientId = Buffer.from(basic, 'base64').toString('utf8').split(':')[0];
  return clientId === undefined ? undefined : registry.companiesOfClient(clientId)[0];
}

export { writeClientPackage };
export * from './model.js';
