/**
 * The mock's throughput and latency against Prism's on the same workload (autocannon, 127.0.0.1).
 *
 *   npm run bench:mock -- --runs 3 --duration 10
 *
 * Each server runs in its own child process: the mock as `startMock` with its rate limits raised
 * (full validation and state, no defects), Prism as `prism mock schemas/openapi.json` (it
 * validates requests and answers 422 to invalid ones). This process only runs autocannon.
 *
 * Workload: a pool of requests over the four operations with the §5 headers, 1 in 4 of each
 * operation's bodies with a required field dropped or retyped; every connection cycles through
 * the pool from its own offset. Valid payments are paid in full with the amount the mock's world
 * holds (so the mock accepts the first one), and every later copy of a payment is a replay: the
 * mock refuses it as a duplicate (409) after validation and the state lookup, Prism answers its
 * example. Invalid bodies: the mock answers 400, Prism 422.
 *
 * Per run, for each server: (1) max throughput, `--connections` (20) for `--duration` s (10);
 * (2) a fixed rate of `--rate` (1000) requests per second (autocannon `overallRate`), once for each
 * count in `--rate-connections` (1,10). Latency is measured here over every response (2xx and
 * 4xx) from autocannon's own per-request times, to the microsecond (autocannon's histogram keeps
 * whole ms), and so is the CPU time each server's process spent per response (Linux, /proc): unlike
 * throughput it does not depend on what else the machine runs, autocannon included. Medians over
 * `--runs` (3); the ratio mock / Prism is taken within each run, then its median.
 *
 * Note on the fixed rate: autocannon paces each connection per second (its share of the second's
 * requests is sent back to back, then it waits for the next second), so arrivals come in bursts,
 * not evenly spaced. With 1 connection a request never waits for another: the latency is the
 * server's own; with 10, every burst keeps 10 requests in flight, and each waits for the others.
 *
 * The ceiling: a third child serves the same four routes with fastify as the mock configures it
 * (its JSON parser, its body limit) and answers every call with one fixed small body: no
 * authentication, validation, rate limit, state or rendering. Its max throughput is what the HTTP
 * stack alone allows on this machine and workload, so it bounds what any fastify app could reach;
 * it is measured in the max-throughput phase only (`--no-ceiling` leaves it out).
 *
 * Other flags: --pool N (200), --warmup S (3), --only mock|prism|ceiling, --mock-cpu-prof DIR (writes a
 * V8 CPU profile of the mock process there, for chrome://inspect or speedscope), --prism-log LEVEL
 * (Prism's log level, default `silent`: its fastest setting, so the ratio is not flattered).
 *
 * Replica mode (`--replicas N`, docs/hosting.md): N mock processes sharing one redis-server
 * (MOCK_REDIS_URL; `startRedis` of test/support/redis.ts, append-only with fsync on every write as
 * the hosted example runs it, `--no-aof` for none) behind the round-robin balancer of
 * test/support/balancer.ts (a process of its own), side by side with one in-memory mock process on
 * the same workload and phases as above. CPU per response counts the replicas and Redis (the
 * balancer's own is shown apart). Then two checks through the balancer:
 *   exactly-once: `--bursts` (5) times, 50 identical partial payments of a fresh bill written at
 *     once on 50 connections, spread over the replicas: one accepted, one debit (the bill's
 *     AmountDue moves by one amount), the rest refused as duplicates;
 *   soak: `--soak` (1200) full payments of distinct bills, 10 at a time; a replica is killed
 *     (SIGKILL) a third of the way and started again two thirds of the way; then every payment
 *     answered accepted is enquired (its bill must be paid) and replayed (a duplicate on any
 *     replica). A payment whose answer was lost with the replica (502) is counted apart, with how
 *     many of those did take effect (what a client resolves by enquiring).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { operations, tagsOf, type Operation } from '../src/contract/catalogue.js';
import { conformantHeaders } from '../src/contract/headers.js';
import type { Fields } from '../src/contract/message.js';
import { SPEC_PREFIX } from '../src/contract/prefix.js';
import { mutationsOf } from '../src/generators/mutations.js';
import { RequestGenerator } from '../src/generators/requests.js';
import { BODY_LIMIT, defaultMockOptions, startMock } from '../src/mock/index.js';
import { billFacts, feeFacts } from '../src/mock/world.js';
import { ROOT } from '../src/paths.js';
import { startBalancer } from '../test/support/balancer.js';
import { startRedis } from '../test/support/redis.js';
import { sendTogether } from '../test/support/burst.js';

const SELF = fileURLToPath(import.meta.url);
/** Far above what a bench can send in a window: the limiter counts every call, refuses none. */
const RATE_LIMITS = { bill: 1_000_000, moi: 1_000_000 };

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '20' },
    rate: { type: 'string', default: '1000' },
    'rate-connections': { type: 'string', default: '1,10' },
    pool: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '3' },
    only: { type: 'string' },
    'mock-cpu-prof': { type: 'string' },
    'prism-log': { type: 'string', default: 'silent' },
    'no-ceiling': { type: 'boolean', default: false },
    'serve-mock': { type: 'boolean', default: false }, // internal: the child process that serves the mock
    'serve-ceiling': { type: 'boolean', default: false }, // internal: the child process that serves the empty routes
    replicas: { type: 'string' },
    bursts: { type: 'string', default: '5' },
    soak: { type: 'string', default: '1200' },
    'no-aof': { type: 'boolean', default: false },
    'serve-balancer': { type: 'string' }, // internal: the balancer's child process, over these upstreams (comma-separated)
    'redis-url': { type: 'string' }, // internal: the mock child's MOCK_REDIS_URL
    'mock-port': { type: 'string' }, // internal: the mock child's port (0: a free one)
  },
});

