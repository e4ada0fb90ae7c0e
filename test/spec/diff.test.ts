/**
 * `npm run spec -- diff <old> <new>` (src/spec/diff.ts, classify.ts, src/cli/spec-diff.ts): every
 * change between two versions of the API document, once, classified for clients and for the
 * service.
 *
 * - In memory: today's import (data/field-tables.json, data/spec.json) edited one way at a time,
 *   one edit for every kind of change the diff knows, each reported exactly once with its row of
 *   the classification; what the brief of the work states about each side, held independently of
 *   classify.ts.
 * - Documents: changed versions of the API document made here, at test time, by small edits of
 *   /work/shared/spec/api-spec.md (never a committed copy), imported through importDocument as the
 *   command does; alone and all together.
 * - The command in process (runDiff): the console, --json, --html, --fail-on exit codes, usage
 *   errors and unreadable inputs (exit 2), the cases a caller maps the change to.
 * - docs/spec-diff.md carries the classification table exactly as classify.ts makes it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { FieldRow, FieldTables } from '../../src/contract/field-tables.js';
import type { SpecFacts } from '../../src/contract/spec-model.js';
import { DATA_DIR, ROOT } from '../../src/paths.js';
import {
  CHANGE_KINDS, CLASSIFICATION, FIELD_KINDS, classificationMarkdown, classificationOf,
  type ChangeKind, type Direction, type Impact,
} from '../../src/spec/classify.js';
import { changedWords, compareSections, diffSpecs, mergeOrder, type CaseChanges, type SpecChange, type SpecDiff, type SpecVersion } from '../../src/spec/diff.js';
import { formatDiffText } from '../../src/spec/diff-text.js';
import { importDocument, proseDigest } from '../../src/spec/import.js';
import { runDiff } from '../../src/cli/spec-diff.js';

const API_DOCUMENT = join(ROOT, '..', 'shared', 'spec', 'api-spec.md');

// ---------------------------------------------------------------------------------------------
// today's import, to edit in memory

const TODAY: SpecVersion = {
  fieldTables: JSON.parse(readFileSync(join(DATA_DIR, 'field-tables.json'), 'utf8')) as FieldTables,
  facts: JSON.parse(readFileSync(join(DATA_DIR, 'spec.json'), 'utf8')) as SpecFacts,
};
const fresh = (): SpecVersion => structuredClone(TODAY);

function rowOf(s: SpecVersion, message: string, name: string): FieldRow {
  const t = s.fieldTables.messages[message];
  const rows = t?.fields.filter((f) => f.path.split('.').pop()!.replace(/\[\]$/, '') === name) ?? [];
  if (rows.length !== 1) throw new Error(`${message} has ${rows.length} rows named ${name}`);
  return rows[0]!;
}
const opOf = (s: SpecVersion, id: string) => s.facts.operations.find((o) => o.id === id)!;

/** Every path and tag of a version renamed: `from` -> `to` in each segment that starts with it. */
function renameTag(s: SpecVersion, from: string, to: string) {
  const seg = (p: string) => p.split('.').map((x) => (x.replace(/\[\]$/, '') === from ? x.replace(from, to) : x)).join('.');
  for (const t of Object.values(s.fieldTables.messages)) {
    if (t.message === from) t.message = to;
    for (const f of t.fields) f.path = seg(f.path);
  }
  for (const o of s.facts.operations) {
    if (o.requestRoot === from) o.requestRoot = to;
    if (o.responseRoot === from) o.responseRoot = to;
    if (o.listTag === from) o.listTag = to;
  }
}

interface Expected { kind: ChangeKind; op?: string; direction?: Direction; field?: string; clients: Impact; service: Impact }
/** `base` (where given) is applied to both versions first: the state the edit starts from. */
interface InMemory { name: string; base?: (s: SpecVersion) => void; edit: (s: SpecVersion) => void; expect: Expected[]; also?: (d: SpecDiff) => void }

const BE = 'bill-enquiry';
const BP = 'bill-payment';
const ME = 'moi-enquiry';
const MP = 'moi-payment';

/**
 * One edit per kind of change, and what the diff must say about it: exactly these changes and no
 * other. The impacts are written here from the brief's words (who fails against whom), not read
 * from classify.ts, so that a wrong row there fails here.
 */
