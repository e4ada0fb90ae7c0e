/**
 * A copy of the project in a temp folder, for the tests that change the API document: what a run
 * needs (`src/` a real copy, since src/paths.ts finds the project from its own file's location),
 * `node_modules` a link to the project's. A snapshot of every copied file's hash, taken as the copy is
 * made, says afterwards what changed in it: the project's own tree may change meanwhile (others edit
 * it), the snapshot does not.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

/** What a run, an import and the generators need, nothing more (no tests, docs, reports, examples). */
export const COPIED = ['src', 'specs', 'scripts', 'schemas', 'data', 'playwright.config.ts', 'package.json', 'tsconfig.json'] as const;

export interface ProjectCopy {
  dir: string;
  /** Path relative to the copy (forward slashes) -> sha256 of the file as copied. */
  snapshot: Map<string, string>;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file under the copied entries of `root`, relative, sorted. */
function filesOf(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    if (lstatSync(abs).isDirectory()) for (const name of readdirSync(abs)) walk(rel === '' ? name : `${rel}/${name}`);
    else out.push(rel);
  };
  for (const entry of COPIED) walk(entry);
  return out.sort();
}

/** Copies the project into `dir` (which must not exist yet, or be empty) and links its node_modules. */
export function copyProject(dir: string): ProjectCopy {
  mkdirSync(dir, { recursive: true });
  for (const entry of COPIED) cpSync(join(ROOT, entry), join(dir, entry), { recursive: true, dereference: false });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, snapshot: new Map(filesOf(dir).map((f) => [f, sha256(join(dir, f))])) };
}

/** What differs in the copy from its snapshot: files changed, added and removed (relative paths). */
export function changesOf(copy: ProjectCopy): { changed: string[]; added: string[]; removed: string[] } {
  const now = filesOf(copy.dir);
  const changed = now.filter((f) => copy.snapshot.has(f) && copy.snapshot.get(f) !== sha256(join(copy.dir, f)));
  const added = now.filter((f) => !copy.snapshot.has(f));
  const removed = [...copy.snapshot.keys()].filter((f) => !now.includes(f));
  return { changed, added, removed };
}

export interface Ran { code: number | null; output: string; durationMs: number }

/**
 * `npm run <script> -- <args>` in `cwd`, a real child process with only the given environment (plus
 * what Node and npm need, an empty env file so that no developer's .env is read, and CI=1), in its own
 * process group so that a timeout ends all of it.
 */
export function npmRun(cwd: string, script: string, args: string[], env: Record<string, string>, envFile: string, timeoutMs = 300_000): Promise<Ran> {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', script, ...(args.length ? ['--', ...args] : [])], {
    cwd, detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, CI: '1', SADAD_ENV_FILE: envFile, ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => { output += `\n[killed after ${timeoutMs} ms]`; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, timeoutMs);
  return new Promise((resolve) => child.on('close', (code) => { clearTimeout(timer); resolve({ code, output, durationMs: Date.now() - started }); }));
}

/** An empty env file in `dir`, for SADAD_ENV_FILE. */
export function emptyEnvFile(dir: string): string {
  const file = join(dir, 'empty.env');
  writeFileSync(file, '');
  return file;
}