/* ------------------------------------------------------------------- the bench ------------------------------------------------------------------- */

interface Measure {
  rps: number;
  /** CPU time of the server's process per response, in ms (Linux: from /proc), NaN where unknown. */
  cpuMs: number;
  /** CPU time of `otherPids` per response, in ms (replica mode: the balancer's); NaN when none. */
  otherCpuMs: number;
  /** CPU time per response, in ms, of each part of `breakdown`. */
  breakdownMs: Record<string, number>;
  p50: number;
  p99: number;
  responses: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
}

/** `ceiling`: fastify's routes with no work behind them (see the header). */
interface Server {
  name: 'mock' | 'prism' | 'ceiling' | 'replicas';
  url: string;
  child: ChildProcess;
  /** The processes whose CPU a response costs (default: the child's); replica mode: the replicas and Redis. */
  pids?: () => (number | undefined)[];
  /** Processes on the way whose CPU is shown apart (replica mode: the balancer). */
  otherPids?: () => (number | undefined)[];
  /** How `pids` divide, shown beside the total (replica mode: the replicas, Redis). */
  breakdown?: { name: string; pids: () => (number | undefined)[] }[];
}

function positive(name: string, value: string | undefined): number {
  const n = Number(value);
  if (!(n > 0) || !Number.isFinite(n)) { console.error(`bench:mock: --${name} must be a positive number, got ${JSON.stringify(value)}`); process.exit(2); }
  return n;
}

/** The load's settings, the same for both modes. */
function loadArgs() {
  return {
    runs: Math.round(positive('runs', args.runs)),
    duration: positive('duration', args.duration),
    connections: Math.round(positive('connections', args.connections)),
    rate: Math.round(positive('rate', args.rate)),
    rateConnections: (args['rate-connections'] ?? '').split(',').map((c) => Math.round(positive('rate-connections', c.trim()))),
    poolSize: Math.round(positive('pool', args.pool)),
    warmup: Number(args.warmup),
  };
}

