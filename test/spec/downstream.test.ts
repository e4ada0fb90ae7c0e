/**
 * After `npm run spec -- import <changed document>`, everything downstream follows with no code
 * change (design.md §13), end to end. The changed document is made here, at test time, from the API
 * document by small edits (never a committed copy): bill enquiry's AccountNumber at most 20 instead of
 * 24, a new required MOI enquiry request field, bill payment's BankReferenceNumber gone from the
 * answer, the MOI limit 3 -> 2 calls a minute. In a copy of the project:
 *
 * a. the import changes data/ and schemas/ only;
 * b. `npm run certify` against the copy's embedded mock certifies: the mock follows the new document
 *    (validation, answers, limits), and so do the generators and the cases;
 * c. against the unchanged project's mock (`npm run mock`: a service still on the old document) the
 *    copy's run fails exactly on the cases the changes touch, worked out from the change list below;
 * d. the copy's dry run plans the MOI operations at 2 calls a window, and its MOI estimate is the one
 *    that limit implies, not the project's.
 *
 * CPU: one import, two full runs in the loaded window, one dry run; the project's plan is computed in
 * this process from its own case definitions.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { operations, type OperationId } from '../../src/contract/catalogue.js';
import type { FieldTables } from '../../src/contract/field-tables.js';
import type { SpecFacts } from '../../src/contract/spec-model.js';
import { MOCK_DEFAULTS } from '../../src/config/index.js';
import type { CertificationReport } from '../../src/reporter/model.js';
import type { ClientCertificationReport } from '../../src/judge/model.js';
import { PROOF_CLIENT_TIMEOUT_MS, PROOF_LATE_ANSWER_MS, PROOF_WINDOW_SECONDS } from '../../src/prove/client.js';
import { formatDuration, planOf } from '../../src/reporter/plan.js';
import { allCases, registrationWith } from '../../src/suite/cases.js';
import { needsOf } from '../../src/suite/case.js';
import { ROOT } from '../../src/paths.js';
import { currentSpec, type SpecView } from '../../src/contract/spec-refs.js';
import { casesChange } from '../../src/replay/spec-change.js';
import { copyOfSharedRun, sharedRun } from '../support/shared-run.js';
import { startMockProcess } from '../support/mock-process.js';
import { freePort } from '../support/redis.js';
import { LOADED_WINDOW } from '../suite/run-suite.js';
import { changesOf, copyProject, emptyEnvFile, npmRun, type ProjectCopy, type Ran } from './project-copy.js';

// the tests share nothing but the changed document: each worker that runs some of them makes its own
// copy and import (about 3 CPU-s), so that the three runs (b, c, e) go side by side, not one after another
test.describe.configure({ mode: 'parallel', timeout: 600_000 });

const API_DOCUMENT = join(ROOT, '..', 'shared', 'spec', 'api-spec.md');

/**
 * One edit of the document: in section `section` (its heading to the next one), the table row
 * `row` matches; `from` -> `to` in it, or the row removed (`to: null`), or a row inserted after it
 * (`insert`). `rows` says how many rows it must find, so that a document that moved on fails here,
 * not later in a puzzling way.
 */
interface Edit { section: string; row: RegExp; rows?: number; from?: RegExp; to?: string | null; insert?: string }

/**
 * The changes, each with the cases a service still built to the old document FAILs once a client
 * follows the new one (the classification design.md §13 describes: what breaks which side).
 */
interface Change { what: string; edits: Edit[]; failsOnOldService: string[] }

/** The new MOI enquiry request field (§2.5): a required String. */
const NEW_FIELD = 'Nationality';
const NEW_LIMIT = 2;
const NEW_ACCOUNT_LIMIT = 20;

