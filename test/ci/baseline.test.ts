/**
 * The nightly's shell steps of the CI templates, run for real: each script is taken from the parsed
 * template (examples/ci/github-actions.yml, examples/ci/gitlab-ci.yml) and run with bash, as the CI
 * runs it (`bash -eo pipefail`), against a fake API on a loopback port (node:http) that answers as
 * GitHub's artifacts API and GitLab's jobs API do. curl, unzip, python3, git and node are the real
 * ones; `npm` is a stub that logs how it was called. What is checked:
 *  - the baseline (the previous nightly package): the newest usable one is picked (not this run, not
 *    an expired one, not another job's; a failed nightly counts), unpacked where SADAD_COMPARE then
 *    points, and named in the log; with none, the no-baseline message and success; an API error or
 *    an answer that is not a list is loud, and the run then goes on uncompared and fails at its end;
 *  - a resume: the stopped run's package back in reports/, its commit checked out, `--resume` passed;
 *    its baseline is the package before the one resumed.
 */
import { test, expect } from '@playwright/test';
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseDocument } from 'yaml';
import { zipEntries } from '../../src/attest/zip.js';
import { ROOT } from '../../src/paths.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const template = (file: string): Obj => {
  const doc = parseDocument(readFileSync(join(ROOT, file), 'utf8'), { merge: true });
  expect(doc.errors).toEqual([]);
  return doc.toJS() as Obj;
};

/** A step of the GitHub nightly, by name, with the names its env declares. */
function githubStep(name: string): { run: string; env: string[] } {
  const wf = template('examples/ci/github-actions.yml');
  const jobs = wf.jobs as Obj;
  const steps = (jobs.nightly as Obj).steps as Obj[];
  const step = steps.find((s) => s.name === name);
  if (!step || typeof step.run !== 'string') throw new Error(`no step "${name}" with a run script in the nightly`);
  return { run: step.run, env: isObj(step.env) ? Object.keys(step.env) : [] };
}

/** The GitLab nightly's before_script and script lines. */
function gitlabNightly(): { before: string[]; script: string[] } {
  const ci = template('examples/ci/gitlab-ci.yml');
  const job = ci.nightly as Obj;
  return { before: job.before_script as string[], script: job.script as string[] };
}

interface Recorded { method: string; url: string; headers: IncomingMessage['headers'] }
type Handler = (req: IncomingMessage, res: ServerResponse, base: { api: string; other: string }) => void;

/** A fake API on 127.0.0.1; `other` is the same server by another host name (for redirects to storage). */
async function fakeApi(handler: Handler): Promise<{ api: string; other: string; requests: Recorded[]; close: () => Promise<void> }> {
  const requests: Recorded[] = [];
  let base = { api: '', other: '' };
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    try { handler(req, res, base); } catch (e) { res.writeHead(500); res.end(String(e)); }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = { api: `http://127.0.0.1:${port}`, other: `http://localhost:${port}` };
  return { ...base, requests, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const json = (res: ServerResponse, status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
const zip = (res: ServerResponse, data: Uint8Array) => { res.writeHead(200, { 'content-type': 'application/zip' }); res.end(Buffer.from(data)); };
const packageZip = (prefix: string, marker: string, commit = 'c'.repeat(40)) => zipEntries([
  { name: `${prefix}certification.json`, data: Buffer.from(JSON.stringify({ marker, identity: { suiteCommit: commit } })) },
  { name: `${prefix}run.json`, data: Buffer.from(JSON.stringify({ runId: marker, identity: { suiteCommit: commit } })) },
  { name: `${prefix}evidence/bill-enquiry.ok.json`, data: Buffer.from('{}') },
]);

/** The temporary folders a test made, removed after it. */
const made: string[] = [];
test.afterEach(() => { for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true }); });

/** A workspace, and a bin folder holding an `npm` that logs its arguments and SADAD_COMPARE. */
function workspace(): { dir: string; bin: string; npmLog: string } {
  const root = mkdtempSync(join(tmpdir(), 'ci-baseline-'));
  made.push(root);
  const dir = join(root, 'work');
  const bin = join(root, 'bin');
  mkdirSync(dir);
  mkdirSync(bin);
  const npmLog = join(root, 'npm.log');
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\necho "npm $* | SADAD_COMPARE=\${SADAD_COMPARE:-}" >> "${npmLog}"\n`);
  chmodSync(join(bin, 'npm'), 0o755);
  return { dir, bin, npmLog };
}

/** Runs a script with bash as the CIs do (`-eo pipefail`), with only the environment given (and PATH, HOME). */
function bash(script: string, env: Record<string, string>, cwd: string, bin: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env: { PATH: `${bin}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`, HOME: process.env.HOME ?? '/tmp', TMPDIR: tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the script did not end in 30 s:\n${out}`)); }, 30_000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code: code ?? -1, out }); });
  });
}

