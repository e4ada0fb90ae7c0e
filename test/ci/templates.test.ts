/**
 * The CI templates (examples/ci/github-actions.yml, examples/ci/gitlab-ci.yml) must work when a
 * team copies them: parsed with the `yaml` package, every npm script they call exists, every
 * SADAD_* / MOCK_* / PROVE_* variable they name is documented (a table of README.md or docs/*.md, or .env.example),
 * every project path they name is one the suite writes, the repository holds, or the template
 * itself creates or downloads into, every flag they pass to certify is one certify or Playwright
 * knows and the docs mention, each file has the shape its CI wants, and every job runs on a
 * maintained Node (22 or 24), the one run on every change on both. A value a template gives a setting
 * the suite reads as one of a list (`oneOf(env, 'SADAD_FAIL_ON', [...])`) must be in that list.
 * GitHub: every action is on a major known to run on Node 24; the token's permissions are declared
 * per job and are the least each job needs; secrets reach only the env of the steps that use them, and
 * no `${{ }}` is spliced into a script; uploads say how long they are kept; pushes are filtered by
 * branch; a step allowed to fail is checked by a later one. GitLab: every script line is a string
 * (not a mapping YAML made of a `: `), artifacts expire, and the workflow rules make one pipeline per
 * push. Each check is shown to fail on an in-memory copy that breaks it. (The templates' fetch scripts
 * are run against a fake API in baseline.test.ts; the files are validated against the CIs' own
 * schemas in schemas.test.ts.)
 */
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, posix } from 'node:path';
import { parseDocument } from 'yaml';
import { ROOT } from '../../src/paths.js';

const GITHUB = 'examples/ci/github-actions.yml';
const GITLAB = 'examples/ci/gitlab-ci.yml';
const read = (p: string) => readFileSync(join(ROOT, p), 'utf8');

/** What the suite writes under the reports folder (docs/certification.md). */
const SUITE_WRITES = [
  'reports/', 'reports/certification.json', 'reports/certification.html', 'reports/certification.sha256', 'reports/junit.xml',
  'reports/evidence/', 'reports/pacing.json', 'reports/html/', 'reports/run.json', 'reports/previous/',
];
/** Folders the suite fills with files of its own naming. */
const SUITE_FOLDERS = ['reports/evidence/', 'reports/html/', 'reports/previous/'];
/** Generated or installed here, so their presence on disk says nothing about a fresh clone. */
const NOT_IN_REPO = /^(reports|test-results|node_modules)(\/|$)/;
const VARIABLE = /\b(?:SADAD|MOCK|PROVE)_[A-Z0-9_]+\b/g;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
const strings = (v: Json | undefined): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap((x) => strings(x)) : []);

interface Context {
  scripts: Record<string, string>;
  /** Variables the tables of README.md and docs/*.md, or .env.example, document. */
  documented: Set<string>;
  /** The suite's source (src/, playwright.config.ts): a variable no code reads does nothing. */
  source: string;
  /** Flags `npm run certify -- <flag>` accepts: certify's source names them, or `playwright test --help` lists them. */
  certifyFlags: (flag: string) => boolean;
  /** Text of the docs a flag must be mentioned in. */
  docs: string;
  /** A path (file or folder) of a fresh clone. */
  inRepo: (path: string) => boolean;
  /** The values the source accepts for a setting it reads with `oneOf(env, 'X', ['a', 'b'])`. */
  choices: Map<string, string[]>;
}

let cachedHelp: string | null = null;
function playwrightHelp(): string {
  cachedHelp ??= execFileSync(process.execPath, [createRequire(import.meta.url).resolve('@playwright/test/cli'), 'test', '--help'], { encoding: 'utf8', cwd: ROOT });
  return cachedHelp;
}

function projectContext(): Context {
  const pkg = JSON.parse(read('package.json')) as { scripts?: Record<string, string> };
  const readme = read('README.md');
  const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => read(`docs/${f}`));
  const documented = new Set<string>();
  // the variable tables (the README's newcomer path, docs/configuration.md, docs/mock.md, ...):
  // the first cell of each table row names the variables, in backticks
  for (const line of [readme, ...pages].flatMap((text) => text.split('\n'))) {
    if (!line.startsWith('|')) continue;
    const first = line.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) documented.add(m[1]!);
  }
  for (const m of read('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)) documented.add(m[1]!);
  const certifySource = read('src/cli/certify.ts');
  const sourceFiles = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? sourceFiles(`${dir}/${e.name}`) : /\.(ts|js|mjs)$/.test(e.name) ? [`${dir}/${e.name}`] : []));
  const playwrightOptions = new Set([...playwrightHelp().matchAll(/^\s+(?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]!));
  const docs = [readme, ...pages].join('\n');
  const source = [...sourceFiles('src'), 'playwright.config.ts'].map(read).join('\n');
  const choices = new Map<string, string[]>();
  // a variable's values, written in the call (`oneOf(env, 'X', ['a', 'b'] ...`) or as a named list (`oneOf(vars, 'X', VALUES, ...`, `export const VALUES = ['a', 'b'] as const`)
  const lists = new Map([...source.matchAll(/export const ([A-Z][A-Z0-9_]*) = \[([^\]]*)\] as const/g)].map((m) => [m[1]!, m[2]!]));
  for (const m of source.matchAll(/oneOf\((?:env|vars), '([A-Z][A-Z0-9_]*)', (?:\[([^\]]*)\]|([A-Z][A-Z0-9_]*))/g)) {
    const values = m[2] ?? lists.get(m[3]!);
    if (values !== undefined) choices.set(m[1]!, [...values.matchAll(/'([^']*)'/g)].map((v) => v[1]!));
  }
  return {
    scripts: pkg.scripts ?? {},
    documented,
    source,
    certifyFlags: (flag) => mentions(certifySource, flag) || playwrightOptions.has(flag),
    docs,
    inRepo: (p) => !NOT_IN_REPO.test(p) && existsSync(join(ROOT, p)),
    choices,
  };
}

/** Parses a template as its CI does (YAML 1.2; GitLab's `<<` merge keys), failing on any YAML error or warning. */
function load(text: string): { value: Obj; problems: string[] } {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true, prettyErrors: true });
  const problems = [...doc.errors, ...doc.warnings].map((e) => `YAML: ${e.message.split('\n')[0]}`);
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  return { value: isObj(value) ? value : {}, problems: isObj(value) ? problems : [...problems, 'YAML: the document is not a mapping'] };
}

