/**
 * A redis-server of a test's own (from PATH; `.ci/run` installs it), on a free port of 127.0.0.1,
 * with its files in a folder of its own. `kill()` is a crash (SIGKILL, nothing flushed);
 * `restart()` starts it again on the same port and folder, so that with `appendonly` it reloads
 * what it had written (appendfsync always: every acknowledged write is on disk before the answer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RunningRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  dir: string;
  /** SIGTERM, and waits for the process to end. */
  stop(): Promise<void>;
  /** SIGKILL: a crash; returns at once. */
  kill(): void;
  /** Starts again on the same port and folder (stopping it first if it runs), and waits until it answers. */
  restart(): Promise<void>;
  /** SIGSTOP: a Redis that takes connections' bytes but answers nothing (slow to the point of hanging). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
}

export interface RedisSettings {
  /** Append-only file with `appendfsync always` (default: no persistence at all). */
  appendonly?: boolean;
  /** The folder for its files (default: a new temporary folder, removed when the test process ends). */
  dir?: string;
}

const READY_TIMEOUT_MS = 10_000;

/** A port of 127.0.0.1 nothing listens on now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether a PING on the port is answered PONG (a Redis still loading its file answers -LOADING). */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let text = '';
    const done = (ok: boolean) => { socket.destroy(); resolve(ok); };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => { text += d.toString('latin1'); if (text.includes('\r\n')) done(text.startsWith('+PONG')); });
  });
}

const live = new Set<ChildProcess>();
const made = new Set<string>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

export async function startRedis(settings: RedisSettings = {}): Promise<RunningRedis> {
  const dir = settings.dir ?? mkdtempSync(join(tmpdir(), 'sadad-redis-'));
  if (settings.dir === undefined) made.add(dir);
  const port = await freePort();
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--daemonize', 'no', '--loglevel', 'warning',
    '--appendonly', settings.appendonly ? 'yes' : 'no', '--appendfsync', 'always',
  ];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let output = '';

  const launch = async () => {
    const c = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    live.add(c);
    output = '';
    c.stdout!.on('data', (d: Buffer) => { output = (output + d.toString()).slice(-4000); });
    c.stderr!.on('data', (d: Buffer) => { output = (output + d.toString()).slice(-4000); });
    exited = new Promise((resolve) => c.once('exit', () => { live.delete(c); if (child === c) child = undefined; resolve(); }));
    const spawned = new Promise<void>((resolve, reject) => { c.once('spawn', resolve); c.once('error', reject); });
    await spawned.catch((e: Error) => { throw new Error(`cannot start redis-server (is it installed? .ci/run installs it): ${e.message}`); });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await pings(port))) {
      if (child !== c) throw new Error(`redis-server on port ${port} exited at start: ${output.trim()}`);
      if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${READY_TIMEOUT_MS} ms: ${output.trim()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const stop = async () => {
    if (child) { child.kill('SIGCONT'); child.kill('SIGTERM'); }
    await exited;
  };

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    stop,
    kill: () => { child?.kill('SIGKILL'); },
    pause: () => { child?.kill('SIGSTOP'); },
    resume: () => { child?.kill('SIGCONT'); },
    async restart() {
      await stop();
      await launch();
    },
  };
}
