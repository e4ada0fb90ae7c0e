/** Runs `npm run certify`'s command (src/cli/certify.ts) in a child process, into a temp folder; and a mock that records what it was sent. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';
import { buildMockServer, resolveMockOptions, type MockOptions } from '../../src/mock/index.js';

export interface CertifyRun { code: number | null; output: string; reportsDir: string; resultsDir: string; durationMs: number }

/** `tsx src/cli/certify.ts <args>` with only the given environment (plus what Node needs), reports in a temp folder. */
export function certify(env: Record<string, string>, args: string[] = []): Promise<CertifyRun> {
  const dir = mkdtempSync(join(tmpdir(), 'sadad-certify-'));
  const reportsDir = join(dir, 'reports');
  const resultsDir = join(dir, 'test-results');
  const started = Date.now();
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, CI: '1', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') };
  return new Promise((resolve) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'src/cli/certify.ts'), ...args], {
      cwd: ROOT, env: { ...base, SADAD_REPORTS_DIR: reportsDir, SADAD_RESULTS_DIR: resultsDir, ...env },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output, reportsDir, resultsDir, durationMs: Date.now() - started }));
  });
}

export interface RecordingMock {
  url: string;
  /** Requests the mock received. */
  requests: number;
  /** Every X-Signature value it was sent. */
  signatures: Set<string>;
  close(): Promise<void>;
}

/** The project's mock on a free port, counting requests and keeping the signatures it was sent (to look for them in reports). */
export async function recordingMock(options: Partial<MockOptions>): Promise<RecordingMock> {
  const { app } = await buildMockServer(resolveMockOptions({ ...options, port: 0 }));
  const rec: RecordingMock = { url: '', requests: 0, signatures: new Set(), close: async () => { await app.close(); } };
  app.addHook('onRequest', async (req) => {
    rec.requests++;
    const sig = req.headers['x-signature'];
    if (typeof sig === 'string' && sig) rec.signatures.add(sig);
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  rec.url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return rec;
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