const IN_MEMORY: InMemory[] = [
  { name: 'the title', edit: (s) => { s.facts.document.title = 'Another title'; }, expect: [{ kind: 'title-changed', clients: 'compatible', service: 'compatible' }] },
  { name: 'a version stated', edit: (s) => { s.facts.document.version = '2.0'; }, expect: [{ kind: 'version-changed', clients: 'compatible', service: 'compatible' }] },
  {
    name: 'the prefix, in every tag and the reference header',
    edit: (s) => {
      s.facts.prefix = 'Xyz';
      s.fieldTables.prefix = 'Xyz';
      const tags = new Set(Object.values(s.fieldTables.messages).flatMap((t) => t.fields.flatMap((f) => f.path.split('.').map((x) => x.replace(/\[\]$/, '')))).filter((x) => x.startsWith('Svc')));
      for (const tag of tags) renameTag(s, tag, tag.replace(/^Svc/, 'Xyz'));
      for (const h of s.facts.headers) h.name = h.name.replace(/^Svc/, 'Xyz');
    },
    expect: [{ kind: 'prefix-changed', clients: 'breaking', service: 'breaking' }],
  },
  {
    name: 'an operation added (its messages come with it, not as changes of their own)',
    edit: (s) => {
      s.facts.operations.push({ ...structuredClone(opOf(s, MP)), id: 'moi-refund', title: 'MOI Refund', path: '/api/refund/sadad/moi' });
      s.fieldTables.messages['moi-refund.request'] = structuredClone(s.fieldTables.messages[`${MP}.request`]!);
      s.fieldTables.messages['moi-refund.response'] = structuredClone(s.fieldTables.messages[`${MP}.response`]!);
    },
    expect: [{ kind: 'operation-added', op: 'moi-refund', clients: 'compatible', service: 'breaking' }],
  },
  {
    name: 'an operation removed',
    edit: (s) => {
      s.facts.operations = s.facts.operations.filter((o) => o.id !== MP);
      delete s.fieldTables.messages[`${MP}.request`];
      delete s.fieldTables.messages[`${MP}.response`];
    },
    expect: [{ kind: 'operation-removed', op: MP, clients: 'breaking', service: 'compatible' }],
  },
  {
    name: 'an operation renamed on the same method and path (its messages compared with each other)',
    edit: (s) => {
      Object.assign(opOf(s, BP), { id: 'bill-settlement', title: 'Bill Settlement' });
      for (const d of ['request', 'response']) {
        s.fieldTables.messages[`bill-settlement.${d}`] = s.fieldTables.messages[`${BP}.${d}`]!;
        delete s.fieldTables.messages[`${BP}.${d}`];
      }
    },
    expect: [{ kind: 'operation-renamed', op: 'bill-settlement', clients: 'compatible', service: 'compatible' }],
    also: (d) => expect(d.operations.map((o) => o.id)).toEqual([BE, 'bill-settlement', ME, MP]),
  },
  { name: 'a path', edit: (s) => { opOf(s, BE).path = '/api/v2/enquiry/sadad/bill'; }, expect: [{ kind: 'path-changed', op: BE, clients: 'breaking', service: 'breaking' }] },
  { name: 'a method', edit: (s) => { opOf(s, BE).method = 'PUT'; }, expect: [{ kind: 'method-changed', op: BE, clients: 'breaking', service: 'breaking' }] },
  { name: 'a lower rate limit', edit: (s) => { opOf(s, ME).rateLimit = 2; }, expect: [{ kind: 'rate-limit-lower', op: ME, clients: 'breaking', service: 'breaking' }] },
  { name: 'a higher rate limit', edit: (s) => { opOf(s, ME).rateLimit = 5; }, expect: [{ kind: 'rate-limit-higher', op: ME, clients: 'compatible', service: 'breaking' }] },
  { name: 'a longer window', edit: (s) => { opOf(s, BE).windowSeconds = 120; }, expect: [{ kind: 'rate-window-longer', op: BE, clients: 'breaking', service: 'breaking' }] },
  { name: 'a shorter window', edit: (s) => { opOf(s, BE).windowSeconds = 30; }, expect: [{ kind: 'rate-window-shorter', op: BE, clients: 'compatible', service: 'breaking' }] },
  { name: 'a list tag renamed', edit: (s) => renameTag(s, 'SvcSadadMOIPayment', 'SvcSadadMOIFeePayment'), expect: [{ kind: 'tag-changed', op: MP, direction: 'request', clients: 'breaking', service: 'breaking' }] },
  { name: 'a root tag renamed', edit: (s) => renameTag(s, 'SvcSadadBillEnquiryResponse', 'SvcSadadBillEnquiryAnswer'), expect: [{ kind: 'tag-changed', op: BE, direction: 'response', clients: 'breaking', service: 'breaking' }] },
  {
    name: 'a message table gone while its operation stays',
    edit: (s) => { delete s.fieldTables.messages[`${ME}.response`]; },
    expect: [{ kind: 'message-removed', op: ME, direction: 'response', clients: 'review', service: 'review' }],
  },
  {
    name: 'a required request field added',
    edit: (s) => {
      const t = s.fieldTables.messages[`${ME}.request`]!;
      const at = t.fields.indexOf(rowOf(s, `${ME}.request`, 'Duration'));
      t.fields.splice(at + 1, 0, { path: 'Message.SvcSadadMOIEnquiryRequest.SvcSadadMOIEnquiry[].TransactionData[].Nationality', required: true, type: 'String' });
    },
    expect: [{ kind: 'field-added', op: ME, direction: 'request', field: 'Nationality', clients: 'breaking', service: 'breaking' }],
  },
  {
    name: 'an optional request field added',
    edit: (s) => { s.fieldTables.messages[`${ME}.request`]!.fields.push({ path: 'Message.SvcSadadMOIEnquiryRequest.SvcSadadMOIEnquiry[].TransactionData[].Remark', required: false, type: 'String' }); },
    expect: [{ kind: 'optional-field-added', op: ME, direction: 'request', field: 'Remark', clients: 'compatible', service: 'breaking' }],
  },
  {
    name: 'a response field added',
    edit: (s) => { s.fieldTables.messages[`${MP}.response`]!.fields.push({ path: 'SvcSadadMOIPaymentResponse.SvcSadadMOIPayment[].TransactionData[].ReceiptNumber', required: true, type: 'String' }); },
    expect: [{ kind: 'field-added', op: MP, direction: 'response', field: 'ReceiptNumber', clients: 'compatible', service: 'breaking' }],
  },
  {
    name: 'a request field removed',
    edit: (s) => { const t = s.fieldTables.messages[`${BP}.request`]!; t.fields.splice(t.fields.indexOf(rowOf(s, `${BP}.request`, 'ServiceType')), 1); },
    expect: [{ kind: 'field-removed', op: BP, direction: 'request', field: 'ServiceType', clients: 'compatible', service: 'breaking' }],
  },
  {
    name: 'a response field removed',
    edit: (s) => { const t = s.fieldTables.messages[`${BP}.response`]!; t.fields.splice(t.fields.indexOf(rowOf(s, `${BP}.response`, 'BankReferenceNumber')), 1); },
    expect: [{ kind: 'field-removed', op: BP, direction: 'response', field: 'BankReferenceNumber', clients: 'breaking', service: 'compatible' }],
  },
  { name: 'a request field made optional', edit: (s) => { rowOf(s, `${BE}.request`, 'BillCategory').required = false; }, expect: [{ kind: 'field-now-optional', op: BE, direction: 'request', field: 'BillCategory', clients: 'compatible', service: 'breaking' }] },
  {
    name: 'an optional request field made required',
    base: (s) => { rowOf(s, `${BE}.request`, 'BillCategory').required = false; },
    edit: (s) => { rowOf(s, `${BE}.request`, 'BillCategory').required = true; },
    expect: [{ kind: 'field-now-required', op: BE, direction: 'request', field: 'BillCategory', clients: 'breaking', service: 'breaking' }],
  },
  { name: 'a response field no longer promised', edit: (s) => { rowOf(s, `${BE}.response`, 'BillStatus').required = false; }, expect: [{ kind: 'field-now-optional', op: BE, direction: 'response', field: 'BillStatus', clients: 'breaking', service: 'compatible' }] },
  { name: 'a request type', edit: (s) => { rowOf(s, `${ME}.request`, 'Duration').type = 'String'; }, expect: [{ kind: 'type-changed', op: ME, direction: 'request', field: 'Duration', clients: 'breaking', service: 'breaking' }] },
  { name: 'a response type', edit: (s) => { rowOf(s, `${BE}.response`, 'AmountDue').type = 'String'; }, expect: [{ kind: 'type-changed', op: BE, direction: 'response', field: 'AmountDue', clients: 'breaking', service: 'breaking' }] },
  { name: 'an array no longer', edit: (s) => { delete rowOf(s, `${MP}.response`, 'Fees').array; }, expect: [{ kind: 'array-changed', op: MP, direction: 'response', field: 'Fees', clients: 'breaking', service: 'breaking' }] },
  { name: 'a response format changed', edit: (s) => { rowOf(s, `${BP}.response`, 'PaidDate').format = 'YYYY-MM-DDTHH:MM:SS'; }, expect: [{ kind: 'format-changed', op: BP, direction: 'response', field: 'PaidDate', clients: 'breaking', service: 'breaking' }] },
  { name: 'a response format dropped', edit: (s) => { delete rowOf(s, `${BP}.response`, 'PaidDate').format; }, expect: [{ kind: 'format-removed', op: BP, direction: 'response', field: 'PaidDate', clients: 'breaking', service: 'compatible' }] },
  { name: 'a request format added', edit: (s) => { rowOf(s, `${BP}.request`, 'BillNumber').format = 'YYYYMMDD'; }, expect: [{ kind: 'format-added', op: BP, direction: 'request', field: 'BillNumber', clients: 'breaking', service: 'breaking' }] },
  { name: 'a sample format changed', edit: (s) => { rowOf(s, `${BP}.response`, 'envelopeDateTime').sampleFormat = 'YYYY-MM-DDTHH:MM:SS'; }, expect: [{ kind: 'sample-format-changed', op: BP, direction: 'response', field: 'envelopeDateTime', clients: 'breaking', service: 'breaking' }] },
  { name: 'a request const', edit: (s) => { rowOf(s, `${MP}.request`, 'TransactionType').const = 'SADADFEE'; }, expect: [{ kind: 'const-changed', op: MP, direction: 'request', field: 'TransactionType', clients: 'breaking', service: 'breaking' }] },
  { name: 'a request pattern dropped', edit: (s) => { delete rowOf(s, `${BE}.request`, 'AccountNumber').pattern; }, expect: [{ kind: 'pattern-removed', op: BE, direction: 'request', field: 'AccountNumber', clients: 'compatible', service: 'breaking' }] },
  { name: 'a shorter request maximum', edit: (s) => { rowOf(s, `${BE}.request`, 'AccountNumber').maxLength = 20; }, expect: [{ kind: 'max-length-shorter', op: BE, direction: 'request', field: 'AccountNumber', clients: 'breaking', service: 'breaking' }] },
  { name: 'a longer request maximum', edit: (s) => { rowOf(s, `${BE}.request`, 'AccountNumber').maxLength = 30; }, expect: [{ kind: 'max-length-longer', op: BE, direction: 'request', field: 'AccountNumber', clients: 'compatible', service: 'breaking' }] },
  { name: 'a request maximum dropped', edit: (s) => { delete rowOf(s, `${BE}.request`, 'AccountNumber').maxLength; }, expect: [{ kind: 'max-length-removed', op: BE, direction: 'request', field: 'AccountNumber', clients: 'compatible', service: 'breaking' }] },
  { name: 'a response maximum added', edit: (s) => { rowOf(s, `${BE}.response`, 'BillNo').maxLength = 13; }, expect: [{ kind: 'max-length-added', op: BE, direction: 'response', field: 'BillNo', clients: 'compatible', service: 'breaking' }] },
  { name: 'a longer response maximum', base: (s) => { rowOf(s, `${BE}.response`, 'BillNo').maxLength = 10; }, edit: (s) => { rowOf(s, `${BE}.response`, 'BillNo').maxLength = 13; }, expect: [{ kind: 'max-length-longer', op: BE, direction: 'response', field: 'BillNo', clients: 'breaking', service: 'compatible' }] },
  { name: 'a response sample type noted', edit: (s) => { rowOf(s, `${ME}.response`, 'FeeReferenceId').sampleType = 'number'; }, expect: [{ kind: 'sample-type-added', op: ME, direction: 'response', field: 'FeeReferenceId', clients: 'breaking', service: 'compatible' }] },
  { name: 'a response sample type dropped', edit: (s) => { delete rowOf(s, `${ME}.response`, 'GroupPayId').sampleType; }, expect: [{ kind: 'sample-type-removed', op: ME, direction: 'response', field: 'GroupPayId', clients: 'compatible', service: 'breaking' }] },
  { name: 'a response alias added', edit: (s) => { rowOf(s, `${MP}.response`, 'VIsaNumber').aliases = ['VisaNumber']; }, expect: [{ kind: 'alias-added', op: MP, direction: 'response', field: 'VIsaNumber', clients: 'breaking', service: 'compatible' }] },
  { name: 'a request alias dropped', edit: (s) => { delete rowOf(s, `${ME}.request`, 'BillerID').aliases; }, expect: [{ kind: 'alias-removed', op: ME, direction: 'request', field: 'BillerID', clients: 'breaking', service: 'compatible' }] },
  { name: 'a header added', edit: (s) => { s.facts.headers.push({ name: 'BaseCurrency', digest: proseDigest('currency of the amounts'), line: 277 }); }, expect: [{ kind: 'header-added', clients: 'breaking', service: 'breaking' }] },
  { name: 'a header removed', edit: (s) => { s.facts.headers = s.facts.headers.filter((h) => h.name !== 'Device'); }, expect: [{ kind: 'header-removed', clients: 'compatible', service: 'breaking' }] },
  { name: 'a header spelled in other case: no change', edit: (s) => { s.facts.headers.find((h) => h.name === 'CompanyId')!.name = 'companyid'; }, expect: [] },
  { name: 'a header described anew', edit: (s) => { s.facts.headers.find((h) => h.name === 'Device')!.digest = proseDigest('one of Web, IOS, Android'); }, expect: [{ kind: 'header-meaning-changed', clients: 'review', service: 'review' }] },
  { name: 'a rule reworded', edit: (s) => { s.facts.rules.find((r) => r.id === '7.3')!.digest = proseDigest('Error codes: see the annex.'); }, expect: [{ kind: 'rule-changed', clients: 'review', service: 'review' }] },
  { name: 'a rule only re-spaced: no change', base: (s) => { s.facts.rules.find((x) => x.id === '7.3')!.digest = proseDigest('Error codes: not shown.'); }, edit: (s) => { s.facts.rules.find((x) => x.id === '7.3')!.digest = proseDigest('  Error  codes:\n not shown. '); }, expect: [] },
  { name: 'a rule added', edit: (s) => { s.facts.rules.push({ id: '7.5', section: '7', digest: proseDigest('A new rule.'), values: [], line: 297 }); }, expect: [{ kind: 'rule-added', clients: 'review', service: 'review' }] },
  { name: 'a rule removed', edit: (s) => { s.facts.rules = s.facts.rules.filter((r) => r.id !== '5.6'); }, expect: [{ kind: 'rule-removed', clients: 'review', service: 'review' }] },
  { name: 'a limit no table carries', edit: (s) => { s.facts.limits.find((l) => /production/i.test(l.name))!.value = '100 calls per minute'; }, expect: [{ kind: 'limit-changed', clients: 'review', service: 'review' }] },
  { name: 'a limit row added', edit: (s) => { s.facts.limits.push({ name: 'Body size', value: 'at most 64 KiB', line: 307 }); }, expect: [{ kind: 'limit-added', clients: 'review', service: 'review' }] },
  { name: 'a limit row removed', edit: (s) => { s.facts.limits = s.facts.limits.filter((l) => !/SequenceNumber/.test(l.name)); }, expect: [{ kind: 'limit-removed', clients: 'review', service: 'review' }] },
  {
    name: 'the MOI rate in the endpoints table and the limits table: one change per operation, the limits row with them',
    edit: (s) => {
      opOf(s, ME).rateLimit = 2;
      opOf(s, MP).rateLimit = 2;
      const row = s.facts.limits.find((l) => /MOI/.test(l.name))!;
      row.value = row.value.replace('3', '2');
    },
    expect: [
      { kind: 'rate-limit-lower', op: ME, clients: 'breaking', service: 'breaking' },
      { kind: 'rate-limit-lower', op: MP, clients: 'breaking', service: 'breaking' },
    ],
  },
  {
    name: 'the limits table alone says another rate: the row is to review',
    edit: (s) => { const row = s.facts.limits.find((l) => /MOI/.test(l.name))!; row.value = row.value.replace('3', '2'); },
    expect: [{ kind: 'limit-changed', clients: 'review', service: 'review' }],
  },
];