const read = (p: string) => readFileSync(p, 'utf8');
const marker = (file: string) => (JSON.parse(read(file)) as { marker: string }).marker;

/** A git checkout at the newest of two commits, cloned shallow from a local origin; returns the older commit. */
function gitCheckout(dir: string): { older: string; newer: string } {
  const origin = `${dir}-origin`;
  const src = `${dir}-src`;
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.email=ci@example.invalid', '-c', 'user.name=ci', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  mkdirSync(src);
  git(src, 'init', '-q');
  writeFileSync(join(src, 'file.txt'), 'older\n');
  git(src, 'add', 'file.txt');
  git(src, 'commit', '-q', '-m', 'older');
  const older = git(src, 'rev-parse', 'HEAD');
  writeFileSync(join(src, 'file.txt'), 'newer\n');
  git(src, 'commit', '-q', '-am', 'newer');
  const newer = git(src, 'rev-parse', 'HEAD');
  git(dirname(dir), 'init', '-q', '--bare', origin);
  git(src, 'push', '-q', origin, 'HEAD:refs/heads/main');
  rmSync(dir, { recursive: true, force: true });
  git(dirname(dir), 'clone', '-q', '--depth', '1', '--branch', 'main', `file://${origin}`, dir);
  return { older, newer };
}

// ---------------------------------------------------------------------------------------------- GitHub

const REPO = 'acme/payments';
const RUN = '9000';
const TOKEN = 'ghs_faketoken';

interface Artifact { id: number; run: number; created: string; expired?: boolean; name?: string }
const artifactJson = (a: Artifact, api: string) => ({
  id: a.id, node_id: `MDg6QXJ0aWZhY3Q${a.id}`, name: a.name ?? 'certification-nightly', size_in_bytes: 1234,
  url: `${api}/repos/${REPO}/actions/artifacts/${a.id}`, archive_download_url: `${api}/repos/${REPO}/actions/artifacts/${a.id}/zip`,
  expired: a.expired ?? false, created_at: a.created, updated_at: a.created, expires_at: '2099-01-01T00:00:00Z',
  workflow_run: { id: a.run, repository_id: 1, head_repository_id: 1, head_branch: 'main', head_sha: `${a.run}`.padEnd(40, 'a') },
});

/** GitHub's artifacts API for one repository: the list (100 a page, newest first), a run's list, the zip (redirected to storage). */
function githubApi(artifacts: Artifact[], zips: Record<number, Uint8Array>, fail?: { status: number; body: string; type?: string }): Handler {
  return (req, res, base) => {
    const url = new URL(req.url ?? '/', base.api);
    if (url.pathname.startsWith('/storage/')) {
      // the storage answers without the API's token (curl drops it when the host changes)
      return zip(res, zips[Number(url.pathname.split('/')[2])]!);
    }
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, 401, { message: 'Bad credentials' });
    if (fail) { res.writeHead(fail.status, { 'content-type': fail.type ?? 'application/json' }); return res.end(fail.body); }
    const prefix = `/repos/${REPO}/actions`;
    const m = new RegExp(`^${prefix}/artifacts/(\\d+)/zip$`).exec(url.pathname);
    if (m) {
      if (!zips[Number(m[1])]) return json(res, 404, { message: 'Not Found' });
      res.writeHead(302, { location: `${base.other}/storage/${m[1]}?sig=abc` });
      return res.end();
    }
    const byName = (list: Artifact[]) => list.filter((a) => !url.searchParams.get('name') || (a.name ?? 'certification-nightly') === url.searchParams.get('name'));
    const run = new RegExp(`^${prefix}/runs/(\\d+)/artifacts$`).exec(url.pathname);
    if (run) {
      const list = byName(artifacts.filter((a) => a.run === Number(run[1])));
      return json(res, 200, { total_count: list.length, artifacts: list.map((a) => artifactJson(a, base.api)) });
    }
    if (url.pathname === `${prefix}/artifacts`) {
      const perPage = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const list = byName(artifacts).sort((a, b) => b.id - a.id);
      return json(res, 200, { total_count: list.length, artifacts: list.slice((page - 1) * perPage, page * perPage).map((a) => artifactJson(a, base.api)) });
    }
    json(res, 404, { message: 'Not Found' });
  };
}

