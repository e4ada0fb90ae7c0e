/**
 * Real gateway software in front of the mock, for the project's tests: nginx, HAProxy and Squid
 * from Debian (`.ci/run` installs them when missing), each started on a free port of 127.0.0.1
 * with a config from `examples/gateways/` (the same files docs/network.md shows), in a folder of
 * its own, and stopped by the test. A missing binary fails the test with what to install: a
 * skipped gateway test would count as a pass it never earned.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';
import { freePort } from './redis.js';

export type GatewayKind = 'nginx' | 'haproxy' | 'squid';

export interface Gateway {
  kind: GatewayKind;
  /** `http://127.0.0.1:<port>` (https for a TLS config). */
  url: string;
  port: number;
  dir: string;
  /** Rewrites the config from another template (same variables plus `vars`) and reloads it (nginx only). */
  reload(template: string, vars?: Record<string, string>): Promise<void>;
  /** What the gateway wrote to its logs so far (error log, access log). */
  log(name: string): string;
  stop(): Promise<void>;
}

const BINARIES: Record<GatewayKind, string> = { nginx: '/usr/sbin/nginx', haproxy: '/usr/sbin/haproxy', squid: '/usr/sbin/squid' };
const START_TIMEOUT_MS = 15_000;

const live = new Set<ChildProcess>();
const made = new Set<string>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** The binary of a gateway, or an error that says how to get it. */
export function gatewayBinary(kind: GatewayKind): string {
  const bin = BINARIES[kind];
  if (!existsSync(bin)) throw new Error(`${kind} is not installed (${bin}): .ci/run installs it; by hand: sudo apt-get install ${kind}`);
  return bin;
}

/** `${NAME}` replaced from `vars`; a name without a value is an error, never an empty string in a config. */
export function fillTemplate(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`gateway template: no value for \${${name}}`);
    return v;
  });
}

export const template = (name: string) => readFileSync(join(ROOT, 'examples/gateways', name), 'utf8');

/**
 * The limiter variables of the templates for a window and limits: nginx's rates in requests per
 * minute (limit x 60 / window, which must come out whole: nginx keeps rates in r/s or r/m), its
 * burst (limit - 1: a bucket of `limit` calls), HAProxy's period and limits.
 */
export function limiterVars(windowSeconds: number, limits: { bill: number; moi: number }): Record<string, string> {
  const perMinute = (n: number) => {
    const r = (n * 60) / windowSeconds;
    if (!Number.isInteger(r)) throw new Error(`nginx cannot express ${n} calls per ${windowSeconds} s (${r} r/m is not whole)`);
    return `${r}r/m`;
  };
  const windowMs = Math.round(windowSeconds * 1000);
  return {
    BILL_RATE: perMinute(limits.bill), MOI_RATE: perMinute(limits.moi),
    BILL_BURST: String(limits.bill - 1), MOI_BURST: String(limits.moi - 1),
    BILL_LIMIT: String(limits.bill), MOI_LIMIT: String(limits.moi),
    WINDOW_MS: String(windowMs), EXPIRE_MS: String(Math.max(10_000, 3 * windowMs)),
  };
}

/** `host:port` of an http(s) URL (what the templates' upstreams take). */
export const hostPort = (url: string) => new URL(url).host;

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: '127.0.0.1', port });
    const done = (ok: boolean) => { s.destroy(); resolve(ok); };
    s.setTimeout(500, () => done(false));
    s.once('error', () => done(false));
    s.once('connect', () => done(true));
  });
}

/**
 * Squid's basic_ncsa_auth reads htpasswd's MD5 crypt (`$1$`), which node:crypto has no call for:
 * the algorithm (Poul-Henning Kamp's md5crypt), so the tests need no openssl or htpasswd binary.
 */