const where = (c: SpecChange) => `${c.kind} ${c.op ?? ''} ${c.direction ?? ''} ${c.path ?? c.header ?? c.rule ?? c.limit ?? ''}`.trim();

test('the same version twice: no change', () => {
  const d = diffSpecs(fresh(), fresh());
  expect(d.changes).toEqual([]);
  expect(d.counts).toEqual({ changes: 0, 'breaking-for-clients': 0, 'breaking-for-service': 0, review: 0, compatible: 0 });
  expect(formatDiffText(d)).toMatch(/\nNo change\.$/);
});

for (const c of IN_MEMORY) {
  test(`in memory, ${c.name}: ${c.expect.map((e) => e.kind).join(', ') || 'nothing'}, once, classified`, () => {
    const old = fresh();
    c.base?.(old);
    const next = structuredClone(old);
    c.edit(next);
    const d = diffSpecs(old, next);
    expect(d.changes.map(where), 'exactly the expected changes').toHaveLength(c.expect.length);
    c.expect.forEach((e, i) => {
      const ch = d.changes[i]!;
      expect(ch.kind).toBe(e.kind);
      if (e.op) expect(ch.op).toBe(e.op);
      if (e.direction) expect(ch.direction).toBe(e.direction);
      if (e.field) expect(ch.path).toMatch(new RegExp(`\\.${e.field}(\\[\\])?$`));
      expect({ clients: ch.clients, service: ch.service }).toEqual({ clients: e.clients, service: e.service });
      expect(ch.reason).toMatch(/^For clients: .+\. For the service: .+\.$/);
      expect(ch.reason).not.toMatch(/\{(op|field|header|rule|before|after)\}/);
    });
    c.also?.(d);
  });
}

