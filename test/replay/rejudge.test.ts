/**
 * Re-judging from evidence (src/replay, docs/rejudging.md): a verdict is a function of the recorded
 * exchanges. One run against a mock with defects (FAIL, PASS, INCONCLUSIVE, shared preconditions)
 * is re-judged as it is, then with its evidence edited: a verdict, an answer, a request, a label.
 * `npm run certify -- --rejudge` writes a new package that says it was re-judged, and sends nothing.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { rejudgePackage } from '../../src/replay/index.js';
import { SCHEMAS_DIR } from '../../src/paths.js';
import { certify, type CertifyRun } from '../reporter/helpers.js';
import { LOADED_WINDOW } from '../suite/run-suite.js';
import { expectVerdictsReproduced } from './helpers.js';

test.describe.configure({ mode: 'serial', timeout: 240_000 });

interface Ev { id: string; verdict: string; notes: { verdict: string; text: string }[]; exchanges: { label: string; op: string; request: { body: string; headers: Record<string, string> }; response?: { status: number; body: string } }[]; writtenBy?: string }
const readEv = (dir: string, id: string) => JSON.parse(readFileSync(join(dir, 'evidence', `${id}.json`), 'utf8')) as Ev;
const writeEv = (dir: string, ev: Ev) => writeFileSync(join(dir, 'evidence', `${ev.id}.json`), JSON.stringify(ev, null, 2));
/** A copy of the package to tamper with. */
function copy(dir: string): string {
  const to = join(mkdtempSync(join(tmpdir(), 'sadad-rejudge-')), 'reports');
  cpSync(dir, to, { recursive: true });
  return to;
}

let run: CertifyRun;
// a mock that accepts a missing BranchCode (FAIL) and an AccountNumber of 25 (FAIL); the rest PASS
const DEFECTS = 'required-field-unchecked,account-number-25-accepted';

test.beforeAll(async () => {
  run = await certify({ ...LOADED_WINDOW, MOCK_DEFECTS: DEFECTS, SADAD_SEED: '23' });
  expect(run.output).toMatch(/Does not certify/);
});

test('a fresh package, re-judged from its evidence in well under a second per hundred cases, gives every verdict it records', async () => {
  const started = Date.now();
  const r = await expectVerdictsReproduced(run.reportsDir);
  const ms = Date.now() - started;
  expect(r.cases).toHaveLength(453);
  expect(r.cases.filter((c) => c.rejudged === 'FAIL').map((c) => c.id)).toEqual(expect.arrayContaining(['moi-enquiry.req.BranchCode.missing', 'bill-enquiry.req.AccountNumber.over-limit']));
  test.info().annotations.push({ type: 'figure', description: `453 cases re-judged in ${ms} ms` });
});

test('a verdict edited to PASS: the re-judge gives the FAIL its evidence shows', async () => {
  const dir = copy(run.reportsDir);
  const ev = readEv(dir, 'moi-enquiry.req.BranchCode.missing');
  expect(ev.verdict).toBe('FAIL');
  writeEv(dir, { ...ev, verdict: 'PASS', notes: [] });
  const r = await rejudgePackage(dir);
  expect(r.differing.map((d) => [d.id, d.recorded, d.rejudged])).toEqual([['moi-enquiry.req.BranchCode.missing', 'PASS', 'FAIL']]);
  expect(r.differing[0]!.notes.map((n) => n.text).join(' ')).toMatch(/accepted/);
});

test('an answer edited (a rejection made a success): judged as what the evidence now says, so the verdict changes', async () => {
  const dir = copy(run.reportsDir);
  const id = 'bill-enquiry.req.BillerId.missing';
  const ev = readEv(dir, id);
  expect(ev.verdict).toBe('PASS');
  const accepted = readEv(dir, 'bill-enquiry.res.schema').exchanges.find((x) => x.response?.status === 200)!;
  const mutated = ev.exchanges.find((x) => x.label === 'BillerId.missing')!;
  mutated.response = accepted.response;
  writeEv(dir, ev);
  const r = await rejudgePackage(dir);
  expect(r.differing.map((d) => [d.id, d.recorded, d.rejudged])).toEqual([[id, 'PASS', 'FAIL']]);
});

