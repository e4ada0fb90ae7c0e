/**
 * The mock service (design.md §7): a faithful, stateful stand-in of the four operations, the
 * suite's default target and a local sandbox for client developers.
 */
import { buildMockServer, type MockExtras } from './server.js';
import type { FaultCounts, OutageReport } from './faults.js';
import { resolveMockOptions, type MockOptions } from './options.js';

export { defaultMockOptions, mockOptionsFromEnv, resolveMockOptions, type ErrorMode, type MockOptions, type MockTls, type ResponseStyle } from './options.js';
export { BILL_AMOUNT_RANGE, BILL_MAGIC, BILL_STATUS, DEFAULT_LATE_ANSWER_MS, MAGIC_VALUES, MOI_MAGIC, MOI_PAID_STATUS_DETAIL, SCENARIO_MAGIC, SCENARIO_RETRY_AFTER_SECONDS, SUCCESS_STATUS_DETAIL, scenarioOf } from './magic.js';
export { SIGNATURE_HEADER } from './auth.js';
export { TOKEN_PATH } from './token.js';
export { BODY_LIMIT, buildMockServer, type MockExtras } from './server.js';
export { DEFECT_CATALOGUE, DEFECT_FAMILIES, KNOWN_DEFECTS, type Defect, type DefectFamily, type DefectName, type DefectSpec } from './defects.js';
export type { ErrorBody, ErrorDetail } from './errors.js';
export { FAULT_KINDS, FAULT_PARTS, HANG_LIMIT_MS, MAINTENANCE_PAGE, OUTAGE_KINDS, formatFaults, parseFaults, type FaultCounts, type FaultKind, type FaultSettings, type OutageKind, type OutageReport } from './faults.js';
export { LIMITER_KINDS, type LimiterKind } from './limiters.js';
export { CompanyRegistry, parseCompanies, readCompaniesFile, type CompanyConfig } from './companies.js';
export { StoreUnavailable, type MockStore } from './store/index.js';

export interface RunningMock {
  /** `http://127.0.0.1:<port>`, or `https://` with `tls` */
  url: string;
  port: number;
  options: MockOptions;
  /** Faults injected so far, per operation and kind (all zero without MOCK_FAULTS). */
  faultCounts(): FaultCounts;
  /** The outage of MOCK_FAULTS (`outage-after`, `outage-seconds`): when it started and ended, and the calls it answered. */
  outage(): OutageReport;
  /** Where state is kept: `memory`, or `redis` with MOCK_REDIS_URL. */
  store: 'memory' | 'redis';
  close(): Promise<void>;
  /**
   * Graceful shutdown (SIGTERM/SIGINT of `npm run mock`): stops taking new calls, lets the calls in
   * flight be answered (at most `graceMs`, default 10 s), then closes and releases the store.
   */
  shutdown(graceMs?: number): Promise<void>;
}

/** How long a graceful shutdown waits for the calls in flight. */
export const SHUTDOWN_GRACE_MS = 10_000;

/**
 * Starts a mock. Options not given take the built-in defaults, not the environment: pass
 * `mockOptionsFromEnv()` for the configured behaviour. `port: 0` picks a free port.
 */
export async function startMock(options: Partial<MockOptions> = {}, extras: MockExtras = {}): Promise<RunningMock> {
  const resolved = resolveMockOptions(options);
  const { app, faults, drain, store } = await buildMockServer(resolved, extras);
  try {
    await app.listen({ host: resolved.host, port: resolved.port });
  } catch (e) {
    await app.close(); // releases the store's connection too
    throw e;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : resolved.port;
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= app.close().then(() => undefined));
  return {
    url: `${resolved.tls ? 'https' : 'http'}://${resolved.host}:${port}`,
    port,
    options: { ...resolved, port },
    faultCounts: () => faults.counts(),
    outage: () => faults.outage(),
    store: store.kind,
    close,
    async shutdown(graceMs = SHUTDOWN_GRACE_MS) {
      if (closing === undefined) await drain(graceMs);
      await close();
    },
  };
}