async function main(): Promise<void> {
  const { runs, duration, connections, rate, rateConnections, poolSize, warmup } = loadArgs();
  const only = args.only;
  if (only !== undefined && only !== 'mock' && only !== 'prism' && only !== 'ceiling') { console.error('bench:mock: --only must be mock, prism or ceiling'); process.exit(2); }
  const wanted = (name: Server['name']) => (only === undefined ? name !== 'ceiling' || !args['no-ceiling'] : only === name);

  const pool = buildPool(poolSize);
  const invalid = pool.filter((r) => !r.valid).length;
  console.log(`workload: ${pool.length} requests over ${operations.length} operations (${operations.map((op) => `${op.id} ${pool.filter((r) => r.op === op).length}`).join(', ')}), `
    + `${pool.length - invalid} valid, ${invalid} invalid (a required field dropped or retyped), the §5 headers; every connection cycles through the pool from its own offset`);

  const servers: Server[] = [];
  const stopAll = () => Promise.all(servers.map((s) => stop(s.child)));
  process.once('SIGINT', () => { void stopAll().then(() => process.exit(130)); });
  try {
    if (wanted('mock')) {
      servers.push(await startMockChild(args['mock-cpu-prof']));
      console.log(`mock: startMock in a child process (pid ${servers.at(-1)!.child.pid}), full validation and state, no defects, rate limits ${RATE_LIMITS.bill} calls per ${defaultMockOptions().rateWindowSeconds} s and operation, ${servers.at(-1)!.url}`);
    }
    if (wanted('prism')) {
      servers.push(await startPrism(args['prism-log']!));
      console.log(`prism: prism-cli mock schemas/openapi.json in a child process (pid ${servers.at(-1)!.child.pid}), log level ${args['prism-log']}, ${servers.at(-1)!.url}`);
    }
    if (wanted('ceiling')) {
      servers.push(await startCeilingChild());
      console.log(`ceiling: fastify with the mock's four routes, JSON parser and body limit, one fixed answer, no work per call, in a child process (pid ${servers.at(-1)!.child.pid}), ${servers.at(-1)!.url}`);
    }
    // the ceiling is only measured at full speed: at a fixed rate it says nothing about the mock
    const paced = servers.filter((s) => s.name !== 'ceiling');

    // Each request once, in order: what every server answers to each kind of request.
    for (const s of servers) console.log(`pre-flight, ${s.name} (each pool request once, in order): ${await preflight(s, pool)}`);
    if (warmup > 0) {
      for (const s of servers) await measure(s, pool, { connections, duration: warmup });
      console.log(`warm-up: ${warmup} s at full speed on each server`);
    }

    type PerServer = Partial<Record<Server['name'], Measure>>;
    const results: { max: PerServer; fixed: PerServer[] }[] = [];
    for (let i = 1; i <= runs; i++) {
      const run: (typeof results)[number] = { max: {}, fixed: rateConnections.map(() => ({})) };
      for (const s of servers) run.max[s.name] = await measure(s, pool, { connections, duration });
      for (const [k, c] of rateConnections.entries()) {
        for (const s of paced) run.fixed[k]![s.name] = await measure(s, pool, { connections: c, duration, overallRate: rate });
      }
      results.push(run);
      console.log(`\nrun ${i}/${runs}`);
      console.log(`  max throughput, ${connections} connections, ${duration} s:`);
      for (const s of servers) console.log(`    ${line(s.name, run.max[s.name]!)}`);
      if (run.max.mock && run.max.prism) {
        console.log(`    ratio mock / prism: throughput ${(run.max.mock.rps / run.max.prism.rps).toFixed(1)}x, cpu per response ${(run.max.prism.cpuMs / run.max.mock.cpuMs).toFixed(1)}x less`);
      }
      if (run.max.ceiling && run.max.prism) console.log(`    ratio ceiling / prism: throughput ${(run.max.ceiling.rps / run.max.prism.rps).toFixed(1)}x`);
      if (run.max.ceiling && run.max.mock) console.log(`    the mock reaches ${((100 * run.max.mock.rps) / run.max.ceiling.rps).toFixed(0)}% of the ceiling's throughput`);
      for (const [k, c] of rateConnections.entries()) {
        console.log(`  fixed rate ${rate} req/s (autocannon overallRate), ${c} connection(s), ${duration} s:`);
        for (const s of paced) console.log(`    ${line(s.name, run.fixed[k]![s.name]!, 'achieved')}`);
      }
    }

    console.log(`\nmedians over ${runs} run(s):`);
    const med = (pick: (r: (typeof results)[number]) => number | undefined) => median(results.map(pick).filter((x): x is number => x !== undefined));
    for (const s of servers) {
      const n = s.name;
      console.log(`  ${n.padEnd(7)} max throughput (${connections} connections): ${fmt(med((r) => r.max[n]?.rps), 0)} req/s, p50 ${ms(med((r) => r.max[n]?.p50))}, p99 ${ms(med((r) => r.max[n]?.p99))}, cpu ${us(med((r) => r.max[n]?.cpuMs))} per response`);
      if (n === 'ceiling') continue;
      for (const [k, c] of rateConnections.entries()) {
        console.log(`  ${n.padEnd(7)} at ${rate} req/s (${c} connection(s)): achieved ${fmt(med((r) => r.fixed[k]![n]?.rps), 0)} req/s, p50 ${ms(med((r) => r.fixed[k]![n]?.p50))}, p99 ${ms(med((r) => r.fixed[k]![n]?.p99))}`);
      }
    }
    for (const s of servers) {
      const all = results.flatMap((r) => [r.max[s.name]!, ...r.fixed.flatMap((f) => f[s.name] ?? [])]);
      const statuses: Record<string, number> = {};
      for (const m of all) for (const [code, count] of Object.entries(m.statuses)) statuses[code] = (statuses[code] ?? 0) + count;
      const total = all.reduce((sum, m) => sum + m.responses, 0);
      const non2xx = Object.entries(statuses).filter(([c]) => !c.startsWith('2')).reduce((sum, [, n]) => sum + n, 0);
      console.log(`  ${s.name.padEnd(7)} all timed runs: ${total} responses, non-2xx ${non2xx} (${Object.entries(statuses).map(([c, n]) => `${c}: ${n}`).join(', ')}), `
        + `errors ${all.reduce((sum, m) => sum + m.errors, 0)}, timeouts ${all.reduce((sum, m) => sum + m.timeouts, 0)}`);
    }
    if (servers.some((s) => s.name === 'mock')) {
      console.log('  (mock: 400 = invalid bodies; 409 = payments replayed from the pool, refused as duplicates after validation and the state lookup: still full work)');
    }

    console.log('');
    if (results[0]!.max.mock && results[0]!.max.prism) {
      const ratio = med((r) => r.max.mock!.rps / r.max.prism!.rps);
      const cpuRatio = med((r) => r.max.prism!.cpuMs / r.max.mock!.cpuMs);
      console.log(`goal: mock throughput >= 10x Prism's (log level ${args['prism-log']}): median of the runs' ratios ${ratio.toFixed(1)}x, ${ratio >= 10 ? 'met' : 'MISSED'}`
        + ` (cpu per response: the mock uses ${cpuRatio.toFixed(1)}x less than Prism)`);
      if (results[0]!.max.ceiling) {
        const ceiling = med((r) => r.max.ceiling!.rps / r.max.prism!.rps);
        console.log(`  bound: the HTTP stack alone (fastify, the same routes and workload, no work per call) reaches ${ceiling.toFixed(1)}x Prism on this machine;`
          + ` the mock reaches ${(100 * med((r) => r.max.mock!.rps / r.max.ceiling!.rps)).toFixed(0)}% of it`
          + `${ceiling < 10 ? ': 10x is beyond any fastify app here, whatever it does per call' : ''}`);
      }
    }
    if (results[0]!.max.mock) {
      for (const [k, c] of rateConnections.entries()) {
        const p99 = med((r) => r.fixed[k]!.mock!.p99);
        const achieved = med((r) => r.fixed[k]!.mock!.rps);
        console.log(`goal: mock p99 <= 5 ms at ${rate} req/s (${c} connection(s)): median p99 ${ms(p99)} at ${fmt(achieved, 0)} req/s achieved, ${p99 <= 5 && achieved >= rate * 0.95 ? 'met' : 'MISSED'}`);
      }
    }
  } finally {
    await stopAll();
  }
}

/* ------------------------------------------------------------------- workload ------------------------------------------------------------------- */

interface PoolRequest { op: Operation; valid: boolean; what: string; request: autocannon.Request }

const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