test('the MOI rate changed in both tables names the limits section on each operation\'s change', () => {
  const next = fresh();
  opOf(next, ME).rateLimit = 2;
  opOf(next, MP).rateLimit = 2;
  const row = next.facts.limits.find((l) => /MOI/.test(l.name))!;
  row.value = row.value.replace('3', '2');
  const d = diffSpecs(fresh(), next);
  expect(d.changes.map((c) => [c.op, c.section, c.alsoIn])).toEqual([[ME, '4', ['8']], [MP, '4', ['8']]]);
});

test('every kind has its rows (field kinds one for a request and one for a response), and no row twice', () => {
  const keys = CLASSIFICATION.map((r) => `${r.kind}/${r.direction ?? '-'}`);
  expect(new Set(keys).size).toBe(keys.length);
  const expected = CHANGE_KINDS.flatMap((k) => (FIELD_KINDS.includes(k) ? [`${k}/request`, `${k}/response`] : [`${k}/-`]));
  expect([...keys].sort()).toEqual([...expected].sort());
  for (const r of CLASSIFICATION) {
    expect(r.forClients.length, `${r.kind}/${r.direction}`).toBeGreaterThan(10);
    expect(r.forService.length, `${r.kind}/${r.direction}`).toBeGreaterThan(10);
  }
});

test('the brief\'s classification, row by row', () => {
  // [kind, direction, clients, service], as the brief of this work states them
  const BRIEF: [ChangeKind, Direction | null, Impact, Impact][] = [
    ['field-added', 'request', 'breaking', 'breaking'],
    ['field-removed', 'request', 'compatible', 'breaking'],
    ['field-now-required', 'request', 'breaking', 'breaking'],
    ['field-now-optional', 'request', 'compatible', 'breaking'],
    ['type-changed', 'request', 'breaking', 'breaking'], ['type-changed', 'response', 'breaking', 'breaking'],
    ['format-changed', 'request', 'breaking', 'breaking'], ['format-changed', 'response', 'breaking', 'breaking'],
    ['const-changed', 'request', 'breaking', 'breaking'], ['const-changed', 'response', 'breaking', 'breaking'],
    ['max-length-shorter', 'request', 'breaking', 'breaking'],
    ['max-length-longer', 'request', 'compatible', 'breaking'], ['max-length-removed', 'request', 'compatible', 'breaking'],
    ['field-added', 'response', 'compatible', 'breaking'],
    ['field-removed', 'response', 'breaking', 'compatible'],
    ['max-length-longer', 'response', 'breaking', 'compatible'], ['max-length-shorter', 'response', 'compatible', 'breaking'],
    ['sample-type-added', 'response', 'breaking', 'compatible'], ['alias-added', 'response', 'breaking', 'compatible'],
    ['rate-limit-lower', null, 'breaking', 'breaking'], ['rate-limit-higher', null, 'compatible', 'breaking'],
    ['header-added', null, 'breaking', 'breaking'], ['header-removed', null, 'compatible', 'breaking'],
    ['path-changed', null, 'breaking', 'breaking'], ['method-changed', null, 'breaking', 'breaking'],
    ['operation-added', null, 'compatible', 'breaking'], ['operation-removed', null, 'breaking', 'compatible'],
    ['rule-changed', null, 'review', 'review'],
  ];
  for (const [kind, direction, clients, service] of BRIEF) {
    const row = classificationOf(kind, direction);
    expect({ kind, direction, clients: row.clients, service: row.service }).toEqual({ kind, direction, clients, service });
  }
  // what the schemas really do with a field the service still sends: extra fields are allowed
  expect(classificationOf('field-removed', 'response').forService).toMatch(/neither fails nor warns/);
});

