/**
 * `npm run doctor`: the preflight alone (design.md §10), as a checklist a person reads: the
 * configuration, DNS, TCP and the proxy's tunnel, TLS, the token, one call per operation, the
 * clock. It takes seconds where a misconfigured run took hours. Exit 0 when a run could start
 * (warnings included), 2 when it would stop, or when the configuration itself is wrong.
 *
 *   --json   print the preflight report (the package's Connection section) as JSON instead
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ConfigError, configFromVariables, loadEnvFile, secretValues, type SuiteConfig } from '../config/index.js';
import { maskText, registerSecret } from '../client/redact.js';
import { closeDispatcher } from '../net/index.js';
import { formatHeader, formatResult, formatStep, runPreflight } from '../preflight/index.js';
import { loadTargetData } from '../config/target-data.js';
import { configuredClient } from '../suite/runtime.js';
import { firstHop } from '../net/inspect.js';

export async function doctor(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const json = argv.includes('--json');
  const unknown = argv.filter((a) => a !== '--json');
  if (unknown.length) { console.error(`doctor: unknown argument ${unknown[0]} (only --json)`); return 2; }
  let config: SuiteConfig;
  let close: (() => Promise<void>) | undefined;
  try {
    loadEnvFile(env);
    config = configFromVariables(env);
    if (!config.baseUrl) {
      // nothing configured: check the stand-in the suite would start, so the command is never a dead end
      const { startEmbeddedMock } = await import('../run/embedded-mock.js');
      const mock = await startEmbeddedMock({ variables: env, suite: config });
      close = mock.close;
      env = { ...env, ...mock.env };
      config = configFromVariables(env);
      if (!json) console.log('No SADAD_BASE_URL: checking the embedded mock `npm run certify` would start. Set SADAD_BASE_URL (see README, "Targeting a sandbox") to check a sandbox.\n');
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`  ✘ Configuration\n    BLOCKING: ${maskText(e.message)}\n      → fix the variable it names (see .env.example and docs/network.md)\nResult: the configuration is wrong: a run stops before anything is sent (exit 2).`);
    return 2;
  }
  for (const s of secretValues(config)) registerSecret(s);
  try {
    const client = await configuredClient(config);
    if (!json) {
      const hop = firstHop(config.network, config.baseUrl!);
      console.log(formatHeader(maskText(config.baseUrl!), hop.proxy ? `through the proxy ${hop.proxy.display} (${hop.proxy.variable})` : 'direct'));
    }
    const report = await runPreflight({
      config, client, targetData: loadTargetData(config.dataFile), env,
      ...(json ? {} : { onStep: (step, findings) => console.log(formatStep(step, findings)) }),
    });
    console.log(json ? JSON.stringify(report, null, 2) : formatResult(report));
    return report.result === 'blocked' ? 2 : 0;
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    console.error(`  ✘ Configuration\n    BLOCKING: ${maskText(e.message)}`);
    return 2;
  } finally {
    await closeDispatcher(config.network);
    await close?.();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  doctor(process.argv.slice(2)).then((code) => process.exit(code), (e) => { console.error(`doctor: ${maskText((e as Error).stack ?? String(e))}`); process.exit(1); });
}
