/**
 * Postman and newman as a first-class client (issue 27): the collection of examples/postman, run
 * with newman (a dev dependency) under `npm run certify-client`, certifies with every scenario
 * reached and every rule put to the test; the calls are newman's own (PostmanRuntime), and nothing
 * it sent in secret is in the package.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ROOT } from '../../src/paths.js';
import type { ClientCertificationReport } from '../../src/judge/model.js';

/** The window and the late answer's hold the docs give for the collection; newman's timeout is below the hold. */
const ARGS = ['--port', '0', '--window', '3', '--late-answer-ms', '6000'];

function certifyNewman(env: Record<string, string> = {}, variables: string[] = []): Promise<{ code: number | null; output: string; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'certify-newman-'));
  const args = [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/cli/certify-client.ts'), ...ARGS, '--client-env', join(dir, 'client.env'), '--', process.execPath, join(ROOT, 'examples/postman/run-newman.mjs'), ...variables];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), SADAD_REPORTS_DIR: dir, NEWMAN_TIMEOUT_MS: '3000', ...env },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output, dir }));
  });
}

test('the Postman collection, run by newman under certify-client, certifies: every scenario reached, every rule exercised, no secret in the package', async () => {
  test.setTimeout(180_000);
  const run = await certifyNewman();
  const report = JSON.parse(readFileSync(join(run.dir, 'client-certification.json'), 'utf8')) as ClientCertificationReport;
  const client = report.cases.filter((c) => c.side === 'client');
  expect(client.filter((c) => !['PASS', 'NOT_APPLICABLE'].includes(c.verdict)).map((c) => `${c.id} ${c.verdict}: ${c.notes[0]?.text}`), run.output.slice(-3000)).toEqual([]);
  // NOT_APPLICABLE only where nothing was configured to judge (no signature key)
  expect(client.filter((c) => c.verdict === 'NOT_APPLICABLE').map((c) => c.id.split('.').slice(2).join('.'))).toEqual(['headers.signature', 'headers.signature', 'headers.signature', 'headers.signature']);
  expect(report.scenarios.filter((s) => !s.reached).map((s) => s.id)).toEqual([]);
  expect([report.outcome.certifies, run.code], report.outcome.summary).toEqual([true, 0]);
  expect(report.traffic.rateLimited, 'the collection paces itself').toBe(0);
  expect(report.traffic.scenarioAnswers).toMatchObject({ 429: 4 });
  // newman's own calls: its User-Agent on the evidence
  const agents = new Set(report.cases.flatMap((c) => c.exchanges ?? []).map((x) => x.request.headers['user-agent']));
  expect([...agents].every((a) => /^PostmanRuntime\//.test(String(a))), [...agents].join(', ')).toBe(true);
  const token = /SADAD_ACCESS_TOKEN=(\S+)/.exec(readFileSync(join(run.dir, 'client.env'), 'utf8'))?.[1];
  expect(token?.length).toBeGreaterThan(8);
  for (const f of readdirSync(run.dir).filter((x) => x.startsWith('client-'))) expect(readFileSync(join(run.dir, f), 'utf8').includes(token!), f).toBe(false);
});

test('a UUID reference id and a DateTimeStamp with milliseconds, both allowed by the document: WARN at most under the default profile; under SADAD_CLIENT_PROFILE=strict-deployment the mock refuses them and headers.required FAILs', async () => {
  test.setTimeout(180_000);
  const forms = ['reference_id_form=uuid', 'timestamp_fraction=ms'];
  const [lenient, strict] = await Promise.all([certifyNewman({}, forms), certifyNewman({ SADAD_CLIENT_PROFILE: 'strict-deployment' }, forms)]);
  const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'client-certification.json'), 'utf8')) as ClientCertificationReport;
  const l = read(lenient.dir);
  const notPass = l.cases.filter((c) => c.side === 'client' && !['PASS', 'NOT_APPLICABLE'].includes(c.verdict)).map((c) => `${c.verdict} ${c.id.split('.').slice(2).join('.')}`);
  expect([...new Set(notPass)], lenient.output.slice(-2000)).toEqual(['WARN headers.deployment-form']);
  expect(l.cases.find((c) => c.id === 'client.bill-enquiry.headers.deployment-form')!.notes.map((n) => n.text).join(' ')).toMatch(/ReferenceID is not 3-16 letters or digits.*DateTimeStamp .* has fractions of a second/);
  expect([l.outcome.certifies, lenient.code, l.fingerprint.clientProfile]).toEqual([true, 0, 'document']);
  const s = read(strict.dir);
  expect(s.cases.find((c) => c.id === 'client.bill-enquiry.headers.required')).toMatchObject({ verdict: 'FAIL', notes: expect.arrayContaining([expect.objectContaining({ text: expect.stringMatching(/ReferenceID is not 3-16 letters or digits, the form a real deployment enforces/) })]) });
  expect([s.outcome.certifies, strict.code, s.fingerprint.clientProfile]).toEqual([false, 1, 'strict-deployment']);
});