const CHANGES: Change[] = [
  {
    what: `bill enquiry AccountNumber at most ${NEW_ACCOUNT_LIMIT} characters instead of 24 (§2.1, §8)`,
    edits: [
      { section: '2.1', row: /^\| \.\.\.AccountNumber \| yes \| Alphanumeric \|/, from: /\b24\b/, to: String(NEW_ACCOUNT_LIMIT) },
      { section: '8', row: /^\| Bill enquiry `AccountNumber` /, from: /\b24\b/, to: String(NEW_ACCOUNT_LIMIT) },
    ],
    // one over the new limit is within the old one: the old service accepts it. At the new limit it is
    // accepted by both, so `at-limit` passes.
    failsOnOldService: ['bill-enquiry.req.AccountNumber.over-limit'],
  },
  {
    what: `a new required MOI enquiry request field ${NEW_FIELD} (§2.5)`,
    edits: [{ section: '2.5', row: /^\| \.\.\.Duration \| yes \|/, insert: `| ...${NEW_FIELD} | yes | String | Nationality of the person the fee is for |` }],
    // the old service does not read it: omitted, mistyped, null or empty, it is accepted
    failsOnOldService: ['missing', 'wrong-type', 'null', 'empty'].map((kind) => `moi-enquiry.req.${NEW_FIELD}.${kind}`),
  },
  {
    what: 'BankReferenceNumber removed from the bill payment answer (§2.4)',
    edits: [{ section: '2.4', row: /^\| \.\.BankReferenceNumber \|/, to: null }],
    // the old service still sends it: a field more, which both schema profiles allow (targets add
    // fields), so neither a FAIL nor a WARN; the test shows it is sent and judged PASS
    failsOnOldService: [],
  },
  {
    what: `the MOI limit ${NEW_LIMIT} calls per minute instead of 3 (§4, §8)`,
    edits: [
      { section: '4', row: /^\| MOI (Enquiry|Payment) \|/, rows: 2, from: /\b3 calls per minute\b/, to: `${NEW_LIMIT} calls per minute` },
      { section: '8', row: /^\| Sandbox rate, MOI /, from: /\b3 calls per minute\b/, to: `${NEW_LIMIT} calls per minute` },
    ],
    // the old service accepts the call over the new limit in a burst
    failsOnOldService: operations.filter((o) => o.rateGroup === 'moi').map((o) => `${o.id}.rate.limit`),
  },
];

/** The lines of a section: from its heading (`## 4.` or `### 2.1 `) to the next heading. */
function sectionLines(lines: string[], section: string): [number, number] {
  const start = lines.findIndex((l) => new RegExp(`^#{2,4} ${section.replace('.', '\\.')}[. ]`).test(l));
  if (start < 0) throw new Error(`the API document has no section ${section}`);
  const next = lines.findIndex((l, i) => i > start && /^#{1,4} /.test(l));
  return [start, next < 0 ? lines.length : next];
}

function applyEdit(text: string, e: Edit): string {
  const lines = text.split('\n');
  const [start, end] = sectionLines(lines, e.section);
  const hits: number[] = [];
  for (let i = start; i < end; i++) if (e.row.test(lines[i]!)) hits.push(i);
  if (hits.length !== (e.rows ?? 1)) throw new Error(`§${e.section}: ${hits.length} rows match ${e.row}, expected ${e.rows ?? 1}`);
  for (const i of [...hits].reverse()) {
    if (e.insert !== undefined) lines.splice(i + 1, 0, e.insert);
    else if (e.to === null) lines.splice(i, 1);
    else {
      const changed = lines[i]!.replace(e.from!, e.to!);
      if (changed === lines[i]) throw new Error(`§${e.section}: ${e.from} not found in ${JSON.stringify(lines[i])}`);
      lines[i] = changed;
    }
  }
  return lines.join('\n');
}

const changedDocument = () => CHANGES.flatMap((c) => c.edits).reduce(applyEdit, readFileSync(API_DOCUMENT, 'utf8'));

const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const report = (dir: string) => readJson<CertificationReport>(join(dir, 'certification.json'));
const verdicts = (r: CertificationReport) => new Map(r.cases.map((c) => [c.id, c]));
const tail = (run: Ran) => run.output.slice(-3000);

let base: string;
let copy: ProjectCopy;
let envFile: string;
let imported: Ran;
let failed = false;

/** `npm run certify` in the copy, reports outside it, Playwright's line reporter and the certification reporter only. */
const certify = (name: string, env: Record<string, string>, args: string[] = []) => npmRun(copy.dir, 'certify',
  [`--reporter=line,${join(copy.dir, 'src/reporter/certification.ts')}`, ...args],
  { SADAD_WORKERS: '1', SADAD_REPORTS_DIR: join(base, name, 'reports'), SADAD_RESULTS_DIR: join(base, name, 'test-results'), ...env }, envFile, 400_000);

test.beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'sadad-downstream-'));
  envFile = emptyEnvFile(base);
  const document = join(base, 'api-spec.md');
  writeFileSync(document, changedDocument());
  copy = copyProject(join(base, 'project'));
  imported = await npmRun(copy.dir, 'spec', ['import', document], {}, envFile, 180_000);
});

