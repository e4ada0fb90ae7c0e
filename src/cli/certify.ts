/**
 * `npm run certify [-- <playwright test arguments>]`: runs the conformance suite (`playwright test`
 * with the project's config), passing every argument through and exiting with its exit code.
 *
 * Dry run: `npm run certify -- --list` or `SADAD_DRY_RUN=1 npm run certify` lists the planned
 * cases, the calls per operation and the estimated wall time, and sends nothing (with --list
 * Playwright loads the specs but runs neither the global setup nor any case). Only the
 * certification reporter runs then, so the reports of the last real run stay as they are.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../paths.js';

const truthy = (v: string | undefined) => !!v && !/^(0|false|no|off)$/i.test(v.trim());

export const REPORTER = join(ROOT, 'src/reporter/certification.ts');

/** The `playwright test` arguments and environment for the given certify arguments. */
export function playwrightArgs(args: string[], env: NodeJS.ProcessEnv): { args: string[]; env: NodeJS.ProcessEnv; dryRun: boolean } {
  const dryRun = args.includes('--list') || truthy(env.SADAD_DRY_RUN);
  const out = ['test'];
  if (!args.some((a) => a === '-c' || a === '--config' || a.startsWith('--config='))) out.push('-c', join(ROOT, 'playwright.config.ts'));
  out.push(...args);
  if (!dryRun) return { args: out, env, dryRun };
  if (!args.includes('--list')) out.push('--list');
  if (!args.some((a) => a === '--reporter' || a.startsWith('--reporter='))) out.push(`--reporter=${REPORTER}`);
  return { args: out, env: { ...env, SADAD_DRY_RUN: '1' }, dryRun };
}

function main(): void {
  const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
  const { args, env } = playwrightArgs(process.argv.slice(2), process.env);
  const child = spawn(process.execPath, [cli, ...args], { stdio: 'inherit', env });
  // Ctrl-C reaches Playwright through the terminal (a second SIGINT would make it skip its teardown),
  // so this process only waits; SIGTERM sent to this process alone is passed on
  process.on('SIGINT', () => {});
  process.on('SIGTERM', () => { if (child.exitCode === null) child.kill('SIGTERM'); });
  child.on('error', (e) => { console.error(`certify: cannot start Playwright: ${e.message}`); process.exit(1); });
  child.on('exit', (code, signal) => {
    process.exit(code ?? (signal ? 128 + (constants.signals[signal] ?? 1) : 1));
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
