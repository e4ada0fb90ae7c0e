/**
 * The defect catalogue: its invariants (enough defects, every rule family, every operation, unique
 * names, each documented and each with a probe), one test per defect showing the misbehaviour on a
 * mock running it (and that it bends only what it names), and one showing that a mock without
 * defects passes none of the probes.
 */
import { RequestGenerator } from '../../src/generators/requests.js';
import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operation, operations, tagsOf, type OperationId } from '../../src/contract/catalogue.js';
import { requestEntries, requestItems, type Fields, type RequestBody } from '../../src/contract/message.js';
import { ConfigError } from '../../src/contract/prefix.js';
import { ROOT } from '../../src/paths.js';
import { RULE_FAMILIES } from '../../src/vocabulary/verdicts.js';
import { BODY_LIMIT, DEFECT_CATALOGUE, DEFECT_FAMILIES, KNOWN_DEFECTS, mockOptionsFromEnv, startMock, type DefectName, type MockOptions } from '../../src/mock/index.js';
import { noResetWindows } from '../../src/mock/rate-limit.js';
import { freshAccount, freshId, UNLIMITED, withMock, type Answer, type MockClient } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cents = (n: unknown) => Math.round(Number(n) * 100);
const seqOf = (opId: OperationId, body: RequestBody) => String(requestEntries(opId, body, 'Svc')[0]!.SequenceNumber);
const rootOf = (c: MockClient, opId: OperationId, a: Answer) => a.body?.[tagsOf(operation(opId), c.options.tagPrefix).responseRoot];
const notLimited = (a: Answer) => a.status !== 429;
const bill = () => ({ BillerId: '002', AccountNumber: freshAccount() });
const feeSubject = () => ({ BillerID: '090', ID: freshId(), RequestType: '02' });

/** An alphanumeric bill account of exactly `n` characters, not ending in a magic suffix. */
const accountOf = (n: number) => `3${'1234567890'.repeat(3)}`.slice(0, n - 1) + 'A';

/** A fee subject and its enquiry entry, ready to pay. */
async function dueFee(c: MockClient) {
  const subject = feeSubject();
  const a = await c.enquireFee(subject);
  expect(a.status, 'fee enquiry').toBe(200);
  return { subject, entry: c.entries('moi-enquiry', a)[0]! };
}
const feeDue = async (c: MockClient, subject: ReturnType<typeof feeSubject>) => cents(c.entries('moi-enquiry', await c.enquireFee(subject))[0]!.DueAmount);