test.afterEach(() => { if (test.info().status !== test.info().expectedStatus) failed = true; });

test.afterAll(() => {
  // kept when something failed, to look at
  if (!failed) rmSync(base, { recursive: true, force: true });
  else console.log(`downstream test: the copy and its runs are kept in ${base}`);
});

test('a. the import writes the changed document into data/ and schemas/, and changes nothing else', () => {
  expect(imported.code, tail(imported)).toBe(0);
  const { changed, added, removed } = changesOf(copy);
  const touched = [...changed, ...added, ...removed];
  expect(touched.filter((f) => !/^(data|schemas)\//.test(f)), 'only data/ and schemas/ change').toEqual([]);
  expect(removed).toEqual([]);
  expect(touched).toEqual(expect.arrayContaining([
    'data/field-tables.json', 'data/spec.json', 'schemas/openapi.json',
    'schemas/bill-enquiry.request.schema.json', 'schemas/moi-enquiry.request.schema.json',
    'schemas/bill-payment.response.schema.json', 'schemas/bill-payment.response.strict.schema.json',
  ]));
  // and what it wrote is the changed document
  const tables = readJson<FieldTables>(join(copy.dir, 'data/field-tables.json'));
  const rows = (key: string) => tables.messages[key]!.fields;
  expect(rows('bill-enquiry.request').find((f) => f.path.endsWith('TransactionData[].AccountNumber'))?.maxLength).toBe(NEW_ACCOUNT_LIMIT);
  expect(rows('moi-enquiry.request').find((f) => f.path.endsWith(`TransactionData[].${NEW_FIELD}`))).toMatchObject({ required: true, type: 'String' });
  expect(rows('bill-payment.response').some((f) => f.path.endsWith('.BankReferenceNumber'))).toBe(false);
  expect(rows('moi-payment.response').some((f) => f.path.endsWith('.BankReferenceNumber')), 'the MOI payment answer keeps its own').toBe(true);
  const facts = readJson<SpecFacts>(join(copy.dir, 'data/spec.json'));
  expect(Object.fromEntries(facts.operations.map((o) => [o.id, o.rateLimit]))).toEqual({ 'bill-enquiry': 10, 'bill-payment': 10, 'moi-enquiry': NEW_LIMIT, 'moi-payment': NEW_LIMIT });
  const openapi = readJson<{ paths: Record<string, { post: { 'x-rate-limit': { limit: number } } }> }>(join(copy.dir, 'schemas/openapi.json'));
  expect(openapi.paths['/api/enquiry/sadad/moi']!.post['x-rate-limit'].limit).toBe(NEW_LIMIT);
});

test('b. npm run certify in the copy, against its own embedded mock, certifies: the mock, the generators and the cases follow the new document', async () => {
  const run = await certify('own', { ...LOADED_WINDOW });
  expect(run.code, tail(run)).toBe(0);
  const r = report(join(base, 'own', 'reports'));
  const bad = r.cases.filter((c) => !['PASS', 'WARN', 'OBSERVED', 'NOT_APPLICABLE', 'SKIPPED'].includes(c.verdict));
  expect(bad.map((c) => `${c.id} ${c.verdict}: ${c.notes.map((n) => n.text).join('; ')}`), 'no FAIL, ERROR, INCONCLUSIVE or NOT_RUN').toEqual([]);
  const byId = verdicts(r);
  // the cases the changes touch are there, and pass against a mock of the new document
  for (const id of CHANGES.flatMap((c) => c.failsOnOldService)) expect(byId.get(id)?.verdict, id).toBe('PASS');
  expect(byId.get('bill-enquiry.req.AccountNumber.at-limit')?.expectation).toContain(`exactly ${NEW_ACCOUNT_LIMIT} characters`);
  expect(byId.get('bill-enquiry.req.AccountNumber.over-limit')?.expectation).toContain(`${NEW_ACCOUNT_LIMIT + 1} characters`);
  for (const op of ['moi-enquiry', 'moi-payment']) expect(String(byId.get(`${op}.rate.limit`)?.observation?.['limit per window']), op).toMatch(new RegExp(`^${NEW_LIMIT} calls per `));
  // the mock answers a bill payment without the field the document removed
  const fields = byId.get('bill-payment.res.schema')?.observation?.['response fields'] as string[];
  expect(fields.some((f) => f.includes('TransactionData[].PaidAmount'))).toBe(true);
  expect(fields.filter((f) => f.includes('BankReferenceNumber'))).toEqual([]);
});

test('c. against the unchanged project\'s mock (the old document), the copy\'s run fails exactly on the cases the changes touch', async () => {
  // `npm run mock` of the project itself, in the window the project's full runs use
  const mock = await startMockProcess({ ...LOADED_WINDOW }, await freePort());
  let run: Ran;
  try {
    run = await certify('old-service', {
      SADAD_BASE_URL: mock.url, SADAD_ACCESS_TOKEN: MOCK_DEFAULTS.accessToken, SADAD_COMPANY_ID: MOCK_DEFAULTS.companyId,
      SADAD_CLIENT_ID: MOCK_DEFAULTS.clientId, SADAD_CLIENT_SECRET: MOCK_DEFAULTS.clientSecret,
      SADAD_RATE_WINDOW_SECONDS: LOADED_WINDOW.MOCK_RATE_WINDOW_SECONDS, SADAD_PAYMENTS: 'on',
    });
  } finally {
    await mock.stop();
  }
  expect(mock.output()).toMatch(/rate limits bill 10 \/ moi 3 per 0\.25 s/);
  const r = report(join(base, 'old-service', 'reports'));
  expect(r.cases.length, tail(run)).toBeGreaterThan(400);
  expect(run.code, 'the run fails').toBe(1);
  const expected = CHANGES.flatMap((c) => c.failsOnOldService).sort();
  const failing = r.cases.filter((c) => c.verdict === 'FAIL').map((c) => c.id).sort();
  expect(failing, r.cases.filter((c) => c.verdict === 'FAIL').map((c) => `${c.id}: ${c.notes.map((n) => n.text).join('; ')}`).join('\n')).toEqual(expected);
  const broken = r.cases.filter((c) => ['ERROR', 'INCONCLUSIVE', 'NOT_RUN'].includes(c.verdict));
  expect(broken.map((c) => `${c.id} ${c.verdict}: ${c.notes.map((n) => n.text).join('; ')}`), 'no other case breaks').toEqual([]);
  const byId = verdicts(r);
  // at the new limit, within the old one: accepted by both
  expect(byId.get('bill-enquiry.req.AccountNumber.at-limit')?.verdict).toBe('PASS');
  // the removed answer field: the old service still sends it, and that is neither a FAIL nor a WARN
  // (the case WARNs on the sample style's types, as against the project's own mock; none of its notes names the field)
  const schemaCase = byId.get('bill-payment.res.schema')!;
  expect((schemaCase.observation?.['response fields'] as string[]).filter((f) => f.includes('BankReferenceNumber')), 'the old service still sends it').toHaveLength(1);
  expect(['PASS', 'WARN']).toContain(schemaCase.verdict);
  expect(schemaCase.notes.filter((n) => n.text.includes('BankReferenceNumber'))).toEqual([]);
});

test('d. the copy\'s dry run plans the MOI operations at the new limit, and its MOI estimate is the one that limit implies', async () => {
  const window = 60;
  const run = await certify('dry-run', { SADAD_DRY_RUN: '1', SADAD_RATE_WINDOW_SECONDS: String(window) });
  expect(run.code, tail(run)).toBe(0);
  const lines = new Map([...run.output.matchAll(/^ {2}([\w-]+)\s+(\d+) calls at (\d+) per ([\d.]+) s {2}-> (.+)$/gm)]
    .map((m) => [m[1]!, { calls: Number(m[2]), limit: Number(m[3]), window: Number(m[4]), time: m[5]! }]));
  expect([...lines.keys()], run.output.slice(-2000)).toEqual(operations.map((o) => o.id));
  // the project's plan, from its own definitions at its own limits, with the same context (one worker, no signer, no preflight)
  const defs = allCases(registrationWith('full')).map(([def]) => def);
  const projectLimits = Object.fromEntries(operations.map((o) => [o.id, o.defaultRateLimit]));
  const projectPlan = planOf(defs.map((d) => ({ id: d.id, operation: d.op, family: d.family, level: d.level, calls: d.calls ?? { [d.op]: 1 },
    ...(d.shared ? { shared: d.shared } : {}), ...(needsOf(d).length ? { needs: needsOf(d) } : {}), ...(d.payments ? { payments: d.payments } : {}) })),
  { windowSeconds: window, perOperation: projectLimits, source: 'the project' }, { workers: 1, signer: false, payments: true, preflight: false });
  for (const op of operations.map((o) => o.id as OperationId)) {
    const l = lines.get(op)!;
    const moi = op.startsWith('moi-');
    expect(l.limit, op).toBe(moi ? NEW_LIMIT : projectLimits[op]);
    expect(l.window).toBe(window);
    // the estimate is the new limit's: ceil(calls / limit) x window
    expect(l.time, op).toBe(formatDuration(Math.ceil(l.calls / l.limit) * window));
    const projects = formatDuration(projectPlan.estimate.perOperation[op]!);
    if (moi) {
      expect(l.time, `${op}: not the project's`).not.toBe(projects);
      expect(Math.ceil(l.calls / l.limit), `${op}: more windows at ${NEW_LIMIT} a window than the project's at ${projectLimits[op]}`).toBeGreaterThan(Math.ceil(projectPlan.calls[op]! / projectLimits[op]!));
    } else {
      expect(l.time, `${op}: as the project's`).toBe(projects);
    }
  }
});

test('e. a package recorded under the old document, re-judged in the copy: untouched verdicts kept, exactly the affected cases NOT_RUN; --resume runs only those and the merged package certifies', async () => {
  test.setTimeout(600_000);
  // the project's shared full run: recorded under the old document, read only (its copy is re-judged)
  const shared = await sharedRun();
  const recorded = copyOfSharedRun(shared);
  const before = report(recorded);
  const beforeIds = new Set(before.cases.map((c) => c.id));
  // its settings, with a gateway log of this test's own (the shared run's files stay untouched)
  const env = { ...shared.env, MOCK_ACCESS_LOG: join(base, 'recertify.jsonl') };
  const expectRejudged = (name: string, affected: Set<string>, added: string[]) => {
    const r = report(join(base, name, 'reports'));
    expect(r.fingerprint.specDocument?.sha256).not.toBe(before.fingerprint.specDocument?.sha256);
    expect(r.cases.filter((c) => !beforeIds.has(c.id)).map((c) => c.id).sort(), 'the cases the new document adds').toEqual([...added].sort());
    for (const c of r.cases.filter((x) => !beforeIds.has(x.id))) expect([c.verdict, c.notes[0]?.text], c.id).toEqual(['NOT_RUN', expect.stringMatching(/^needs a new run: the spec added /)]);
    expect(before.cases.filter((b) => !r.cases.some((c) => c.id === b.id)).map((b) => b.id), 'no case of the recorded package leaves it').toEqual([]);
    for (const b of before.cases) {
      const now = r.cases.find((c) => c.id === b.id)!;
      if (affected.has(b.id)) expect([now.verdict, now.notes[0]?.text], b.id).toEqual(['NOT_RUN', expect.stringMatching(/^needs a new run: the spec changed /)]);
      else expect(now.verdict, `${b.id}: untouched by the change, its verdict stands`).toBe(b.verdict);
    }
    return r;
  };
  // a copy of its own: it imports a second document, which the other tests of this worker must not see
  const own = copyProject(join(base, 'project-e'));
  const first = await npmRun(own.dir, 'spec', ['import', join(base, 'api-spec.md')], {}, envFile, 180_000);
  expect(first.code, tail(first)).toBe(0);
  const certifyAs = (name: string, env: Record<string, string>, args: string[]) => npmRun(own.dir, 'certify', args,
    { SADAD_WORKERS: '1', SADAD_REPORTS_DIR: join(base, name, 'reports'), SADAD_RESULTS_DIR: join(base, name, 'test-results'), ...env }, envFile, 400_000);
  const specOfCopy = (): SpecView => ({ fieldTables: readJson<FieldTables>(join(own.dir, 'data/field-tables.json')), facts: readJson<SpecFacts>(join(own.dir, 'data/spec.json')) });

  // 1. the four changes together: a longer request table or a new field changes the body every call of
  // the operation sends, and the payments are built on an enquiry, so most cases need a new run
  const all = casesChange(currentSpec(), specOfCopy());
  const rejudgedAll = await certifyAs('recertify-all', env, ['--rejudge', recorded]);
  const rAll = expectRejudged('recertify-all', new Set(all.changed.map((c) => c.id)), ['empty', 'missing', 'null', 'wrong-type'].map((k) => `moi-enquiry.req.${NEW_FIELD}.${k}`));
  expect(rAll.fingerprint.specDocument?.source, tail(rejudgedAll)).toBe('api-spec.md');
  console.log(`re-judged under the four changes: ${all.changed.length} of ${before.cases.length} cases need a new run, ${rAll.cases.length - before.cases.length} added`);

  // 2. a document with only the lower MOI limit and the removed answer field: three cases, and a resume of three
  const document = join(base, 'limit-and-answer.md');
  writeFileSync(document, CHANGES.filter((c) => /MOI limit|BankReferenceNumber/.test(c.what)).flatMap((c) => c.edits).reduce(applyEdit, readFileSync(API_DOCUMENT, 'utf8')));
  const again = await npmRun(own.dir, 'spec', ['import', document], {}, envFile, 180_000);
  expect(again.code, tail(again)).toBe(0);
  const few = casesChange(currentSpec(), specOfCopy());
  expect(few.changed.map((c) => c.id).sort()).toEqual(['bill-payment.res.schema', 'moi-enquiry.rate.limit', 'moi-payment.rate.limit']);
  expect(few.added).toEqual([]);
  await certifyAs('recertify', env, ['--rejudge', recorded]);
  const r = expectRejudged('recertify', new Set(few.changed.map((c) => c.id)), []);
  expect(r.cases.find((c) => c.id === 'moi-enquiry.rate.limit')!.notes[0]!.text).toMatch(/^needs a new run: the spec changed the moi-enquiry rate limit/);
  expect(r.cases.find((c) => c.id === 'bill-payment.res.schema')!.notes[0]!.text).toBe('needs a new run: the spec changed the bill-payment.response field table');
  // the re-judged package paces its resume at the new MOI limit
  expect(r.identity.limits).toMatchObject({ moi: NEW_LIMIT, bill: 10 });

  const resumed = await certifyAs('recertify', env, ['--resume']);
  expect(resumed.code, tail(resumed)).toBe(0);
  expect(resumed.output).toContain('--resume: running 3 cases (3 NOT_RUN)');
  const merged = report(join(base, 'recertify', 'reports'));
  expect(merged.outcome.summary).toBe(`Certifies: no FAIL and no ERROR in ${before.cases.length} cases.`);
  const last = merged.runs.at(-1)!.runId;
  expect(merged.cases.filter((c) => c.runId === last).map((c) => c.id).sort(), 'the resume ran exactly the affected cases').toEqual(few.changed.map((c) => c.id).sort());
});

test('f. the client judge follows too: a client still on the old document (the project\'s sample client) fails the request rule the new field changed', async () => {
  // certify-client of the copy (its mock and judge built from the new document) around the project's own sample client
  const dir = join(base, 'client');
  const run = await new Promise<Ran>((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(copy.dir, 'src/cli/certify-client.ts'),
      '--port', '0', '--window', String(PROOF_WINDOW_SECONDS), '--late-answer-ms', String(PROOF_LATE_ANSWER_MS), '--client-env', join(base, 'client.env'),
      '--', process.execPath, join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'examples/client/run.ts')], {
      cwd: copy.dir, stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? base, SADAD_REPORTS_DIR: dir, SAMPLE_CLIENT_TIMEOUT_MS: String(PROOF_CLIENT_TIMEOUT_MS), SADAD_ENV_FILE: envFile },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output, durationMs: Date.now() - started }));
  });
  expect(run.code, tail(run)).toBe(1);
  const r = readJson<ClientCertificationReport>(join(dir, 'client-certification.json'));
  const schema = r.cases.find((c) => c.id === 'client.moi-enquiry.req.schema')!;
  expect(schema.verdict, tail(run)).toBe('FAIL');
  expect(schema.notes.map((n) => n.text).join('\n')).toContain(NEW_FIELD);
  // the bill operations' requests are still the document's (the client's account numbers are within 20)
  expect(r.cases.find((c) => c.id === 'client.bill-enquiry.req.schema')?.verdict).toBe('PASS');
  // and its coverage says the client never carried the new row
  const row = r.specCoverage!.items.find((i) => i.ref.endsWith(`.request:Message.SvcSadadMOIEnquiryRequest.SvcSadadMOIEnquiry[].TransactionData[].${NEW_FIELD}`))!;
  expect(row.tested).toEqual([]);
});