const githubEnv = (api: string, extra: Record<string, string> = {}) => ({
  GITHUB_API_URL: api, GITHUB_SERVER_URL: 'https://github.example', GITHUB_REPOSITORY: REPO, GITHUB_RUN_ID: RUN,
  GITHUB_TOKEN: TOKEN, RESUME_RUN_ID: '', ...extra,
});

/** A newest artifact of this very run (a re-run's first attempt), an expired one, then two usable ones. */
const NIGHTS: Artifact[] = [
  { id: 905, run: 9000, created: '2026-08-20T02:40:00Z' },
  { id: 904, run: 8999, created: '2026-08-19T02:40:00Z', expired: true },
  { id: 903, run: 8998, created: '2026-08-18T02:41:00Z' },
  { id: 902, run: 8997, created: '2026-08-17T02:39:00Z' },
  { id: 901, run: 8996, created: '2026-08-16T02:39:00Z', name: 'certification-mock-node24' },
];
const NIGHT_ZIPS = { 905: packageZip('', 'run 9000'), 903: packageZip('', 'run 8998'), 902: packageZip('', 'run 8997') };

test.describe('the GitHub nightly', () => {
  test('declares the env its scripts read', () => {
    expect(githubStep('previous nightly package').env).toEqual(['GITHUB_TOKEN', 'RESUME_RUN_ID']);
    expect(githubStep('the package to resume').env).toEqual(['GITHUB_TOKEN', 'RESUME_RUN_ID']);
    expect(githubStep('certify (compared with the previous nightly)').env).toContain('RESUME_RUN_ID');
  });

  test('compares with the newest completed nightly of another run, not an expired one', async () => {
    const api = await fakeApi(githubApi(NIGHTS, NIGHT_ZIPS));
    const ws = workspace();
    try {
      const summary = join(dirname(ws.dir), 'summary.md');
      const { code, out } = await bash(githubStep('previous nightly package').run, githubEnv(api.api, { GITHUB_STEP_SUMMARY: summary }), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws.dir, 'previous/certification.json'))).toBe('run 8998');
      expect(existsSync(join(ws.dir, 'previous/evidence/bill-enquiry.ok.json'))).toBe(true);
      expect(out).toContain(`compared with the nightly package of run 8998, made 2026-08-18T02:41:00Z on main at 8998aaaaaaaa (https://github.example/${REPO}/actions/runs/8998)`);
      expect(read(summary)).toContain('compared with the nightly package of run 8998');
      // the list by name, then one zip, through the storage redirect without the token
      const paths = api.requests.map((r) => r.url);
      expect(paths[0]).toBe(`/repos/${REPO}/actions/artifacts?name=certification-nightly&per_page=100&page=1`);
      expect(paths.filter((p) => p.includes('/zip') || p.startsWith('/storage/'))).toEqual([`/repos/${REPO}/actions/artifacts/903/zip`, '/storage/903?sig=abc']);
      expect(api.requests.find((r) => r.url.startsWith('/storage/'))!.headers.authorization).toBeUndefined();
      expect(api.requests.filter((r) => !r.url.startsWith('/storage/')).every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);

      // the certify step then compares with it (npm is a stub here)
      const certify = await bash(githubStep('certify (compared with the previous nightly)').run, { RESUME_RUN_ID: '' }, ws.dir, ws.bin);
      expect(certify.code, certify.out).toBe(0);
      expect(read(ws.npmLog)).toBe('npm run certify | SADAD_COMPARE=previous/certification.json\n');
    } finally { await api.close(); }
  });

  test('looks on the next page when a whole page has nothing usable', async () => {
    const expired: Artifact[] = Array.from({ length: 100 }, (_, i) => ({ id: 2000 - i, run: 7000 - i, created: `2026-08-${String(20 - Math.floor(i / 10)).padStart(2, '0')}T02:00:00Z`, expired: true }));
    const api = await fakeApi(githubApi([...expired, { id: 800, run: 6000, created: '2026-07-01T02:00:00Z' }], { 800: packageZip('', 'run 6000') }));
    const ws = workspace();
    try {
      const { code, out } = await bash(githubStep('previous nightly package').run, githubEnv(api.api), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws.dir, 'previous/certification.json'))).toBe('run 6000');
      expect(api.requests.map((r) => r.url).filter((u) => u.includes('/artifacts?'))).toEqual([1, 2].map((p) => `/repos/${REPO}/actions/artifacts?name=certification-nightly&per_page=100&page=${p}`));
    } finally { await api.close(); }
  });

  test('with no earlier package, says this run is the first baseline and does not fail', async () => {
    for (const list of [[], NIGHTS.slice(0, 2)]) {
      const api = await fakeApi(githubApi(list, NIGHT_ZIPS));
      const ws = workspace();
      try {
        const { code, out } = await bash(githubStep('previous nightly package').run, githubEnv(api.api), ws.dir, ws.bin);
        expect(code, out).toBe(0);
        expect(out).toContain('no previous nightly package yet: this run is the first baseline');
        expect(existsSync(join(ws.dir, 'previous'))).toBe(false);
        const certify = await bash(githubStep('certify (compared with the previous nightly)').run, { RESUME_RUN_ID: '' }, ws.dir, ws.bin);
        expect(certify.code, certify.out).toBe(0);
        expect(read(ws.npmLog)).toBe('npm run certify | SADAD_COMPARE=\n');
      } finally { await api.close(); }
    }
  });

  test('an API error or an answer that is no list of artifacts fails the step, with the answer in the log', async () => {
    const cases = [
      { fail: { status: 403, body: '{"message":"Resource not accessible by integration"}' }, says: /HTTP 403[\s\S]*Resource not accessible by integration/ },
      { fail: { status: 200, body: '<html>maintenance</html>', type: 'text/html' }, says: /not a list of artifacts/ },
      { fail: { status: 200, body: '{"message":"ok"}' }, says: /has no `artifacts` list[\s\S]*not a list of artifacts/ },
    ];
    for (const c of cases) {
      const api = await fakeApi(githubApi(NIGHTS, NIGHT_ZIPS, c.fail));
      const ws = workspace();
      try {
        const { code, out } = await bash(githubStep('previous nightly package').run, githubEnv(api.api), ws.dir, ws.bin);
        expect(code, out).not.toBe(0);
        expect(out).toMatch(/::error title=previous nightly package::/);
        expect(out).toMatch(c.says);
      } finally { await api.close(); }
    }
    // and the workflow looks at that failure: the step may fail (continue-on-error), a later step fails the job
    const steps = ((template('examples/ci/github-actions.yml').jobs as Obj).nightly as Obj).steps as Obj[];
    const fetch = steps.findIndex((s) => s.name === 'previous nightly package');
    expect(steps[fetch]!['continue-on-error']).toBe(true);
    const last = steps.at(-1)!;
    expect(String(last.if)).toBe(`always() && steps.${String(steps[fetch]!.id)}.outcome == 'failure'`);
    expect(String(last.run)).toMatch(/exit 1/);
  });

  test('a resume gets the stopped run\'s package back into reports/, at its commit, and runs --resume; its baseline is the package before it', async () => {
    const ws = workspace();
    const { older, newer } = gitCheckout(ws.dir);
    const api = await fakeApi(githubApi(NIGHTS, { ...NIGHT_ZIPS, 903: packageZip('', 'run 8998', older) }));
    try {
      const env = githubEnv(api.api, { RESUME_RUN_ID: '8998' });
      const resume = await bash(githubStep('the package to resume').run, env, ws.dir, ws.bin);
      expect(resume.code, resume.out).toBe(0);
      expect(marker(join(ws.dir, 'reports/certification.json'))).toBe('run 8998');
      expect(existsSync(join(ws.dir, 'reports/run.json')) && existsSync(join(ws.dir, 'reports/evidence/bill-enquiry.ok.json'))).toBe(true);
      expect(resume.out).toContain(`run 8998 ran the suite at ${older}: checking it out`);
      expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ws.dir, encoding: 'utf8' }).trim()).toBe(older);
      expect(older).not.toBe(newer);
      expect(api.requests.map((r) => r.url)).toContain(`/repos/${REPO}/actions/runs/8998/artifacts?name=certification-nightly`);

      const baseline = await bash(githubStep('previous nightly package').run, env, ws.dir, ws.bin);
      expect(baseline.code, baseline.out).toBe(0);
      expect(marker(join(ws.dir, 'previous/certification.json'))).toBe('run 8997');

      const certify = await bash(githubStep('certify (compared with the previous nightly)').run, { RESUME_RUN_ID: '8998' }, ws.dir, ws.bin);
      expect(certify.code, certify.out).toBe(0);
      expect(read(ws.npmLog)).toBe('npm run certify -- --resume | SADAD_COMPARE=previous/certification.json\n');
    } finally { await api.close(); }
  });

  test('a resume of a run without a package, or of no run id, fails the job', async () => {
    const api = await fakeApi(githubApi(NIGHTS, NIGHT_ZIPS));
    const ws = workspace();
    try {
      const none = await bash(githubStep('the package to resume').run, githubEnv(api.api, { RESUME_RUN_ID: '8999' }), ws.dir, ws.bin);
      expect(none.code, none.out).toBe(1);
      expect(none.out).toContain('run 8999 has no unexpired certification-nightly artifact: nothing to resume');
      const bad = await bash(githubStep('the package to resume').run, githubEnv(api.api, { RESUME_RUN_ID: '8998; rm -rf /' }), ws.dir, ws.bin);
      expect(bad.code, bad.out).toBe(1);
      expect(bad.out).toContain('resume_run_id is a run id, digits only');
    } finally { await api.close(); }
  });
});