function firstItem(op: Operation, body: unknown): Fields {
  const { requestRoot, listTag } = tagsOf(op, SPEC_PREFIX);
  const list = isRecord(body) && isRecord(body.Message) && isRecord(body.Message[requestRoot]) ? body.Message[requestRoot][listTag] : undefined;
  if (!Array.isArray(list) || !isRecord(list[0])) throw new Error(`${op.id}: generated body without an item`);
  return list[0];
}

/**
 * Valid payments pay what the mock's world says is due (world.ts derives it from the identity),
 * so the mock accepts the first copy of each rather than refusing its amount.
 */
function payInFull(op: Operation, body: unknown): void {
  const item = firstItem(op, body);
  const entry = (item.TransactionData as Fields[])[0]!;
  if (op.id === 'bill-payment') {
    const bill = billFacts(String(entry.BillerId), String(entry.BillAccountID));
    if (bill) { entry.Amount = bill.dueCents / 100; entry.PayExactDue = true; }
  } else if (op.id === 'moi-payment') {
    const fee = feeFacts(String(entry.BillerID), String(entry.ID), String(entry.RequestType));
    if (fee) { entry.FeeReferenceId = fee.feeReferenceId; entry.DueAmount = fee.dueCents / 100; }
  }
}

const headersFor = (op: Operation) => conformantHeaders(op, defaultMockOptions());

function buildPool(size: number): PoolRequest[] {
  const generator = new RequestGenerator({ seed: 1, tagPrefix: SPEC_PREFIX });
  const pool: PoolRequest[] = [];
  const mutationAt = new Map<string, number>();
  for (let i = 0; i < size; i++) {
    const op = operations[i % operations.length]!;
    const body: unknown = generator.build(op.id);
    payInFull(op, body);
    // every fourth body of each operation is invalid: a required field missing or of the wrong JSON type, in turn
    const invalid = Math.floor(i / operations.length) % 4 === 3;
    let sent = body;
    let what = 'valid';
    if (invalid) {
      const candidates = mutationsOf(op.id, body, SPEC_PREFIX).filter((m) => !m.valid && (m.kind === 'missing' || m.kind === 'wrong-type'));
      const k = mutationAt.get(op.id) ?? 0;
      mutationAt.set(op.id, k + 1);
      const m = candidates[(k * 7) % candidates.length]!; // a stride, so the dropped and retyped fields vary along the pool
      sent = m.body;
      what = m.id;
    }
    pool.push({ op, valid: !invalid, what, request: { method: 'POST', path: op.path, headers: headersFor(op), body: JSON.stringify(sent) } });
  }
  return pool;
}