/**
 * A shell script in simple commands, each as words, the way the shell splits them: quotes removed
 * (a quoted string, spaces and all, is one word: a `node -e '...'` program is one word, not
 * commands), comments dropped, `\`-newline joined; commands end at a newline, `;`, `|`, `&`, `(`,
 * `)` and at a `{` or `}` word; `${...}` stays inside its word. Leading keywords (`if`, `then`,
 * `export`, `local`...) are dropped, so `if [ -f x ]; then export A=x; fi` gives `[ -f x ]` and `A=x`.
 */
function simpleCommands(script: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (!inWord) return;
    if (word === '{' || word === '}') endCommand(); else words.push(word);
    word = ''; inWord = false;
  };
  const endCommand = () => { if (words.length) commands.push(words); words = []; };
  for (let i = 0; i < script.length; i++) {
    const c = script[i]!;
    if (c === "'") {
      const end = script.indexOf("'", i + 1);
      word += script.slice(i + 1, end < 0 ? script.length : end);
      inWord = true;
      i = end < 0 ? script.length : end;
    } else if (c === '"') {
      inWord = true;
      for (i++; i < script.length && script[i] !== '"'; i++) {
        if (script[i] === '\\' && /["\\$`]/.test(script[i + 1] ?? '')) i++;
        word += script[i];
      }
    } else if (c === '\\') {
      if (script[i + 1] !== '\n') { word += script[i + 1] ?? ''; inWord = true; }
      i++;
    } else if (c === '$' && script[i + 1] === '{') {
      const end = script.indexOf('}', i);
      word += script.slice(i, end < 0 ? script.length : end + 1);
      inWord = true;
      i = end < 0 ? script.length : end;
    } else if (c === '#' && !inWord) {
      const end = script.indexOf('\n', i);
      i = (end < 0 ? script.length : end) - 1;
    } else if (/[\n;|&()]/.test(c)) {
      endWord();
      endCommand();
    } else if (/\s/.test(c)) {
      endWord();
    } else {
      word += c;
      inWord = true;
    }
  }
  endWord();
  endCommand();
  return commands
    .map((w) => { while (w.length && /^(then|else|elif|do|!|if|while|until|fi|done|esac|export|local)$/.test(w[0]!)) w.shift(); return w; })
    .filter((w) => w.length > 0 && !(w.length === 1 && w[0] === '$'));
}

/** Folders and files the commands create or download into (so paths under them need not exist in the repository). */
function createdBy(commands: string[][]): string[] {
  const out: string[] = [];
  for (const w of commands) {
    w.forEach((word, i) => {
      const next = w[i + 1];
      if ((word === '--output' || word === '-o' || word === '--cache' || word === '-d' || word === '-C') && next) out.push(next);
    });
    if (w[0] === 'mkdir') out.push(...w.slice(1).filter((x) => !x.startsWith('-')));
    const zip = w.indexOf('zipfile');
    if (zip >= 0 && w[zip + 1] === '-e' && w[zip + 3]) out.push(w[zip + 3]!);
  }
  return out;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const mentions = (source: string, flag: string) => new RegExp(`${escapeRegExp(flag)}(?![a-z0-9-])`).test(source);
const normal = (p: string) => posix.normalize(p.replace(/^\.\//, ''));
const under = (p: string, folder: string) => { const f = normal(folder).replace(/\/$/, ''); const q = normal(p).replace(/\/$/, ''); return q === f || q.startsWith(`${f}/`); };

/** Words of the commands that name a path in the project. */
function pathWords(commands: string[][]): string[] {
  const out: string[] = [];
  for (const words of commands) {
    for (let w of words) {
      if (/^[A-Z][A-Z0-9_]*=/.test(w)) w = w.slice(w.indexOf('=') + 1);
      if (!w || w.startsWith('-') || /[$`]|:\/\//.test(w)) continue;
      if (/^\.?[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9._*-]*)+$/.test(w) || /^[A-Za-z0-9_-][A-Za-z0-9._-]*\.(json|xml|html|sha256|zip|txt|ya?ml|ts|js|mjs)$/.test(w)) out.push(w);
    }
  }
  return out;
}

/** Values of the keys that name project paths (artifact paths, JUnit reports, cache keys). */
function pathValues(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => pathValues(n, out));
  else if (isObj(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (['path', 'paths', 'report_paths', 'junit', 'files'].includes(k)) out.push(...strings(v).flatMap((s) => s.split('\n')).map((s) => s.trim()).filter((s) => s && !/[$]|:\/\//.test(s)));
      else pathValues(v, out);
    }
  }
  return out;
}

/** The literal values the template gives variables (`env:` / `variables:` maps), as [name, value]. */
function literalSettings(maps: (Json | undefined)[]): [string, string][] {
  return maps.filter(isObj).flatMap((m) => Object.entries(m))
    .filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean')
    .map(([k, v]) => [k, String(v)] as [string, string])
    .filter(([, v]) => !/\$/.test(v));
}

/** The checks common to both templates, over the template's text and its commands. */
function checkCommon(file: string, text: string, commands: string[][], created: string[], paths: string[], ctx: Context, settings: [string, string][] = []): string[] {
  const problems: string[] = [];
  // a value the suite would refuse at its start (`must be one of ...`)
  for (const [name, value] of settings) {
    const allowed = ctx.choices.get(name);
    if (allowed && !allowed.includes(value.trim())) problems.push(`${file}: ${name}: "${value}" is not one of the values the suite accepts (${allowed.join(', ')})`);
  }
  // scripts and the flags passed to them
  for (const w of commands) {
    if (w[0] !== 'npm') continue;
    let script: string | null = null;
    let rest: string[] = [];
    if (w[1] === 'run' || w[1] === 'run-script') {
      script = w[2] ?? null;
      rest = w.slice(3);
      if (!script) { problems.push(`${file}: \`${w.join(' ')}\` names no script`); continue; }
    } else if (['test', 't', 'start', 'stop', 'restart'].includes(w[1] ?? '')) {
      script = w[1] === 't' ? 'test' : w[1]!;
      rest = w.slice(2);
    } else if (w[1] === 'ci') {
      if (!ctx.inRepo('package-lock.json')) problems.push(`${file}: \`npm ci\` needs package-lock.json, which the repository does not have`);
      continue;
    } else continue;
    if (!(script in ctx.scripts)) { problems.push(`${file}: \`${w.join(' ')}\`: no npm script "${script}" in package.json`); continue; }
    const dash = rest.indexOf('--');
    const flags = (dash >= 0 ? rest.slice(dash + 1) : []).filter((a) => a.startsWith('-') && a !== '-' && a !== '--').map((a) => a.split('=')[0]!);
    for (const flag of flags) {
      if (script === 'certify') {
        if (!ctx.certifyFlags(flag)) problems.push(`${file}: \`${w.join(' ')}\`: ${flag} is neither certify's (src/cli/certify.ts) nor Playwright's`);
        else if (!ctx.docs.includes(flag)) problems.push(`${file}: \`${w.join(' ')}\`: ${flag} is not documented in README.md or docs/`);
      } else {
        const entry = ctx.scripts[script]!.split(/\s+/).find((x) => /\.(ts|js|mjs)$/.test(x));
        const source = entry && existsSync(join(ROOT, entry)) ? readFileSync(join(ROOT, entry), 'utf8') : '';
        const playwright = /\bplaywright test\b/.test(ctx.scripts[script]!);
        if (!mentions(source, flag) && !(playwright && ctx.certifyFlags(flag))) problems.push(`${file}: \`${w.join(' ')}\`: npm script "${script}" does not know ${flag}`);
      }
    }
  }
  // variables
  const unknown = [...new Set([...text.matchAll(VARIABLE)].map((m) => m[0]))].filter((v) => !ctx.documented.has(v)).sort();
  if (unknown.length) problems.push(`${file}: not documented in a table of README.md or docs/*.md, or in .env.example: ${unknown.join(', ')}`);
  const unread = [...new Set([...text.matchAll(VARIABLE)].map((m) => m[0]))].filter((v) => !new RegExp(`\\b${v}\\b`).test(ctx.source)).sort();
  if (unread.length) problems.push(`${file}: read nowhere in src/ or playwright.config.ts: ${unread.join(', ')}`);
  // paths
  for (const p of [...new Set(paths)]) {
    const ok = SUITE_WRITES.some((w) => normal(w).replace(/\/$/, '') === normal(p).replace(/\/$/, ''))
      || SUITE_FOLDERS.some((f) => under(p, f))
      || ctx.inRepo(normal(p))
      // a package unpacked into reports/ (a resume) does not make any name there valid: the suite's names are checked
      || created.some((c) => normal(c).replace(/\/$/, '') !== 'reports' && under(p, c));
    if (!ok) problems.push(`${file}: path "${p}" is neither written by the suite, in the repository, nor created by the template`);
  }
  return problems;
}

const ACTION_REF = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+(\/[A-Za-z0-9_./-]+)?@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/;

/**
 * The Node majors a team should run the suite on: the maintained LTS lines (Node 20 reached its end
 * of life in April 2026; package.json's engines still allow it, and this project's machines run it).
 */
const NODE_MAJORS = ['22', '24'];

/** A value with `${{ matrix.x }}` / `$X` / `${X}` in it, once per value the matrix gives that name. */
function expand(value: string, matrix: (name: string) => string[]): string[] {
  const m = /\$\{\{\s*matrix\.([\w-]+)\s*\}\}|\$\{(\w+)\}|\$(\w+)/.exec(value);
  if (!m) return [value];
  const values = matrix(m[1] ?? m[2] ?? m[3]!);
  return values.flatMap((v) => expand(value.slice(0, m.index) + v + value.slice(m.index + m[0].length), matrix));
}

/** Each job's Node majors must be maintained ones, and the job run on every change (`mock`) must cover them all. */
function checkNodeMajors(file: string, versions: Map<string, string[]>): string[] {
  const problems: string[] = [];
  for (const [job, list] of versions) {
    if (!list.length) problems.push(`${file}: job ${job} does not say which Node it runs on`);
    for (const v of list) {
      const major = /^v?(\d+)/.exec(v)?.[1];
      if (!major || !NODE_MAJORS.includes(major)) problems.push(`${file}: job ${job} runs on Node ${v}, not one of the maintained ${NODE_MAJORS.join(' and ')}`);
    }
  }
  const every = (versions.get('mock') ?? []).map((v) => /^v?(\d+)/.exec(v)?.[1]);
  const missing = NODE_MAJORS.filter((n) => !every.includes(n));
  if (missing.length) problems.push(`${file}: job mock does not run on Node ${missing.join(', ')} (it should cover ${NODE_MAJORS.join(' and ')})`);
  return problems;
}

/** GitHub: per job, the node-version of its actions/setup-node step, matrix expanded. */
function githubNodeVersions(jobs: Obj): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, job] of Object.entries(jobs)) {
    if (!isObj(job) || !Array.isArray(job.steps)) continue;
    const matrix = isObj(job.strategy) && isObj(job.strategy.matrix) ? job.strategy.matrix : {};
    const setup = job.steps.find((st) => isObj(st) && typeof st.uses === 'string' && st.uses.startsWith('actions/setup-node@'));
    const raw = isObj(setup) && isObj(setup.with) ? setup.with['node-version'] : undefined;
    const values = (k: string) => [matrix[k]].flat().filter((x) => typeof x === 'string' || typeof x === 'number').map(String);
    out.set(name, raw === undefined || raw === null ? [] : expand(String(raw), values));
  }
  return out;
}

/** GitLab: per job, the tag of its `node:` image (its own or the default one), `parallel:matrix` expanded. */
function gitlabNodeVersions(ci: Obj, jobs: [string, Obj][]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const fallback = isObj(ci.default) && typeof ci.default.image === 'string' ? ci.default.image : typeof ci.image === 'string' ? ci.image : undefined;
  for (const [name, job] of jobs) {
    const image = typeof job.image === 'string' ? job.image : isObj(job.image) && typeof job.image.name === 'string' ? job.image.name : fallback;
    const matrix = isObj(job.parallel) && Array.isArray(job.parallel.matrix) ? job.parallel.matrix.filter(isObj) : [];
    const images = image === undefined ? [] : expand(image, (k) => matrix.flatMap((row) => strings(row[k])));
    out.set(name, images.flatMap((i) => /^(?:docker\.io\/)?(?:library\/)?node:(\S+)$/.exec(i)?.[1] ?? []));
  }
  return out;
}

/**
 * The actions a template may use, at the majors whose action.yml declares `runs.using: node24`
 * (GitHub removes Node 20 from its runners in September 2026). Read, 2026-08, from action.yml at each
 * major's tag in the action's repository: actions/checkout v5, v6, v7; actions/setup-node v5, v6, v7;
 * actions/upload-artifact v6, v7 (v5 still declares node20); mikepenz/action-junit-report v6 (v5
 * declares node20). An action or major not listed here is a problem until someone reads its action.yml.
 */
const NODE24_ACTIONS: Record<string, number[]> = {
  'actions/checkout': [5, 6, 7],
  'actions/setup-node': [5, 6, 7],
  'actions/upload-artifact': [6, 7],
  'mikepenz/action-junit-report': [6],
};

/** The permissions a job may ask for, and what it must do to need each. */
const JOB_PERMISSIONS: Record<string, { level: string; needed: string }> = {
  contents: { level: 'read', needed: 'to check the repository out' },
  checks: { level: 'write', needed: 'to publish JUnit results (an action-junit-report step)' },
  actions: { level: 'read', needed: 'to read earlier runs\' artifacts (a step calling $GITHUB_API_URL/.../actions/)' },
};

/** Every `${{ secrets.* }}` or `${{ github.token }}` in the workflow, with the path of the key that holds it. */
function secretUses(node: Json, path: (string | number)[] = [], out: { path: (string | number)[]; value: string }[] = []) {
  if (typeof node === 'string') { if (/\$\{\{[^}]*\b(secrets\.|github\.token\b)/.test(node)) out.push({ path, value: node }); }
  else if (Array.isArray(node)) node.forEach((n, i) => secretUses(n, [...path, i], out));
  else if (isObj(node)) for (const [k, v] of Object.entries(node)) secretUses(v, [...path, k], out);
  return out;
}

function checkGithub(text: string, ctx: Context, file = GITHUB): string[] {
  const { value: wf, problems } = load(text);
  const on = wf.on;
  const triggers = isObj(on) ? Object.keys(on) : strings(on);
  for (const t of ['push', 'pull_request', 'schedule']) if (!triggers.includes(t)) problems.push(`${file}: no \`on: ${t}\` trigger`);
  if (isObj(on) && 'schedule' in on) {
    const crons = Array.isArray(on.schedule) ? on.schedule.map((s) => (isObj(s) ? s.cron : null)) : [];
    if (!crons.length || crons.some((c) => typeof c !== 'string' || c.trim().split(/\s+/).length !== 5)) problems.push(`${file}: \`on.schedule\` needs entries with a five-field cron`);
  }
  // a push to a pull request's branch would run everything a second time
  if (triggers.includes('push') && !(isObj(on) && isObj(on.push) && ['branches', 'branches-ignore', 'tags'].some((k) => k in (on.push as Obj)))) {
    problems.push(`${file}: \`on: push\` has no branch filter, so every pull request commit runs twice (push and pull_request)`);
  }
  // the token: nothing by default, each job what it needs
  const top = wf.permissions;
  if (top === undefined) problems.push(`${file}: no top-level \`permissions\`: jobs without their own get the repository's default token permissions`);
  else if (!isObj(top) || Object.entries(top).some(([k, v]) => !(k === 'contents' && v === 'read'))) problems.push(`${file}: top-level \`permissions\` is ${JSON.stringify(top)}, not {} (or contents: read): ask per job`);
  // secrets only where a step uses them
  for (const use of secretUses(wf as Json)) {
    const p = use.path;
    if (!(p[0] === 'jobs' && p[2] === 'steps' && typeof p[3] === 'number' && p[4] === 'env' && p.length === 6)) {
      problems.push(`${file}: \`${use.value}\` at ${p.join('.')}: a secret (or the token) belongs in the env of the step that uses it, not ${p[2] === 'env' || p[0] === 'env' ? 'a job\'s or the workflow\'s env' : 'there'}`);
    }
  }
  const jobs = isObj(wf.jobs) ? wf.jobs : {};
  if (!Object.keys(jobs).length) problems.push(`${file}: no jobs`);
  const commands: string[][] = [];
  const created: string[] = [];
  const settings = literalSettings([wf.env, ...Object.values(jobs).flatMap((j) => (isObj(j) ? [j.env, ...(Array.isArray(j.steps) ? j.steps.map((st) => (isObj(st) ? st.env : undefined)) : [])] : []))]);
  for (const [name, job] of Object.entries(jobs)) {
    if (!isObj(job)) { problems.push(`${file}: job ${name} is not a mapping`); continue; }
    if (typeof job.uses === 'string') { if (!ACTION_REF.test(job.uses) && !job.uses.startsWith('./')) problems.push(`${file}: job ${name}: \`uses: ${job.uses}\` is not pinned to a version tag`); continue; }
    if (!job['runs-on']) problems.push(`${file}: job ${name} has no \`runs-on\``);
    const steps = Array.isArray(job.steps) ? job.steps : [];
    if (!steps.length) problems.push(`${file}: job ${name} has no steps`);
    const runs = steps.filter(isObj).map((st) => (typeof st.run === 'string' ? st.run : ''));
    const uses = steps.filter(isObj).map((st) => (typeof st.uses === 'string' ? st.uses : ''));
    const need = {
      contents: uses.some((u) => u.startsWith('actions/checkout@')),
      checks: uses.some((u) => /junit-report@/.test(u)),
      actions: runs.some((r) => /\$GITHUB_API_URL\/repos\/\$GITHUB_REPOSITORY\/actions\b|\/actions\/(artifacts|runs)\b/.test(r)),
    };
    const perms = job.permissions;
    if (perms === undefined) { if (isObj(top) && Object.values(need).some(Boolean)) problems.push(`${file}: job ${name} declares no \`permissions\` and needs ${Object.entries(need).filter(([, v]) => v).map(([k]) => `${k}: ${JOB_PERMISSIONS[k]!.level}`).join(', ')}`); }
    else if (!isObj(perms)) problems.push(`${file}: job ${name}: \`permissions: ${String(perms)}\` (name each permission the job needs, no more)`);
    else {
      for (const [k, v] of Object.entries(perms)) {
        const known = JOB_PERMISSIONS[k];
        if (!known) problems.push(`${file}: job ${name} asks for \`${k}: ${String(v)}\`, which no step of the templates needs`);
        else if (v !== known.level && v !== 'none') problems.push(`${file}: job ${name} asks for \`${k}: ${String(v)}\`; ${known.level} is enough ${known.needed}`);
        else if (v === known.level && !need[k as keyof typeof need]) problems.push(`${file}: job ${name} asks for \`${k}: ${String(v)}\` but has no step that needs it (${known.needed})`);
      }
      for (const [k, v] of Object.entries(need)) if (v && perms[k] !== JOB_PERMISSIONS[k]!.level) problems.push(`${file}: job ${name} needs \`${k}: ${JOB_PERMISSIONS[k]!.level}\` ${JOB_PERMISSIONS[k]!.needed}`);
    }
    steps.forEach((step, i) => {
      if (!isObj(step)) { problems.push(`${file}: job ${name}, step ${i + 1} is not a mapping`); return; }
      const uses = typeof step.uses === 'string' ? step.uses : null;
      if (typeof step.run === 'string') {
        commands.push(...simpleCommands(step.run));
        // an expression spliced into a script is a script injection (an input, a branch name): pass it through env
        if (/\$\{\{/.test(step.run)) problems.push(`${file}: job ${name}, step ${i + 1}: \`\${{ }}\` inside \`run\` (pass the value through the step's env)`);
      } else if (!uses) problems.push(`${file}: job ${name}, step ${i + 1} has neither \`run\` nor \`uses\``);
      if (uses && !uses.startsWith('./') && !uses.startsWith('docker://') && !ACTION_REF.test(uses)) problems.push(`${file}: job ${name}: \`uses: ${uses}\` is not pinned to a version tag`);
      else if (uses && !uses.startsWith('./') && !uses.startsWith('docker://')) {
        const m = /^([^/@]+\/[^/@]+)(?:\/[^@]*)?@v(\d+)/.exec(uses);
        const majors = m ? NODE24_ACTIONS[m[1]!] : undefined;
        if (!m || !majors?.includes(Number(m[2]))) problems.push(`${file}: job ${name}: \`uses: ${uses}\` is not a major known to run on Node 24 (${Object.entries(NODE24_ACTIONS).map(([a, v]) => `${a}@${v.map((n) => `v${n}`).join('/')}`).join(', ')})`);
      }
      if (uses && /download-artifact@/.test(uses) && isObj(step.with)) created.push(...strings(step.with.path));
      // the reports of a failing run are what matter most: publishing them must not depend on the run passing
      if (uses && /(upload-artifact|junit-report|test-reporter|publish-unit-test-result)/.test(uses) && !/always\(\)/.test(String(step.if ?? ''))) {
        problems.push(`${file}: job ${name}: \`uses: ${uses}\` has no \`if: always()\`, so a failing run would publish nothing`);
      }
      if (uses && /^actions\/upload-artifact@/.test(uses)) {
        const days = isObj(step.with) ? step.with['retention-days'] : undefined;
        if (typeof days !== 'number' || !Number.isInteger(days) || days < 1 || days > 90) problems.push(`${file}: job ${name}: \`uses: ${uses}\` has no \`retention-days\` (a whole number of days, 1 to 90)`);
      }
      // a step allowed to fail must be looked at by a later one, or its failure passes unseen
      if (step['continue-on-error'] !== undefined && step['continue-on-error'] !== false) {
        const id = typeof step.id === 'string' ? step.id : null;
        const seen = id !== null && steps.slice(i + 1).some((later) => isObj(later) && new RegExp(`steps\\.${escapeRegExp(id)}\\.(outcome|conclusion)`).test(String(later.if ?? '')));
        if (!seen) problems.push(`${file}: job ${name}, step ${i + 1} has \`continue-on-error\` and no later step checks its outcome, so its failure would pass unseen`);
      }
    });
  }
  created.push(...createdBy(commands));
  const paths = [...pathValues(wf.jobs ?? null), ...pathWords(commands)];
  return [...problems, ...checkNodeMajors(file, githubNodeVersions(jobs)), ...checkCommon(file, text, commands, created, paths, ctx, settings)];
}

const GITLAB_KEYWORDS = new Set(['default', 'stages', 'variables', 'include', 'workflow', 'image', 'services', 'cache', 'before_script', 'after_script', 'spec']);

/** Script lines that are not strings: a `- echo "a: b"` line YAML reads as a mapping (`: ` in a plain scalar). */
function nonStringLines(node: Json | undefined): Json[] {
  if (node === undefined || node === null || typeof node === 'string') return [];
  if (Array.isArray(node)) return node.flatMap((n) => (Array.isArray(n) ? nonStringLines(n) : typeof n === 'string' ? [] : [n]));
  return [node];
}

function checkGitlab(text: string, ctx: Context, file = GITLAB): string[] {
  const { value: ci, problems } = load(text);
  const jobs = Object.entries(ci).filter(([k, v]) => !GITLAB_KEYWORDS.has(k) && !k.startsWith('.') && isObj(v)) as [string, Obj][];
  const stages = strings(ci.stages);
  const scripts = (node: Json | undefined) => strings(node).flatMap((s) => simpleCommands(s));
  const commands: string[][] = [...scripts(isObj(ci.default) ? ci.default.before_script : undefined), ...scripts(ci.before_script)];
  for (const want of ['mock', 'smoke', 'nightly']) if (!jobs.some(([k]) => k === want)) problems.push(`${file}: no job \`${want}\``);
  // one pipeline per push: merge request pipelines, and no branch pipeline for a branch with an open merge request
  const rules = isObj(ci.workflow) && Array.isArray(ci.workflow.rules) ? ci.workflow.rules.filter(isObj) : [];
  const ifOf = (r: Obj) => (typeof r.if === 'string' ? r.if : '');
  const mr = rules.findIndex((r) => /\$CI_PIPELINE_SOURCE\s*==\s*"merge_request_event"/.test(ifOf(r)) && r.when !== 'never');
  const never = rules.findIndex((r) => /\$CI_OPEN_MERGE_REQUESTS/.test(ifOf(r)) && r.when === 'never');
  const branch = rules.findIndex((r) => /\$CI_COMMIT_BRANCH|"push"/.test(ifOf(r)) && r.when !== 'never');
  if (!rules.length) problems.push(`${file}: no \`workflow:rules\`: a push to a merge request's branch makes two pipelines (branch and merge request)`);
  else if (mr < 0 || never < 0 || (branch >= 0 && branch < never)) problems.push(`${file}: \`workflow:rules\` must let merge request pipelines in and keep branch pipelines out while a merge request is open (a \`$CI_OPEN_MERGE_REQUESTS\` rule with \`when: never\` before any rule that lets a push in)`);
  for (const [name, job] of jobs) {
    const script = strings(job.script);
    if (!script.length) problems.push(`${file}: job ${name} has no \`script\``);
    for (const key of ['before_script', 'script', 'after_script']) {
      for (const line of nonStringLines(job[key])) problems.push(`${file}: job ${name}: a \`${key}\` line is not a string but ${JSON.stringify(line)} (a \`: \` in an unquoted line makes it a mapping: quote it or use \`|\`)`);
    }
    commands.push(...scripts(job.script), ...scripts(job.before_script), ...scripts(job.after_script));
    const stage = typeof job.stage === 'string' ? job.stage : 'test';
    if (stages.length && !stages.includes(stage)) problems.push(`${file}: job ${name}: stage "${stage}" is not in \`stages\``);
    const artifacts = isObj(job.artifacts) ? job.artifacts : null;
    const junit = artifacts && isObj(artifacts.reports) ? strings(artifacts.reports.junit) : [];
    if (!junit.length) problems.push(`${file}: job ${name} has no \`artifacts:reports:junit\``);
    else if (!junit.some((j) => normal(j) === 'reports/junit.xml')) problems.push(`${file}: job ${name}: \`artifacts:reports:junit\` is ${junit.join(', ')}, not reports/junit.xml`);
    if (artifacts && artifacts.when !== 'always') problems.push(`${file}: job ${name}: \`artifacts:when\` is not \`always\`, so a failing run would publish nothing`);
    if (artifacts && (typeof artifacts.expire_in !== 'string' || !artifacts.expire_in.trim() || artifacts.expire_in.trim() === 'never')) problems.push(`${file}: job ${name}: \`artifacts:expire_in\` is not set, so its reports are kept forever`);
  }
  for (const key of ['before_script', 'after_script']) {
    for (const line of [...nonStringLines(ci[key]), ...nonStringLines(isObj(ci.default) ? ci.default[key] : undefined)]) problems.push(`${file}: a default \`${key}\` line is not a string but ${JSON.stringify(line)}`);
  }
  const settings = literalSettings([ci.variables, ...jobs.map(([, j]) => j.variables)]);
  const paths = [...pathValues(ci as Json), ...pathWords(commands)];
  return [...problems, ...checkNodeMajors(file, gitlabNodeVersions(ci, jobs)), ...checkCommon(file, text, commands, createdBy(commands), paths, ctx, settings)];
}

test.describe('CI templates', () => {
  let ctx: Context;
  test.beforeAll(() => { ctx = projectContext(); });

  test('the GitHub Actions workflow works when adopted', () => {
    expect(checkGithub(read(GITHUB), ctx)).toEqual([]);
  });

  test('the GitLab CI file works when adopted', () => {
    expect(checkGitlab(read(GITLAB), ctx)).toEqual([]);
  });

  test('the checks see what the templates use', () => {
    // a guard against a checker that silently finds nothing to check
    const gh = load(read(GITHUB)).value;
    const ghCommands = Object.values(gh.jobs as Obj).flatMap((j) => (isObj(j) && Array.isArray(j.steps) ? j.steps : [])).flatMap((s) => (isObj(s) && typeof s.run === 'string' ? simpleCommands(s.run) : []));
    expect(ghCommands.map((w) => w.join(' '))).toEqual(expect.arrayContaining(['npm ci', 'npm run certify', 'npm run certify -- --list', 'npm run certify -- --resume']));
    expect(pathWords(ghCommands)).toContain('previous/certification.json');
    expect(createdBy(ghCommands)).toEqual(expect.arrayContaining(['previous', 'reports']));
    expect(pathValues(gh.jobs as Json)).toEqual(expect.arrayContaining(['reports/', 'reports/junit.xml']));
    const gl = load(read(GITLAB)).value;
    expect(isObj(gl.nightly) && isObj(gl.nightly.artifacts) && isObj(gl.nightly.artifacts.reports) && gl.nightly.artifacts.reports.junit).toBe('reports/junit.xml');
    const glNightly = strings((gl.nightly as Obj).script).flatMap(simpleCommands);
    expect(createdBy(glNightly)).toContain('previous');
    expect(pathWords(glNightly)).toContain('previous/reports/certification.json');
    expect(glNightly.map((w) => w.join(' '))).toEqual(expect.arrayContaining(['npm run certify', 'npm run certify -- --resume']));
    // the shell is split as the shell does: a quoted program is one word, `${X:-}` stays whole, keywords go
    expect(simpleCommands(`x=$(node -e '\n  a(); b; # c\n' "$F" "\${R:-}") || { echo "it's: done (now)"; exit 1; }\nif [ -f a/b.json ]; then export A=a/b.json; fi # d`))
      .toEqual([['x=$'], ['node', '-e', '\n  a(); b; # c\n', '$F', '${R:-}'], ['echo', "it's: done (now)"], ['exit', '1'], ['[', '-f', 'a/b.json', ']'], ['A=a/b.json']]);
    expect(ctx.choices.get('SADAD_PAYMENTS')).toEqual(['on', 'off']);
    expect(ctx.choices.get('SADAD_FAIL_ON')).toContain('fail');
    expect([...read(GITHUB).matchAll(VARIABLE)].length).toBeGreaterThan(5);
    expect(ctx.documented).toContain('SADAD_BASE_URL');
    expect(ctx.documented).toContain('MOCK_DEFECTS');
    // only in a table of docs/ (docs/mock.md), so the docs pages are read too
    expect(ctx.documented).toContain('MOCK_EXTRA_COMPANY_IDS');
    expect(ctx.certifyFlags('--resume') && ctx.certifyFlags('--list') && ctx.certifyFlags('--rerun-failed') && ctx.certifyFlags('--report') && ctx.certifyFlags('--compare')).toBe(true);
    expect(ctx.certifyFlags('--no-such-flag')).toBe(false);
    // the Node versions are read, matrices expanded
    expect(githubNodeVersions(gh.jobs as Obj)).toEqual(new Map([['mock', ['22', '24']], ['smoke', ['24']], ['nightly', ['24']]]));
    const glJobs = Object.entries(gl).filter(([k, v]) => ['mock', 'smoke', 'nightly'].includes(k) && isObj(v)) as [string, Obj][];
    expect(gitlabNodeVersions(gl, glJobs)).toEqual(new Map([['mock', ['22', '24']], ['smoke', ['24']], ['nightly', ['24']]]));
  });

  test('a template naming a script, variable, flag, path or action that does not exist, or an unmaintained Node, fails', () => {
    const github = read(GITHUB);
    const gitlab = read(GITLAB);
    const edit = (text: string, from: string | RegExp, to: string) => {
      const out = text.replace(from, to);
      expect(out, `the edit ${String(from)} -> ${to} must change the template`).not.toBe(text);
      return out;
    };
    const expectProblem = (problems: string[], pattern: RegExp) => expect(problems.filter((p) => pattern.test(p)), problems.join('\n')).not.toEqual([]);

    expectProblem(checkGithub(edit(github, 'npm run certify -- --list', 'npm run certfy -- --list'), ctx), /no npm script "certfy"/);
    expectProblem(checkGithub(edit(github, 'SADAD_PROFILE: smoke', 'SADAD_PROFILE: smoke\n      SADAD_NO_SUCH_SETTING: x'), ctx), /not documented.*SADAD_NO_SUCH_SETTING/);
    expectProblem(checkGithub(edit(github, 'SADAD_PROFILE: smoke', 'MOCK_NO_SUCH_SETTING: x'), ctx), /not documented.*MOCK_NO_SUCH_SETTING/);
    // documented (in this in-memory context) but read by no code: still a problem
    const documentedOnly = { ...ctx, documented: new Set([...ctx.documented, 'SADAD_DOCUMENTED_ONLY']) };
    const withDocumentedOnly = checkGithub(edit(github, 'SADAD_PROFILE: smoke', 'SADAD_DOCUMENTED_ONLY: x'), documentedOnly);
    expectProblem(withDocumentedOnly, /read nowhere.*SADAD_DOCUMENTED_ONLY/);
    expect(withDocumentedOnly.filter((p) => /not documented.*SADAD_DOCUMENTED_ONLY/.test(p))).toEqual([]);
    expectProblem(checkGithub(edit(github, 'npm run certify -- --list', 'npm run certify -- --resume-all'), ctx), /--resume-all is neither certify's/);
    expectProblem(checkGithub(edit(github, 'npm run certify -- --list', 'npm run certify -- --list --workers=2 --frobnicate'), ctx), /--frobnicate is neither/);
    expectProblem(checkGithub(edit(github, 'actions/checkout@v6', 'actions/checkout@main'), ctx), /actions\/checkout@main` is not pinned/);
    expectProblem(checkGithub(edit(github, 'uses: actions/setup-node@v6', 'uses: actions/setup-node'), ctx), /actions\/setup-node` is not pinned/);
    expectProblem(checkGithub(edit(github, 'report_paths: reports/junit.xml', 'report_paths: reports/results.xml'), ctx), /path "reports\/results.xml"/);
    expectProblem(checkGithub(edit(github, 'previous/certification.json ]', 'elsewhere/certification.json ]'), ctx), /path "elsewhere\/certification.json"/);
    expectProblem(checkGithub(edit(github, /\n  schedule:\n    - cron: '[^']*'/, ''), ctx), /no `on: schedule`/);
    expectProblem(checkGithub(edit(github, 'runs-on: ubuntu-latest', 'runs_on: ubuntu-latest'), ctx), /has no `runs-on`/);
    expectProblem(checkGithub(edit(github, /(- uses: mikepenz\/action-junit-report@v6\n)\s+if: always\(\)\n/, '$1'), ctx), /has no `if: always\(\)`/);
    expectProblem(checkGithub(edit(github, 'on:\n', 'on:\n  push:\n'), ctx), /^YAML: /);
    expectProblem(checkGithub(edit(github, 'node: [22, 24]', 'node: [20, 22]'), ctx), /job mock runs on Node 20, not one of the maintained/);
    expectProblem(checkGithub(edit(github, 'node: [22, 24]', 'node: [22]'), ctx), /job mock does not run on Node 24/);
    expectProblem(checkGithub(edit(github, /node-version: 24/, 'node-version: 18'), ctx), /job smoke runs on Node 18/);
    expectProblem(checkGithub(edit(github, /(smoke:[\s\S]*?)- uses: actions\/setup-node@v6\n\s+with:\n\s+node-version: 24\n\s+cache: npm\n/, '$1'), ctx), /job smoke does not say which Node/);

    expectProblem(checkGitlab(edit(gitlab, '- npm run certify -- --list', '- npm run certify:smoke'), ctx), /no npm script "certify:smoke"/);
    expectProblem(checkGitlab(edit(gitlab, 'npm run certify -- --list', 'npm run certify -- --resum'), ctx), /--resum is neither/);
    expectProblem(checkGitlab(edit(gitlab, 'SADAD_PROFILE: smoke', 'SADAD_PROFILE: smoke\n    PROVE_NOTHING: "1"'), ctx), /not documented.*PROVE_NOTHING/);
    expectProblem(checkGitlab(edit(gitlab, 'junit: reports/junit.xml', 'junit: reports/junit-report.xml'), ctx), /not reports\/junit.xml/);
    expectProblem(checkGitlab(edit(gitlab, /\n\s+when: always/, ''), ctx), /`artifacts:when` is not `always`/);
    expectProblem(checkGitlab(edit(gitlab, /\nnightly:\n/, '\nnightly-run:\n'), ctx), /no job `nightly`/);
    expectProblem(checkGitlab(edit(gitlab, /(\nsmoke:[\s\S]*?)  <<: \*reports\n/, '$1'), ctx), /job smoke has no `artifacts:reports:junit`/);
    expectProblem(checkGitlab(edit(gitlab, 'previous/reports/certification.json ]', 'prev/reports/certification.json ]'), ctx), /path "prev\/reports\/certification.json"/);
    expectProblem(checkGitlab(edit(gitlab, /\nmock:\n  stage: test\n(  #.*\n)?  image:[\s\S]*?  script:\n    - npm run certify\n/, '\nmock:\n  stage: test\n'), ctx), /job mock has no `script`/);
    expectProblem(checkGitlab(edit(gitlab, 'image: node:24', 'image: node:20'), ctx), /job smoke runs on Node 20/);
    expectProblem(checkGitlab(edit(gitlab, 'NODE_VERSION: ["22", "24"]', 'NODE_VERSION: ["22"]'), ctx), /job mock does not run on Node 24/);
    expectProblem(checkGitlab(edit(gitlab, 'image: node:${NODE_VERSION}', 'image: node:${NODE}'), ctx), /job mock does not say which Node/);
    expectProblem(checkGitlab(edit(gitlab, 'image: node:24', 'image: debian:12'), ctx), /job nightly does not say which Node/);

    // GitHub: Node 24 actions, the token's permissions, secrets, injections, retention, push filter, hidden failures
    expectProblem(checkGithub(edit(github, 'actions/checkout@v6\n        with:\n          persist-credentials: false', 'actions/checkout@v4\n        with:\n          persist-credentials: false'), ctx), /actions\/checkout@v4` is not a major known to run on Node 24/);
    expectProblem(checkGithub(edit(github, 'actions/upload-artifact@v6', 'actions/upload-artifact@v5'), ctx), /upload-artifact@v5` is not a major known to run on Node 24/);
    expectProblem(checkGithub(edit(github, 'mikepenz/action-junit-report@v6', 'mikepenz/action-junit-report@v5'), ctx), /action-junit-report@v5` is not a major known to run on Node 24/);
    expectProblem(checkGithub(edit(github, /- uses: actions\/setup-node@v6/, '- uses: dawidd6/action-download-artifact@v6\n      - uses: actions/setup-node@v6'), ctx), /dawidd6\/action-download-artifact@v6` is not a major known to run on Node 24/);
    expectProblem(checkGithub(edit(github, 'permissions: {}', 'permissions: write-all'), ctx), /top-level `permissions` is "write-all"/);
    expectProblem(checkGithub(edit(github, 'permissions: {}', 'permissions:\n  contents: read\n  checks: write'), ctx), /top-level `permissions` is/);
    expectProblem(checkGithub(edit(github, /\npermissions: \{\}\n/, '\n'), ctx), /no top-level `permissions`/);
    expectProblem(checkGithub(edit(github, /(smoke:[\s\S]*?)    permissions:\n      contents: read\n      checks: write.*\n/, '$1'), ctx), /job smoke declares no `permissions` and needs contents: read, checks: write/);
    expectProblem(checkGithub(edit(github, /(mock:[\s\S]*?      checks: write.*\n)/, '$1      actions: read\n'), ctx), /job mock asks for `actions: read` but has no step that needs it/);
    expectProblem(checkGithub(edit(github, /(mock:[\s\S]*?      )contents: read/, '$1contents: write'), ctx), /job mock asks for `contents: write`; read is enough/);
    expectProblem(checkGithub(edit(github, /(nightly:[\s\S]*?)      actions: read.*\n/, '$1'), ctx), /job nightly needs `actions: read`/);
    expectProblem(checkGithub(edit(github, /(nightly:[\s\S]*?      checks: write.*\n)/, '$1      pull-requests: write\n'), ctx), /job nightly asks for `pull-requests: write`, which no step/);
    expectProblem(checkGithub(edit(github, 'SADAD_PROFILE: smoke', 'SADAD_PROFILE: smoke\n      SADAD_ACCESS_TOKEN: ${{ secrets.SADAD_ACCESS_TOKEN }}'), ctx), /secrets\.SADAD_ACCESS_TOKEN }}` at jobs\.smoke\.env\.SADAD_ACCESS_TOKEN: a secret .* not a job's or the workflow's env/);
    expectProblem(checkGithub(edit(github, 'report_paths: reports/junit.xml\n          check_name: conformance (sandbox nightly)', 'report_paths: reports/junit.xml\n          token: ${{ secrets.GITHUB_TOKEN }}\n          check_name: conformance (sandbox nightly)'), ctx), /jobs\.nightly\.steps\.\d+\.with\.token/);
    expectProblem(checkGithub(edit(github, 'if [ -n "$RESUME_RUN_ID" ]; then npm run certify -- --resume', 'if [ -n "${{ inputs.resume_run_id }}" ]; then npm run certify -- --resume'), ctx), /job nightly, step \d+: `\$\{\{ \}\}` inside `run`/);
    expectProblem(checkGithub(edit(github, /\n\s+retention-days: 14/, ''), ctx), /job smoke: `uses: actions\/upload-artifact@v6` has no `retention-days`/);
    expectProblem(checkGithub(edit(github, 'retention-days: 30', 'retention-days: 400'), ctx), /job nightly: `uses: actions\/upload-artifact@v6` has no `retention-days`/);
    expectProblem(checkGithub(edit(github, /  push:\n    branches: \[main\]\n/, '  push:\n'), ctx), /`on: push` has no branch filter/);
    expectProblem(checkGithub(edit(github, "if: always() && steps.baseline.outcome == 'failure'", 'if: always()'), ctx), /has `continue-on-error` and no later step checks its outcome/);
    expectProblem(checkGithub(edit(github, 'SADAD_FAIL_ON: behaviour', 'SADAD_FAIL_ON: changes'), ctx), /SADAD_FAIL_ON: "changes" is not one of the values the suite accepts/);
    expectProblem(checkGithub(edit(github, "SADAD_PAYMENTS: 'on'", "SADAD_PAYMENTS: 'yes'"), ctx), /SADAD_PAYMENTS: "yes" is not one of/);

    // GitLab: script lines YAML reads as mappings, artifacts kept forever, duplicate pipelines
    expectProblem(checkGitlab(edit(gitlab, '    - npm run certify -- --list\n', '    - echo "the smoke run: starting"\n    - npm run certify -- --list\n'), ctx), /job smoke: a `script` line is not a string but \{"echo \\"the smoke run":"starting\\""\}/);
    expectProblem(checkGitlab(edit(gitlab, 'expire_in: 14 days', 'expire_in: never'), ctx), /job smoke: `artifacts:expire_in` is not set/);
    expectProblem(checkGitlab(edit(gitlab, /\n    expire_in: 30 days/, ''), ctx), /job nightly: `artifacts:expire_in` is not set/);
    expectProblem(checkGitlab(edit(gitlab, /\n    - if: \$CI_COMMIT_BRANCH && \$CI_OPEN_MERGE_REQUESTS\n      when: never/, ''), ctx), /`workflow:rules` must let merge request pipelines in and keep branch pipelines out/);
    expectProblem(checkGitlab(edit(gitlab, /\nworkflow:\n[\s\S]*?\n\n/, '\n\n'), ctx), /no `workflow:rules`/);
    expectProblem(checkGitlab(edit(gitlab, 'SADAD_PROFILE: smoke', 'SADAD_PROFILE: quick'), ctx), /SADAD_PROFILE: "quick" is not one of the values the suite accepts \(full, smoke\)/);
  });
});
