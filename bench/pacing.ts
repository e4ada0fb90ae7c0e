/**
 * How fast a full run is, and whether its pacing holds (design.md §6, issue 12): runs the whole suite
 * against the embedded mock at the real limits (10 and 3 per window) for each window asked, clean and
 * against a failing stand-in, optionally with CPU-bound processes running beside it, and prints per
 * run the wall time, the pacing bound (max over operations of ceil(calls / limit) x window), their
 * ratio, the unplanned 429s (any 429 outside the rate-limit cases' own bursts: the pacer's margin
 * failed) and whether the rate-limit cases still proved limit, limit+1 and recovery; then medians,
 * and the failing / clean ratio of median wall times measured in the same session.
 *
 *   npm run bench:pacing                                  # the embedded mock's default window, 3 runs
 *   npm run bench:pacing -- --window 0.05,0.1,0.2 --runs 3 --load 0,2
 *   npm run bench:pacing -- --failing enquiry-success-failing   # the failing stand-in (default)
 *
 * Runs alternate clean / failing so that both meet the same machine.
 *
 * Gateway mode (design.md §6, docs/network.md "Behind a gateway"): the whole suite behind real gateway
 * software or a limiter kind, at the real limits (10 and 3 per window), with the gateway as the only
 * limiter; per setup and run the wall time, the pacing bound (max over operations of calls / limit x
 * window), their ratio, the same for the calls alone (first call to last answer: the wall less the
 * runner's start and the package), the verdicts, the calls the gateway refused outside the bursts
 * and the time that cost; then medians.
 *
 *   npm run bench:pacing -- --gateway nginx-burst,nginx-503,haproxy,calendar --runs 3
 *   npm run bench:pacing -- --gateway all --window 1.5 --runs 3
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EMBEDDED_MOCK_WINDOW_SECONDS } from '../src/config/index.js';
import { caseResults, runSuite } from '../src/prove/run-suite.js';
import { GATEWAY_SETUPS, figures, runBehind, type GatewayRun, type GatewaySetupName } from '../test/support/gateway-run.js';

const { values } = parseArgs({
  options: {
    gateway: { type: 'string' },
    window: { type: 'string' },
    runs: { type: 'string', default: '3' },
    load: { type: 'string', default: '0' },
    failing: { type: 'string', default: 'enquiry-success-failing' },
    'no-failing': { type: 'boolean', default: false },
  },
});
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };
if (values.gateway) {
  await gatewayMode(values.gateway === 'all' ? Object.keys(GATEWAY_SETUPS) : values.gateway.split(','), Number(values.window ?? '1.5'), Number(values.runs));
  process.exit(0);
}
const windows = (values.window ?? String(EMBEDDED_MOCK_WINDOW_SECONDS)).split(',').map(Number);
const loads = values.load.split(',').map(Number);
const runs = Number(values.runs);
const failingDefect = values['no-failing'] ? null : values.failing;

/** CPU-bound processes beside the run: a busy machine, as CI often is. */
function burn(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => spawn(process.execPath, ['-e', 'for(;;){Math.sqrt(Math.random())}'], { stdio: 'ignore' }));
}

interface Figures { wall: number; bound: number; unplanned429: number; rateLimit: string; notPassing: number; cases: number; code: number | null }

type Evidence = { id: string; verdict: string; family: string; exchanges?: { label: string; response?: { status: number } }[] };

async function once(windowSeconds: number, defect: string | null, seed: number): Promise<Figures> {
  const run = await runSuite({ SADAD_RATE_WINDOW_SECONDS: String(windowSeconds), SADAD_SEED: String(seed), ...(defect ? { MOCK_DEFECTS: defect } : {}) },
    { reporter: `dot,html,${join(import.meta.dirname, '../src/reporter/certification.ts')}` });
  const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as { limits: Record<string, number>; operations: Record<string, { calls: number }> };
  const bound = Math.max(...Object.entries(pacing.operations).map(([op, s]) => Math.ceil(s.calls / pacing.limits[op]!) * windowSeconds));
  const results = caseResults(run) as Evidence[];
  const unplanned = results.flatMap((r) => (r.exchanges ?? []).filter((ex) => ex.response?.status === 429 && !(r.family === 'rate-limit' && /sent together/.test(ex.label))));
  const rate = results.filter((r) => /\.rate\./.test(r.id));
  return {
    wall: run.durationMs / 1000, bound, unplanned429: unplanned.length, code: run.code, cases: results.length,
    rateLimit: `${rate.filter((r) => r.verdict === 'PASS').length}/${rate.length} PASS`,
    notPassing: results.filter((r) => !['PASS', 'WARN', 'OBSERVED', 'SKIPPED', 'NOT_APPLICABLE'].includes(r.verdict)).length,
  };
}