// ---------------------------------------------------------------------------------------------- GitLab

const PROJECT = '42';
const JOB = '7000';
const API_TOKEN = 'glpat-faketoken';
const JOB_TOKEN = 'glcbt-jobtoken';

interface Job { id: number; name: string; status: string; archive?: boolean; expires?: string }
const jobJson = (j: Job) => ({
  id: j.id, name: j.name, status: j.status, stage: 'test', ref: 'main', tag: false,
  created_at: '2026-08-18T02:17:00.000Z', started_at: '2026-08-18T02:17:05.000Z', finished_at: `2026-08-18T0${j.id % 10}:00:00.000Z`,
  pipeline: { id: j.id * 10, ref: 'main', sha: 'b'.repeat(40), status: j.status },
  web_url: `https://gitlab.example/acme/payments/-/jobs/${j.id}`,
  ...(j.archive ? { artifacts_file: { filename: 'artifacts.zip', size: 1000 } } : {}),
  artifacts: [
    ...(j.archive ? [{ file_type: 'archive', size: 1000, filename: 'artifacts.zip', file_format: 'zip' }] : []),
    { file_type: 'trace', size: 1500, filename: 'job.log', file_format: null },
  ],
  artifacts_expire_at: j.expires ?? '2099-01-01T00:00:00.000Z',
});

