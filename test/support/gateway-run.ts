/**
 * A suite run behind a limiter, as a bank sandbox has one: real nginx or HAProxy in front of the
 * mock (with the mock's own limits raised out of the way), or the mock's own limiter kinds at the
 * real limits. Used by the gateway tests and by `npm run bench:pacing -- --gateway ...`; the setups
 * are a table, each a gateway config of examples/gateways/ or a MOCK_LIMITER kind.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { caseResults, runSuite, type CaseResult, type SuiteRun } from '../../src/prove/run-suite.js';
import type { LimiterKind } from '../../src/mock/limiters.js';
import { startCountedMock, targetEnv } from '../net/servers.js';
import { hostPort, limiterVars, startGateway, type Gateway, type GatewayKind } from './gateways.js';
import { ROOT } from '../../src/paths.js';

export interface GatewaySetup {
  /** In words, for reports. */
  title: string;
  /** A gateway in front of the mock: its kind and config template. */
  gateway?: [GatewayKind, string];
  /** The mock's own limiter instead (at the real limits, no gateway). */
  limiter?: LimiterKind;
  /** The suite's settings this setup needs (SADAD_RATE_SHAPE=spaced). */
  env?: Record<string, string>;
}

export const GATEWAY_SETUPS = {
  'nginx-burst': { title: 'nginx limit_req, burst = limit - 1, nodelay, 429', gateway: ['nginx', 'nginx-limit-req-burst.conf'] },
  'nginx-503': { title: "nginx limit_req, burst, nginx's default 503 page", gateway: ['nginx', 'nginx-limit-req-default.conf'] },
  'nginx-no-burst': { title: 'nginx limit_req without burst (one call per window / limit), 429', gateway: ['nginx', 'nginx-limit-req-no-burst.conf'] },
  'nginx-no-burst-spaced': { title: 'nginx limit_req without burst, SADAD_RATE_SHAPE=spaced', gateway: ['nginx', 'nginx-limit-req-no-burst.conf'], env: { SADAD_RATE_SHAPE: 'spaced' } },
  haproxy: { title: 'HAProxy stick table http_req_rate(window), deny 429', gateway: ['haproxy', 'haproxy-stick-table.cfg'] },
  calendar: { title: 'clock-aligned fixed window (the mock\'s calendar limiter)', limiter: 'calendar' },
  fixed: { title: 'fixed window from the first call (the mock\'s fixed limiter)', limiter: 'fixed' },
  sliding: { title: 'exact sliding log (the mock\'s sliding limiter)', limiter: 'sliding' },
  bucket: { title: 'token bucket (the mock\'s bucket limiter)', limiter: 'bucket' },
  'spaced-spaced': { title: 'one call per window / limit (the mock\'s spaced limiter), SADAD_RATE_SHAPE=spaced', limiter: 'spaced', env: { SADAD_RATE_SHAPE: 'spaced' } },
} satisfies Record<string, GatewaySetup>;
export type GatewaySetupName = keyof typeof GATEWAY_SETUPS;

export type Evidence = CaseResult & { testStatus?: string; exchanges?: { label: string; startedAt: string; durationMs: number; response?: { status: number } }[]; transient?: { kind: string; paced?: boolean }[] };

export interface GatewayRun {
  setup: GatewaySetupName;
  run: SuiteRun;
  results: Evidence[];
  /** Wall time of the whole run (s), from the child process's start to its end. */
  wall: number;
  /** The pacing bound (s): max over operations of calls / limit x window, the calls the pacer counted. */
  bound: number;
  verdicts: Record<string, number>;
  /** Refusals outside the rate-limit cases' own exclusive calls: what the pacing had to adapt to. */
  unplannedRefusals: number;
  pacing: { operations: Record<string, { calls: number; refused?: number; lostMs?: number; spacingMs?: number; finalSpacingMs?: number; slowestSpacingMs?: number }>; limits: Record<string, number>; windowSeconds: number; overLimit?: { status: number; op: string }[] };
  certification: { outcome?: { certifies: boolean; summary: string }; causes?: { signature: string; cases: string[]; operations: string[] }[]; observations?: { availability?: { pacing?: { summary: string }; outages?: { kinds: Record<string, number>; end: string | null }[] } } };
}

