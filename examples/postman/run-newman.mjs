#!/usr/bin/env node
/**
 * Runs the collection with newman against the target `npm run certify-client` gives its client in
 * the environment (SADAD_BASE_URL, SADAD_ACCESS_TOKEN, SADAD_COMPANY_ID, the window and limits, the
 * prefixes), mapped onto the collection's variables: newman's scripts cannot read the process
 * environment. NEWMAN_TIMEOUT_MS (default 3000) is newman's request timeout: below the late-answer
 * scenario's hold (certify-client --late-answer-ms), so that the collection meets that scenario, and
 * above what a loaded machine takes to answer an ordinary call (1.5 s was not, once in CI).
 *
 *   npm run certify-client -- --window 3 --late-answer-ms 6000 -- node examples/postman/run-newman.mjs
 *
 * Arguments `name=value` set further collection variables: `reference_id_form=uuid` (the reference id
 * a UUID), `timestamp_fraction=ms` (DateTimeStamp with milliseconds).
 *
 * Exit status: 1 when a script of the collection failed (an error, a failed assertion), 0 otherwise.
 * A request that got no answer (a timeout, a reset) is what the client met, not a failure of the run:
 * the judge says whether the collection then did the right thing. (`newman run` itself exits 1 on
 * those, so a pipeline that runs newman directly would call every late answer a failed run.)
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const env = process.env;
const vars = {
  base_url: env.SADAD_BASE_URL,
  access_token: env.SADAD_ACCESS_TOKEN,
  company_id: env.SADAD_COMPANY_ID,
  tag_prefix: env.SADAD_TAG_PREFIX,
  header_prefix: env.SADAD_HEADER_PREFIX,
  rate_window_seconds: env.SADAD_RATE_WINDOW_SECONDS,
  rate_limit_bill: env.SADAD_RATE_LIMIT_BILL,
  rate_limit_moi: env.SADAD_RATE_LIMIT_MOI,
};
if (!vars.base_url) {
  console.error('SADAD_BASE_URL is not set: run this under `npm run certify-client -- ... -- node examples/postman/run-newman.mjs`, or set it');
  process.exit(2);
}
const timeout = env.NEWMAN_TIMEOUT_MS ?? '3000';
if (!/^\d+$/.test(timeout)) {
  console.error(`NEWMAN_TIMEOUT_MS must be a number of milliseconds, got ${JSON.stringify(timeout)}`);
  process.exit(2);
}
const extra = process.argv.slice(2).map((a) => /^([A-Za-z_][\w]*)=(.*)$/.exec(a));
if (extra.some((m) => m === null)) {
  console.error(`arguments are collection variables, name=value: ${process.argv.slice(2).join(' ')}`);
  process.exit(2);
}
let newman;
try { newman = require('newman'); } catch {
  console.error('newman is not installed: npm install --save-dev newman (this project has it as a dev dependency)');
  process.exit(2);
}
newman.run({
  collection: join(here, 'sadad.postman_collection.json'),
  environment: join(here, 'sandbox.postman_environment.json'),
  envVar: [
    ...Object.entries(vars).filter(([, v]) => v !== undefined && v !== '').map(([key, value]) => ({ key, value })),
    ...extra.map((m) => ({ key: m[1], value: m[2] })),
  ],
  timeoutRequest: Number(timeout),
  reporters: ['cli'],
  reporter: { cli: { noSummary: false } },
  disableUnicode: true,
}, (err, summary) => {
  if (err) { console.error(`newman could not run the collection: ${err.message}`); process.exit(1); }
  const failures = summary.run.failures.filter((f) => f.at !== 'request');
  for (const f of failures) console.error(`failure in ${f.source?.name ?? 'the collection'} (${f.at}): ${f.error?.message}`);
  const unanswered = summary.run.failures.length - failures.length;
  console.log(`newman: ${summary.run.stats.requests.total} requests, ${unanswered} without an answer (timeouts, resets: the judge reads what the collection did next), ${failures.length} script failures`);
  process.exit(failures.length ? 1 : 0);
});
