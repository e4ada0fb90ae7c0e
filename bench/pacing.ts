/**
 * How close a full run comes to the bound the rate limits set (design.md §6): runs the suite
 * against the embedded mock at the real limits, and prints the wall time, the pacing bound
 * max over operations of ceil(calls / limit) x window, their ratio, and the medians over the runs.
 *
 *   npm run bench:pacing -- --window 2 --runs 3
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runSuite } from '../src/prove/run-suite.js';

const { values } = parseArgs({ options: { window: { type: 'string', default: '2' }, runs: { type: 'string', default: '3' } } });
const windowSeconds = Number(values.window);
const runs = Number(values.runs);
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2; };

const walls: number[] = [];
const ratios: number[] = [];
for (let i = 1; i <= runs; i++) {
  const run = await runSuite({ MOCK_RATE_WINDOW_SECONDS: String(windowSeconds), SADAD_SEED: String(1000 + i) }, { reporter: 'dot' });
  const pacing = JSON.parse(readFileSync(join(run.reportsDir, 'pacing.json'), 'utf8')) as { limits: Record<string, number>; operations: Record<string, { calls: number; maxInWindow: number }> };
  const perOp = Object.entries(pacing.operations).map(([op, s]) => ({ op, calls: s.calls, bound: Math.ceil(s.calls / pacing.limits[op]!) * windowSeconds }));
  const bound = Math.max(...perOp.map((p) => p.bound));
  const wall = run.durationMs / 1000;
  walls.push(wall);
  ratios.push(wall / bound);
  console.log(`run ${i}: exit ${run.code}, wall ${wall.toFixed(1)} s, bound ${bound} s (${perOp.map((p) => `${p.op} ${p.calls} calls`).join(', ')}), ratio ${(wall / bound).toFixed(2)}`);
}
console.log(`window ${windowSeconds} s, ${runs} runs: median wall ${median(walls).toFixed(1)} s, median wall/bound ${median(ratios).toFixed(2)}`);
