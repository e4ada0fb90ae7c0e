/**
 * certify-client's arguments: where our options end and the client command starts, and a bad
 * value stops with a ConfigError naming its flag. And one run without a command: it serves for
 * --duration, writes the client's settings (mode 0600) and a package that does not certify
 * (nothing was reached), exit 1.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { parseCertifyClientArgs, splitArgs } from '../../src/cli/certify-client.js';
import { ConfigError } from '../../src/contract/prefix.js';
import type { ClientCertificationReport } from '../../src/judge/model.js';
import { ROOT } from '../../src/paths.js';

test.describe('splitArgs', () => {
  test('the command starts after `--`', () => {
    expect(splitArgs(['--window', '5', '--', 'node', 'client.js', '--window', '3'])).toEqual({ own: ['--window', '5'], command: ['node', 'client.js', '--window', '3'] });
    expect(splitArgs(['--', '--window'])).toEqual({ own: [], command: ['--window'] });
    expect(splitArgs(['--port', '0', '--'])).toEqual({ own: ['--port', '0'], command: [] });
  });

  test('without `--`, the command starts at the first word that is no option', () => {
    expect(splitArgs(['--port', '0', 'npm', 'run', 'client', '--', '--verbose'])).toEqual({ own: ['--port', '0'], command: ['npm', 'run', 'client', '--', '--verbose'] });
    expect(splitArgs(['node', 'client.js'])).toEqual({ own: [], command: ['node', 'client.js'] });
    // a boolean option takes no value: the next word is the command
    expect(splitArgs(['-h', 'node'])).toEqual({ own: ['-h'], command: ['node'] });
    expect(splitArgs(['--help', 'node'])).toEqual({ own: ['--help'], command: ['node'] });
    expect(splitArgs([])).toEqual({ own: [], command: [] });
  });

  test('an option\'s value is consumed, not taken for the command; `--opt=value` consumes nothing more', () => {
    expect(splitArgs(['--window', '5', '--operations', 'bill-enquiry', 'npm', 'test'])).toEqual({ own: ['--window', '5', '--operations', 'bill-enquiry'], command: ['npm', 'test'] });
    expect(splitArgs(['--client-env', 'my.env', './run.sh'])).toEqual({ own: ['--client-env', 'my.env'], command: ['./run.sh'] });
    expect(splitArgs(['--window=5', 'npm', 'test'])).toEqual({ own: ['--window=5'], command: ['npm', 'test'] });
    expect(splitArgs(['--upstream', 'http://sandbox:8080', '--late-answer-ms', '100', 'python', 'c.py'])).toEqual({ own: ['--upstream', 'http://sandbox:8080', '--late-answer-ms', '100'], command: ['python', 'c.py'] });
    // the value of the last option, even when nothing follows
    expect(splitArgs(['--duration'])).toEqual({ own: ['--duration'], command: [] });
  });
});

test.describe('parseCertifyClientArgs', () => {
  /** The ConfigError a parse throws (fails when it throws none, or another error). */
  function configError(args: string[]): ConfigError {
    try {
      parseCertifyClientArgs(args);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return e as ConfigError;
    }
    throw new Error(`no ConfigError for ${JSON.stringify(args)}`);
  }

  test('a bad value is a ConfigError naming its flag', () => {
    for (const [flag, args] of [
      ['--window', ['--window', 'soon']],
      ['--window', ['--window', '0']],
      ['--window', ['--window=-5']],
      ['--port', ['--port', '70000']],
      ['--duration', ['--duration', 'long']],
      ['--late-answer-ms', ['--late-answer-ms', '1.5']],
      ['--operations', ['--operations', 'bill-enquiry,bill-refund']],
      ['--operations', ['--operations', ' , ']],
      ['--upstream', ['--upstream', 'ftp://sandbox']],
      ['--upstream', ['--upstream', 'not a url']],
      ['--duration', ['--duration', '5', '--', 'node', 'client.js']],
      ['--duration', ['--duration', '5', 'node', 'client.js']],
    ] as const) {
      const e = configError([...args]);
      expect(e.message, JSON.stringify(args)).toContain(flag);
    }
    // an unknown option is named too
    expect(configError(['--windows', '5']).message).toContain('--windows');
  });

  test('good values parse', () => {
    expect(parseCertifyClientArgs(['--upstream', 'https://sandbox.example:8443/base/', '--window', '2.5', '--port', '0', '--duration', '1',
      '--operations', 'bill-enquiry, moi-payment', '--late-answer-ms', '0', '--client-env', 'tmp/c.env'])).toEqual({
      upstream: 'https://sandbox.example:8443/base', window: 2.5, port: 0, durationSeconds: 1, operations: ['bill-enquiry', 'moi-payment'],
      lateAnswerMs: 0, envFile: resolve('tmp/c.env'), command: [], help: false,
    });
    expect(parseCertifyClientArgs(['--window=3', '--', 'node', 'client.js', '--duration', 'x'])).toEqual({ window: 3, envFile: resolve('.env.client'), command: ['node', 'client.js', '--duration', 'x'], help: false });
    expect(parseCertifyClientArgs([])).toEqual({ envFile: resolve('.env.client'), command: [], help: false });
    expect(parseCertifyClientArgs(['-h']).help).toBe(true);
    expect(parseCertifyClientArgs(['--upstream', 'http://127.0.0.1:4011']).upstream).toBe('http://127.0.0.1:4011');
  });
});

test('served for --duration without a command: exit 1 (nothing reached), a package with no command, the client env file 0600', () => {
  test.setTimeout(60_000);
  const dir = mkdtempSync(join(tmpdir(), 'certify-client-args-'));
  const envFile = join(dir, 'c.env');
  // the run's own settings only: none of the caller's MOCK_* / SADAD_* leak in
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(MOCK|SADAD)_/.test(k)));
  const r = spawnSync(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'src/cli/certify-client.ts', '--port', '0', '--duration', '1', '--window', '2', '--client-env', envFile], {
    cwd: ROOT, encoding: 'utf8', timeout: 50_000,
    env: { ...env, SADAD_REPORTS_DIR: dir, SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') },
  });
  const output = `${r.stdout}\n${r.stderr}`;
  expect(r.status, output.slice(-2000)).toBe(1);
  expect(r.stdout).toContain('serving for 1 s');

  const packageFile = join(dir, 'client-certification.json');
  expect(existsSync(packageFile), output.slice(-2000)).toBe(true);
  const report = JSON.parse(readFileSync(packageFile, 'utf8')) as ClientCertificationReport;
  expect(report.client.command).toBeNull();
  expect(report.client.ended).toMatch(/duration/);
  expect(report.outcome.certifies).toBe(false);
  expect(report.traffic.calls).toBe(0);
  expect(report.fingerprint.limits).toEqual({ windowSeconds: 2, bill: 10, moi: 3 });

  const text = readFileSync(envFile, 'utf8');
  expect(text).toMatch(/^SADAD_BASE_URL=http:\/\/[^\s:]+:\d+$/m);
  expect(text).toMatch(/^SADAD_RATE_WINDOW_SECONDS=2$/m);
  expect(text).toMatch(/^SADAD_RATE_LIMIT_BILL=10$/m);
  expect(text).toMatch(/^SADAD_RATE_LIMIT_MOI=3$/m);
  // the port it served on, not the 0 asked for
  expect(text).not.toMatch(/^SADAD_BASE_URL=.*:0$/m);
  expect(statSync(envFile).mode & 0o777).toBe(0o600);
});
