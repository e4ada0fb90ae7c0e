/**
 * `npm run mock`: loads `.env` (or the file SADAD_ENV_FILE names), reads the options from the
 * environment and serves until SIGINT/SIGTERM. A configuration error stops before listening, with
 * exit code 2, so scripts can tell it from a crash.
 */
import { X509Certificate } from 'node:crypto';
import { loadEnvFile } from '../config/env-file.js';
import { unset } from '../config/env-values.js';
import { ConfigError } from '../contract/prefix.js';
import { formatFaults, mockOptionsFromEnv, startMock, type RunningMock } from '../mock/index.js';

async function main(): Promise<void> {
  let mock: RunningMock;
  try {
    loadEnvFile(process.env);
    const options = mockOptionsFromEnv(process.env);
    // JSON logs on stdout: `info` here unless MOCK_LOG_LEVEL says otherwise (startMock, and so the embedded mock, stays silent)
    if (unset(process.env.MOCK_LOG_LEVEL)) options.logLevel = 'info';
    mock = await startMock(options);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`mock: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  console.log(`listening on ${mock.url}`);
  const o = mock.options;
  console.log(`style ${o.style}, errors ${o.errors}, rate limits bill ${o.rateLimits.bill} / moi ${o.rateLimits.moi} per ${o.rateWindowSeconds} s (${o.limiter ?? 'fixed'}), signature ${o.signaturePublicKeyPem ? 'required' : 'not required'}`);
  if (o.tls) console.log(`TLS: ${new X509Certificate(o.tls.cert).subject.replace(/\n/g, ', ')}${o.tls.clientCa ? '; a client certificate signed by MOCK_TLS_CLIENT_CA is required' : ''}`);
  console.log(`logs: ${o.logLevel ?? 'silent'} (MOCK_LOG_LEVEL)${o.accessLog !== undefined ? `; access log appended to ${o.accessLog}` : ''}`);
  if (o.defects.length > 0) console.log(`DEFECTS INJECTED (not a faithful mock): ${o.defects.join(', ')}`);
  // faults are a gateway's, not the service's: the mock stays faithful, but calls will fail
  const faults = formatFaults(o.faults ?? {});
  if (faults !== '') console.log(`faults injected: ${faults}`);
  console.log(o.redisUrl !== undefined ? `state: shared, in Redis (MOCK_REDIS_URL, keys under ${o.redisPrefix ?? 'sadad-mock:'})` : 'state: in memory (MOCK_REDIS_URL unset)');
  if (o.companies) console.log(`companies (MOCK_COMPANIES): ${o.companies.map((c) => c.companyId).join(', ')}`);
  let stopping = false;
  const stop = (signal: string) => {
    // a second signal: the operator does not want to wait for the calls in flight
    if (stopping) { void mock.close().finally(() => process.exit(1)); return; }
    stopping = true;
    console.log(`${signal}: closing (calls in flight are answered first)`);
    mock.shutdown().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  console.error(`mock: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
