/**
 * `npm run mock` in a process of its own (`node --import tsx src/cli/mock.ts`, as the npm script
 * runs it), for tests that restart replicas or send them signals. Only the variables given reach
 * it (and an empty env file, so a developer's .env does not).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

export interface MockProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Resolves when the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** Sends the signal (SIGTERM by default) and waits for the end. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const START_TIMEOUT_MS = 60_000;
const live = new Set<ChildProcess>();
process.once('exit', () => { for (const c of live) c.kill('SIGKILL'); });

export async function startMockProcess(env: Record<string, string>, port: number): Promise<MockProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/mock.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? ROOT, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), MOCK_LOG_LEVEL: 'silent', ...env, MOCK_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let text = '';
  child.stdout!.on('data', (d: Buffer) => { text += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { text += d.toString(); });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => { live.delete(child); resolve({ code, signal }); }));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the mock did not start within ${START_TIMEOUT_MS} ms: ${text}`)); }, START_TIMEOUT_MS);
    const look = () => {
      const m = /listening on (\S+)/.exec(text);
      if (m) { clearTimeout(timer); child.stdout!.off('data', look); resolve(m[1]!); }
    };
    child.stdout!.on('data', look);
    void exited.then(({ code, signal }) => { clearTimeout(timer); reject(new Error(`the mock exited at start (${code ?? signal}): ${text}`)); });
  });
  return {
    url, port, child, exited,
    output: () => text,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}
