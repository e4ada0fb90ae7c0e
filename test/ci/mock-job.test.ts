/**
 * The mock job of each CI template, run as its CI would run it (after `npm ci`, which this checkout
 * has done already): each distinct command line of the job, through bash, from the repository's
 * root, with nothing configured but where the package goes. It must certify (exit 0) and leave what
 * the job's upload and JUnit steps read.
 */
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../src/paths.js';

test.describe.configure({ timeout: 180_000 });

type Step = { run?: string; uses?: string; with?: Record<string, string> };
const github = parse(readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8'), { merge: true }) as { jobs: { mock: { steps: Step[] } } };
const gitlab = parse(readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8'), { merge: true }) as { mock: { script: string[]; artifacts: { paths: string[]; reports: { junit: string } } } };

const commands = [
  ...github.jobs.mock.steps.flatMap((s) => (s.run ? [s.run.trim()] : [])),
  ...gitlab.mock.script.map((l) => l.trim()),
].filter((c) => !/^npm ci\b/.test(c));
const uploads = [
  ...github.jobs.mock.steps.flatMap((s) => [s.with?.path, s.with?.report_paths].filter((p): p is string => !!p)),
  ...gitlab.mock.artifacts.paths, gitlab.mock.artifacts.reports.junit,
];

test('the mock job of both templates certifies and leaves what their upload and JUnit steps read', () => {
  const distinct = [...new Set(commands)];
  expect(distinct, 'both templates run the suite against the embedded mock').toEqual(['npm run certify']);
  for (const command of distinct) {
    const dir = mkdtempSync(join(tmpdir(), 'sadad-mock-job-'));
    // what the runner gives a job that sets nothing: no SADAD_* setting of this machine's tests
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SADAD|MOCK|PROVE)_/.test(k)));
    const r = spawnSync('bash', ['-eo', 'pipefail', '-c', command], { cwd: ROOT, encoding: 'utf8', env: { ...env, SADAD_REPORTS_DIR: join(dir, 'reports'), SADAD_RESULTS_DIR: join(dir, 'test-results') }, timeout: 170_000 });
    expect(r.status, `${command}\n${(r.stdout + r.stderr).slice(-2000)}`).toBe(0);
    expect(r.stdout).toMatch(/Certification: Certifies/);
    for (const p of uploads) expect(existsSync(join(dir, p)), `${p}, read by the job's upload or JUnit step`).toBe(true);
  }
});
