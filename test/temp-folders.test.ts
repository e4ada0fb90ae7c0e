/**
 * The tests' temporary files (test/global-setup.ts): every invocation writes under a folder of its
 * own, which later invocations remove once its runner has ended, and never while it runs.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { removeEndedInvocations, TESTS_TMP } from './global-setup.js';

test('this invocation writes under its own folder; the compilers\' caches stay where they were', () => {
  expect(tmpdir()).toMatch(new RegExp(`/${TESTS_TMP}/${process.ppid}-[0-9a-f]{8}$`));
  expect(process.env.PLAYWRIGHT_TRANSFORM_CACHE_DIR).not.toContain(TESTS_TMP);
  // tsx's, read from the temporary folder by the children that inherit it
  expect(realpathSync(join(tmpdir(), `tsx-${process.geteuid!()}`))).not.toContain(TESTS_TMP);
});

test('an ended invocation\'s folder is removed, a running one\'s kept, whatever else is there', () => {
  const root = mkdtempSync(join(tmpdir(), 'invocations-'));
  // a process that has ended: its pid is free (a reused pid would only keep the folder one more time)
  const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  for (const name of [`${ended}-0a1b2c3d`, `${process.pid}-0a1b2c3d`]) {
    mkdirSync(join(root, name, 'sadad-suite-x', 'reports'), { recursive: true });
    writeFileSync(join(root, name, 'sadad-suite-x', 'reports', 'certification.json'), '{}');
  }
  mkdirSync(join(root, 'not-an-invocation'));
  expect(removeEndedInvocations(root).sort()).toEqual([`${ended}-0a1b2c3d`, 'not-an-invocation'].sort());
  expect(existsSync(join(root, `${process.pid}-0a1b2c3d`, 'sadad-suite-x', 'reports', 'certification.json'))).toBe(true);
  expect(existsSync(join(root, `${ended}-0a1b2c3d`))).toBe(false);
});