async function preflight(server: Server, pool: PoolRequest[]): Promise<string> {
  const seen = new Map<string, number>();
  for (const r of pool) {
    const res = await fetch(`${server.url}${r.op.path}`, { method: 'POST', headers: r.request.headers as Record<string, string>, body: r.request.body as string, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    if (r.valid && res.status >= 400 && !((server.name === 'mock' || server.name === 'replicas') && r.op.kind === 'payment' && res.status === 409)) {
      throw new Error(`${server.name} refused a valid ${r.op.id} request with ${res.status}: the workload is wrong`);
    }
    // the ceiling answers everything alike (it checks nothing): its pre-flight only shows it answers
    if (!r.valid && server.name !== 'ceiling' && (res.status < 400 || res.status >= 500)) throw new Error(`${server.name} answered ${res.status} to an invalid ${r.op.id} request (${r.what})`);
    const key = `${r.op.kind} ${r.valid ? 'valid' : 'invalid'} ${res.status}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].map(([k, n]) => `${k}: ${n}`).join(', ');
}

/* ------------------------------------------------------------------- measuring ------------------------------------------------------------------- */

/**
 * CPU seconds (user + system) a process has used so far: fields 14 and 15 of /proc/<pid>/stat, in
 * clock ticks of 1/100 s (USER_HZ); NaN off Linux. Immune to the machine being shared: a server's
 * cost per request, whatever else runs.
 */
function cpuSeconds(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // from field 3 on: the name may hold spaces
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

const cpuOf = (pids: (number | undefined)[]): number => pids.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0);

function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

async function measure(server: Server, pool: PoolRequest[], o: { connections: number; duration: number; overallRate?: number }): Promise<Measure> {
  const requests = pool.map((r) => r.request);
  let client = 0;
  const times: number[] = [];
  const pids = server.pids?.() ?? [server.child.pid];
  const others = server.otherPids?.() ?? [];
  const cpuBefore = cpuOf(pids);
  const otherBefore = cpuOf(others);
  const parts = (server.breakdown ?? []).map((b) => ({ name: b.name, pids: b.pids() }));
  const partsBefore = parts.map((b) => cpuOf(b.pids));
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon({
      url: server.url,
      connections: o.connections,
      duration: o.duration,
      timeout: 10,
      ...(o.overallRate ? { overallRate: o.overallRate, ignoreCoordinatedOmission: true } : {}),
      requests,
      // every connection starts at its own place in the pool, so concurrent requests differ
      setupClient: (c) => {
        const offset = Math.floor((client++ * requests.length) / o.connections);
        c.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
      },
    }, (err: unknown, res: autocannon.Result) => (err ? reject(err) : resolve(res)));
    // The instance emits (client, statusCode, bytes, responseTime in ms, fractional), unlike its typings say.
    (instance as unknown as NodeJS.EventEmitter).on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => { times.push(responseTime); });
  });
  const cpu = cpuOf(pids) - cpuBefore;
  const otherCpu = others.length ? cpuOf(others) - otherBefore : NaN;
  const sorted = Float64Array.from(times).sort();
  const statuses: Record<string, number> = {};
  for (const [code, s] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = s.count ?? 0;
  return {
    rps: times.length / result.duration,
    cpuMs: (cpu * 1000) / times.length,
    otherCpuMs: (otherCpu * 1000) / times.length,
    breakdownMs: Object.fromEntries(parts.map((b, i) => [b.name, ((cpuOf(b.pids) - partsBefore[i]!) * 1000) / times.length])),
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    responses: times.length,
    statuses,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number, digits: number) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (n: number) => `${n.toFixed(2)} ms`;
const us = (msValue: number) => `${(msValue * 1000).toFixed(0)} µs`;

function line(name: string, m: Measure, label = ''): string {
  const codes = Object.entries(m.statuses).map(([c, n]) => `${c}: ${n}`).join(', ');
  const parts = Object.entries(m.breakdownMs).map(([n, v]) => `${n} ${us(v)}`).join(', ');
  const other = `${parts ? ` (${parts})` : ''}${Number.isNaN(m.otherCpuMs) ? '' : ` + balancer ${us(m.otherCpuMs)}`}`;
  return `${name.padEnd(7)} ${label ? `${label} ` : ''}${fmt(m.rps, 0)} req/s, p50 ${ms(m.p50)}, p99 ${ms(m.p99)}, cpu ${us(m.cpuMs)}${other} per response (${m.responses} responses; ${codes}; errors ${m.errors}, timeouts ${m.timeouts})`;
}

/* ------------------------------------------------------------------- replica mode ------------------------------------------------------------------- */

interface BalancerChild { url: string; child: ChildProcess; counts(): Promise<number[]> }

/** test/support/balancer.ts in a process of its own (so that it does not share autocannon's event loop); counts over IPC. */
async function startBalancerChild(upstreams: string[]): Promise<BalancerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--serve-balancer', upstreams.join(',')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const url = await started(child, 'the balancer', async (out) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]);
  const counts = () => new Promise<number[]>((resolve) => {
    child.once('message', (m) => resolve((m as { counts: number[] }).counts));
    child.send('counts');
  });
  return { url, child, counts };
}

/** The pid of the redis-server on a port (its title names the address: `redis-server 127.0.0.1:<port>`). */
function redisPid(port: number): number | undefined {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.startsWith('redis-server') && (cmd.includes(`:${port}`) || cmd.includes(`\0${port}\0`))) return Number(d);
    } catch { /* gone meanwhile */ }
  }
  return undefined;
}

interface Answer { status: number; body: any }
const BILL_PAYMENT = operations.find((o) => o.id === 'bill-payment')!;
const BILL_ENQUIRY = operations.find((o) => o.id === 'bill-enquiry')!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cents = (n: unknown) => Math.round(Number(n) * 100);

/** One call; status 0 when no answer came (a dropped connection). */
async function call(url: string, op: Operation, body: unknown): Promise<Answer> {
  try {
    const res = await fetch(`${url}${op.path}`, { method: 'POST', headers: headersFor(op), body: JSON.stringify(body), signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    let json: unknown = text;
    try { json = JSON.parse(text); } catch { /* keep the text */ }
    return { status: res.status, body: json };
  } catch {
    return { status: 0, body: undefined };
  }
}

function firstEntry(op: Operation, body: any): Fields | undefined {
  const { responseRoot, listTag } = tagsOf(op, SPEC_PREFIX);
  return body?.[responseRoot]?.[listTag]?.[0]?.TransactionData?.[0];
}

/** accepted, duplicate, no answer (the balancer's 502, or nothing), or what else. */
function verdictOf(op: Operation, a: Answer): string {
  if (a.status === 0 || (a.status === 502 && a.body?.error === 'bad gateway')) return 'no answer';
  if (a.status === 409) return a.body?.errorCode === 'MW-409-DUPLICATE' ? 'duplicate' : `409 ${a.body?.errorCode}`;
  if (a.status !== 200) return `HTTP ${a.status} ${a.body?.errorCode ?? ''}`.trim();
  const e = firstEntry(op, a.body);
  return e?.StatusCode === true || e?.StatusCode === 'OK' ? 'accepted' : `in-band ${String(e?.StatusDetail ?? '').split(' ')[0]}`;
}

function tally(xs: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}

interface BillSubject { BillerId: string; AccountNumber: string }
const benchGenerator = new RequestGenerator({ seed: 7, tagPrefix: SPEC_PREFIX });
/** Distinct ordinary bills: 15 digits ending in 0001 (no magic suffix), `kind` keeps the checks' bills apart. */
const runTag = String(Date.now() % 10_000).padStart(4, '0');
const billOf = (kind: number, i: number): BillSubject => ({ BillerId: '002', AccountNumber: `${kind}${runTag}${String(i).padStart(6, '0')}0001` });
const billPaymentBody = (b: BillSubject, amount: number, exact: boolean) =>
  benchGenerator.build('bill-payment', { entry: { BillerId: b.BillerId, BillAccountID: b.AccountNumber, Amount: amount, PayExactDue: exact } });

/** The bill as an enquiry shows it, asked again while the balancer answers 502 (a replica away). */
async function enquireBill(url: string, b: BillSubject): Promise<Fields | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const a = await call(url, BILL_ENQUIRY, benchGenerator.build('bill-enquiry', { entry: { BillerId: b.BillerId, AccountNumber: b.AccountNumber } }));
    if (a.status === 200) return firstEntry(BILL_ENQUIRY, a.body);
    await sleep(250);
  }
  return undefined;
}

/** The same body `n` times at once (test/support/burst.ts). */
async function burst(url: string, op: Operation, body: unknown, n: number): Promise<Answer[]> {
  return (await sendTogether(url, op.path, Array.from({ length: n }, () => ({ headers: headersFor(op), body })))).answers;
}

/** Runs `f` over `items`, `width` at a time. */
async function eachLimited<T>(items: T[], width: number, f: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) {
      const i = next++;
      await f(items[i]!, i);
    }
  }));
}

async function replicaBench(): Promise<void> {
  const replicaCount = Math.round(positive('replicas', args.replicas));
  const { runs, duration, connections, rate, rateConnections, poolSize, warmup } = loadArgs();
  const bursts = Math.round(positive('bursts', args.bursts));
  const soakCount = Math.round(positive('soak', args.soak));
  const aof = !args['no-aof'];
  let failed = false;
  const check = (ok: boolean, what: string) => { if (!ok) failed = true; return `${what}: ${ok ? 'ok' : 'FAILED'}`; };

  const pool = buildPool(poolSize);
  const invalid = pool.filter((r) => !r.valid).length;
  console.log(`workload: ${pool.length} requests over ${operations.length} operations, ${pool.length - invalid} valid, ${invalid} invalid, the §5 headers (as without --replicas)`);

  const redis = await startRedis({ appendonly: aof });
  const replicas: Server[] = [];
  let balancer: BalancerChild | undefined;
  let memory: Server | undefined;
  const stopAll = async () => {
    await Promise.all([...replicas.map((r) => stop(r.child)), ...(balancer ? [stop(balancer.child)] : []), ...(memory ? [stop(memory.child)] : [])]);
    await redis.stop();
  };
  process.once('SIGINT', () => { void stopAll().then(() => process.exit(130)); });
  try {
    const rpid = redisPid(redis.port);
    const ports = await Promise.all(Array.from({ length: replicaCount }, () => freePort()));
    replicas.push(...await Promise.all(ports.map((port) => startMockChild(undefined, { redisUrl: redis.url, port }))));
    balancer = await startBalancerChild(replicas.map((r) => r.url));
    memory = await startMockChild(undefined);
    const lb = balancer;
    const shared: Server = {
      name: 'replicas', url: lb.url, child: lb.child,
      pids: () => [...replicas.map((r) => r.child.pid), rpid],
      otherPids: () => [lb.child.pid],
      breakdown: [{ name: 'replicas', pids: () => replicas.map((r) => r.child.pid) }, { name: 'redis', pids: () => [rpid] }],
    };
    const servers = [memory, shared];
    console.log(`redis: redis-server ${redis.url} (pid ${rpid ?? 'unknown'}), ${aof ? 'append-only, fsync on every write (as examples/hosted runs it)' : 'no persistence (--no-aof)'}`);
    console.log(`replicas: ${replicaCount} mock processes with MOCK_REDIS_URL (pids ${replicas.map((r) => r.child.pid).join(', ')}), behind the round-robin balancer of test/support/balancer.ts in its own process (pid ${lb.child.pid}), ${lb.url}`);
    console.log(`mock: 1 mock process, state in memory (pid ${memory.child.pid}), ${memory.url}`);
    console.log('cpu per response: the mock\'s process; for the replicas, the replicas\' processes and Redis (the balancer\'s own shown apart)');

    for (const s of servers) console.log(`pre-flight, ${s.name} (each pool request once, in order): ${await preflight(s, pool)}`);
    if (warmup > 0) {
      for (const s of servers) await measure(s, pool, { connections, duration: warmup });
      console.log(`warm-up: ${warmup} s at full speed on each`);
    }

    type Run = { max: Record<string, Measure>; fixed: Record<string, Measure>[] };
    const results: Run[] = [];
    for (let i = 1; i <= runs; i++) {
      const run: Run = { max: {}, fixed: rateConnections.map(() => ({})) };
      for (const s of servers) run.max[s.name] = await measure(s, pool, { connections, duration });
      for (const [k, c] of rateConnections.entries()) for (const s of servers) run.fixed[k]![s.name] = await measure(s, pool, { connections: c, duration, overallRate: rate });
      results.push(run);
      console.log(`\nrun ${i}/${runs}`);
      console.log(`  max throughput, ${connections} connections, ${duration} s:`);
      for (const s of servers) console.log(`    ${line(s.name, run.max[s.name]!)}`);
      console.log(`    ratio replicas / mock: throughput ${(run.max.replicas!.rps / run.max.mock!.rps).toFixed(2)}x, cpu per response ${(run.max.replicas!.cpuMs / run.max.mock!.cpuMs).toFixed(1)}x`);
      for (const [k, c] of rateConnections.entries()) {
        console.log(`  fixed rate ${rate} req/s, ${c} connection(s), ${duration} s:`);
        for (const s of servers) console.log(`    ${line(s.name, run.fixed[k]![s.name]!, 'achieved')}`);
      }
    }
    const med = (pick: (r: Run) => number | undefined) => median(results.map(pick).filter((x): x is number => x !== undefined && !Number.isNaN(x)));
    console.log(`\nmedians over ${runs} run(s):`);
    for (const n of ['mock', 'replicas']) {
      const balancerCpu = n === 'replicas'
        ? ` (replicas ${us(med((r) => r.max[n]?.breakdownMs.replicas))}, redis ${us(med((r) => r.max[n]?.breakdownMs.redis))}; + balancer ${us(med((r) => r.max[n]?.otherCpuMs))})`
        : '';
      console.log(`  ${n.padEnd(8)} max throughput (${connections} connections): ${fmt(med((r) => r.max[n]?.rps), 0)} req/s, p50 ${ms(med((r) => r.max[n]?.p50))}, p99 ${ms(med((r) => r.max[n]?.p99))}, cpu ${us(med((r) => r.max[n]?.cpuMs))}${balancerCpu} per response`);
      for (const [k, c] of rateConnections.entries()) {
        console.log(`  ${n.padEnd(8)} at ${rate} req/s (${c} connection(s)): achieved ${fmt(med((r) => r.fixed[k]![n]?.rps), 0)} req/s, p50 ${ms(med((r) => r.fixed[k]![n]?.p50))}, p99 ${ms(med((r) => r.fixed[k]![n]?.p99))}`);
      }
    }
    console.log(`  ratio replicas / mock (median of the runs' ratios): throughput ${med((r) => r.max.replicas!.rps / r.max.mock!.rps).toFixed(2)}x, `
      + `cpu per response ${med((r) => r.max.replicas!.cpuMs / r.max.mock!.cpuMs).toFixed(1)}x, p99 at ${rate} req/s on 1 connection ${med((r) => r.fixed[0]!.replicas!.p99 / r.fixed[0]!.mock!.p99).toFixed(1)}x`);
    console.log(`  requests per replica so far (balancer): ${(await lb.counts()).join(', ')}`);

    // exactly-once: identical payments spread over the replicas
    console.log(`\nexactly-once: ${bursts} burst(s) of 50 identical partial payments (12.34 of a fresh bill), written at once through the balancer`);
    let allOnce = true;
    for (let b = 0; b < bursts; b++) {
      const bill = billOf(7, b);
      const before = await enquireBill(lb.url, bill);
      const due = cents(before?.AmountDue);
      const body = billPaymentBody(bill, 12.34, false);
      const countsBefore = await lb.counts();
      const answers = await burst(lb.url, BILL_PAYMENT, body, 50);
      const countsAfter = await lb.counts();
      // the GETs that opened the connections went round robin too: the spread of all 100 requests
      const spread = countsAfter.map((n, i) => n - countsBefore[i]!);
      const verdicts = tally(answers.map((a) => verdictOf(BILL_PAYMENT, a)));
      const after = await enquireBill(lb.url, bill);
      const debits = (due - cents(after?.AmountDue)) / 1234;
      const once = verdicts.accepted === 1 && verdicts.duplicate === 49 && debits === 1;
      allOnce &&= once;
      console.log(`  burst ${b + 1}: ${JSON.stringify(verdicts)}, debits ${debits} (AmountDue ${(due / 100).toFixed(2)} -> ${(cents(after?.AmountDue) / 100).toFixed(2)}), requests per replica ${spread.join('/')}: ${once ? 'ok' : 'FAILED'}`);
    }

    // soak: a replica killed mid-way loses no payment answered accepted
    const victim = Math.min(1, replicas.length - 1);
    console.log(`\nsoak: ${soakCount} full payments of distinct bills, 10 at a time, through the balancer; replica ${victim + 1} SIGKILLed at a third, started again (same port, same Redis) at two thirds`);
    const bills = Array.from({ length: soakCount }, (_, i) => billOf(6, i));
    const outcome: { body: unknown; verdict: string }[] = new Array(soakCount);
    let done = 0;
    let killedAt = -1;
    let restartedAt = -1;
    let restart: Promise<void> | undefined;
    const t0 = performance.now();
    await eachLimited(bills, 10, async (bill, i) => {
      const facts = billFacts(bill.BillerId, bill.AccountNumber);
      const body = billPaymentBody(bill, (facts?.dueCents ?? 100) / 100, true);
      outcome[i] = { body, verdict: verdictOf(BILL_PAYMENT, await call(lb.url, BILL_PAYMENT, body)) };
      done += 1;
      if (killedAt < 0 && done >= soakCount / 3) {
        killedAt = done;
        replicas[victim]!.child.kill('SIGKILL');
      }
      if (killedAt >= 0 && restart === undefined && done >= (2 * soakCount) / 3) {
        restartedAt = done;
        restart = startMockChild(undefined, { redisUrl: redis.url, port: ports[victim]! }).then((s) => { replicas[victim] = s; });
      }
    });
    await restart;
    const soakSeconds = (performance.now() - t0) / 1000;
    const verdicts = tally(outcome.map((o) => o.verdict));
    console.log(`  ${soakCount} payments in ${soakSeconds.toFixed(1)} s: ${JSON.stringify(verdicts)} (killed after ${killedAt} answers, restarted after ${restartedAt})`);
    const accepted = outcome.map((o, i) => ({ ...o, bill: bills[i]! })).filter((o) => o.verdict === 'accepted');
    const unanswered = outcome.map((o, i) => ({ ...o, bill: bills[i]! })).filter((o) => o.verdict === 'no answer');
    let lost = 0;
    let unknownPaid = 0;
    let replayed: string[] = [];
    await eachLimited(accepted, 10, async (o) => {
      const e = await enquireBill(lb.url, o.bill);
      if (!(e?.BillStatus === 'BillPaid' && cents(e.AmountDue) === 0)) lost += 1;
    });
    await eachLimited(unanswered, 10, async (o) => {
      const e = await enquireBill(lb.url, o.bill);
      if (e?.BillStatus === 'BillPaid') unknownPaid += 1;
    });
    const replays: string[] = new Array(accepted.length);
    await eachLimited(accepted, 10, async (o, i) => { replays[i] = verdictOf(BILL_PAYMENT, await call(lb.url, BILL_PAYMENT, o.body)); });
    replayed = replays;
    const replayTally = tally(replayed);
    console.log(`  every accepted payment enquired: ${accepted.length - lost} of ${accepted.length} bills paid, ${lost} lost`);
    console.log(`  every accepted payment replayed: ${JSON.stringify(replayTally)}`);
    console.log(`  answers lost with the replica (502): ${unanswered.length}, of which ${unknownPaid} had taken effect (a client finds out by enquiring)`);

    console.log('');
    console.log(check(allOnce, `exactly-once across ${replicaCount} replicas (${bursts} x 50 identical payments: one accepted, one debit)`));
    console.log(check(lost === 0 && accepted.length > 0, `no payment answered accepted lost when a replica is killed (${accepted.length} accepted, ${lost} lost)`));
    console.log(check(replayTally.duplicate === accepted.length, `every accepted payment is a duplicate on replay, whatever replica takes it (${replayTally.duplicate ?? 0} of ${accepted.length})`));
  } finally {
    await stopAll();
  }
  if (failed) process.exitCode = 1;
}

/* ------------------------------------------------------------------- processes ------------------------------------------------------------------- */

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Resolves with the server's URL once `ready` finds it, from the child's output so far (checked on
 * output and every 200 ms); rejects (and stops the child) if it exits first or takes over 60 s.
 * The child's output keeps being read (and dropped past 100 kB), so a chatty server never blocks.
 */
function started(child: ChildProcess, what: string, ready: (output: string) => Promise<string | undefined>): Promise<string> {
  let out = '';
  const drain = (chunk: Buffer) => { if (out.length < 100_000) out += chunk.toString(); };
  child.stdout!.on('data', drain);
  child.stderr!.on('data', drain);
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const finish = (f: () => void) => { if (!done) { done = true; clearInterval(poll); clearTimeout(timer); f(); } };
    const timer = setTimeout(() => finish(() => reject(new Error(`${what} did not start within 60 s:\n${out}`))), 60_000);
    const poll = setInterval(() => { void ready(out).then((url) => { if (url) finish(() => resolve(url)); }, () => {}); }, 200);
    child.once('error', (e) => finish(() => reject(e)));
    child.once('exit', (code, signal) => finish(() => reject(new Error(`${what} exited (${code ?? signal}) before it listened:\n${out}`))));
  }).catch(async (e: unknown) => { await stop(child); throw e; });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => { clearTimeout(force); resolve(); });
    child.kill('SIGTERM');
  });
}

