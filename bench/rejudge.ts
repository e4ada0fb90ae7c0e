/**
 * How long re-judging a package from its evidence takes (src/replay), against how long the run
 * that recorded it took.
 *
 *   npm run bench:rejudge -- --runs 5 [--package <dir>]
 *
 * Without --package, one full run of the suite against the embedded mock (its default window)
 * records a package first. Then `rejudgePackage` re-judges it `--runs` times in this process (the
 * first also compiles the suite's schemas: reported apart), and `npm run certify -- --rejudge`
 * (the whole command: a Node start, the re-judge, the package written) runs `--runs` times.
 * Medians; the machines are shared and noisy.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/paths.js';
import { runSuite } from '../src/prove/run-suite.js';
import { rejudgePackage } from '../src/replay/index.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' }, package: { type: 'string' } } });
const runs = Math.max(1, Number(values.runs) || 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let dir = values.package;
let runMs: number | null = null;
if (!dir) {
  const run = await runSuite({ SADAD_SEED: '7' });
  dir = run.reportsDir;
  runMs = run.durationMs;
}
const cases = (JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as { cases: unknown[] }).cases.length;

const inProcess: number[] = [];
let differing = 0;
for (let i = 0; i <= runs; i++) {
  const t = performance.now();
  const r = await rejudgePackage(dir);
  if (i > 0) inProcess.push(performance.now() - t);
  else console.log(`first re-judge (schemas compiled, modules warm): ${Math.round(performance.now() - t)} ms`);
  differing = r.differing.length;
}
const command: number[] = [];
for (let i = 0; i < runs; i++) {
  const out = join(mkdtempSync(join(tmpdir(), 'sadad-rejudge-bench-')), 'reports');
  const t = performance.now();
  // exit 1 (a package that does not certify) is an answer, not a failure of the bench
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/certify.ts'), '--rejudge', dir, '--out', out], { cwd: ROOT, stdio: 'ignore', env: { ...process.env, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') } });
  if (r.status !== 0 && r.status !== 1) throw new Error(`certify --rejudge exited ${r.status}`);
  command.push(performance.now() - t);
}
console.log(`package: ${dir} (${cases} cases)${runMs !== null ? `, recorded by a run of ${(runMs / 1000).toFixed(1)} s` : ''}`);
console.log(`re-judge in process: median ${Math.round(median(inProcess))} ms over ${runs} (${(median(inProcess) / cases).toFixed(2)} ms per case); verdicts differing: ${differing}`);
console.log(`npm run certify -- --rejudge (whole command): median ${(median(command) / 1000).toFixed(2)} s over ${runs}${runMs !== null ? `; run / re-judge = ${(runMs / median(command)).toFixed(1)}` : ''}`);
