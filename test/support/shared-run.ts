/**
 * The shared run: one full run of the suite against the embedded mock as it comes (sample style,
 * HTTP errors, the real limits in LOADED_WINDOW), signed with a company key made for it, the mock
 * writing its gateway log. The tests that only read a full clean package (the suite passes against
 * the mock, the signed package's attestation, the bank's verify-package, the comparison base of the
 * regression test) read this one instead of each making a full run of their own: the first of them
 * to ask makes it, once per `playwright test` (the runner's global setup names the invocation), and
 * the others, in any worker, wait for it. A test that edits the package works on
 * `copyOfSharedRun()`; the `shared-run-check` project (test/shared-run.teardown.ts) runs after every
 * end-to-end test and fails when any file of the shared folder was changed, so sharing cannot make
 * a test unable to fail.
 */
import { createHash } from 'node:crypto';
import { closeSync, cpSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { keygen } from '../../src/cli/keygen.js';
import { ROOT } from '../../src/paths.js';
import { LOADED_WINDOW, runSuiteIn, type SuiteRun } from '../suite/run-suite.js';

/** How long the shared package's signature is valid (SADAD_PACKAGE_VALID_DAYS; the default is 90). */
export const SHARED_VALID_DAYS = 30;
/** The seed of the shared run (the regression test compares runs of this seed and another with it). */
export const SHARED_SEED = '11';
/**
 * The target and settings of the shared run, as a run that compares with it repeats them: the
 * embedded mock in sample style with HTTP errors, the real limits in the loaded window. The package
 * key and the gateway log are the run's own (no part of a run's identity).
 */
export const SHARED_TARGET = { MOCK_STYLE: 'sample', MOCK_ERRORS: 'http', ...LOADED_WINDOW } as const;
/** Set by the global setup (test/global-setup.ts): which `playwright test` this is. */
export const INVOCATION_ENV = 'SADAD_TEST_INVOCATION';

export interface SharedRun extends SuiteRun {
  /** The `playwright test` invocation that made it. */
  invocation: string;
  /** The folder that holds reports/, test-results/, keys/ and the gateway log. */
  dir: string;
  /** The company's key pair that signed the package (keys/company.key, keys/company.pub). */
  privateKey: string;
  publicKey: string;
  /** The embedded mock's gateway log of the run (MOCK_ACCESS_LOG). */
  accessLog: string;
  /** The run's environment, as given to it. */
  env: Record<string, string>;
  /** sha256 of every file under `dir` when the run ended (relative path -> digest). */
  digests: Record<string, string>;
}

const STATE = join(ROOT, 'test-results', 'shared-run');
const RECORD = join(STATE, 'run.json');
const LOCK = join(STATE, 'lock');
/** Longer than a full run takes on a loaded machine. */
const WAIT_MS = 280_000;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** sha256 of every file under `dir`, by path relative to it. */
export function digestsOf(dir: string): Record<string, string> {
  return Object.fromEntries(filesUnder(dir).sort().map((f) => [relative(dir, f), createHash('sha256').update(readFileSync(f)).digest('hex')]));
}

function invocation(): string {
  const id = process.env[INVOCATION_ENV];
  if (!id) throw new Error(`${INVOCATION_ENV} is not set: the shared run belongs to a run of test/playwright.config.ts (its global setup sets it)`);
  return id;
}

/** The record of this invocation's shared run, when it has been made. */
export function recordedSharedRun(): SharedRun | null {
  try {
    const shared = JSON.parse(readFileSync(RECORD, 'utf8')) as SharedRun;
    return shared.invocation === invocation() ? shared : null;
  } catch {
    return null;
  }
}

async function makeSharedRun(): Promise<SharedRun> {
  const dir = mkdtempSync(join(tmpdir(), 'sadad-shared-run-'));
  const made = keygen(['--out', join(dir, 'keys', 'company')]);
  if (made.code !== 0) throw new Error(made.message);
  const accessLog = join(dir, 'gateway.jsonl');
  const env = {
    ...SHARED_TARGET, SADAD_SEED: SHARED_SEED,
    SADAD_PACKAGE_KEY: join(dir, 'keys', 'company.key'), SADAD_PACKAGE_VALID_DAYS: String(SHARED_VALID_DAYS), MOCK_ACCESS_LOG: accessLog,
  };
  const run = await runSuiteIn(env, { dir });
  console.log(`the shared run: exit ${run.code} in ${(run.durationMs / 1000).toFixed(1)} s, ${run.reportsDir}`);
  return { ...run, invocation: invocation(), dir, env, accessLog, privateKey: join(dir, 'keys', 'company.key'), publicKey: join(dir, 'keys', 'company.pub'), digests: digestsOf(dir) };
}

/** Whether process `pid` still runs (one of another user's answers EPERM: it runs too). */
export const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; } };

let cached: Promise<SharedRun> | undefined;

/**
 * The shared run of this `playwright test`: made by the first test that asks (it holds the lock,
 * test-results/shared-run/lock, while the run goes), waited for by the others. Read only: edit a
 * `copyOfSharedRun()`. A test that calls it allows for a full run in its timeout (300 s).
 */
export function sharedRun(): Promise<SharedRun> {
  return (cached ??= (async () => {
    mkdirSync(STATE, { recursive: true });
    const until = Date.now() + WAIT_MS;
    for (;;) {
      const done = recordedSharedRun();
      if (done) return done;
      let fd: number | undefined;
      try { fd = openSync(LOCK, 'wx'); } catch { /* another worker is making it */ }
      if (fd !== undefined) {
        try {
          writeSync(fd, `${process.pid} ${invocation()}`);
          closeSync(fd);
          // made by an earlier worker of this invocation while this one took the lock: the record says so
          const again = recordedSharedRun();
          if (again) return again;
          const shared = await makeSharedRun();
          writeFileSync(`${RECORD}.tmp`, JSON.stringify(shared, null, 2));
          renameSync(`${RECORD}.tmp`, RECORD);
          return shared;
        } finally {
          rmSync(LOCK, { force: true });
        }
      }
      // a lock left by a process that is gone, or by an earlier invocation: taken over
      let holder = '';
      try { holder = readFileSync(LOCK, 'utf8'); } catch { continue; }
      const [pid, of] = holder.split(' ');
      if (holder && (of !== invocation() || !alive(Number(pid)))) { rmSync(LOCK, { force: true }); continue; }
      if (Date.now() > until) throw new Error(`the shared run was not made within ${WAIT_MS / 1000} s (the lock is held by ${holder})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  })());
}

/**
 * A copy of the shared run's reports folder (`<temp>/reports`), for a test that edits the package;
 * its files are new (written now) unless `preserveTimestamps`.
 */
export function copyOfSharedRun(run: SharedRun, options: { preserveTimestamps?: boolean } = {}): string {
  const to = join(mkdtempSync(join(tmpdir(), 'sadad-shared-copy-')), 'reports');
  cpSync(run.reportsDir, to, { recursive: true, preserveTimestamps: options.preserveTimestamps ?? false });
  return to;
}