export function md5crypt(password: string, salt = randomBytes(6).toString('base64').replace(/[^A-Za-z0-9./]/g, '.').slice(0, 8)): string {
  const md5 = (...parts: (string | Buffer)[]) => { const h = createHash('md5'); for (const p of parts) h.update(p); return h.digest(); };
  const magic = '$1$';
  const alt = md5(password, salt, password);
  const ctx = createHash('md5');
  ctx.update(password); ctx.update(magic); ctx.update(salt);
  for (let n = password.length; n > 0; n -= 16) ctx.update(alt.subarray(0, Math.min(16, n)));
  for (let i = password.length; i; i >>= 1) ctx.update(i & 1 ? Buffer.from([0]) : password.slice(0, 1));
  let final = ctx.digest();
  for (let i = 0; i < 1000; i++) {
    const c = createHash('md5');
    c.update(i & 1 ? password : final);
    if (i % 3) c.update(salt);
    if (i % 7) c.update(password);
    c.update(i & 1 ? final : password);
    final = c.digest();
  }
  const itoa = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  const to64 = (v: number, n: number) => { let s = ''; for (; n > 0; n--, v >>= 6) s += itoa[v & 0x3f]; return s; };
  const f = final;
  const out = to64((f[0]! << 16) | (f[6]! << 8) | f[12]!, 4) + to64((f[1]! << 16) | (f[7]! << 8) | f[13]!, 4) + to64((f[2]! << 16) | (f[8]! << 8) | f[14]!, 4)
    + to64((f[3]! << 16) | (f[9]! << 8) | f[15]!, 4) + to64((f[4]! << 16) | (f[10]! << 8) | f[5]!, 4) + to64(f[11]!, 2);
  return `${magic}${salt}$${out}`;
}

/**
 * Starts a gateway with a template of examples/gateways and the variables (RUN_DIR and LISTEN are
 * set here). For Squid, `users` become its password file. Resolves once the port accepts connections.
 */
export async function startGateway(kind: GatewayKind, templateName: string, vars: Record<string, string> = {}, options: { users?: Record<string, string>; tls?: boolean } = {}): Promise<Gateway> {
  const bin = gatewayBinary(kind);
  const dir = mkdtempSync(join(tmpdir(), `sadad-${kind}-`));
  made.add(dir);
  // Squid and nginx's workers drop root for an unprivileged user: their logs and temp files live here
  chmodSync(dir, 0o777);
  const port = await freePort();
  const base: Record<string, string> = { RUN_DIR: dir, LISTEN: `127.0.0.1:${port}`, NCSA_AUTH: '/usr/lib/squid/basic_ncsa_auth', OUTGOING_ADDRESS: '127.0.0.2', ...vars };
  const file = join(dir, kind === 'haproxy' ? 'haproxy.cfg' : `${kind}.conf`);
  const write = (name: string, extra: Record<string, string> = {}) => writeFileSync(file, fillTemplate(template(name), { ...base, ...extra }), { mode: 0o644 });
  write(templateName);
  if (kind === 'squid') writeFileSync(join(dir, 'passwd'), Object.entries(options.users ?? {}).map(([u, p]) => `${u}:${md5crypt(p)}\n`).join(''), { mode: 0o644 });
  const args = kind === 'nginx' ? ['-p', dir, '-c', file, '-g', 'daemon off;'] : kind === 'haproxy' ? ['-db', '-f', file] : ['-N', '-f', file];
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  let exited = false;
  const ended = new Promise<void>((resolve) => child.once('exit', () => { exited = true; live.delete(child); resolve(); }));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await connects(port))) {
    if (exited || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${kind} did not start (${exited ? 'it exited' : 'no listener'}): ${output.slice(-2000)}${readLog(dir, kind === 'nginx' ? 'error.log' : 'cache.log').slice(-1000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    kind, port, dir, url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    async reload(name, extra = {}) {
      if (kind !== 'nginx') throw new Error('only nginx reloads in these tests');
      write(name, extra);
      const check = spawnSync(bin, ['-t', '-p', dir, '-c', file], { encoding: 'utf8' });
      if (check.status !== 0) throw new Error(`nginx -t: ${check.stderr}`);
      // SIGHUP: new workers with the new config, the old ones finish what they were doing
      child.kill('SIGHUP');
      await new Promise((r) => setTimeout(r, 300));
    },
    log: (name) => readLog(dir, name),
    async stop() {
      if (exited) return;
      // nginx: fast shutdown (SIGTERM); HAProxy and Squid stop at once on it too (shutdown_lifetime 0)
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await ended;
      clearTimeout(timer);
    },
  };
}

function readLog(dir: string, name: string): string {
  try { return readFileSync(join(dir, name), 'utf8'); } catch { return ''; }
}
