/**
 * client-certification.json's schema and client-certification.html, on a synthetic report with
 * both sides (client and sandbox), every verdict a client package shows, a reached and an
 * unreached scenario, and a secret in an exchange's Authorization header and body: the schema
 * takes the report and refuses a broken one; Debian Chromium shows the outcome, what to trigger,
 * the failing case's notes and the sandbox's answers, offline, printable, and no secret anywhere.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { registerSecret } from '../../src/client/redact.js';
import { renderClientHtml } from '../../src/judge/html.js';
import { CLIENT_FAMILIES, CLIENT_FORMAT, CLIENT_FORMAT_VERSION, type ClientCase, type ClientCertificationReport, type ScenarioReport } from '../../src/judge/model.js';
import { buildMatrix, countVerdicts, SPEC_SECTIONS } from '../../src/reporter/model.js';
import { REPORTS_DIR, SCHEMAS_DIR } from '../../src/paths.js';
import { VERDICT_ORDER, type Verdict } from '../../src/vocabulary/verdicts.js';

const CHROMIUM = '/usr/bin/chromium';
// the page fixture opens Debian Chromium: test/playwright.config.ts's `use` (one for every file, so that they share workers)

// ajv-formats is CommonJS: under nodenext its callable export sits on `.default`.
const addFormats = ajvFormats.default;

const secret = `client-tok-${randomBytes(12).toString('hex')}`;
registerSecret(secret);

const FAILING = 'client.bill-payment.payment-safety.enquiry-first';
const UNREACHED = 'client.bill-payment.scenario.in-band-failure';
const REACHED = 'client.bill-enquiry.scenario.rate-limited';
const NOT_CERTIFIED = 'client.moi-payment.scenario.rate-limited';
const TRIGGER = 'pay a bill whose BillAccountID ends in 9500';
const FAIL_NOTE = 'payment 2 of 3 (SequenceNumber S-17) was sent without an enquiry of that bill before it';
const SANDBOX_FAIL = 'bill-enquiry.res.schema';

function aCase(id: string, verdict: Verdict, extra: Partial<ClientCase> = {}): ClientCase {
  const side = extra.side ?? 'client';
  const operation = extra.operation ?? (side === 'client' ? id.split('.')[1]! : id.split('.')[0]!);
  return {
    id, side, title: `${id} §4`, file: 'client-traffic', operation, family: 'client-request', level: 'MUST', sections: ['2.3', '4'],
    expectation: 'requests valid against the request schema', verdict, notes: [], observation: null, waiver: null,
    testStatus: verdict === 'FAIL' ? 'failed' : verdict === 'PASS' || verdict === 'WARN' ? 'passed' : 'skipped',
    durationMs: 0, calls: { [operation]: 3 }, evidenceFile: null, runId: 'judge-1', attempts: [], transient: [], exchanges: [],
    ...extra,
  };
}

function report(): ClientCertificationReport {
  const exchange = {
    label: 'call 2 of 3', op: 'bill-payment',
    request: {
      method: 'POST', url: 'http://127.0.0.1:4010/api/payment/sadad/bill',
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json', 'X-Signature': 'sig-abc' },
      body: JSON.stringify({ SvcSadadBillPayment: { SequenceNumber: 'S-17', Amount: 250.5, note: `copy of ${secret}` } }),
    },
    response: { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ echoed: secret, Status: 'SUCCESS' }) },
    startedAt: '2026-03-01T10:00:02.000Z', durationMs: 12,
  };
  const cases: ClientCase[] = [
    aCase('client.bill-enquiry.request.schema', 'PASS', { exchanges: undefined }),
    aCase(FAILING, 'FAIL', {
      family: 'client-payment-safety', sections: ['3'], expectation: 'every payment follows an enquiry of the same bill',
      notes: [{ verdict: 'FAIL', text: FAIL_NOTE }, { verdict: 'FAIL', text: 'a note that tries </td><b id="injected">markup</b>' }],
      observation: { payments: 3, 'without enquiry': ['S-17'] }, exchanges: [exchange],
    }),
    aCase('client.moi-enquiry.pacing.retry-after', 'WARN', { family: 'client-pacing', level: 'SHOULD', sections: ['8'], notes: [{ verdict: 'WARN', text: 'called again 0.4 s after a 429 asking for 1 s' }] }),
    aCase(UNREACHED, 'NOT_RUN', { family: 'client-scenarios', sections: ['7'], expectation: 'the client met an in-band failure of a payment', trigger: TRIGGER, notes: [{ verdict: 'NOT_RUN', text: 'no call reached this scenario' }] }),
    aCase(REACHED, 'PASS', { family: 'client-scenarios', sections: ['8'], expectation: 'the client met a 429 and waited', trigger: 'enquire with BillAccountID ending in 9429', exchanges: undefined }),
    aCase('client.moi-payment.request.schema', 'NOT_APPLICABLE', { notes: [{ verdict: 'NOT_APPLICABLE', text: 'moi-payment is not among the operations certified' }] }),
    aCase(NOT_CERTIFIED, 'NOT_APPLICABLE', { family: 'client-scenarios', sections: ['8'], expectation: 'the client met a 429 on a payment', trigger: 'pay an MOI fee with an ID ending 9429' }),
    aCase(SANDBOX_FAIL, 'FAIL', { side: 'sandbox', family: 'response-schema', sections: ['2.2'], expectation: 'the response validates against the lenient schema', notes: [{ verdict: 'FAIL', text: 'AmountDue is a string' }] }),
    aCase('bill-enquiry.echo.sequence', 'PASS', { side: 'sandbox', family: 'echo', sections: ['2.2'], expectation: 'SequenceNumber echoed', exchanges: undefined }),
  ];
  const scenarios: ScenarioReport[] = [
    { id: REACHED, operation: 'bill-enquiry', title: 'Rate limited: a 429 with Retry-After', trigger: 'enquire with BillAccountID ending in 9429', reached: true, calls: 2 },
    { id: UNREACHED, operation: 'bill-payment', title: 'In-band failure of a payment', trigger: TRIGGER, reached: false, calls: 0 },
    { id: NOT_CERTIFIED, operation: 'moi-payment', title: 'A 429 with Retry-After on a payment', trigger: 'pay an MOI fee with an ID ending 9429', reached: false, calls: 0 },
  ];
  const matrix = buildMatrix(cases);
  const titles: Record<string, string> = CLIENT_FAMILIES;
  matrix.families = matrix.families.map((f) => ({ id: f.id, title: titles[f.id] ?? f.title }));
  const client = cases.filter((c) => c.side === 'client');
  return {
    format: CLIENT_FORMAT, formatVersion: CLIENT_FORMAT_VERSION,
    outcome: {
      certifies: false, summary: 'Does not certify: 1 FAIL; 1 scenario not reached.',
      reasons: ['1 client case FAIL: the client breaks a rule the API document states', `1 scenario not reached: ${UNREACHED}`],
      unexpected: [FAILING], notRun: [UNREACHED], sandboxFailures: [SANDBOX_FAIL],
    },
    fingerprint: {
      suite: { name: 'sadad-conformance', version: '0.1.0', commit: 'a'.repeat(40), localChanges: true },
      schemaHash: `sha256:${'0'.repeat(64)}`, schemaFiles: ['certification.schema.json', 'client-certification.schema.json'],
      mode: 'proxy', baseUrl: 'http://127.0.0.1:4010', upstream: 'https://sandbox.bank.example', limits: { windowSeconds: 60, bill: 30, moi: 10 },
      operations: ['bill-enquiry', 'bill-payment', 'moi-enquiry'], signature: 'verified', lateAnswerMs: 35_000,
      startedAt: '2026-03-01T10:00:00.000Z', finishedAt: '2026-03-01T10:05:00.000Z', durationMs: 300_000, node: 'v20.19.0',
    },
    client: {
      command: `SADAD_ACCESS_TOKEN=${secret} npm run integration-test`, exitCode: 1, signal: null, ended: 'command exited',
      outputTail: `> integration-test\nusing token ${secret}\n1 failing\n  payment: expected SUCCESS, got <Status>FAILED</Status>`,
    },
    traffic: {
      calls: 9,
      byOperation: { 'bill-enquiry': { calls: 5, statuses: { '200': 4, '429': 1 } }, 'bill-payment': { calls: 3, statuses: { '200': 3 } }, other: { calls: 1, statuses: { '404': 1 } } },
      rateLimited: 1, abandoned: 2,
    },
    scenarios,
    counts: { cases: cases.length, byVerdict: countVerdicts(cases), bySide: { client: countVerdicts(client), sandbox: countVerdicts(cases.filter((c) => c.side === 'sandbox')) } },
    matrix, specSections: Object.fromEntries(['2.2', '2.3', '3', '4', '7', '8'].map((k) => [k, SPEC_SECTIONS[k]!])), cases,
  };
}

const schemaOf = (file: string) => JSON.parse(readFileSync(join(SCHEMAS_DIR, file), 'utf8'));

test('client-certification.json\'s schema takes a report with both sides and refuses a broken one', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(schemaOf('client-certification.schema.json'));
  const r = JSON.parse(JSON.stringify(report())) as ClientCertificationReport;
  expect(validate(r) ? [] : validate.errors).toEqual([]);

  const broken = (change: (b: any) => void) => { const b = structuredClone(r); change(b); return validate(b); };
  expect(broken((b) => { b.cases[1].verdict = 'GREAT'; }), 'an unknown verdict').toBe(false);
  expect(validate.errors?.some((e) => e.instancePath === '/cases/1/verdict')).toBe(true);
  expect(broken((b) => { delete b.cases[0].side; }), 'a case without its side').toBe(false);
  expect(broken((b) => { b.cases[0].side = 'server'; }), 'an unknown side').toBe(false);
  expect(broken((b) => { b.fingerprint.mode = 'mirror'; }), 'an unknown mode').toBe(false);
  expect(broken((b) => { b.scenarios[0].extra = 1; }), 'a field the model does not have').toBe(false);
  expect(broken((b) => { delete b.counts.bySide.sandbox; }), 'counts of one side only').toBe(false);
  expect(broken((b) => { b.counts.byVerdict.GREAT = 1; }), 'a count of an unknown verdict').toBe(false);
  expect(broken((b) => { b.format = 'sadad-certification'; }), 'the service package\'s format').toBe(false);
});

test('the schema\'s verdicts are VERDICT_ORDER, and its copies of the service schema\'s definitions have not drifted', () => {
  const client = schemaOf('client-certification.schema.json');
  const service = schemaOf('certification.schema.json');
  expect(client.$defs.verdict.enum).toEqual(VERDICT_ORDER);
  expect([...client.$defs.verdict.enum].sort()).toEqual([...service.$defs.verdict.enum].sort());
  for (const def of ['caseIds', 'numbersByOperation', 'timestamp', 'headers', 'exchange']) expect(client.$defs[def], def).toEqual(service.$defs[def]);
  expect(client.$defs.verdictCounts.required).toEqual(service.$defs.verdictCounts.required);
  expect(client.$defs.verdictCounts.properties).toEqual(service.$defs.verdictCounts.properties);
  // the client case is the service case plus side and trigger
  const { side, trigger, ...inherited } = client.$defs.case.properties;
  expect(side.enum).toEqual(['client', 'sandbox']);
  expect(trigger.type).toBe('string');
  expect(Object.keys(inherited).sort()).toEqual(Object.keys(service.$defs.case.properties).sort());
  expect(client.$defs.case.required.filter((k: string) => k !== 'side').sort()).toEqual([...service.$defs.case.required].sort());
  for (const k of ['level', 'verdict', 'notes', 'waiver', 'exchanges', 'transient']) {
    const strip = (x: unknown) => JSON.parse(JSON.stringify(x, (key, v) => (key === 'description' ? undefined : v)));
    expect(strip(inherited[k]), k).toEqual(strip(service.$defs.case.properties[k]));
  }
  expect(client.properties.matrix).toEqual(service.properties.matrix);
});

test('client-certification.html: outcome, what to trigger, the failing case, the sandbox\'s answers; offline, printable, no secret', async ({ page }) => {
  test.skip(!existsSync(CHROMIUM) && !process.env.CI, `${CHROMIUM} is missing (apt-get install chromium); .ci/run installs it`);
  const r = report();
  const html = renderClientHtml(r);
  const dir = mkdtempSync(join(tmpdir(), 'sadad-client-html-'));
  const file = join(dir, 'client-certification.html');
  writeFileSync(file, html);

  expect(readFileSync(file, 'utf8').includes(secret), 'the secret in the HTML file').toBe(false);
  expect(html).toContain('Bearer «masked»');
  expect(html).toContain('&lt;/td&gt;&lt;b id=&quot;injected&quot;&gt;');
  expect(html.match(/<script>/g)).toHaveLength(1);
  expect(html).toContain("Content-Security-Policy\" content=\"default-src 'none'");
  // the sections in the order the package states them
  const order = ['id="fingerprint"', 'id="client-run"', 'id="summary"', 'id="scenarios"', 'id="matrix"', 'id="cases-client"', 'id="cases-sandbox"', 'id="traffic"'].map((x) => html.indexOf(x));
  expect(order.every((i) => i > 0)).toBe(true);
  expect([...order].sort((a, b) => a - b)).toEqual(order);

  const remote: string[] = [];
  const errors: string[] = [];
  page.on('request', (q) => { if (!q.url().startsWith('file:')) remote.push(q.url()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.setViewportSize({ width: 1360, height: 900 });
  await page.goto(`file://${file}`);

  // the outcome, in words
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(/Client certification: Does not certify/);
  const banner = page.locator('header.banner');
  await expect(banner).toHaveClass(/\bno\b/);
  await expect(banner).toContainText('Does not certify: 1 FAIL; 1 scenario not reached.');
  await expect(banner).toContainText(FAILING);
  await expect(banner).toContainText(`how to trigger: ${TRIGGER}`);
  await expect(banner).toContainText(SANDBOX_FAIL);

  // fingerprint and the client run
  const fp = page.locator('#fingerprint');
  await expect(fp).toContainText('proxy');
  await expect(fp).toContainText('https://sandbox.bank.example');
  await expect(fp).toContainText('bill operations 30, MOI operations 10 calls per 60 s window');
  await expect(fp).toContainText('MOI Fee Enquiry');
  await expect(fp).toContainText('verified');
  await expect(fp).toContainText('a'.repeat(40));
  await expect(page.locator('#client-run')).toContainText('exit code 1');
  await expect(page.locator('#client-run pre.tail')).toContainText('got <Status>FAILED</Status>');
  await expect(page.locator('#client-run')).toContainText('SADAD_ACCESS_TOKEN=«masked»');

  // counts by verdict and by side
  await expect(page.locator('.tile[data-verdict="FAIL"] .n')).toHaveText('2');
  await expect(page.locator('.byside tr', { hasText: 'Client traffic' }).locator('button.num[data-verdict="FAIL"]')).toHaveText('1');
  await expect(page.locator('.byside tr', { hasText: 'Sandbox answers' }).locator('button.num[data-verdict="FAIL"]')).toHaveText('1');

  // the scenarios: the unreached one first, with how to trigger it
  await expect(page.locator('#scenarios h2')).toHaveText('Scenarios: 1 of 2 reached');
  const unreached = page.locator('#scenarios tr.unreached');
  await expect(unreached).toHaveCount(1);
  await expect(page.locator('#scenarios tbody tr').first()).toHaveAttribute('data-scenario', UNREACHED);
  await expect(unreached.locator('.trigger')).toBeVisible();
  await expect(unreached.locator('.trigger')).toHaveText(TRIGGER);
  await expect(page.locator('#scenarios tr.reached')).toContainText('yes');
  // a scenario of an operation not certified: not applicable, nothing to trigger, not counted
  await expect(page.locator('#scenarios tr.not-applicable')).toHaveAttribute('data-scenario', NOT_CERTIFIED);
  await expect(page.locator('#scenarios tr.not-applicable')).toContainText('not applicable');
  await expect(page.locator('#scenarios tr.not-applicable .trigger')).toHaveCount(0);
  await expect(page.locator('#scenarios tbody tr').last()).toHaveClass('reached');

  // the matrix, with the client families' titles
  await expect(page.locator('.matrix button.cell[data-op="bill-payment"][data-family="client-payment-safety"]')).toContainText('FAIL');
  await expect(page.locator('.matrix')).toContainText(CLIENT_FAMILIES['client-payment-safety']);

  // the failing case first among the client's, with its notes, spec sections, observation and masked exchange
  const clientRows = page.locator('#cases-client tbody.case');
  await expect(clientRows).toHaveCount(7);
  await expect(clientRows.first()).toHaveAttribute('data-id', FAILING);
  await expect(clientRows.last()).toHaveAttribute('data-verdict', 'PASS');
  const failing = page.locator(`[id="case-${FAILING}"]`);
  await expect(failing.locator('.notes')).toBeVisible();
  await expect(failing.locator('.notes')).toContainText(FAIL_NOTE);
  await expect(failing.locator('.notes')).toContainText('</td><b id="injected">markup</b>');
  await expect(page.locator('#injected')).toHaveCount(0);
  await expect(failing).toContainText('§3');
  await expect(failing).toContainText(SPEC_SECTIONS['3']!);
  await expect(failing.locator('.obs-json')).toContainText('"without enquiry"');
  const evidence = failing.locator('tr.evidence > td > details');
  await expect(evidence).toHaveAttribute('open', '');
  await expect(evidence.locator('.exchange')).toHaveCount(1);
  await expect(evidence.locator('.exchange')).toContainText('Bearer «masked»');
  await expect(evidence.locator('.exchange')).toContainText('copy of «masked»');
  await expect(evidence.locator('.exchange')).toContainText('HTTP 200');
  await expect(page.locator(`[id="case-${UNREACHED}"] .case-trigger`)).toContainText(TRIGGER);

  // the sandbox's answers, after the client's
  const sandbox = page.locator('#cases-sandbox');
  await expect(sandbox.locator('h3')).toContainText('Sandbox answers');
  await expect(sandbox.locator('tbody.case')).toHaveCount(2);
  await expect(sandbox.locator(`[id="case-${SANDBOX_FAIL}"]`)).toContainText('AmountDue is a string');

  // traffic
  const traffic = page.locator('#traffic');
  await expect(traffic.locator('tr', { hasText: 'Bill Enquiry' })).toContainText('429 × 1');
  await expect(traffic).toContainText('Abandoned2');
  await expect(traffic).toContainText('Rate-limited1');

  // filters: problems only, a side, a summary tile, a matrix cell
  await page.locator('#only-problems').click();
  await expect(page.locator('tbody.case:visible')).toHaveCount(4);
  await page.locator('#f-side').selectOption('sandbox');
  await expect(page.locator('tbody.case:visible')).toHaveCount(1);
  await expect(page.locator('#cases-client table.client-cases')).toBeHidden();
  await expect(page.locator('#cases-client .side-empty')).toBeVisible();
  await page.locator('#f-reset').click();
  await expect(page.locator('#shown')).toHaveText(String(r.cases.length));
  await page.locator('.tile[data-verdict="NOT_RUN"]').click();
  await expect(page.locator('tbody.case:visible')).toHaveCount(1);
  await page.locator('#f-reset').click();
  await page.locator('.matrix button.cell[data-op="bill-payment"][data-family="client-payment-safety"]').click();
  await expect(page.locator('tbody.case:visible')).toHaveCount(1);
  await page.locator('#f-q').fill('*.scenario.*');
  await expect(page.locator('#shown')).toHaveText('0');
  await page.locator('#f-reset').click();
  await page.locator('#f-q').fill('*.scenario.*');
  await expect(page.locator('tbody.case:visible')).toHaveCount(3);
  await page.locator('#f-reset').click();
  await page.locator('#expand-all').click();

  // no secret in what a reader sees either
  expect(await page.locator('body').innerText()).not.toContain(secret);
  expect(await page.content()).not.toContain(secret);
  mkdirSync(REPORTS_DIR, { recursive: true });
  await page.screenshot({ path: join(REPORTS_DIR, 'client-certification-test.png') });

  // printing: controls hidden, the outcome, the trigger and the failing case's notes and exchange still shown; a PDF renders
  await page.emulateMedia({ media: 'print' });
  await expect(page.locator('.filters')).toBeHidden();
  await expect(page.locator('nav.toc')).toBeHidden();
  await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  await expect(unreached.locator('.trigger')).toBeVisible();
  await expect(failing.locator('.notes')).toBeVisible();
  await expect(evidence.locator('.exchange pre.body').first()).toBeVisible();
  await expect(sandbox).toBeVisible();
  const pdf = await page.pdf({ format: 'A4' });
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  expect(pdf.length).toBeGreaterThan(10_000);

  expect(errors).toEqual([]);
  expect(remote, 'the page loads nothing from the network').toEqual([]);
});
