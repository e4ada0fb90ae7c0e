/**
 * A hosted judge for several partners: `certify-client` with MOCK_COMPANIES judges each company's
 * client on that company's calls alone, with its own limits, into a package of its own. Two sample
 * clients (examples/client), one per company, run against one judge at the same time and both
 * certify; the CLI writes `reports/clients/<company>/`, and refuses a single client command for
 * several companies.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startJudge } from '../../src/judge/index.js';
import type { ClientCertificationReport } from '../../src/judge/model.js';
import type { CompanyConfig } from '../../src/mock/index.js';
import { ROOT } from '../../src/paths.js';
import { PROOF_CLIENT_TIMEOUT_MS, PROOF_LATE_ANSWER_MS, PROOF_WINDOW_SECONDS } from '../../src/prove/client.js';

test.describe.configure({ timeout: 240_000 });

const COMPANIES: CompanyConfig[] = [
  { companyId: 'ALPHA', accessToken: 'alpha-token-0123456789' },
  { companyId: 'BETA', clientId: 'beta-client', clientSecret: 'beta-secret-0123456789', limits: { bill: 6, moi: 2 } },
];

/** The sample client with one company's settings; its exit code and output. */
function sampleClient(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'examples/client/run.ts')], {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, ...env, SAMPLE_CLIENT_TIMEOUT_MS: String(PROOF_CLIENT_TIMEOUT_MS), SAMPLE_CLIENT_DEFECT: '' },
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('two companies\' sample clients against one judge at once: each judged on its own calls and limits, both certify', async () => {
  const session = await startJudge({ mock: { port: 0, rateWindowSeconds: PROOF_WINDOW_SECONDS, lateAnswerMs: PROOF_LATE_ANSWER_MS, companies: COMPANIES } });
  expect(session.companies.map((c) => c.companyId)).toEqual(['ALPHA', 'BETA']);
  const [alpha, beta] = session.companies.map((c) => c.clientEnv);
  expect(alpha).toMatchObject({ SADAD_COMPANY_ID: 'ALPHA', SADAD_ACCESS_TOKEN: 'alpha-token-0123456789', SADAD_RATE_LIMIT_BILL: '10', SADAD_RATE_LIMIT_MOI: '3' });
  expect(alpha!.SADAD_TOKEN_URL).toBeUndefined();
  expect(beta).toMatchObject({ SADAD_COMPANY_ID: 'BETA', SADAD_CLIENT_ID: 'beta-client', SADAD_RATE_LIMIT_BILL: '6', SADAD_RATE_LIMIT_MOI: '2' });
  expect(beta!.SADAD_ACCESS_TOKEN).toBeUndefined();

  const runs = await Promise.all([alpha!, beta!].map((env) => sampleClient(env)));
  const results = await session.finishByCompany({ command: null, exitCode: null, signal: null, outputTail: '', ended: 'both clients done' });
  runs.forEach((r, i) => expect(r.code, `${COMPANIES[i]!.companyId}: ${r.output.slice(-2000)}`).toBe(0));
  const recorded = session.recorder.ended().length;
  expect(results.reduce((n, r) => n + r.calls, 0), 'every call belongs to one company').toBe(recorded);
  for (const { companyId, report, calls } of results) {
    const bad = report.cases.filter((c) => c.side === 'client' && c.verdict !== 'PASS' && c.verdict !== 'NOT_APPLICABLE').map((c) => `${c.verdict} ${c.id}: ${c.notes[0]?.text ?? ''}`);
    expect(bad, companyId).toEqual([]);
    expect(report.outcome.certifies, `${companyId}: ${report.outcome.summary}`).toBe(true);
    expect(report.scenarios.filter((s) => !s.reached).map((s) => s.id), companyId).toEqual([]);
    expect(report.fingerprint.limits, companyId).toEqual({ windowSeconds: PROOF_WINDOW_SECONDS, bill: companyId === 'BETA' ? 6 : 10, moi: companyId === 'BETA' ? 2 : 3 });
    expect(calls).toBeGreaterThan(10);
    // nothing of the other company in this one's package
    const text = JSON.stringify(report);
    for (const other of COMPANIES.filter((c) => c.companyId !== companyId)) expect(text).not.toContain(`"${other.companyId}"`);
  }
});

test('certify-client with MOCK_COMPANIES: one package per company under reports/clients/, and no single client command for several companies', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sadad-companies-judge-'));
  const file = join(dir, 'companies.json');
  writeFileSync(file, JSON.stringify(COMPANIES));
  const cli = (args: string[]) => spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/cli/certify-client.ts'), ...args], {
    cwd: dir, encoding: 'utf8', timeout: 120_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), SADAD_REPORTS_DIR: join(dir, 'reports'), MOCK_COMPANIES: file },
  });
  const refused = cli(['--port', '0', '--', 'true']);
  expect(refused.status, refused.stdout + refused.stderr).toBe(2);
  expect(refused.stderr).toContain('certify-client: MOCK_COMPANIES: lists 2 companies');

  const served = cli(['--port', '0', '--duration', '1', '--client-env', join(dir, '.env.client')]);
  expect(served.status, 'nobody called: no company certifies').toBe(1);
  for (const c of COMPANIES) {
    const env = readFileSync(join(dir, `.env.client.${c.companyId}`), 'utf8');
    expect(env).toContain(`SADAD_COMPANY_ID=${c.companyId}`);
    const pkg = join(dir, 'reports', 'clients', c.companyId, 'client-certification.json');
    expect(existsSync(pkg), pkg).toBe(true);
    const report = JSON.parse(readFileSync(pkg, 'utf8')) as ClientCertificationReport;
    expect(report.outcome.certifies).toBe(false);
    expect(served.stdout).toContain(`${c.companyId}: 0 calls`);
  }
  expect(served.stdout).toContain('not every company certifies: ALPHA, BETA');
});
