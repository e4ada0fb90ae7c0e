/**
 * The embedded mock: started in the runner process when no target is configured (and once per
 * target of a multi-target run). Its variables go to the workers as the suite's own.
 */
import type { Settings } from '../config/settings.js';
import { formatFaults } from '../mock/faults.js';

export interface EmbeddedMock {
  url: string;
  /** SADAD_* variables that point the suite at it: URL, credentials, window and limits, profile. */
  env: Record<string, string>;
  faultCounts(): unknown;
  /** The MOCK_FAULTS outage, when one is configured: when it started and ended, and the calls it answered. */
  outage(): unknown;
  close(): Promise<void>;
}

/** `env` holds the MOCK_* variables; a window or limit it leaves unset follows the suite's (`config`). */
export async function startEmbeddedMock(settings: Pick<Settings, 'variables' | 'suite'>): Promise<EmbeddedMock> {
  const { startMock, mockOptionsFromEnv } = await import('../mock/index.js');
  const config = settings.suite;
  const env: Record<string, string | undefined> = { ...settings.variables };
  env.MOCK_RATE_WINDOW_SECONDS ??= String(config.rateWindowSeconds);
  env.MOCK_RATE_LIMIT_BILL ??= String(config.rateLimits.bill);
  env.MOCK_RATE_LIMIT_MOI ??= String(config.rateLimits.moi);
  // a mistake in a MOCK_* variable throws a ConfigError naming it, before anything listens
  const options = mockOptionsFromEnv(env);
  const mock = await startMock({ ...options, port: 0 });
  return {
    url: mock.url,
    faultCounts: () => mock.faultCounts(),
    outage: () => mock.outage(),
    close: mock.close,
    env: {
      SADAD_BASE_URL: mock.url,
      SADAD_ACCESS_TOKEN: options.accessToken,
      SADAD_COMPANY_ID: options.companyId,
      SADAD_CLIENT_ID: options.clientId,
      SADAD_CLIENT_SECRET: options.clientSecret,
      SADAD_RATE_WINDOW_SECONDS: String(options.rateWindowSeconds),
      SADAD_RATE_LIMIT_BILL: String(options.rateLimits.bill),
      SADAD_RATE_LIMIT_MOI: String(options.rateLimits.moi),
      SADAD_TARGET_PROFILE: `embedded mock (style ${options.style}, errors ${options.errors}, window ${options.rateWindowSeconds} s` +
        `${options.limiter && options.limiter !== 'fixed' ? `, limiter ${options.limiter}` : ''}${options.faults && Object.keys(options.faults).length ? `, faults ${formatFaults(options.faults)}` : ''}` +
        `${options.defects.length ? `, defects ${options.defects.join(',')}` : ''})`,
    },
  };
}