test('the order is the document\'s: by section, a removed field where it was; the changed words of a rule', () => {
  expect(mergeOrder(['a', 'b', 'c', 'd'], ['a', 'c', 'x', 'd'])).toEqual(['a', 'b', 'c', 'x', 'd']);
  expect(mergeOrder(['a', 'b'], ['c'])).toEqual(['a', 'b', 'c']);
  expect(changedWords('one two three four', 'one 2 three four five')).toEqual({ removed: ['two'], added: ['2', 'five'] });

  const next = fresh();
  next.facts.limits.push({ name: 'Body size', value: 'at most 64 KiB', line: 307 });
  next.facts.headers.push({ name: 'BaseCurrency', digest: proseDigest('currency'), line: 277 });
  const t = next.fieldTables.messages[`${BE}.response`]!;
  t.fields.splice(t.fields.indexOf(rowOf(next, `${BE}.response`, 'CustType')), 1);
  rowOf(next, `${BE}.request`, 'AccountNumber').maxLength = 20;
  next.facts.document.version = '2';
  opOf(next, BP).path = '/api/v2/payment/sadad/bill';
  next.facts.rules.find((r) => r.id === '2.9.2')!.digest = proseDigest('Another note.');
  const d = diffSpecs(fresh(), next);
  expect(d.changes.map((c) => `${c.section} ${c.kind}`)).toEqual([
    ' version-changed', '2.1 max-length-shorter', '2.2 field-removed', '2.9 rule-changed', '4 path-changed', '5 header-added', '8 limit-added',
  ]);
});

// ---------------------------------------------------------------------------------------------
// changed documents, made here from the API document by small edits

const DOCUMENT = readFileSync(API_DOCUMENT, 'utf8');

/**
 * Edits of the document by section and row: a row is found by its first cell within its section
 * (the heading to the next one), so that no sentence of the document is copied here, and an edit
 * that finds no row, or more than one, fails at once, naming it.
 */
