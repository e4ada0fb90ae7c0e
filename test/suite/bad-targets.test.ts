/**
 * Bad input loses nothing: a configuration mistake stops the run before the first call, naming the
 * variable; a target that answers garbage or drops connections yields FAIL/ERROR verdicts with the
 * evidence, never a crash of the runner.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import Fastify from 'fastify';
import { caseResults } from '../../src/prove/run-suite.js';
import { counts, runSuite } from './run-suite.js';

test.describe.configure({ timeout: 180_000 });

test('a configuration mistake stops the run before any call, naming the variable', async () => {
  let calls = 0;
  const app = Fastify();
  app.all('/*', async () => { calls++; return {}; });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  try {
    const run = await runSuite({ SADAD_BASE_URL: url, SADAD_ACCESS_TOKEN: 'tok-12345', SADAD_COMPANY_ID: 'X', SADAD_RATE_LIMIT_MOI: 'three' });
    expect(run.code).toBe(2);
    expect(run.output).toContain('Configuration error: SADAD_RATE_LIMIT_MOI: must be a positive integer, got "three"');
    expect(calls).toBe(0);
    const noToken = await runSuite({ SADAD_BASE_URL: url, SADAD_COMPANY_ID: 'X' });
    expect(noToken.output).toContain('Configuration error: SADAD_ACCESS_TOKEN');
    expect(calls).toBe(0);
  } finally {
    await app.close();
  }
});

test('a target answering HTML with 200, or dropping the connection, gives FAIL and ERROR with evidence, and the run completes', async () => {
  const app = Fastify({ bodyLimit: 8 * 1024 * 1024 });
  // no body parsing: this target answers whatever it is sent, the same way
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.all('/api/enquiry/*', async (_req, reply) => reply.code(200).type('text/html').send('<html><body>Service temporarily unavailable</body></html>'));
  app.all('/api/payment/*', async (req) => { req.raw.socket.destroy(); });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  try {
    // the preflight would stop this run before its first case (test/preflight/preflight.test.ts): here the cases meet the garbage
    const run = await runSuite({ SADAD_PREFLIGHT: 'off', SADAD_BASE_URL: url, SADAD_ACCESS_TOKEN: 'tok-12345', SADAD_COMPANY_ID: 'X', SADAD_RATE_WINDOW_SECONDS: '1', SADAD_RATE_LIMIT_BILL: '50', SADAD_RATE_LIMIT_MOI: '50',
      SADAD_CASES: 'bill-enquiry.res.*,bill-enquiry.req.BillerId.*,moi-enquiry.robust.*,bill-payment.req.Amount.*,bill-payment.robust.malformed-json' });
    const c = counts(run);
    expect(run.code).toBe(1);
    expect(c.failed).toBeGreaterThan(10);
    const results = new Map(caseResults(run).map((r) => [r.id, r]));
    // an enquiry answered with HTML: the response rules fail, and so do the rejection rules (a 200 is no rejection)
    expect(results.get('bill-enquiry.res.schema')?.verdict).toBe('FAIL');
    // (or, once three enquiries built to be accepted were refused, INCONCLUSIVE without sending:
    // which comes first depends on the order the run's cases meet the target, pacer/facts.ts)
    const missing = results.get('bill-enquiry.req.BillerId.missing')!;
    if (missing.verdict === 'INCONCLUSIVE') expect(missing.notes[0]).toMatchObject({ text: expect.stringMatching(/^precondition failed earlier in this run/), testedBy: 'bill-enquiry.res.schema' });
    else expect(missing.verdict, JSON.stringify(missing.notes)).toBe('FAIL');
    expect(results.get('moi-enquiry.robust.malformed-json')?.verdict).toBe('FAIL');
    // a dropped connection is no answer at all: ERROR (the payment base cannot even be prepared here: its enquiry is HTML)
    expect(['ERROR', 'FAIL']).toContain(results.get('bill-payment.robust.malformed-json')?.verdict);
    expect(results.get('bill-payment.robust.malformed-json')?.notes[0]?.text).toMatch(/dropped the connection|no HTTP answer/);
    const evidence = JSON.parse(readFileSync(join(run.reportsDir, 'evidence', 'bill-enquiry.res.schema.json'), 'utf8'));
    expect(evidence.exchanges[0].response.body).toContain('Service temporarily unavailable');
  } finally {
    await app.close();
  }
});