async function startMockChild(cpuProfDir: string | undefined, shared: { redisUrl?: string; port?: number } = {}): Promise<Server> {
  const flags = cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir] : [];
  const own = [...(shared.redisUrl ? ['--redis-url', shared.redisUrl] : []), ...(shared.port ? ['--mock-port', String(shared.port)] : [])];
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', SELF, '--serve-mock', ...own], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await started(child, 'the mock', async (out) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]);
  return { name: 'mock', url, child };
}

async function startCeilingChild(): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, '--serve-ceiling'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = await started(child, 'the ceiling server', async (out) => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]);
  return { name: 'ceiling', url, child };
}

async function startPrism(logLevel: string): Promise<Server> {
  const port = await freePort();
  const cli = `${ROOT}/node_modules/@stoplight/prism-cli/dist/index.js`;
  const child = spawn(process.execPath, [cli, 'mock', '-h', '127.0.0.1', '-p', String(port), '-v', logLevel, 'schemas/openapi.json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const url = `http://127.0.0.1:${port}`;
  // Prism says it listens unless silenced: the port answering HTTP is the sign either way.
  await started(child, 'Prism', async () => {
    const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return url;
  });
  return { name: 'prism', url, child };
}

/* ------------------------------------------- entry: the bench, or (--serve-mock) the mock's child process ------------------------------------------- */
// Last in the file: the helpers above are initialized by the time either runs.

if (args['serve-mock']) {
  const redisUrl = args['redis-url'];
  const mock = await startMock({ port: Number(args['mock-port'] ?? 0), rateLimits: RATE_LIMITS, ...(redisUrl ? { redisUrl } : {}) });
  console.log(`listening on ${mock.url}`);
  const stop = () => { mock.close().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (args['serve-ceiling']) {
  const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });
  // the mock's parser: JSON only, prototype keys dropped (server.ts)
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, app.getDefaultJsonParser('remove', 'remove'));
  const answer = { ok: true };
  for (const op of operations) app.post(op.path, async () => answer);
  await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`listening on http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
  const stop = () => { app.close().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (args['serve-balancer'] !== undefined) {
  const lb = await startBalancer(args['serve-balancer'].split(','));
  console.log(`listening on ${lb.url}`);
  // the parent asks for the counts per upstream over IPC
  process.on('message', (m) => { if (m === 'counts') process.send?.({ counts: lb.counts }); });
  const stop = () => { lb.close().then(() => process.exit(0), () => process.exit(1)); };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (args.replicas !== undefined) {
  await replicaBench();
} else {
  await main();
}
