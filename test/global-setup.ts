/**
 * The global setup of the project's own tests: names this `playwright test` (its workers inherit
 * the variable), so that the shared run (test/support/shared-run.ts) is made once per invocation,
 * and gives it a temporary folder of its own.
 *
 * The tests write their runs, copies and gateway files under `os.tmpdir()` (about 500 MB per
 * `npm test`), and a failing test's folder is what its message points at, so nothing removes them
 * as a test ends. Instead each invocation gets `<tmp>/sadad-tests/<pid>-<hex>` as its TMPDIR, which
 * its workers inherit, and removes the folders of the invocations before it whose runner has ended:
 * the last run's files stay for a look, and a machine that runs `npm test` all day keeps one run's
 * worth (before, 55 GB had piled up on this one). Child runs that the tests start with a clean
 * environment keep the system's temporary folder. The compilers' caches stay where they were
 * (Playwright's and tsx's), or each invocation would compile afresh.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { alive, INVOCATION_ENV } from './support/shared-run.js';

/** Where the invocations' temporary folders live, each named `<runner pid>-<hex>`. */
export const TESTS_TMP = 'sadad-tests';

/** Removes the folders under `root` of the invocations whose runner has ended; returns their names. */
export function removeEndedInvocations(root: string): string[] {
  mkdirSync(root, { recursive: true });
  return readdirSync(root).filter((name) => {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    // another invocation still running (npm run test:unit beside npm test) keeps its folder
    if (pid > 0 && alive(pid)) return false;
    rmSync(join(root, name), { recursive: true, force: true });
    return true;
  });
}

export default function globalSetup(): void {
  process.env[INVOCATION_ENV] = `${new Date().toISOString()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const system = tmpdir();
  const root = join(system, TESTS_TMP);
  removeEndedInvocations(root);
  const own = join(root, `${process.pid}-${randomBytes(4).toString('hex')}`);
  mkdirSync(own);
  const uid = process.geteuid?.() ?? userInfo().username;
  // computed by Playwright from the temporary folder, as it does (playwright/lib/common/index.js)
  process.env.PLAYWRIGHT_TRANSFORM_CACHE_DIR ??= join(system, `playwright-transform-cache-${uid}`);
  // tsx keeps its transforms in <tmp>/tsx-<uid> and reads no variable for it: the child processes
  // started with the workers' environment (the mock's CLI, the soak's mock) would compile afresh in
  // every invocation (the soak took 3.5 s longer); a link to the system's keeps them warm
  const tsxCache = join(system, `tsx-${uid}`);
  mkdirSync(tsxCache, { recursive: true });
  symlinkSync(tsxCache, join(own, `tsx-${uid}`));
  process.env.TMPDIR = own;
}