/** A partial payment of 10.00 on a fresh bill, accepted. */
async function paidBill(c: MockClient, headers: Record<string, string | undefined> = {}) {
  const subject = bill();
  const due = cents((await c.enquireBill(subject)).AmountDue);
  const body = c.billPayment(subject, 10, false);
  const answer = await c.post('bill-payment', body, { headers });
  expect(answer.status, `bill payment: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
  return { subject, due, body, answer };
}

async function paidFee(c: MockClient, headers: Record<string, string | undefined> = {}) {
  const { subject, entry } = await dueFee(c);
  const body = c.feePayment(subject, entry);
  const answer = await c.post('moi-payment', body, { headers });
  expect(answer.status, `MOI payment: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
  return { subject, entry, body, answer };
}

/** Window of the no-reset probe: the bound it shows is noResetWindows() of these. */
const WINDOW_MS = 400;

interface Probe {
  /** Mock options besides the defect (defaults: budgets no probe reaches). */
  options?: Partial<MockOptions>;
  /** Asserts the misbehaviour; throws on a mock that behaves. */
  shows: (c: MockClient) => Promise<void>;
}

/** One probe per defect; typed by name, so a defect without a probe does not compile. */
const PROBES: Record<DefectName, Probe> = {
  'rate-limit-one-extra': {
    options: { rateWindowSeconds: 5, rateLimits: { bill: 3, moi: 3 } },
    shows: async (c) => {
      const enquiries: number[] = [];
      for (let i = 0; i < 5; i++) enquiries.push((await c.post('bill-enquiry', c.build('bill-enquiry'))).status);
      expect(enquiries, 'limit 3: four calls pass, the fifth is refused').toEqual([200, 200, 200, 200, 429]);
      const payments: boolean[] = [];
      for (let i = 0; i < 4; i++) payments.push(notLimited(await c.post('bill-payment', c.build('bill-payment'))));
      expect(payments, 'bill payment keeps the limit').toEqual([true, true, true, false]);
    },
  },
  'rate-limit-one-short': {
    options: { rateWindowSeconds: 5, rateLimits: { bill: 3, moi: 3 } },
    shows: async (c) => {
      const payments: boolean[] = [];
      for (let i = 0; i < 3; i++) payments.push(notLimited(await c.post('bill-payment', c.build('bill-payment'))));
      expect(payments, 'limit 3: the third call is already refused').toEqual([true, true, false]);
      const enquiries: number[] = [];
      for (let i = 0; i < 4; i++) enquiries.push((await c.post('bill-enquiry', c.build('bill-enquiry'))).status);
      expect(enquiries, 'bill enquiry keeps the limit').toEqual([200, 200, 200, 429]);
    },
  },
  'rate-limit-no-reset': {
    options: { rateWindowSeconds: WINDOW_MS / 1000, rateLimits: { bill: 100, moi: 2 } },
    shows: async (c) => {
      const enquire = async () => (await c.post('moi-enquiry', c.build('moi-enquiry'))).status;
      const pay = async () => notLimited(await c.post('moi-payment', c.build('moi-payment')));
      const started = Date.now();
      expect([await enquire(), await enquire(), await enquire()]).toEqual([200, 200, 429]);
      expect([await pay(), await pay(), await pay()]).toEqual([true, true, false]);
      await sleep(Math.max(0, started + 1.5 * WINDOW_MS - Date.now()));
      expect(await enquire(), 'a window later, MOI enquiry is still blocked').toBe(429);
      expect(await pay(), 'a window later, MOI payment has a fresh budget').toBe(true);
      await sleep(Math.max(0, started + (noResetWindows(WINDOW_MS) + 0.75) * WINDOW_MS - Date.now()));
      expect(await enquire(), `after ${noResetWindows(WINDOW_MS)} windows the block ends`).toBe(200);
    },
  },
  'rate-limit-off': {
    options: { rateWindowSeconds: 5, rateLimits: { bill: 1, moi: 1 } },
    shows: async (c) => {
      for (let i = 0; i < 5; i++) {
        const a = await c.post('moi-payment', c.build('moi-payment'));
        expect(a.status, `MOI payment call ${i + 1}`).not.toBe(429);
        expect(a.headers.get('x-ratelimit-limit')).toBeNull();
      }
      expect([(await c.post('moi-enquiry', c.build('moi-enquiry'))).status, (await c.post('moi-enquiry', c.build('moi-enquiry'))).status]).toEqual([200, 429]);
    },
  },
  'account-number-24-rejected': {
    shows: async (c) => {
      const at = (n: number) => c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: accountOf(n) } }));
      const a24 = await at(24);
      expect(a24.status).toBe(400);
      expect(a24.body.errorCode).toBe('MW-400-VALIDATION');
      expect(a24.body.details).toEqual([expect.objectContaining({ pointer: expect.stringMatching(/\/TransactionData\/0\/AccountNumber$/), expected: 'at most 23 characters' })]);
      expect((await at(23)).status).toBe(200);
    },
  },
  'account-number-25-accepted': {
    shows: async (c) => {
      const account = accountOf(25);
      const a = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: account } }));
      expect(a.status).toBe(200);
      expect(c.entries('bill-enquiry', a)[0]).toMatchObject({ BillAccountID: account, StatusCode: 'OK' });
      expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: accountOf(26) } }))).status).toBe(400);
    },
  },
  'account-number-symbols-accepted': {
    shows: async (c) => {
      const a = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: '300123-12 34' } }));
      expect(a.status).toBe(200);
      expect(c.entries('bill-enquiry', a)[0]).toMatchObject({ BillAccountID: '300123-12 34', StatusCode: 'OK' });
      expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: accountOf(25) } }))).status, 'the length limit holds').toBe(400);
    },
  },
  'required-field-unchecked': {
    shows: async (c) => {
      for (const [label, change] of [['missing', (e: Fields) => { delete e.BranchCode; }], ['null', (e: Fields) => { e.BranchCode = null; }], ['empty', (e: Fields) => { e.BranchCode = ''; }]] as const) {
        const body = c.build('moi-enquiry');
        change(requestEntries('moi-enquiry', body, 'Svc')[0]!);
        const a = await c.post('moi-enquiry', body);
        expect(a.status, `BranchCode ${label}`).toBe(200);
        expect(c.entries('moi-enquiry', a)[0]!.StatusCode, `BranchCode ${label}`).toBe('OK');
      }
      const noDuration = c.build('moi-enquiry');
      delete requestEntries('moi-enquiry', noDuration, 'Svc')[0]!.Duration;
      expect((await c.post('moi-enquiry', noDuration)).status, 'other required fields still checked').toBe(400);
    },
  },
  'wrong-type-accepted': {
    shows: async (c) => {
      const { subject, entry } = await dueFee(c);
      expect((await c.post('moi-payment', c.feePayment(subject, entry, { VisaCount: 'two' }))).status, 'a non-numeric string is still refused').toBe(400);
      const a = await c.post('moi-payment', c.feePayment(subject, entry, { VisaCount: '2' }));
      expect(a.status).toBe(200);
      expect(c.entries('moi-payment', a)[0]!.StatusCode).toBe('OK');
      expect(await feeDue(c, subject), 'the payment took effect').toBe(0);
    },
  },
  'empty-string-accepted': {
    shows: async (c) => {
      const a = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { SubscriberNumber: '' } }));
      expect(a.status).toBe(200);
      expect(c.entries('bill-enquiry', a)[0]).toMatchObject({ SubscriberNumber: '', StatusCode: 'OK' });
      expect((await c.post('bill-payment', c.billPayment(bill(), 10, false, { SubscriberNumber: '' }))).status, 'only bill enquiry is relaxed').toBe(400);
    },
  },
  'foreign-transaction-type': {
    shows: async (c) => {
      const subject = bill();
      const due = cents((await c.enquireBill(subject)).AmountDue);
      const root = tagsOf(operation('bill-payment'), c.options.tagPrefix).requestRoot;
      const withType = (type: string) => { const b = c.billPayment(subject, 10, false); b.Message[root]!.TransactionType = type; return b; };
      expect((await c.post('bill-payment', withType('SADADXXX'))).status, 'an unknown type is still refused').toBe(400);
      for (const type of ['SADADENQ', 'SADADMOI']) {
        const a = await c.post('bill-payment', withType(type));
        expect(a.status, type).toBe(200);
        expect(c.entries('bill-payment', a)[0]!.StatusCode, type).toBe('OK');
      }
      expect(cents((await c.enquireBill(subject)).AmountDue), 'both payments were processed').toBe(due - 2000);
      const enquiry = c.build('bill-enquiry');
      enquiry.Message[tagsOf(operation('bill-enquiry'), c.options.tagPrefix).requestRoot]!.TransactionType = 'SADADTRN';
      expect((await c.post('bill-enquiry', enquiry)).status, 'only bill payment is relaxed').toBe(400);
    },
  },
  'duplicate-when-concurrent': {
    shows: async (c) => {
      const subject = bill();
      const due = cents((await c.enquireBill(subject)).AmountDue);
      const body = c.billPayment(subject, 1, false);
      const answers = await Promise.all(Array.from({ length: 10 }, () => c.post('bill-payment', body)));
      const accepted = answers.filter((a) => a.status === 200).length;
      expect(accepted, 'concurrent copies pass the duplicate check').toBeGreaterThan(1);
      expect(cents((await c.enquireBill(subject)).AmountDue), 'each accepted copy debited').toBe(due - accepted * 100);
      expect((await c.post('bill-payment', body)).status, 'a sequential replay is still caught').toBe(409);
    },
  },
  'duplicate-when-partial': {
    shows: async (c) => {
      const { subject, due, body } = await paidBill(c);
      const replay = await c.post('bill-payment', body);
      expect(replay.status, 'the partial replay is accepted').toBe(200);
      expect(cents((await c.enquireBill(subject)).AmountDue), 'and debited again').toBe(due - 2000);
      const exact = c.billPayment(subject, (due - 2000) / 100, true, { SequenceNumber: seqOf('bill-payment', body) });
      expect((await c.post('bill-payment', exact)).status, 'a replay paying the whole due amount is caught').toBe(409);
    },
  },
  'duplicate-moi-unchecked': {
    shows: async (c) => {
      const first = await paidFee(c);
      const other = await dueFee(c);
      const reused = c.feePayment(other.subject, other.entry, { SequenceNumber: seqOf('moi-payment', first.body) });
      expect((await c.post('moi-payment', reused)).status, 'the reused SequenceNumber is accepted').toBe(200);
      expect(await feeDue(c, other.subject), 'and the fee paid').toBe(0);
      const billed = await paidBill(c);
      expect((await c.post('bill-payment', c.billPayment(bill(), 5, false, { SequenceNumber: seqOf('bill-payment', billed.body) }))).status, 'bill payments still checked').toBe(409);
    },
  },
  'payment-without-effect': {
    shows: async (c) => {
      const { subject, due, body, answer } = await paidBill(c);
      expect(c.entries('bill-payment', answer)[0]).toMatchObject({ StatusCode: 'OK', PaidAmount: '10.00' });
      expect(cents((await c.enquireBill(subject)).AmountDue), 'the bill is unchanged').toBe(due);
      expect((await c.post('bill-payment', body)).status, 'its SequenceNumber is taken').toBe(409);
    },
  },
  'moi-payment-without-effect': {
    shows: async (c) => {
      const { subject, entry, answer } = await paidFee(c);
      expect(c.entries('moi-payment', answer)[0]!.StatusCode).toBe('OK');
      expect(await feeDue(c, subject), 'the fee is still due').toBe(cents(entry.DueAmount));
    },
  },
  'partial-debits-full': {
    shows: async (c) => {
      const { subject, answer } = await paidBill(c);
      expect(c.entries('bill-payment', answer)[0]).toMatchObject({ StatusCode: 'OK', PaidAmount: '10.00' });
      expect(await c.enquireBill(subject), 'a payment of 10.00 settled the bill').toMatchObject({ AmountDue: 0, BillStatus: 'BillPaid' });
    },
  },
  'second-entry-sequence': {
    shows: async (c) => {
      const body = c.build('bill-enquiry', { entries: 3 });
      const sent = requestEntries('bill-enquiry', body, 'Svc').map((e) => e.SequenceNumber);
      const got = c.entries('bill-enquiry', await c.post('bill-enquiry', body)).map((e) => e.SequenceNumber);
      expect(got).toHaveLength(3);
      expect([got[0], got[2]], 'first and third echoed').toEqual([sent[0], sent[2]]);
      expect(got[1], 'the second is not').not.toBe(sent[1]);
      const one = c.build('bill-enquiry');
      expect(c.entries('bill-enquiry', await c.post('bill-enquiry', one))[0]!.SequenceNumber, 'a single entry is echoed').toBe(seqOf('bill-enquiry', one));
    },
  },
  'entries-reversed': {
    shows: async (c) => {
      const body = c.build('moi-enquiry', { entries: 3 });
      const sent = requestEntries('moi-enquiry', body, 'Svc').map((e) => e.ID);
      expect(new Set(sent).size).toBe(3);
      const got = c.entries('moi-enquiry', await c.post('moi-enquiry', body)).map((e) => e.ID);
      expect(got).toEqual([...sent].reverse());
    },
  },
  'table-style-amount-string': {
    options: { style: 'table' },
    shows: async (c) => {
      const entry = await c.enquireBill(bill());
      expect(entry.AmountDue).toMatch(/^\d+\.\d{2} SAR$/);
      expect(entry.AmountDue).toBe(`${Number(entry.Balance).toFixed(2)} SAR`);
      await withMock({ ...UNLIMITED, defects: c.options.defects, style: 'sample' }, async (sample) => {
        expect(typeof (await sample.enquireBill(bill())).AmountDue, 'sample style is unaffected').toBe('number');
      });
    },
  },
  'response-field-missing': {
    shows: async (c) => {
      const { entry, answer } = await paidFee(c);
      expect(entry.FeeReferenceId).toMatch(/^FR\d{6}$/);
      expect(entry).not.toHaveProperty('BeneficiaryName');
      expect(c.entries('moi-payment', answer)[0]!.BeneficiaryName, 'MOI payment still has it').toEqual(expect.any(String));
    },
  },
  'message-wrapper': {
    shows: async (c) => {
      const { answer } = await paidFee(c);
      const root = tagsOf(operation('moi-payment'), c.options.tagPrefix).responseRoot;
      expect(Object.keys(answer.body)).toEqual(['Message']);
      expect(answer.body.Message[root].MessageType).toBe('SADADMOI');
      expect(rootOf(c, 'moi-enquiry', await c.enquireFee(feeSubject())), 'MOI enquiry is not wrapped').toBeDefined();
    },
  },
  'message-wrapper-everywhere': {
    // in-band errors: a generated payment is refused with a 200 whose body is rendered (and wrapped) like any answer
    options: { errors: 'in-band' },
    shows: async (c) => {
      // every operation's answer is wrapped, payments included
      for (const op of ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'] as const) {
        const answer = await c.post(op, new RequestGenerator({ seed: 3 }).build(op));
        const root = tagsOf(operation(op), c.options.tagPrefix).responseRoot;
        expect(answer.status, op).toBe(200);
        expect(Object.keys(answer.body as object), op).toEqual(['Message']);
        expect((answer.body as { Message: Record<string, { MessageType: string }> }).Message[root]!.MessageType, op).toBe(operation(op).transactionType);
      }
    },
  },
  'timestamp-with-zone': {
    shows: async (c) => {
      const { answer } = await paidBill(c);
      expect(rootOf(c, 'bill-payment', answer).TimeStamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
      const enquiry = await c.post('bill-enquiry', c.build('bill-enquiry'));
      expect(rootOf(c, 'bill-enquiry', enquiry).TimeStamp, 'bill enquiry is unaffected').toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    },
  },
  'dates-with-dashes': {
    shows: async (c) => {
      const entry = await c.enquireBill(bill());
      for (const f of ['PaidDate', 'OpenDate', 'CloseDate', 'DueDate', 'ExpiryDate']) expect(entry[f], f).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const { answer } = await paidBill(c);
      expect(c.entries('bill-payment', answer)[0]!.PaidDate, 'bill payment is unaffected').toMatch(/^\d{8}$/);
    },
  },
  'message-type-wrong': {
    shows: async (c) => {
      const { answer } = await paidFee(c);
      expect(rootOf(c, 'moi-payment', answer).MessageType).toBe('SADADTRN');
      expect(rootOf(c, 'moi-enquiry', await c.enquireFee(feeSubject())).MessageType, 'MOI enquiry is unaffected').toBe('SADADMOI');
    },
  },
  'reference-not-echoed': {
    shows: async (c) => {
      const body = c.build('bill-enquiry');
      const sent = requestItems('bill-enquiry', body, 'Svc')[0]!;
      const item = c.items('bill-enquiry', await c.post('bill-enquiry', body))[0]!;
      expect(item.TransactionReferenceNumber).not.toBe(sent.TransactionReferenceNumber);
      expect(item.TransactionReferenceNumber, 'a made-up reference').toMatch(/^T\d+$/);
      expect(item, 'the other identification fields are echoed').toMatchObject({ BankCode: sent.BankCode, CompanyCode: sent.CompanyCode, MessageDescription: sent.MessageDescription });
    },
  },
  'sequence-not-echoed': {
    shows: async (c) => {
      const { body, answer } = await paidFee(c);
      const echoed = c.entries('moi-payment', answer)[0]!.SequenceNum;
      expect(echoed).not.toBe(seqOf('moi-payment', body));
      expect(echoed, 'a server-generated number').toMatch(/^S\d+$/);
      const billed = await paidBill(c);
      expect(c.entries('bill-payment', billed.answer)[0]!.SequenceNum, 'bill payment echoes').toBe(seqOf('bill-payment', billed.body));
    },
  },
  'enquiry-success-failing': {
    shows: async (c) => {
      const billAnswer = await c.post('bill-enquiry', c.build('bill-enquiry'));
      expect(billAnswer.status).toBe(200);
      expect(c.entries('bill-enquiry', billAnswer)[0]!.StatusCode, 'a found bill reads as failed').not.toBe('OK');
      expect(c.entries('bill-enquiry', billAnswer)[0]!.AmountDue).toEqual(expect.any(Number));
      const feeAnswer = await c.post('moi-enquiry', c.build('moi-enquiry'));
      expect(c.entries('moi-enquiry', feeAnswer)[0]!.StatusCode).not.toBe('OK');
      const paid = await paidFee(c);
      expect(c.entries('moi-payment', paid.answer)[0]!.StatusCode, 'payments are untouched').toBe('OK');
    },
  },
  'list-as-object': {
    shows: async (c) => {
      const { body, answer } = await paidBill(c);
      const data = c.items('bill-payment', answer)[0]!.TransactionData;
      expect(Array.isArray(data)).toBe(false);
      expect(data).toMatchObject({ SequenceNum: seqOf('bill-payment', body), StatusCode: 'OK' });
      const subject = bill();
      const two = await c.post('bill-payment', c.build('bill-payment', { entries: 2, entry: { BillerId: subject.BillerId, BillAccountID: subject.AccountNumber, Amount: 1, PayExactDue: false } }));
      expect(c.entries('bill-payment', two), 'two entries stay an array').toHaveLength(2);
      expect(Array.isArray(c.items('bill-enquiry', await c.post('bill-enquiry', c.build('bill-enquiry')))[0]!.TransactionData), 'bill enquiry is unaffected').toBe(true);
    },
  },
  'company-id-unchecked': {
    options: { rateWindowSeconds: 5, rateLimits: { bill: 100, moi: 2 } },
    shows: async (c) => {
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { CompanyId: undefined } })).status, 'no CompanyId').toBe(200);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { CompanyId: 'NOSUCHCOMPANY0' } })).status, 'unknown CompanyId').toBe(200);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status, 'both calls were the configured company\'s').toBe(429);
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { CompanyId: 'NOSUCHCOMPANY0' } })).status, 'bill enquiry still checks').toBe(401);
      expect((await c.post('moi-payment', c.build('moi-payment'), { headers: { CompanyId: undefined } })).status, 'MOI payment still checks').toBe(401);
    },
  },
  'company-id-unchecked-everywhere': {
    shows: async (c) => {
      // every operation, enquiries and payments (which take effect), without a CompanyId and with an unknown one
      for (const CompanyId of [undefined, 'NOSUCHCOMPANY0']) {
        expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { CompanyId } })).status, `bill enquiry, CompanyId ${CompanyId}`).toBe(200);
        expect((await c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { CompanyId } })).status, `MOI enquiry, CompanyId ${CompanyId}`).toBe(200);
        await paidBill(c, { CompanyId });
        const { subject } = await paidFee(c, { CompanyId });
        expect(await feeDue(c, subject), 'the fee was paid for the configured company').toBe(0);
      }
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { Authorization: 'Bearer not-a-valid-token-0000' } })).status, 'the token is still checked').toBe(401);
    },
  },
  'bad-token-accepted': {
    shows: async (c) => {
      await paidBill(c, { Authorization: 'Bearer not-a-valid-token-0000' });
      expect((await c.post('bill-payment', c.build('bill-payment'), { headers: { Authorization: 'Basic bm90OmJlYXJlcg==' } })).status, 'not Bearer: refused').toBe(401);
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { Authorization: 'Bearer not-a-valid-token-0000' } })).status, 'bill enquiry still checks').toBe(401);
    },
  },
  'content-type-unchecked': {
    shows: async (c) => {
      const { subject } = await paidFee(c, { 'Content-Type': 'text/plain' });
      expect(await feeDue(c, subject)).toBe(0);
      expect((await c.post('moi-payment', c.build('moi-payment'), { headers: { 'Content-Type': 'application/xml' } })).status, 'other types: 415').toBe(415);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { 'Content-Type': 'text/plain' } })).status, 'MOI enquiry still checks').toBe(415);
    },
  },
  'malformed-json-500': {
    shows: async (c) => {
      const a = await c.post('bill-enquiry', undefined, { raw: '{"Message": {not json' });
      expect(a.status).toBe(500);
      expect(a.body).toMatchObject({ errorCode: 'MW-500' });
      expect((await c.post('bill-enquiry', undefined, { raw: '' })).status, 'an empty body is still 400').toBe(400);
      expect((await c.post('bill-payment', undefined, { raw: '{"Message": {not json' })).status, 'bill payment is unaffected').toBe(400);
    },
  },
  'oversized-500': {
    shows: async (c) => {
      const big = (opId: OperationId) => ({ ...c.build(opId), padding: 'x'.repeat(BODY_LIMIT) });
      const a = await c.post('moi-enquiry', big('moi-enquiry'));
      expect(a.status).toBe(500);
      expect(a.body).toMatchObject({ errorCode: 'MW-500' });
      expect((await c.post('moi-payment', big('moi-payment'))).status, 'MOI payment is unaffected').toBe(413);
    },
  },
  'proto-keys-500': {
    shows: async (c) => {
      const raw = '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
      expect((await c.post('bill-payment', undefined, { raw })).status).toBe(500);
      const valid = JSON.stringify(c.build('bill-payment'));
      expect((await c.post('bill-payment', undefined, { raw: valid.replace('"TransactionData":[{', '"TransactionData":[{"constructor":"x",') })).status, 'a nested key too').toBe(500);
      expect((await c.post('bill-enquiry', undefined, { raw })).status, 'bill enquiry is unaffected').toBe(400);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  },
};

