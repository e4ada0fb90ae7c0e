/** Runs `npm run certify`'s command (src/cli/certify.ts) in a child process, into a temp folder; and a mock that records what it was sent. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';
import { buildMockServer, resolveMockOptions, type MockOptions } from '../../src/mock/index.js';
import { yieldCpu } from '../../src/prove/run-suite.js';

export interface CertifyRun { code: number | null; output: string; reportsDir: string; resultsDir: string; durationMs: number }

/** `node --import tsx src/cli/certify.ts <args>` with only the given environment (plus what Node needs), reports in a temp folder. */
export function certify(env: Record<string, string>, args: string[] = [], dir?: string): Promise<CertifyRun> {
  return startCertify(env, args, dir).done;
}

export interface RunningCertify {
  /** The certify process (Node running the script); it leads its own process group (signal the group as a terminal or CI runner would: `-child.pid`). */
  child: ChildProcess;
  reportsDir: string;
  done: Promise<CertifyRun>;
}

let yielding = false;
/**
 * From now on, in this worker, every run started here yields the CPU to the rest of the machine
 * (its whole session at autogroup nice 19: src/prove/run-suite.ts, yieldCpu). The signal tests call
 * it: they run beside the timing tests (test/playwright.config.ts), whose timers, late behind their
 * runs, once made 9 paced calls 70 ms longer than allowed; the timing tests mostly sleep, so the
 * runs still get nearly all of the CPU.
 */
export function runsYieldCpu(): void {
  yielding = true;
}

/**
 * Starts `node --import tsx src/cli/certify.ts <args>` in its own process group; `dir` (default: a new
 * temp folder) holds reports/ and test-results/, so a second run can resume the first. `viaNpm`:
 * `npm run certify -- <args>` instead, the command a user's CI pipeline runs (`child` is then npm).
 */
export function startCertify(env: Record<string, string>, args: string[] = [], dir = mkdtempSync(join(tmpdir(), 'sadad-certify-')), viaNpm = false): RunningCertify {
  const reportsDir = join(dir, 'reports');
  const resultsDir = join(dir, 'test-results');
  const started = Date.now();
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, CI: '1', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') };
  // `node --import tsx`, as `npm run certify` runs it: the tsx command would be a parent of its own,
  // relaying a SIGTERM and SIGKILLing the script when it has not acknowledged within 30 ms (under load
  // it had not: the script died, its Playwright run went on to the end and the command exited 143)
  const [command, commandArgs] = viaNpm
    ? ['npm', ['run', '--silent', 'certify', '--', ...args]]
    : [process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/certify.ts'), ...args]];
  const child = spawn(command, commandArgs, {
    cwd: ROOT, detached: true, env: { ...base, SADAD_REPORTS_DIR: reportsDir, SADAD_RESULTS_DIR: resultsDir, ...env },
  });
  if (yielding) yieldCpu(child.pid);
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const done = new Promise<CertifyRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? -1 : null), output, reportsDir, resultsDir, durationMs: Date.now() - started }));
  });
  return { child, reportsDir, done };
}

/** Evidence files the run has written so far. */
export function evidenceCount(reportsDir: string): number {
  const dir = join(reportsDir, 'evidence');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).length : 0;
}

/** Resolves once the run has written `n` evidence files (or rejects when it ends first). */
export async function whenEvidence(run: RunningCertify, n: number, timeoutMs = 120_000): Promise<number> {
  let ended = false;
  void run.done.then(() => { ended = true; });
  const until = Date.now() + timeoutMs;
  for (;;) {
    const count = evidenceCount(run.reportsDir);
    if (count >= n) return count;
    if (ended) throw new Error(`the run ended with ${count} evidence files, before ${n}`);
    if (Date.now() > until) throw new Error(`no ${n} evidence files within ${timeoutMs} ms (${count})`);
    await new Promise((r) => setTimeout(r, 50));
  }
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
export async function recordingMock(options: Partial<MockOptions>, port = 0): Promise<RecordingMock> {
  const { app } = await buildMockServer(resolveMockOptions({ ...options, port }));
  const rec: RecordingMock = { url: '', requests: 0, signatures: new Set(), close: async () => { await app.close(); } };
  app.addHook('onRequest', async (req) => {
    rec.requests++;
    const sig = req.headers['x-signature'];
    if (typeof sig === 'string' && sig) rec.signatures.add(sig);
  });
  await app.listen({ host: '127.0.0.1', port });
  rec.url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return rec;
}

export function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}