/** Runs the suite (args: Playwright arguments; env: extra settings) behind a setup at `windowSeconds` and the real limits. */
export async function runBehind(name: GatewaySetupName, options: { windowSeconds?: number; env?: Record<string, string>; args?: string[]; timeoutMs?: number; during?: (gateway: Gateway, vars: Record<string, string>, upstreamRequests: () => number) => Promise<void> } = {}): Promise<GatewayRun> {
  const setup: GatewaySetup = GATEWAY_SETUPS[name];
  const windowSeconds = options.windowSeconds ?? 1.5;
  const limits = { bill: 10, moi: 3 };
  // behind a gateway the mock's own limits are out of the way: the gateway is the limiter
  const mock = await startCountedMock({ rateWindowSeconds: windowSeconds, rateLimits: setup.gateway ? { bill: 100_000, moi: 100_000 } : limits, ...(setup.limiter ? { limiter: setup.limiter } : {}) });
  const vars = { ...limiterVars(windowSeconds, limits), UPSTREAM: hostPort(mock.url) };
  const gateway = setup.gateway ? await startGateway(setup.gateway[0], setup.gateway[1], vars) : undefined;
  try {
    const env = {
      ...targetEnv(mock), ...(gateway ? { SADAD_BASE_URL: gateway.url } : {}),
      SADAD_RATE_WINDOW_SECONDS: String(windowSeconds), SADAD_RATE_LIMIT_BILL: String(limits.bill), SADAD_RATE_LIMIT_MOI: String(limits.moi),
      ...setup.env, ...options.env,
    };
    // `during`: what the test does to the gateway while the run goes on (a maintenance page swapped
    // in), told how many requests reached the sandbox so far (to act once the cases are under way)
    const [run] = await Promise.all([
      runSuite(env, { args: options.args ?? [], reporter: `dot,${join(ROOT, 'src/reporter/certification.ts')}`, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}) }),
      gateway && options.during ? options.during(gateway, vars, mock.requests) : Promise.resolve(),
    ]);
    const results = caseResults(run) as Evidence[];
    const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as GatewayRun['pacing'];
    const bound = Math.max(...Object.entries(pacing.operations).map(([op, s]) => (s.calls / pacing.limits[op]!) * pacing.windowSeconds));
    const verdicts: Record<string, number> = {};
    for (const r of results) verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    let certification: GatewayRun['certification'] = {};
    try { certification = JSON.parse(readFileSync(join(run.reportsDir, 'certification.json'), 'utf8')) as GatewayRun['certification']; } catch { /* no package */ }
    return { setup: name, run, results, wall: run.durationMs / 1000, bound, verdicts, unplannedRefusals: unplannedRefusals(results), pacing, certification };
  } finally {
    await gateway?.stop();
    await mock.close();
  }
}

/** Answers refused as over the limit (429, or the limiter's other status) outside the calls a rate-limit or concurrent case sends on purpose. */
export function unplannedRefusals(results: Evidence[]): number {
  return results.reduce((n, r) => n + (r.transient ?? []).filter((f) => f.paced).length, 0);
}

/** `wall 74.1 s, bound 68.5 s (1.08), 0 ERROR, ...`: one line of figures. */
export function figures(g: GatewayRun): string {
  const v = Object.entries(g.verdicts).sort().map(([k, n]) => `${n} ${k}`).join(', ');
  const refused = Object.values(g.pacing.operations).reduce((n, o) => n + (o.refused ?? 0), 0);
  const lost = Object.values(g.pacing.operations).reduce((n, o) => n + (o.lostMs ?? 0), 0);
  return `wall ${g.wall.toFixed(1)} s, bound ${g.bound.toFixed(1)} s (ratio ${(g.wall / g.bound).toFixed(3)}); ${v}; ${refused} refused outside bursts, ${(lost / 1000).toFixed(1)} s lost to them; causes ${g.certification.causes?.length ?? '?'}; exit ${g.run.code}`;
}
