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

export interface RunningMock {
  /** `http://127.0.0.1:<port>`, or `https://` with `tls` */
  url: string;
  port: number;
  options: MockOptions;
  /** Faults injected so far, per operation and kind (all zero without MOCK_FAULTS). */
  faultCounts(): FaultCounts;
  /** The outage of MOCK_FAULTS (`outage-after`, `outage-seconds`): when it started and ended, and the calls it answered. */
  outage(): OutageReport;
  close(): Promise<void>;
}

/**
 * Starts a mock. Options not given take the built-in defaults, not the environment: pass
 * `mockOptionsFromEnv()` for the configured behaviour. `port: 0` picks a free port.
 */
export async function startMock(options: Partial<MockOptions> = {}, extras: MockExtras = {}): Promise<RunningMock> {
  const resolved = resolveMockOptions(options);
  const { app, faults } = await buildMockServer(resolved, extras);
  await app.listen({ host: resolved.host, port: resolved.port });
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : resolved.port;
  let closing: Promise<void> | undefined;
  return {
    url: `${resolved.tls ? 'https' : 'http'}://${resolved.host}:${port}`,
    port,
    options: { ...resolved, port },
    faultCounts: () => faults.counts(),
    outage: () => faults.outage(),
    close: () => (closing ??= app.close().then(() => undefined)),
  };
}
