/**
 * After a run in which cases FAIL against a target that rejects everything and echoes every header
 * and body back (the worst case), no configured secret and no signature the suite sent appears
 * anywhere in the reports, Playwright's output folder or the console output, even with tracing on.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import Fastify from 'fastify';
import { randomBytes } from 'node:crypto';
import { ROOT } from '../../src/paths.js';
import { counts, runSuite } from './run-suite.js';
import { caseResults } from '../../src/prove/run-suite.js';

function filesUnder(dir: string): string[] {
  // a run stopped before its first case leaves no test-results folder
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test('a failing run leaks no token, client secret or signature into reports, test-results or the console', async () => {
  test.setTimeout(240_000);
  const token = `tok-${randomBytes(12).toString('hex')}`;
  const clientSecret = `cs-${randomBytes(12).toString('hex')}`;
  const signatures = new Set<string>();
  const app = Fastify({ bodyLimit: 8 * 1024 * 1024 });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.all('/*', async (req, reply) => {
    const sig = req.headers['x-signature'];
    if (typeof sig === 'string') signatures.add(sig);
    // a careless target: rejects, and echoes the credentials it was sent
    return reply.code(400).send({ errorCode: 'MW-400', echoedHeaders: req.headers, echoedBody: String(req.body ?? '').slice(0, 2000), note: `Bearer ${token}` });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  try {
    const run = await runSuite({
      SADAD_BASE_URL: `http://127.0.0.1:${port}`, SADAD_ACCESS_TOKEN: token, SADAD_COMPANY_ID: 'LEAKTEST',
      SADAD_CLIENT_ID: 'leak-client', SADAD_CLIENT_SECRET: clientSecret,
      SADAD_SIGNING_KEY: join(ROOT, 'data/test-keys/signing-private.pem'),
      SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '50', SADAD_RATE_LIMIT_MOI: '50',
      // the preflight would stop this run (every call refused): the cases must run to record their exchanges;
      // the preflight's own record is scanned below, from a run of its own
      SADAD_PREFLIGHT: 'off',
    }, ['--trace', 'on', '--grep', 'bill-enquiry\\.res\\.|bill-payment\\.flow\\.exact$|bill-enquiry\\.hdr\\.(Authorization|signature)|moi-enquiry\\.req\\.ID\\.|robust\\.malformed-json'], { html: true });
    const c = counts(run);
    expect(c.failed, 'cases failed, as they must against this target').toBeGreaterThan(5);
    // a target that accepts nothing proves no rejection: those cases are INCONCLUSIVE, their exchanges in the package too
    expect(caseResults(run).filter((r) => r.verdict === 'INCONCLUSIVE').length, 'rejection cases made vacuous').toBeGreaterThan(5);
    expect(signatures.size, 'the suite signed its requests').toBeGreaterThan(5);
    const secrets = [token, clientSecret, ...signatures];
    const files = [...filesUnder(run.reportsDir), ...filesUnder(run.resultsDir)];
    expect(files.some((f) => f.endsWith('.zip')), 'tracing was on').toBe(true);
    expect(files.some((f) => f.includes(`${join('evidence', 'bill-enquiry.res.schema.json')}`))).toBe(true);
    const leaks: string[] = [];
    for (const f of files) {
      const text = readFileSync(f).toString('latin1');
      for (const s of secrets) if (text.includes(s)) leaks.push(`${f}: ${s === token ? 'token' : s === clientSecret ? 'client secret' : 'signature'}`);
    }
    for (const s of secrets) if (run.output.includes(s)) leaks.push('console output');
    expect(leaks).toEqual([]);
    // and the evidence is really there, masked
    const evidence = readFileSync(join(run.reportsDir, 'evidence', 'bill-enquiry.res.schema.json'), 'utf8');
    expect(evidence).toContain('«masked»');
    expect(evidence).toContain('"status": 400');

    // the preflight stops a run against this target: its record (preflight.json, the package's Connection) and its words leak nothing either
    const before = signatures.size;
    const stopped = await runSuite({
      SADAD_BASE_URL: `http://127.0.0.1:${port}`, SADAD_ACCESS_TOKEN: token, SADAD_COMPANY_ID: 'LEAKTEST',
      SADAD_CLIENT_ID: 'leak-client', SADAD_CLIENT_SECRET: clientSecret, SADAD_SIGNING_KEY: join(ROOT, 'data/test-keys/signing-private.pem'),
    }, [], { html: true });
    expect(stopped.code, stopped.output.slice(-2000)).toBe(2);
    expect(signatures.size, 'the preflight signed its calls').toBeGreaterThan(before);
    const preflight = readFileSync(join(stopped.reportsDir, 'preflight.json'), 'utf8');
    expect(preflight).toContain('echoedHeaders');
    const again = [token, clientSecret, ...signatures];
    for (const f of [...filesUnder(stopped.reportsDir), ...filesUnder(stopped.resultsDir)]) {
      const text = readFileSync(f).toString('latin1');
      for (const s of again) if (text.includes(s)) leaks.push(`${f}: ${s === token ? 'token' : s === clientSecret ? 'client secret' : 'signature'}`);
    }
    for (const s of again) if (stopped.output.includes(s)) leaks.push('preflight console output');
    expect(leaks).toEqual([]);
  } finally {
    await app.close();
  }
});