const optionsOf = (name: DefectName): Partial<MockOptions> => ({ ...UNLIMITED, ...PROBES[name].options });

test.describe('catalogue', () => {
  test('at least 30 defects with unique names, every one with a probe', () => {
    expect(DEFECT_CATALOGUE.length).toBeGreaterThanOrEqual(30);
    const names = DEFECT_CATALOGUE.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...KNOWN_DEFECTS]).toEqual(names);
    expect(Object.keys(PROBES).sort()).toEqual([...names].sort());
  });

  test('the families are the suite\'s rule families, and each has a defect', () => {
    expect([...DEFECT_FAMILIES].sort()).toEqual(Object.keys(RULE_FAMILIES).sort());
    for (const family of DEFECT_FAMILIES) expect(DEFECT_CATALOGUE.filter((d) => d.family === family).length, family).toBeGreaterThan(0);
  });

  test('every operation is touched, every entry is well formed', () => {
    const ids = operations.map((o) => o.id);
    for (const id of ids) expect(DEFECT_CATALOGUE.filter((d) => d.ops.includes(id)).length, id).toBeGreaterThan(0);
    for (const d of DEFECT_CATALOGUE) {
      expect(d.name, d.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(d.ops.length, d.name).toBeGreaterThan(0);
      for (const op of d.ops) expect(ids, d.name).toContain(op);
      expect(d.description, d.name).toMatch(/^[^\n]{10,200}$/);
      // what a detection run would set: MOCK_DEFECTS plus the entry's mockEnv
      const o = mockOptionsFromEnv({ MOCK_DEFECTS: d.name, ...d.mockEnv });
      expect(o.defects, d.name).toEqual([d.name]);
    }
    expect(DEFECT_CATALOGUE.find((d) => d.name === 'table-style-amount-string')?.mockEnv).toEqual({ MOCK_STYLE: 'table' });
  });

  test('MOCK_DEFECTS takes a comma-separated list; an unknown name stops with the known ones', async () => {
    expect(mockOptionsFromEnv({ MOCK_DEFECTS: ' rate-limit-off , message-wrapper,rate-limit-off' }).defects).toEqual(['rate-limit-off', 'message-wrapper']);
    expect(() => mockOptionsFromEnv({ MOCK_DEFECTS: 'message-wrapper,nope' })).toThrow(/MOCK_DEFECTS: unknown defect\(s\) "nope"; known: rate-limit-one-extra, /);
    await expect(startMock({ port: 0, defects: ['nope'] })).rejects.toThrow(ConfigError);
  });

  test('docs/mock.md lists every defect with its family', () => {
    const doc = readFileSync(join(ROOT, 'docs/mock.md'), 'utf8');
    for (const d of DEFECT_CATALOGUE) expect(doc, d.name).toMatch(new RegExp(`^\\| \`${d.name}\` \\| ${d.family} \\|`, 'm'));
  });
});

test.describe('each defect, on a mock running it', () => {
  for (const d of DEFECT_CATALOGUE) {
    test(`${d.name} (${d.family}; ${d.ops.join(', ')})`, async () => {
      await withMock({ ...optionsOf(d.name), defects: [d.name] }, (c) => PROBES[d.name].shows(c));
    });
  }
});

test('a mock without defects passes none of the probes', async () => {
  // one at a time: the rate-limit probes need their calls to fit in a window
  const passed: string[] = [];
  for (const d of DEFECT_CATALOGUE) {
    const shown = await withMock(optionsOf(d.name), (c) => PROBES[d.name].shows(c)).then(() => true, () => false);
    if (shown) passed.push(`${d.name}: the probe passed on a faithful mock`);
  }
  expect(passed).toEqual([]);
});