/** GitLab's jobs API for one project: the jobs list (scope[] filter, 100 a page, newest first), a job's artifacts, artifacts by ref. */
function gitlabApi(jobs: Job[], zips: Record<number, Uint8Array>, opts: { fail?: { status: number; body: string }; byRef?: Record<string, Uint8Array> } = {}): Handler {
  return (req, res, base) => {
    const url = new URL(req.url ?? '/', base.api);
    const prefix = `/api/v4/projects/${PROJECT}`;
    const byJobToken = req.headers['job-token'] === JOB_TOKEN;
    const byApiToken = req.headers['private-token'] === API_TOKEN;
    if (url.pathname.startsWith('/storage/')) return zip(res, zips[Number(url.pathname.split('/')[2])]!);
    if (url.pathname.startsWith(`${prefix}/jobs/artifacts/`)) {
      // the latest successful pipeline of a ref: the job token is enough
      if (!byJobToken && !byApiToken) return json(res, 401, { message: '401 Unauthorized' });
      const ref = decodeURIComponent(url.pathname.slice(`${prefix}/jobs/artifacts/`.length).replace(/\/download$/, ''));
      const data = opts.byRef?.[`${ref}?job=${url.searchParams.get('job')}`];
      return data ? zip(res, data) : json(res, 404, { message: '404 Not found' });
    }
    const artifacts = new RegExp(`^${prefix}/jobs/(\\d+)/artifacts$`).exec(url.pathname);
    if (artifacts) {
      if (!byJobToken && !byApiToken) return json(res, 401, { message: '401 Unauthorized' });
      if (!zips[Number(artifacts[1])]) return json(res, 404, { message: '404 Not found' });
      res.writeHead(302, { location: `${base.other}/storage/${artifacts[1]}` });
      return res.end();
    }
    if (url.pathname === `${prefix}/jobs`) {
      // the job token cannot list jobs
      if (!byApiToken) return json(res, 401, { message: '401 Unauthorized' });
      if (opts.fail) { res.writeHead(opts.fail.status, { 'content-type': 'application/json' }); return res.end(opts.fail.body); }
      const scopes = url.searchParams.getAll('scope[]');
      const perPage = Number(url.searchParams.get('per_page') ?? 20);
      const page = Number(url.searchParams.get('page') ?? 1);
      const list = jobs.filter((j) => !scopes.length || scopes.includes(j.status)).sort((a, b) => b.id - a.id);
      return json(res, 200, list.slice((page - 1) * perPage, page * perPage).map(jobJson));
    }
    json(res, 404, { message: '404 Not found' });
  };
}

