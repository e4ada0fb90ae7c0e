/**
 * Where `npm test`'s CPU goes: each end-to-end file of the project's own tests run alone (one
 * `playwright test` per file, one worker, no dependencies), its wall time and the CPU-seconds of all
 * its processes (the runner, its worker, every child run, gateway and Redis they started). On two
 * cores `npm test` cannot take less than half its CPU-seconds, so this is the list to cut from.
 *
 *   npm run bench:tests [-- --files suite/outage.test.ts,reporter/kill.test.ts]
 *
 * Each file pays its own runner start here, and a file that reads the shared full run
 * (test/support/shared-run.ts) makes its own, about 20 CPU-s that `npm test` pays once. Linux only:
 * the CPU is read from /proc/self/stat (the children's user and system time, once each is waited for).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/paths.js';
import { E2E, E2E_LONG, SIGNALS } from '../test/playwright.config.js';

const { values } = parseArgs({ options: { files: { type: 'string' } } });
const files = values.files ? values.files.split(',').map((f) => f.trim()).filter(Boolean) : [...E2E, ...SIGNALS];
const projectOf = (f: string) => (SIGNALS.includes(f) ? 'signals' : E2E_LONG.includes(f) ? 'e2e-long' : 'e2e');

/** The CPU-seconds of this process's waited-for children (cutime + cstime, fields 16 and 17 of /proc/self/stat). */
function childrenCpu(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): cutime is field 16, cstime 17; in clock ticks, 100 a second on Linux
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

const rows: { file: string; wall: number; cpu: number; result: string }[] = [];
for (const file of files) {
  const before = childrenCpu();
  const started = Date.now();
  const run = spawnSync(process.execPath, [join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '-c', 'test/playwright.config.ts', `test/${file}`,
    '--project', projectOf(file), '--no-deps', '--workers', '1', '--reporter', 'dot'], { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const row = { file, wall: (Date.now() - started) / 1000, cpu: childrenCpu() - before, result: (run.stdout.match(/\d+ (passed|failed|flaky|skipped)/g) ?? [`exit ${run.status}`]).join(', ') };
  rows.push(row);
  console.log(`${row.cpu.toFixed(1).padStart(7)} CPU-s ${row.wall.toFixed(1).padStart(7)} s  ${file}  (${row.result})`);
}
rows.sort((a, b) => b.cpu - a.cpu);
const total = rows.reduce((n, r) => n + r.cpu, 0);
console.log(`\n${rows.length} files, ${total.toFixed(0)} CPU-s in all; the largest:`);
for (const r of rows.slice(0, 12)) console.log(`${r.cpu.toFixed(1).padStart(7)} CPU-s ${(100 * r.cpu / total).toFixed(0).padStart(3)}%  ${r.file}`);
