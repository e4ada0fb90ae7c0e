/** Multi-target runs (suite/targets.ts): the plan file's checks and the merged case order. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { CaseSpec } from '../../src/suite/case.js';
import { targetCases, targetsOf, type Target } from '../../src/suite/targets.js';
import { readSettings } from '../../src/config/settings.js';

const targetsFromEnv = (vars: Record<string, string>) => targetsOf(readSettings(vars));

const plan = (targets: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'sadad-targets-')), 'targets.json');
  writeFileSync(file, JSON.stringify(targets));
  return { SADAD_TARGETS: file };
};
const spec = (id: string, family = 'response'): CaseSpec => [{ id, family, op: 'bill-enquiry', sections: ['5'], level: 'MUST', expectation: '' } as CaseSpec[0], async () => {}];

test('a plan file that names a run-wide variable per target, or repeats a name, stops naming SADAD_TARGETS', () => {
  expect(targetsFromEnv({})).toBeNull();
  expect(() => targetsFromEnv(plan([{ name: 'a', env: { SADAD_TAG_PREFIX: 'OSV' }, reportsDir: '/tmp/a' }]))).toThrow(/SADAD_TARGETS.*SADAD_TAG_PREFIX/);
  expect(() => targetsFromEnv(plan([{ name: 'a', env: {}, reportsDir: '/tmp/a' }, { name: 'a', env: {}, reportsDir: '/tmp/b' }]))).toThrow(/SADAD_TARGETS/);
  expect(() => targetsFromEnv(plan([{ name: '[a]', env: {}, reportsDir: '/tmp/a' }]))).toThrow(/SADAD_TARGETS/);
  expect(() => targetsFromEnv({ SADAD_TARGETS: '/nonexistent/targets.json' })).toThrow(/SADAD_TARGETS/);
  expect(targetsFromEnv(plan([{ name: 'a', env: { MOCK_DEFECTS: 'message-wrapper', SADAD_RATE_WINDOW_SECONDS: '1' }, reportsDir: '/tmp/a' }]))?.[0]?.name).toBe('a');
});

test('each target gets its selection (ids, skips, family), and the targets are merged by progress', () => {
  const groups = [() => [[spec('x.1'), spec('x.2', 'echo'), spec('x.3'), spec('x.rate.4')]]];
  const targets: Target[] = [
    { name: 'all', env: {}, reportsDir: '/tmp/a' },
    { name: 'no-rate', env: {}, reportsDir: '/tmp/b', skip: '*.rate.*' },
    { name: 'echo', env: {}, reportsDir: '/tmp/c', family: 'echo' },
  ];
  const merged = targetCases(targets, groups).map(([t, [def]]) => `${t.name}:${def.id}`);
  expect(merged.filter((m) => m.startsWith('all:'))).toEqual(['all:x.1', 'all:x.2', 'all:x.3', 'all:x.rate.4']);
  expect(merged.filter((m) => m.startsWith('no-rate:'))).toEqual(['no-rate:x.1', 'no-rate:x.2', 'no-rate:x.3']);
  expect(merged.filter((m) => m.startsWith('echo:'))).toEqual(['echo:x.2']);
  // a target of one case sits mid-queue, not first or last; the others alternate
  expect(merged).toEqual(['all:x.1', 'no-rate:x.1', 'all:x.2', 'no-rate:x.2', 'echo:x.2', 'all:x.3', 'no-rate:x.3', 'all:x.rate.4']);
});