const show = (f: Figures) => `wall ${f.wall.toFixed(1)} s, bound ${f.bound.toFixed(1)} s (ratio ${(f.wall / f.bound).toFixed(2)}), ${f.unplanned429} unplanned 429, rate-limit cases ${f.rateLimit}, ${f.notPassing}/${f.cases} not passing, exit ${f.code}`;

const summary: string[] = [];
for (const load of loads) {
  for (const w of windows) {
    const clean: Figures[] = [];
    const failing: Figures[] = [];
    const burners = burn(load);
    try {
      for (let i = 1; i <= runs; i++) {
        const c = await once(w, null, 2000 + i);
        clean.push(c);
        console.log(`window ${w} s, load ${load}, run ${i} clean:   ${show(c)}`);
        if (failingDefect) {
          const f = await once(w, failingDefect, 2000 + i);
          failing.push(f);
          console.log(`window ${w} s, load ${load}, run ${i} failing: ${show(f)}`);
        }
      }
    } finally {
      for (const b of burners) b.kill('SIGKILL');
    }
    const mc = median(clean.map((f) => f.wall));
    let line = `window ${w} s, ${load} CPU-bound processes beside it, ${runs} runs: clean median wall ${mc.toFixed(1)} s (wall/bound ${median(clean.map((f) => f.wall / f.bound)).toFixed(2)}), unplanned 429s ${clean.reduce((n, f) => n + f.unplanned429, 0)}`;
    if (failing.length) {
      const mf = median(failing.map((f) => f.wall));
      line += `; failing (${failingDefect}, median ${median(failing.map((f) => f.notPassing))}/${failing[0]!.cases} cases not passing) median wall ${mf.toFixed(1)} s: failing/clean ${(mf / mc).toFixed(2)}`;
    }
    summary.push(line);
  }
}
console.log(`\n${summary.join('\n')}`);

/** The calls alone: from the first call (the preflight's) to the last answer, against the bound. */
function callsSpan(g: GatewayRun): number {
  const times = g.results.flatMap((r) => (r.exchanges ?? []).map((ex) => [Date.parse(ex.startedAt), Date.parse(ex.startedAt) + ex.durationMs] as const));
  if (!times.length) return 0;
  return (Math.max(...times.map((t) => t[1])) - Math.min(...times.map((t) => t[0]))) / 1000;
}

async function gatewayMode(names: string[], windowSeconds: number, runs: number): Promise<void> {
  const unknown = names.filter((n) => !(n in GATEWAY_SETUPS));
  if (unknown.length) throw new Error(`unknown gateway setup ${unknown.join(', ')}: one of ${Object.keys(GATEWAY_SETUPS).join(', ')}, or all`);
  const lines: string[] = [];
  for (const name of names as GatewaySetupName[]) {
    const all: GatewayRun[] = [];
    for (let i = 1; i <= runs; i++) {
      const g = await runBehind(name, { windowSeconds, env: { SADAD_SEED: String(3000 + i) } });
      all.push(g);
      console.log(`${name}, window ${windowSeconds} s, run ${i}: ${figures(g)}; calls alone ${callsSpan(g).toFixed(1)} s (${(callsSpan(g) / g.bound).toFixed(3)})`);
    }
    const blocking = (g: GatewayRun) => ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN'].map((v) => `${g.verdicts[v] ?? 0} ${v}`).join(', ');
    lines.push(`${name} (${GATEWAY_SETUPS[name].title}): median wall/bound ${median(all.map((g) => g.wall / g.bound)).toFixed(3)} (wall ${median(all.map((g) => g.wall)).toFixed(1)} s), calls alone/bound ${median(all.map((g) => callsSpan(g) / g.bound)).toFixed(3)}; ` +
      `${all.map(blocking).join(' | ')}; certifies ${all.filter((g) => g.certification.outcome?.certifies).length}/${all.length}; refused outside bursts ${all.map((g) => g.unplannedRefusals).join(', ')}`);
  }
  console.log(`\n${lines.join('\n')}`);
}