test('a recorded request the script would not send (the suite changed how it tests, or the request was edited): NOT_RUN, needs a new run, naming the difference', async () => {
  const dir = copy(run.reportsDir);
  const id = 'bill-enquiry.req.SubscriberNumber.empty';
  const ev = readEv(dir, id);
  const ex = ev.exchanges.find((x) => x.label === 'SubscriberNumber.empty')!;
  ex.request.body = ex.request.body.replace('"SubscriberNumber":""', '"SubscriberNumber":" "');
  writeEv(dir, ev);
  // and another case whose script now sends a request under a label the evidence does not hold
  const other = readEv(dir, 'moi-payment.req.AccountNumber.missing');
  for (const x of other.exchanges) x.label = `${x.label} (renamed)`;
  writeEv(dir, other);
  const r = await rejudgePackage(dir);
  const byId = new Map(r.differing.map((d) => [d.id, d]));
  expect([...byId.keys()].sort()).toEqual(['bill-enquiry.req.SubscriberNumber.empty', 'moi-payment.req.AccountNumber.missing']);
  const a = byId.get(id)!;
  expect(a.rejudged).toBe('NOT_RUN');
  expect(a.divergence).toMatch(/"SubscriberNumber\.empty": the body the case now sends differs from the recorded one at .*SubscriberNumber: now "", recorded " "/);
  expect(a.notes[0]!.text).toMatch(/^needs a new run: /);
  expect(byId.get('moi-payment.req.AccountNumber.missing')!.divergence).toMatch(/now sends ".*" \(.*\), which its evidence does not record/);
});

test('evidence the reporter wrote (a case that ended without a verdict) edited to PASS: NOT_RUN, since there is nothing to re-judge', async () => {
  const dir = copy(run.reportsDir);
  const ev = readEv(dir, 'bill-payment.req.Amount.null');
  writeEv(dir, { ...ev, writtenBy: 'reporter', verdict: 'PASS' });
  const r = await rejudgePackage(dir);
  expect(r.differing.map((d) => [d.id, d.rejudged])).toEqual([['bill-payment.req.Amount.null', 'NOT_RUN']]);
});

test('a judging configuration edited out of shape (a seed that is no number): every case of its worker NOT_RUN, naming the field, never judged on a guess', async () => {
  const dir = copy(run.reportsDir);
  const ev = readEv(dir, 'bill-enquiry.req.SubscriberNumber.empty') as Ev & { replay: { worker: string; seq: number; config: Record<string, unknown> } };
  // the first case of the worker carries the configuration its re-judge reads
  const worker = readdirSync(join(dir, 'evidence')).map((f) => JSON.parse(readFileSync(join(dir, 'evidence', f), 'utf8')) as typeof ev)
    .filter((e) => e.replay?.worker === ev.replay.worker).sort((a, b) => a.replay.seq - b.replay.seq);
  writeEv(dir, { ...worker[0]!, replay: { ...worker[0]!.replay, config: { ...worker[0]!.replay.config, seed: 'x' } } } as Ev);
  const r = await rejudgePackage(dir);
  const mine = r.cases.filter((c) => worker.some((w) => w.id === c.id));
  expect(mine.length).toBe(worker.length);
  for (const c of mine) {
    expect(c.rejudged, c.id).toBe('NOT_RUN');
    expect(c.divergence, c.id).toMatch(/no usable judging configuration \(seed\)/);
  }
});