const gitlabEnv = (api: string, extra: Record<string, string> = {}) => ({
  CI_API_V4_URL: `${api}/api/v4`, CI_PROJECT_ID: PROJECT, CI_JOB_ID: JOB, CI_JOB_TOKEN: JOB_TOKEN, CI_COMMIT_REF_NAME: 'main',
  CI_PROJECT_URL: 'https://gitlab.example/acme/payments', NIGHTLY_API_TOKEN: API_TOKEN, ...extra,
});

/**
 * Newest first: this job (running, so outside the scopes asked for, but a nightly with artifacts if
 * it were listed), a push pipeline's mock job with artifacts, a nightly whose artifacts expired, one
 * without an archive, then a nightly that failed (it reported a change) with artifacts, and an older
 * successful one.
 */
const JOBS: Job[] = [
  { id: 7000, name: 'nightly', status: 'running', archive: true },
  { id: 6999, name: 'mock: [24]', status: 'success', archive: true },
  { id: 6998, name: 'smoke', status: 'success', archive: true },
  { id: 6990, name: 'nightly', status: 'failed', archive: true, expires: '2020-01-01T00:00:00.000Z' },
  { id: 6980, name: 'nightly', status: 'success', archive: false },
  { id: 6950, name: 'nightly', status: 'failed', archive: true },
  { id: 6900, name: 'nightly', status: 'success', archive: true },
];
const JOB_ZIPS = { 7000: packageZip('reports/', 'job 7000'), 6999: packageZip('reports/', 'job 6999'), 6990: packageZip('reports/', 'job 6990'), 6950: packageZip('reports/', 'job 6950'), 6900: packageZip('reports/', 'job 6900') };

/** The lines of the nightly as GitLab runs them: one shell, the before_script then the script. */
const whole = (n: { before: string[]; script: string[] }) => [...n.before, ...n.script].join('\n');
const baselineLines = () => {
  const { script } = gitlabNightly();
  const at = script.findIndex((l) => l.includes('previous_package()'));
  expect(at).toBeGreaterThanOrEqual(0);
  return script[at]!;
};