class Draft {
  lines = DOCUMENT.split('\n');
  private range(section: string): [number, number] {
    const head = new RegExp(`^#+\\s+${section.replace(/\./g, '\\.')}\\.?\\s`);
    const start = this.lines.findIndex((l) => head.test(l));
    if (start < 0) throw new Error(`the document has no section ${section}`);
    let end = this.lines.findIndex((l, i) => i > start && /^#+\s/.test(l));
    if (end < 0) end = this.lines.length;
    return [start, end];
  }
  /** The one line of the section that `match` finds. */
  line(section: string, match: (l: string) => boolean): number {
    const [a, b] = this.range(section);
    const found = this.lines.map((l, i) => (i > a && i < b && match(l) ? i : -1)).filter((i) => i >= 0);
    if (found.length !== 1) throw new Error(`§${section}: ${found.length} lines match ${match.toString()}`);
    return found[0]!;
  }
  row(section: string, first: string): number { return this.line(section, (l) => l.startsWith(`| ${first} |`)); }
  cell(section: string, first: string, column: number, value: string): this {
    const i = this.row(section, first);
    const cells = this.lines[i]!.split('|');
    cells[column + 1] = ` ${value} `;
    this.lines[i] = cells.join('|');
    return this;
  }
  replace(section: string, match: (l: string) => boolean, from: string, to: string): this {
    const i = this.line(section, match);
    if (!this.lines[i]!.includes(from)) throw new Error(`§${section}: line ${i + 1} has no ${from}`);
    this.lines[i] = this.lines[i]!.replace(from, to);
    return this;
  }
  remove(section: string, first: string): this { this.lines.splice(this.row(section, first), 1); return this; }
  insertAfter(section: string, first: string, line: string): this { this.lines.splice(this.row(section, first) + 1, 0, line); return this; }
  /** Item `n.` of the section's numbered list, in other words. */
  item(section: string, n: number, text: string): this {
    const i = this.line(section, (l) => l.startsWith(`${n}. `));
    this.lines[i] = `${n}. ${text}`;
    return this;
  }
  text() { return this.lines.join('\n'); }
}

interface DocumentChange { what: string; edit: (d: Draft) => Draft; expect: Expected[] }

/** The brief's list of changes, each made on the document and expected once. */
const DOCUMENT_CHANGES: DocumentChange[] = [
  {
    what: 'a shorter AccountNumber (24 -> 20, in §2.1 and §8)',
    edit: (d) => d.replace('2.1', (l) => l.startsWith('| ...AccountNumber |'), '24', '20').replace('8', (l) => l.includes('`AccountNumber`'), '24', '20'),
    expect: [{ kind: 'max-length-shorter', op: BE, direction: 'request', field: 'AccountNumber', clients: 'breaking', service: 'breaking' }],
  },
  {
    what: 'a new required request field row',
    edit: (d) => d.insertAfter('2.5', '...Duration', '| ...Nationality | yes | String | Nationality of the customer |'),
    expect: [{ kind: 'field-added', op: ME, direction: 'request', field: 'Nationality', clients: 'breaking', service: 'breaking' }],
  },
  {
    what: 'a removed response field row',
    edit: (d) => d.remove('2.4', '..BankReferenceNumber'),
    expect: [{ kind: 'field-removed', op: BP, direction: 'response', field: 'BankReferenceNumber', clients: 'breaking', service: 'compatible' }],
  },
  {
    what: 'a lower MOI limit (3 -> 2 in both §4 and §8)',
    edit: (d) => d.replace('4', (l) => l.startsWith('| MOI Enquiry |'), '3 calls', '2 calls').replace('4', (l) => l.startsWith('| MOI Payment |'), '3 calls', '2 calls')
      .replace('8', (l) => l.includes('MOI'), '3 calls', '2 calls'),
    expect: [
      { kind: 'rate-limit-lower', op: ME, clients: 'breaking', service: 'breaking' },
      { kind: 'rate-limit-lower', op: MP, clients: 'breaking', service: 'breaking' },
    ],
  },
  {
    what: 'a type change',
    edit: (d) => d.cell('2.3', '...Amount', 2, 'String'),
    expect: [{ kind: 'type-changed', op: BP, direction: 'request', field: 'Amount', clients: 'breaking', service: 'breaking' }],
  },
  {
    what: 'a header added',
    edit: (d) => d.insertAfter('5', '`Content-Type`', '| `BaseCurrency` | Currency of the amounts |'),
    expect: [{ kind: 'header-added', clients: 'breaking', service: 'breaking' }],
  },
  {
    what: 'a header removed',
    edit: (d) => d.remove('5', '`Device`'),
    expect: [{ kind: 'header-removed', clients: 'compatible', service: 'breaking' }],
  },
  {
    what: 'a path changed',
    edit: (d) => d.replace('4', (l) => l.startsWith('| Bill Payment |'), '/api/payment/', '/api/v2/payment/'),
    expect: [{ kind: 'path-changed', op: BP, clients: 'breaking', service: 'breaking' }],
  },
  {
    what: 'a rule\'s text changed',
    edit: (d) => d.item('7', 3, 'Error codes and HTTP statuses: see annex A.'),
    expect: [{ kind: 'rule-changed', clients: 'review', service: 'review' }],
  },
  {
    what: 'a sample note added to a response row (another JSON type to accept)',
    edit: (d) => d.cell('2.6', '...FeeReferenceId', 1, 'String (sample shows a number)'),
    expect: [{ kind: 'sample-type-added', op: ME, direction: 'response', field: 'FeeReferenceId', clients: 'breaking', service: 'compatible' }],
  },
  {
    what: 'a response field added',
    edit: (d) => d.insertAfter('2.8', '...BeneficiaryName', '| ...ReceiptNumber | String | Receipt of the payment |'),
    expect: [{ kind: 'field-added', op: MP, direction: 'response', field: 'ReceiptNumber', clients: 'compatible', service: 'breaking' }],
  },
];

let scratch: string;
test.beforeAll(() => { scratch = mkdtempSync(join(tmpdir(), 'spec-diff-')); });
test.afterAll(() => { rmSync(scratch, { recursive: true, force: true }); });

let written = 0;
function writeDocument(text: string, ext = '.md'): string {
  const file = join(scratch, `v${++written}-${process.pid}${ext}`);
  writeFileSync(file, text);
  return file;
}

let original: Promise<SpecVersion> | undefined;
const importedOriginal = () => (original ??= importDocument(API_DOCUMENT));

function expectChanges(changes: SpecChange[], expected: Expected[]) {
  expect(changes.map(where)).toHaveLength(expected.length);
  expected.forEach((e, i) => {
    const ch = changes[i]!;
    expect(ch.kind).toBe(e.kind);
    if (e.op) expect(ch.op).toBe(e.op);
    if (e.direction) expect(ch.direction).toBe(e.direction);
    if (e.field) expect(ch.path).toMatch(new RegExp(`\\.${e.field}(\\[\\])?$`));
    expect({ clients: ch.clients, service: ch.service }).toEqual({ clients: e.clients, service: e.service });
  });
}

test.describe('changed documents', () => {
  for (const c of DOCUMENT_CHANGES) {
    test(`${c.what}: ${c.expect.map((e) => e.kind).join(', ')}, once`, async () => {
      const next = await importDocument(writeDocument(c.edit(new Draft()).text()));
      expectChanges(diffSpecs(await importedOriginal(), next).changes, c.expect);
    });
  }

  test('all of them together: each reported once, in the document\'s order', async () => {
    let draft = new Draft();
    for (const c of DOCUMENT_CHANGES) draft = c.edit(draft);
    const d = diffSpecs(await importedOriginal(), await importDocument(writeDocument(draft.text())));
    const expected = DOCUMENT_CHANGES.flatMap((c) => c.expect);
    expect(d.changes).toHaveLength(expected.length);
    for (const e of expected) {
      expect(d.changes.filter((ch) => ch.kind === e.kind && ch.op === e.op && (!e.field || ch.path?.endsWith(`.${e.field}`))), `${e.kind} ${e.op ?? ''} ${e.field ?? ''}`).toHaveLength(1);
    }
    const sections = d.changes.map((c) => c.section);
    expect(sections).toEqual([...sections].sort(compareSections));
    expect(d.changes.find((c) => c.kind === 'max-length-shorter')!.alsoIn).toEqual(['8']);
    expect(d.counts).toEqual({ changes: 12, 'breaking-for-clients': 9, 'breaking-for-service': 9, review: 1, compatible: 0 });
  });

  test('a Word document (made from the changed Markdown by pandoc): the same change as the Markdown', async () => {
    test.skip(spawnSync('pandoc', ['--version']).status !== 0, 'pandoc is not installed');
    const md = writeDocument(DOCUMENT_CHANGES[0]!.edit(new Draft()).text());
    const docx = md.replace(/\.md$/, '.docx');
    const made = spawnSync('pandoc', ['-f', 'gfm', '-t', 'docx', md, '-o', docx], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    const r = await run([API_DOCUMENT, docx, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expectChanges(JSON.parse(r.stdout).changes, DOCUMENT_CHANGES[0]!.expect);
  });

  test('a value a rule states and the tables carry (TransactionType): the rows\' const once each, the rule to review, naming them', async () => {
    const text = DOCUMENT.split('SADADMOI').join('SADADFEE');
    const d = diffSpecs(await importedOriginal(), await importDocument(writeDocument(text)));
    expect(d.changes.map((c) => `${c.section} ${c.kind} ${c.path?.split('.').pop() ?? c.rule}`)).toEqual([
      '2.5 const-changed TransactionType', '2.6 const-changed MessageType', '2.7 const-changed TransactionType', '2.8 const-changed MessageType', '4 rule-changed 4.2',
    ]);
    const rule = d.changes.at(-1)!;
    expect(rule.reason).toContain('«`SADADMOI`» -> «`SADADFEE`»');
    expect(rule.reason).toMatch(/The same value changed, each reported on its own, in: TransactionType \(§2\.5\), MessageType \(§2\.6\)/);
  });
});

// ---------------------------------------------------------------------------------------------
// the command

async function run(args: string[], extras?: Parameters<typeof runDiff>[1]) {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...a: unknown[]) => { out.push(a.join(' ')); };
  console.error = (...a: unknown[]) => { err.push(a.join(' ')); };
  try {
    const code = await runDiff(args, extras);
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  } finally {
    console.log = log;
    console.error = error;
  }
}

/** A folder like data/: the two files an import writes. */
function specFolder(s: SpecVersion): string {
  const dir = join(scratch, `spec-${++written}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'field-tables.json'), JSON.stringify(s.fieldTables));
  writeFileSync(join(dir, 'spec.json'), JSON.stringify(s.facts));
  return dir;
}

test.describe('the command', () => {
  test('data/ against itself: no change, exit 0 whatever --fail-on says', async () => {
    for (const failOn of ['breaking-for-clients', 'breaking-for-service', 'any']) {
      const r = await run([DATA_DIR, DATA_DIR, '--fail-on', failOn]);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/\nNo change\.$/);
    }
  });

  test('--fail-on: exit 1 only when a change of that class exists', async () => {
    const base = specFolder(fresh());
    // [what, edit, fails on breaking-for-clients, breaking-for-service, any]
    const CASES: [string, (s: SpecVersion) => void, number, number, number][] = [
      ['a shorter request maximum (both)', (s) => { rowOf(s, `${BE}.request`, 'AccountNumber').maxLength = 20; }, 1, 1, 1],
      ['a response field added (the service)', (s) => { s.fieldTables.messages[`${MP}.response`]!.fields.push({ path: 'SvcSadadMOIPaymentResponse.SvcSadadMOIPayment[].TransactionData[].ReceiptNumber', required: true, type: 'String' }); }, 0, 1, 1],
      ['an operation removed (clients)', (s) => { s.facts.operations = s.facts.operations.filter((o) => o.id !== MP); delete s.fieldTables.messages[`${MP}.request`]; delete s.fieldTables.messages[`${MP}.response`]; }, 1, 0, 1],
      ['a rule reworded (review)', (s) => { s.facts.rules.find((r) => r.id === '7.3')!.digest = proseDigest('Error codes: see the annex.'); }, 0, 0, 1],
      ['a title (compatible)', (s) => { s.facts.document.title = 'Another title'; }, 0, 0, 1],
    ];
    for (const [what, edit, clients, service, any] of CASES) {
      const next = fresh();
      edit(next);
      const dir = specFolder(next);
      const codes = [];
      for (const failOn of ['breaking-for-clients', 'breaking-for-service', 'any']) codes.push((await run([base, dir, `--fail-on=${failOn}`])).code);
      expect(codes, what).toEqual([clients, service, any]);
      expect((await run([base, dir])).code, `${what}, no --fail-on`).toBe(0);
    }
  });

  test('the console: grouped by operation and message, one line per change with its class, a summary with counts per class', async () => {
    let draft = new Draft();
    for (const c of DOCUMENT_CHANGES) draft = c.edit(draft);
    const r = await run([API_DOCUMENT, writeDocument(draft.text())]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Spec diff: api-spec\.md, sha256:\w+ -> v\d+-\d+\.md, sha256:\w+$/);
    expect(lines).toContain('The whole document');
    expect(lines).toContain('Bill Enquiry (bill-enquiry)');
    expect(lines).toContain('  request §2.1');
    expect(lines.find((l) => l.includes('max-length-shorter'))).toMatch(/^ {4}breaking for clients, breaking for the service +max-length-shorter +SvcSadadBillEnquiry\[\]\.TransactionData\[\]\.AccountNumber: 24 -> 20 \(also §8\)$/);
    expect(lines.find((l) => l.includes('header-removed'))).toMatch(/^ {2}breaking for the service +header-removed +header Device: removed \(§5\)$/);
    expect(lines.find((l) => l.includes('rule-changed'))).toMatch(/^ {2}review +rule-changed +§7 rule 3: /);
    expect(lines.find((l) => l.includes('sample-type-added'))).toMatch(/^ {4}breaking for clients +sample-type-added/);
    expect(lines.at(-1)).toBe('12 changes: 9 breaking for clients, 9 breaking for the service, 1 review');
    // the reasons with --why, under each line
    const why = await run([API_DOCUMENT, writeDocument(draft.text()), '--why']);
    expect(why.stdout).toMatch(/max-length-shorter .*\n {6}For clients: a client's values of .*AccountNumber longer than 20 characters are refused \(it was 24\)\. For the service: /);
  });

  test('--json: the SpecDiff on stdout, nothing else there; --fail-on still decides the exit code', async () => {
    const next = fresh();
    rowOf(next, `${BE}.request`, 'AccountNumber').maxLength = 20;
    const r = await run([DATA_DIR, specFolder(next), '--json', '--fail-on', 'breaking-for-clients']);
    expect(r.code).toBe(1);
    const parsed = JSON.parse(r.stdout);
    expect(parsed).toEqual(JSON.parse(JSON.stringify(diffSpecs(fresh(), next))));
    expect(parsed.changes).toHaveLength(1);
    expect(parsed.changes[0]).toMatchObject({ kind: 'max-length-shorter', op: BE, message: `${BE}.request`, direction: 'request', before: 24, after: 20, section: '2.1', clients: 'breaking', service: 'breaking' });
    expect(parsed).not.toHaveProperty('cases');
    expect(r.stderr).toMatch(/--fail-on breaking-for-clients: 1 change \(a change breaking for clients\): exit 1/);
  });

  test('--html: the page is written and names each change, its impacts and the reasons', async () => {
    let draft = new Draft();
    for (const c of DOCUMENT_CHANGES) draft = c.edit(draft);
    const page = join(scratch, 'diff.html');
    const r = await run([API_DOCUMENT, writeDocument(draft.text()), '--html', page]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`The diff as a page: ${page}`);
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('Content-Security-Policy');
    expect(html).toContain('The new document breaks');
    for (const e of DOCUMENT_CHANGES.flatMap((c) => c.expect)) {
      expect(html, e.kind).toContain(`data-kind="${e.kind}"`);
      if (e.field) expect(html, e.field).toContain(e.field);
    }
    expect(html.match(/<tr id="change-\d+"/g)).toHaveLength(12);
    expect(html).toContain('BaseCurrency');
    expect(html).toContain('For clients: a client&#39;s values of');
    expect(html).not.toContain('id="cases"');
  });

  test('the cases a caller maps the change to: on the console, in the JSON and on the page; left out when it has none', async () => {
    const next = fresh();
    rowOf(next, `${BE}.request`, 'AccountNumber').maxLength = 20;
    const dir = specFolder(next);
    const cases: CaseChanges = { added: ['bill-enquiry.req.AccountNumber.at-20'], removed: ['bill-enquiry.req.AccountNumber.at-24'], changed: [{ id: 'bill-enquiry.req.AccountNumber.too-long', because: ['AccountNumber maxLength 24 -> 20'] }] };
    let seen: [SpecVersion, SpecVersion] | null = null;
    const extras = { cases: async (o: SpecVersion, n: SpecVersion) => { seen = [o, n]; return cases; } };
    const text = await run([DATA_DIR, dir], extras);
    expect(seen![1].fieldTables.messages[`${BE}.request`]!.fields.at(-1)!.maxLength).toBe(20);
    expect(text.stdout).toContain('Cases: 1 added, 1 removed, 1 changed\n  + bill-enquiry.req.AccountNumber.at-20\n  - bill-enquiry.req.AccountNumber.at-24\n  ~ bill-enquiry.req.AccountNumber.too-long: AccountNumber maxLength 24 -> 20');
    expect(JSON.parse((await run([DATA_DIR, dir, '--json'], extras)).stdout).cases).toEqual(cases);
    const page = join(scratch, 'cases.html');
    await run([DATA_DIR, dir, '--html', page], extras);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain('id="cases"');
    expect(html).toContain('bill-enquiry.req.AccountNumber.too-long');
    // a mapping that knows nothing: nothing shown
    const none = await run([DATA_DIR, dir], { cases: async () => null });
    expect(none.stdout).not.toContain('Cases:');
  });

  test('usage errors and unreadable inputs: exit 2, saying what is wrong and where, nothing compared', async () => {
    const broken = join(scratch, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'field-tables.json'), '{"messages": {}}');
    writeFileSync(join(broken, 'spec.json'), '{ not json');
    const halfway = join(scratch, 'halfway');
    mkdirSync(halfway);
    writeFileSync(join(halfway, 'field-tables.json'), '{"messages": {}}');
    const noEndpoints = writeDocument(new Draft().text().replace(/## 4\. [^\n]*/, '## 4. Something else').replace(/\| Operation \| Method[^\n]*/, '| A | B | C | D | E | F |'));
    const txt = writeDocument('hello', '.txt');
    const shapeless = join(scratch, 'shapeless');
    mkdirSync(shapeless);
    writeFileSync(join(shapeless, 'field-tables.json'), '{"messages": {"bill-enquiry.request": {"fields": 3}}}');
    writeFileSync(join(shapeless, 'spec.json'), readFileSync(join(DATA_DIR, 'spec.json')));
    const CASES: [string[], RegExp][] = [
      [[], /spec diff: name two versions of the document, the old one and the new one \(got none\)\nusage: npm run spec -- diff <old> <new>/],
      [[DATA_DIR], /got 1: /],
      [[DATA_DIR, DATA_DIR, '--fail-on', 'everything'], /--fail-on takes one of breaking-for-clients, breaking-for-service, any, not "everything"/],
      [[DATA_DIR, DATA_DIR, '--fail-on'], /--fail-on takes one of/],
      [[DATA_DIR, DATA_DIR, '--html'], /--html needs the file/],
      [[DATA_DIR, DATA_DIR, '--colour'], /unknown option --colour/],
      [[join(scratch, 'nowhere.md'), DATA_DIR], /the old version, .*nowhere\.md: no such file or folder\nNothing was compared\./],
      [[DATA_DIR, txt], /the new version, .*\.txt: neither a document \(\.md, \.markdown, \.docx, \.odt\) nor a folder holding field-tables\.json and spec\.json/],
      [[DATA_DIR, broken], /the new version, .*broken: .*broken\/spec\.json: the spec facts is not JSON/],
      [[DATA_DIR, shapeless], /the new version, .*shapeless: .*field-tables\.json: messages\["bill-enquiry\.request"\] needs a message, a section and fields with paths/],
      [[halfway, DATA_DIR], /the old version, .*halfway: .*halfway\/spec\.json: cannot read the spec facts: no such file/],
      [[DATA_DIR, noEndpoints], /the new version, .*\.md: .*\.md(:\d+)?.*: /],
      [[DATA_DIR, DATA_DIR, '--html', join(scratch, 'no', 'such', 'dir', 'x.html')], /--html .*x\.html: cannot write the page/],
    ];
    for (const [args, message] of CASES) {
      const r = await run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run spec -- diff/);
  });

  test('a document that drops a row an override names: exit 2 naming the entry; with --overrides that leaves it out, the change', async () => {
    const doc = writeDocument(new Draft().remove('2.4', '...envelopeDateTime').text());
    const refused = await run([DATA_DIR, doc]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/the new version, .*: .*\(§2\.4\): .*envelopeDateTime.*\nNothing was compared\./);
    const overrides = JSON.parse(readFileSync(join(DATA_DIR, 'spec-overrides.json'), 'utf8')) as { overrides: { target: unknown }[] };
    overrides.overrides = overrides.overrides.filter((e) => !JSON.stringify(e.target).includes('envelopeDateTime'));
    const file = join(scratch, 'overrides.json');
    writeFileSync(file, JSON.stringify(overrides));
    const r = await run([DATA_DIR, doc, '--overrides', file, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expectChanges(JSON.parse(r.stdout).changes, [{ kind: 'field-removed', op: BP, direction: 'response', field: 'envelopeDateTime', clients: 'breaking', service: 'compatible' }]);
  });

  test('through `npm run spec`\'s entry point, as a short child process: the exit codes of --fail-on, the JSON on stdout', () => {
    const next = fresh();
    next.facts.document.title = 'Another title';
    const dir = specFolder(next);
    const spec = (...args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/spec.ts', 'diff', ...args], { cwd: ROOT, encoding: 'utf8' });
    const compatible = spec(DATA_DIR, dir, '--json', '--fail-on', 'breaking-for-clients');
    expect(compatible.status, compatible.stderr).toBe(0);
    expect(JSON.parse(compatible.stdout).changes.map((c: SpecChange) => c.kind)).toEqual(['title-changed']);
    const any = spec(DATA_DIR, dir, '--fail-on', 'any');
    expect(any.status).toBe(1);
    expect(any.stdout).toMatch(/compatible +title-changed +title: .* -> Another title\n[^]*1 change: 1 compatible\n--fail-on any: 1 change/);
    expect(spec(DATA_DIR).status).toBe(2);
  });
});

test('docs/spec-diff.md carries the classification table exactly as classify.ts makes it', () => {
  const page = readFileSync(join(ROOT, 'docs', 'spec-diff.md'), 'utf8');
  expect(page).toContain(`${classificationMarkdown()}\n`);
});