test('npm run certify -- --rejudge: a new package, valid against its schema, whose fingerprint says it was re-judged, from which run and by which suite; the one re-judged is untouched', async () => {
  const out = join(mkdtempSync(join(tmpdir(), 'sadad-rejudged-')), 'reports');
  const before = readFileSync(join(run.reportsDir, 'certification.json'), 'utf8');
  const r = await certify({}, ['--rejudge', run.reportsDir, '--out', out]);
  expect(r.output).toContain('nothing was sent');
  expect(r.output).toContain('every verdict is the one recorded');
  expect(r.code, r.output).toBe(1);
  const pkg = JSON.parse(readFileSync(join(out, 'certification.json'), 'utf8'));
  const original = JSON.parse(before);
  expect(pkg.fingerprint.rejudged).toEqual({ at: expect.any(String), suite: expect.objectContaining({ name: 'sadad-conformance', version: expect.any(String) }), fromRuns: original.runs.map((x: { runId: string }) => x.runId), differing: [] });
  expect(pkg.runs).toEqual(original.runs);
  expect(pkg.cases.map((c: { id: string; verdict: string }) => [c.id, c.verdict])).toEqual(original.cases.map((c: { id: string; verdict: string }) => [c.id, c.verdict]));
  expect(pkg.outcome.summary).toBe(original.outcome.summary);
  // the stable facts a comparison reads are recomputed from the evidence, the same as the run's
  const factsOf = (p: { cases: { id: string; facts?: Record<string, string> }[] }) => p.cases.map((c) => [c.id, c.facts ?? null]);
  expect(original.cases.filter((c: { facts?: object }) => c.facts).length).toBeGreaterThan(400);
  expect(factsOf(pkg)).toEqual(factsOf(original));
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const validate = ajv.compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, 'certification.schema.json'), 'utf8')));
  expect(validate(pkg), JSON.stringify(validate.errors)).toBe(true);
  expect(execFileSync('sha256sum', ['--quiet', '-c', 'certification.sha256'], { cwd: out, encoding: 'utf8' })).toBe('');
  expect(readFileSync(join(run.reportsDir, 'certification.json'), 'utf8')).toBe(before);
  expect(readFileSync(join(out, 'certification.html'), 'utf8')).toMatch(/<strong>Re-judged<\/strong> from its evidence on .* every verdict as recorded/);

  // a suite change seen as evidence the script no longer matches: the new package says which cases need a new run
  const tampered = copy(run.reportsDir);
  const ev = readEv(tampered, 'bill-enquiry.req.SubscriberNumber.empty');
  for (const x of ev.exchanges) x.label = `${x.label} v0`;
  writeEv(tampered, ev);
  const out2 = join(mkdtempSync(join(tmpdir(), 'sadad-rejudged-')), 'reports');
  const r2 = await certify({}, ['--rejudge', tampered, '--out', out2]);
  expect(r2.output).toMatch(/bill-enquiry\.req\.SubscriberNumber\.empty: PASS -> NOT_RUN, needs a new run/);
  const pkg2 = JSON.parse(readFileSync(join(out2, 'certification.json'), 'utf8'));
  expect(pkg2.fingerprint.rejudged.differing).toEqual(['bill-enquiry.req.SubscriberNumber.empty']);
  expect(pkg2.outcome.notRun).toEqual(['bill-enquiry.req.SubscriberNumber.empty']);
  const ev2 = readEv(out2, 'bill-enquiry.req.SubscriberNumber.empty') as Ev & { rejudged?: { recorded: string; divergence?: string } };
  expect(ev2.verdict).toBe('NOT_RUN');
  expect(ev2.rejudged).toEqual({ recorded: 'PASS', divergence: expect.stringMatching(/does not record/) });
});

test('--rejudge refuses what it cannot do, exit 2, in words: its own folder as the output, a folder without a package, a missing folder name', async () => {
  const same = await certify({}, ['--rejudge', run.reportsDir, '--out', run.reportsDir]);
  expect([same.code, same.output]).toEqual([2, expect.stringMatching(/keeps the one it re-judges/)]);
  const empty = await certify({}, ['--rejudge', mkdtempSync(join(tmpdir(), 'sadad-empty-'))]);
  expect([empty.code, empty.output]).toEqual([2, expect.stringMatching(/holds no package/)]);
  const bare = await certify({}, ['--rejudge']);
  expect([bare.code, bare.output]).toEqual([2, expect.stringMatching(/--rejudge needs the package folder/)]);
  const mixed = await certify({}, ['--rejudge', run.reportsDir, '--workers', '2']);
  expect([mixed.code, mixed.output]).toEqual([2, expect.stringMatching(/takes no other flag/)]);
});