test.describe('the GitLab nightly', () => {
  test('compares with the newest finished nightly job that has artifacts, a failed one included', async () => {
    const api = await fakeApi(gitlabApi(JOBS, JOB_ZIPS));
    const ws = workspace();
    try {
      const { code, out } = await bash(whole(gitlabNightly()), gitlabEnv(api.api), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws.dir, 'previous/reports/certification.json'))).toBe('job 6950');
      expect(out).toContain('compared with the nightly package of job 6950 (failed, finished 2026-08-18T00:00:00.000Z on main): https://gitlab.example/acme/payments/-/jobs/6950');
      const jobsList = api.requests.find((r) => r.url.includes('/jobs?'))!;
      expect(jobsList.url).toBe(`/api/v4/projects/${PROJECT}/jobs?scope[]=success&scope[]=failed&per_page=100&page=1`);
      expect(jobsList.headers['private-token']).toBe(API_TOKEN);
      expect(api.requests.map((r) => r.url).filter((u) => /\/artifacts$|storage/.test(u))).toEqual([`/api/v4/projects/${PROJECT}/jobs/6950/artifacts`, '/storage/6950']);
      // the run: npm ci (before_script), then certify compared with it
      expect(read(ws.npmLog)).toBe('npm ci --cache .npm --prefer-offline | SADAD_COMPARE=\nnpm run certify | SADAD_COMPARE=previous/reports/certification.json\n');
    } finally { await api.close(); }
  });

  test('skips this job even when the API lists it', async () => {
    const api = await fakeApi(gitlabApi(JOBS.map((j) => (j.id === 7000 ? { ...j, status: 'failed' } : j)), JOB_ZIPS));
    const ws = workspace();
    try {
      const { code, out } = await bash(baselineLines(), gitlabEnv(api.api), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws.dir, 'previous/reports/certification.json'))).toBe('job 6950');
    } finally { await api.close(); }
  });

  test('with no earlier nightly, says this run is the first baseline and does not fail', async () => {
    const api = await fakeApi(gitlabApi(JOBS.filter((j) => j.name !== 'nightly' || j.id === 7000), JOB_ZIPS));
    const ws = workspace();
    try {
      const { code, out } = await bash(whole(gitlabNightly()), gitlabEnv(api.api), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(out).toContain('no previous nightly package yet: this run is the first baseline');
      expect(existsSync(join(ws.dir, 'previous'))).toBe(false);
      expect(read(ws.npmLog)).toContain('npm run certify | SADAD_COMPARE=\n');
    } finally { await api.close(); }
  });

  test('without NIGHTLY_API_TOKEN: the latest successful pipeline of the ref, else says how to set the token, and does not fail', async () => {
    const none = await fakeApi(gitlabApi(JOBS, JOB_ZIPS));
    const ws = workspace();
    try {
      const { code, out } = await bash(whole(gitlabNightly()), gitlabEnv(none.api, { NIGHTLY_API_TOKEN: '', CI_COMMIT_REF_NAME: 'main' }), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(out).toContain('no previous nightly package can be found: NIGHTLY_API_TOKEN is not set');
      expect(out).toContain('with the job token answered HTTP 404). Set the CI/CD variable NIGHTLY_API_TOKEN (masked; a project access token, role Reporter, scope read_api)');
      expect(none.requests.map((r) => r.url)).toEqual([`/api/v4/projects/${PROJECT}/jobs/artifacts/main/download?job=nightly`]);
      expect(none.requests[0]!.headers['job-token']).toBe(JOB_TOKEN);
      expect(read(ws.npmLog)).toContain('npm run certify | SADAD_COMPARE=\n');
      // a job token the endpoint refuses is no reason to fail either: the same advice
      const refused = await bash(baselineLines(), gitlabEnv(none.api, { NIGHTLY_API_TOKEN: '', CI_JOB_TOKEN: 'refused' }), ws.dir, ws.bin);
      expect(refused.code, refused.out).toBe(0);
      expect(refused.out).toContain('with the job token answered HTTP 401). Set the CI/CD variable NIGHTLY_API_TOKEN');
    } finally { await none.close(); }

    // a schedule on a ref of its own: the latest successful pipeline there is a nightly
    const own = await fakeApi(gitlabApi(JOBS, JOB_ZIPS, { byRef: { 'conformance/nightly?job=nightly': packageZip('reports/', 'by ref') } }));
    const ws2 = workspace();
    try {
      const { code, out } = await bash(baselineLines(), gitlabEnv(own.api, { NIGHTLY_API_TOKEN: '', CI_COMMIT_REF_NAME: 'conformance/nightly' }), ws2.dir, ws2.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws2.dir, 'previous/reports/certification.json'))).toBe('by ref');
      expect(out).toContain('compared with the nightly of the latest successful pipeline of conformance/nightly');
      expect(own.requests.map((r) => r.url)).toEqual([`/api/v4/projects/${PROJECT}/jobs/artifacts/conformance%2Fnightly/download?job=nightly`]);
    } finally { await own.close(); }
  });

  test('an API error or an answer that is no list of jobs: loud, the run goes on uncompared, and the job fails at its end', async () => {
    const cases = [
      { fail: { status: 401, body: '{"message":"401 Unauthorized"}' }, says: /HTTP 401[\s\S]*401 Unauthorized/ },
      { fail: { status: 200, body: '{"message":"not a list"}' }, says: /not a list of jobs/ },
    ];
    for (const c of cases) {
      const api = await fakeApi(gitlabApi(JOBS, JOB_ZIPS, { fail: c.fail }));
      const ws = workspace();
      try {
        const { code, out } = await bash(whole(gitlabNightly()), gitlabEnv(api.api), ws.dir, ws.bin);
        expect(code, out).toBe(1);
        expect(out).toMatch(c.says);
        expect(out).toContain('ERROR: the previous nightly package could not be fetched (above): this run was not compared');
        expect(read(ws.npmLog)).toContain('npm run certify | SADAD_COMPARE=\n');
      } finally { await api.close(); }
    }
  });

  test('RESUME_JOB_ID: the job\'s reports/ back, at its commit, --resume; the baseline is the nightly before it', async () => {
    const ws = workspace();
    const { older } = gitCheckout(ws.dir);
    const api = await fakeApi(gitlabApi(JOBS, { ...JOB_ZIPS, 6950: packageZip('reports/', 'job 6950', older) }));
    try {
      // the job token alone downloads a job's artifacts
      const { code, out } = await bash(whole(gitlabNightly()), gitlabEnv(api.api, { RESUME_JOB_ID: '6950', NIGHTLY_API_TOKEN: '' }), ws.dir, ws.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws.dir, 'reports/certification.json'))).toBe('job 6950');
      expect(out).toContain(`job 6950 ran the suite at ${older}: checking it out`);
      expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ws.dir, encoding: 'utf8' }).trim()).toBe(older);
      expect(api.requests[0]!.url).toBe(`/api/v4/projects/${PROJECT}/jobs/6950/artifacts`);
      expect(api.requests[0]!.headers['job-token']).toBe(JOB_TOKEN);
      expect(read(ws.npmLog)).toBe('npm ci --cache .npm --prefer-offline | SADAD_COMPARE=\nnpm run certify -- --resume | SADAD_COMPARE=\n');
    } finally { await api.close(); }

    // with the API token, its baseline is the nightly before the job resumed
    const api2 = await fakeApi(gitlabApi(JOBS, JOB_ZIPS));
    const ws2 = workspace();
    try {
      const { code, out } = await bash(baselineLines(), gitlabEnv(api2.api, { RESUME_JOB_ID: '6950' }), ws2.dir, ws2.bin);
      expect(code, out).toBe(0);
      expect(marker(join(ws2.dir, 'previous/reports/certification.json'))).toBe('job 6900');
    } finally { await api2.close(); }
  });

  test('RESUME_JOB_ID of a job without artifacts, or not a job id, fails the job before anything runs', async () => {
    const api = await fakeApi(gitlabApi(JOBS, JOB_ZIPS));
    const ws = workspace();
    try {
      const none = await bash(whole(gitlabNightly()), gitlabEnv(api.api, { RESUME_JOB_ID: '6980' }), ws.dir, ws.bin);
      expect(none.code, none.out).toBe(1);
      expect(none.out).toContain('the artifacts of job 6980: GET .../jobs/6980/artifacts with NIGHTLY_API_TOKEN answered HTTP 404: nothing to resume');
      const refused = await bash(whole(gitlabNightly()), gitlabEnv(api.api, { RESUME_JOB_ID: '6950', NIGHTLY_API_TOKEN: '', CI_JOB_TOKEN: 'refused' }), ws.dir, ws.bin);
      expect(refused.code, refused.out).toBe(1);
      expect(refused.out).toContain('with the job token (if it is refused, set NIGHTLY_API_TOKEN) answered HTTP 401: nothing to resume');
      const bad = await bash(whole(gitlabNightly()), gitlabEnv(api.api, { RESUME_JOB_ID: '$(id)' }), ws.dir, ws.bin);
      expect(bad.code, bad.out).toBe(1);
      expect(bad.out).toContain('RESUME_JOB_ID is a job id, digits only');
      expect(existsSync(ws.npmLog)).toBe(false);
    } finally { await api.close(); }
  });
});
