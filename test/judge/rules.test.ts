/**
 * The client judge's rules, one by one, on recorded traffic: for every rule of CLIENT_RULES a
 * traffic that breaks it gives the rule's level's verdict (FAIL for MUST, WARN for SHOULD) on its
 * case `client.<op>.<rule>`, and a clean traffic gives PASS. The traffic is real (the mock in
 * judging mode, a recorder attached, calls sent with fetch) except where timing or the answer's
 * source is what is judged: there real records are retimed or built by hand. Also: what is
 * NOT_RUN (nothing to judge, no call of the operation, a scenario not reached), what is
 * NOT_APPLICABLE (an operation not certified, no signature key), and judgeSandbox's checks.
 */
import { randomUUID } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { operation, operations, tagsOf, type OperationId } from '../../src/contract/catalogue.js';
import { referenceIdHeader, specTimestamp } from '../../src/contract/headers.js';
import type { Fields, RequestBody } from '../../src/contract/message.js';
import { shortUniqueId } from '../../src/base/unique.js';
import { CLIENT_RULES, RETRY_AFTER_SLACK_MS, TIMESTAMP_TOLERANCE_SECONDS } from '../../src/judge/rules.js';
import { SCENARIOS, scenarioId } from '../../src/judge/scenarios.js';
import type { TrafficRecord } from '../../src/judge/traffic.js';
import { BILL_MAGIC, MOI_MAGIC, SCENARIO_MAGIC, SCENARIO_RETRY_AFTER_SECONDS } from '../../src/mock/index.js';
import { freshAccount, freshId, type MockClient } from '../mock/helpers.js';
import {
  ALL_OPERATIONS, altered, handRecord, judge, judgeSandboxCases, record, signingKeys, verdict,
} from './traffic-fixtures.js';

const REF = referenceIdHeader('Svc');
/** The late-answer scenario holds a payment's answer this long; the client gives up well before. */
const HELD_MS = 5000;
const GIVE_UP_MS = 500;

/** The (single) item and first entry of a request body, to change a field in place. */
function itemOf(body: RequestBody, op: OperationId): Fields {
  const { requestRoot, listTag } = tagsOf(operation(op), 'Svc');
  return (body.Message[requestRoot]![listTag] as Fields[])[0]!;
}
const entryOf = (body: RequestBody, op: OperationId): Fields => (itemOf(body, op).TransactionData as Fields[])[0]!;

const bill = (suffix = '') => ({ BillerId: '002', AccountNumber: freshAccount(suffix) });
const fee = (suffix = '') => ({ BillerID: '090', ID: freshId(suffix), RequestType: '02' });

/** An enquiry of the bill, answered 200: its AmountDue. */
async function due(c: MockClient, subject: { BillerId: string; AccountNumber: string }): Promise<number> {
  return (await c.enquireBill(subject)).AmountDue as number;
}

/** An MOI enquiry of the fee, answered 200: its entry. */
async function feeEntry(c: MockClient, subject: ReturnType<typeof fee>): Promise<Fields> {
  const a = await c.enquireFee(subject);
  expect(a.status, JSON.stringify(a.body)).toBe(200);
  return c.entries('moi-enquiry', a)[0]!;
}

const ruleIds = (op: OperationId) => CLIENT_RULES.filter((r) => r.appliesTo(operation(op))).map((r) => `client.${op}.${r.name}`);

test.describe('a clean traffic', () => {
  test('every rule of every operation PASSes, except the two it gave nothing to judge (NOT_RUN); without a key the signature rule is NOT_APPLICABLE', async () => {
    const keys = signingKeys();
    const records = await record(async (c) => {
      const signed = async (op: OperationId, body: RequestBody) => {
        const a = await c.post(op, body, { headers: { 'X-Signature': keys.signMessage(body) } });
        expect(a.status, JSON.stringify(a.body)).toBe(200);
        return a;
      };
      const s = bill();
      const enquiry = await signed('bill-enquiry', c.build('bill-enquiry', { entry: s }));
      const owed = c.entries('bill-enquiry', enquiry)[0]!.AmountDue as number;
      await signed('bill-payment', c.billPayment(s, 10, false));
      await signed('bill-payment', c.billPayment(s, Math.round((owed - 10) * 100) / 100, true));
      const f = fee();
      const e = await signed('moi-enquiry', c.build('moi-enquiry', { entry: { ...f, POINum: f.ID } }));
      await signed('moi-payment', c.feePayment(f, c.entries('moi-enquiry', e)[0]!));
    });
    expect(records).toHaveLength(5);
    const withKey = judge(records, { signatureKey: keys.publicKey });
    const without = judge(records);
    expect(CLIENT_RULES).toHaveLength(16);
    for (const op of ALL_OPERATIONS) {
      for (const id of ruleIds(op)) {
        const expected = id.endsWith('.pacing.retry-after') || id.endsWith('.safety.no-double-pay') ? 'NOT_RUN' : 'PASS';
        expect(verdict(withKey, id), id).toMatchObject({ verdict: expected });
        expect(verdict(without, id).verdict, id).toBe(id.endsWith('.headers.signature') ? 'NOT_APPLICABLE' : expected);
      }
    }
    expect(verdict(without, 'client.bill-enquiry.headers.signature').notes).toMatch(/no signature public key configured/);
    expect(verdict(withKey, 'client.bill-payment.pacing.retry-after').notes).toMatch(/no call on the operation followed a 429/);
    expect(verdict(withKey, 'client.bill-payment.safety.no-double-pay').notes).toMatch(/no payment that ended without a clear answer was followed/);
  });
});

test.describe('client.<op>.req.*', () => {
  test('req.schema: a dropped required field FAILs; a body that is not JSON FAILs; the other operation stays PASS', async () => {
    const records = await record(async (c) => {
      const body = c.build('bill-enquiry', { entry: bill() });
      delete entryOf(body, 'bill-enquiry').BillerId;
      expect((await c.post('bill-enquiry', body)).status).toBe(400);
      expect((await c.post('bill-payment', c.billPayment(bill(), 10, false), { raw: '{"Message": ' })).status).toBe(400);
      await c.enquireFee(fee());
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.req.schema')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/TransactionData\/0\/BillerId/) });
    expect(verdict(cases, 'client.bill-payment.req.schema')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/not JSON/) });
    expect(verdict(cases, 'client.moi-enquiry.req.schema').verdict).toBe('PASS');
  });

  test('req.schema: a body the judge never read (the call was refused on its headers: body null) is not judged', async () => {
    const records = await record(async (c) => {
      const body = c.build('bill-enquiry', { entry: bill() });
      delete entryOf(body, 'bill-enquiry').BillerId;
      expect((await c.post('bill-enquiry', body, { headers: { CompanyId: undefined } })).status).toBe(401);
    });
    expect(records.map((r) => r.body)).toEqual([null]);
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.req.schema').verdict).toBe('NOT_RUN');
    expect(verdict(cases, 'client.bill-enquiry.req.transaction-type').verdict).toBe('NOT_RUN');
    expect(verdict(cases, 'client.bill-enquiry.headers.required')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/CompanyId missing/) });
  });

  test('req.transaction-type: another endpoint\'s TransactionType FAILs (and is left to this rule, not req.schema)', async () => {
    const records = await record(async (c) => {
      const body = c.build('bill-enquiry', { entry: bill() });
      body.Message[tagsOf(operation('bill-enquiry'), 'Svc').requestRoot]!.TransactionType = 'SADADTRN';
      await c.post('bill-enquiry', body);
      await c.enquireFee(fee());
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.req.transaction-type')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/"SADADTRN".*SADADENQ/) });
    expect(verdict(cases, 'client.bill-enquiry.req.schema').verdict).toBe('PASS');
    expect(verdict(cases, 'client.moi-enquiry.req.transaction-type').verdict).toBe('PASS');
  });
});

test.describe('client.<op>.headers.*', () => {
  test('headers.required: a missing Device, a zoned DateTimeStamp or a non-Bearer Authorization FAIL', async () => {
    const records = await record(async (c) => {
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { Device: undefined } });
      await c.post('moi-enquiry', c.build('moi-enquiry', { entry: fee() }), { headers: { DateTimeStamp: `${new Date().toISOString().slice(0, 19)}Z` } });
      await c.post('bill-payment', c.billPayment(bill(), 10, false), { headers: { Authorization: 'Basic abc' } });
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.headers.required')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/Device missing/) });
    expect(verdict(cases, 'client.moi-enquiry.headers.required')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/carries a zone; the document's has none/) });
    expect(verdict(cases, 'client.bill-payment.headers.required')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/Authorization is not "Bearer/) });
    const clean = await record(async (c) => { await c.enquireFee(fee()); });
    expect(verdict(judge(clean), 'client.moi-enquiry.headers.required').verdict).toBe('PASS');
  });

  test('a UUID reference id and a DateTimeStamp with milliseconds: the document allows both, a deployment does not: WARN under the default profile, FAIL of headers.required under strict-deployment', async () => {
    const stamp = `${specTimestamp(new Date())}.123`;
    const send = async (c: MockClient) => { await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { [REF]: randomUUID(), DateTimeStamp: stamp } }); };
    const lenient = judge(await record(send));
    expect(verdict(lenient, 'client.bill-enquiry.headers.required').verdict).toBe('PASS');
    expect(verdict(lenient, 'client.bill-enquiry.headers.deployment-form')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/ReferenceID is not 3-16 letters or digits.*; DateTimeStamp .* has fractions of a second/) });
    expect(verdict(lenient, 'client.bill-enquiry.headers.timestamp-current').verdict, 'read with its fraction').toBe('PASS');
    // the strict mock refuses such a call (401) and records it; the judge holds it as MUST
    const strict = judge(await record(send, { clientProfile: 'strict-deployment' }), { clientProfile: 'strict-deployment' });
    expect(verdict(strict, 'client.bill-enquiry.headers.required')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/ReferenceID is not 3-16 letters or digits/) });
    expect(verdict(strict, 'client.bill-enquiry.headers.deployment-form').verdict).toBe('NOT_APPLICABLE');
  });

  test('headers.timestamp-current: a DateTimeStamp a whole number of hours off reads as a time-zone mistake, in the zone the sandbox declares (MOCK_TIME_ZONE)', async () => {
    // a client whose clock is right but writes its stamp in Riyadh time (UTC+3) to a sandbox in UTC
    const riyadh = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Riyadh', hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    const stamp = riyadh.format(new Date()).replace(' ', 'T');
    const records = await record(async (c) => { await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { DateTimeStamp: stamp } }); });
    expect(verdict(judge(records, { timeZone: 'UTC' }), 'client.bill-enquiry.headers.timestamp-current')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/3 h ahead, which looks like a time-zone mistake .*UTC time, MOCK_TIME_ZONE/) });
    expect(verdict(judge(records, { timeZone: 'Asia/Riyadh' }), 'client.bill-enquiry.headers.timestamp-current').verdict, 'the sandbox in Riyadh time').toBe('PASS');
  });

  test('headers.timestamp-current: a DateTimeStamp 20 minutes off WARNs (behind or ahead); 2 minutes off PASSes', async () => {
    const at = (minutes: number) => specTimestamp(new Date(Date.now() + minutes * 60_000));
    expect(20 * 60).toBeGreaterThan(TIMESTAMP_TOLERANCE_SECONDS);
    const records = await record(async (c) => {
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { DateTimeStamp: at(-20) } });
      await c.post('moi-enquiry', c.build('moi-enquiry', { entry: fee() }), { headers: { DateTimeStamp: at(20) } });
      await c.post('bill-payment', c.billPayment(bill(), 10, false), { headers: { DateTimeStamp: at(-2) } });
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.headers.timestamp-current')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/1[12]\d\d s behind/) });
    expect(verdict(cases, 'client.moi-enquiry.headers.timestamp-current')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/ahead of/) });
    expect(verdict(cases, 'client.bill-payment.headers.timestamp-current').verdict).toBe('PASS');
  });

  test('headers.timestamp-current: no readable DateTimeStamp, nothing to judge (NOT_RUN)', async () => {
    const records = await record(async (c) => {
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { DateTimeStamp: 'yesterday' } });
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.headers.timestamp-current')).toMatchObject({ verdict: 'NOT_RUN', notes: expect.stringMatching(/DateTimeStamp/) });
    expect(verdict(cases, 'client.bill-enquiry.headers.required').verdict).toBe('FAIL');
  });

  test('headers.signature: with a key, a signature that does not verify or none at all FAILs; without a key NOT_APPLICABLE', async () => {
    const keys = signingKeys();
    const other = signingKeys();
    const records = await record(async (c) => {
      const good = c.build('bill-enquiry', { entry: bill() });
      await c.post('bill-enquiry', good, { headers: { 'X-Signature': keys.signMessage(good) } });
      // signed with another key
      const wrongKey = c.build('moi-enquiry', { entry: fee() });
      await c.post('moi-enquiry', wrongKey, { headers: { 'X-Signature': other.signMessage(wrongKey) } });
      // signed, then the body changed
      const tampered = c.billPayment(bill(), 10, false);
      const sig = keys.signMessage(tampered);
      entryOf(tampered, 'bill-payment').Amount = 11;
      await c.post('bill-payment', tampered, { headers: { 'X-Signature': sig } });
      // not signed
      await c.post('moi-payment', c.feePayment(fee(), { FeeReferenceId: 'FR1', GroupPayId: '1', SadadReferenceId: '1', DueAmount: 10 }));
    });
    const cases = judge(records, { signatureKey: keys.publicKey });
    expect(verdict(cases, 'client.bill-enquiry.headers.signature').verdict).toBe('PASS');
    expect(verdict(cases, 'client.moi-enquiry.headers.signature')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/does not verify/) });
    expect(verdict(cases, 'client.bill-payment.headers.signature')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/does not verify/) });
    expect(verdict(cases, 'client.moi-payment.headers.signature')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/no X-Signature/) });
    const unkeyed = judge(records);
    for (const op of ALL_OPERATIONS) expect(verdict(unkeyed, `client.${op}.headers.signature`).verdict, op).toBe('NOT_APPLICABLE');
  });

  test('headers.signature: a signed call refused before its body was read cannot be verified, and is no signature violation', async () => {
    const keys = signingKeys();
    const records = await record(async (c) => {
      const good = c.build('bill-enquiry', { entry: bill() });
      await c.post('bill-enquiry', good, { headers: { 'X-Signature': keys.signMessage(good) } });
      // correctly signed, but refused on a missing header: the judge never read its body
      const refused = c.build('bill-enquiry', { entry: bill() });
      expect((await c.post('bill-enquiry', refused, { headers: { 'X-Signature': keys.signMessage(refused), CompanyId: undefined } })).status).toBe(401);
    });
    expect(records[1]!.body).toBeNull();
    const cases = judge(records, { signatureKey: keys.publicKey });
    expect(verdict(cases, 'client.bill-enquiry.headers.required').verdict).toBe('FAIL');
    expect(verdict(cases, 'client.bill-enquiry.headers.signature')).toMatchObject({ verdict: 'PASS' });
  });
});

test.describe('client.<op>.ids.*', () => {
  test('ids.reference-unique: a reference id sent twice FAILs on the later call\'s operation, across operations too', async () => {
    const [a, b] = [`R${shortUniqueId(12)}`, `Q${shortUniqueId(12)}`];
    const records = await record(async (c) => {
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { [REF]: a } });
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill() }), { headers: { [REF]: a } });
      await c.post('moi-enquiry', c.build('moi-enquiry', { entry: fee() }), { headers: { [REF]: b } });
      await c.post('bill-payment', c.billPayment(bill(), 10, false), { headers: { [REF]: b } });
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.ids.reference-unique')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #2 reuses the reference id of call #1/) });
    expect(verdict(cases, 'client.moi-enquiry.ids.reference-unique').verdict).toBe('PASS');
    expect(verdict(cases, 'client.bill-payment.ids.reference-unique')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #4 reuses the reference id of call #3/) });
  });

  test('ids.sequence-unique: a SequenceNumber reused for another bill or another operation FAILs; an identical replay PASSes', async () => {
    const records = await record(async (c) => {
      const first = c.build('bill-enquiry', { entry: bill() });
      const seq = entryOf(first, 'bill-enquiry').SequenceNumber;
      await c.post('bill-enquiry', first);
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { ...bill(), SequenceNumber: seq } }));
      await c.post('bill-payment', c.billPayment(bill(), 10, false, { SequenceNumber: seq }));
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-enquiry.ids.sequence-unique')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #2: SequenceNumber \S+ was used by call #1 for a different entry/) });
    expect(verdict(cases, 'client.bill-payment.ids.sequence-unique')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/was used by call #1 for bill-enquiry/) });

    const replay = await record(async (c) => {
      const body = c.billPayment(bill(), 10, false);
      await c.post('bill-payment', body);
      await c.post('bill-payment', body); // the same bytes, a new reference id
    });
    expect(verdict(judge(replay), 'client.bill-payment.ids.sequence-unique').verdict).toBe('PASS');
  });

  test('ids.transaction-reference-unique: one TransactionReferenceNumber in two different requests FAILs; an identical replay PASSes', async () => {
    const records = await record(async (c) => {
      const first = c.build('moi-enquiry', { entry: fee() });
      await c.post('moi-enquiry', first);
      await c.post('moi-enquiry', c.build('moi-enquiry', { entry: fee(), item: { TransactionReferenceNumber: itemOf(first, 'moi-enquiry').TransactionReferenceNumber } }));
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.moi-enquiry.ids.transaction-reference-unique')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #2: TransactionReferenceNumber \S+ was used by call #1 for a different request/) });
    // the SequenceNumbers were new: only the TransactionReferenceNumber was reused
    expect(verdict(cases, 'client.moi-enquiry.ids.sequence-unique').verdict).toBe('PASS');

    const replay = await record(async (c) => {
      const body = c.build('moi-enquiry', { entry: fee() });
      await c.post('moi-enquiry', body);
      await c.post('moi-enquiry', body);
    });
    expect(verdict(judge(replay), 'client.moi-enquiry.ids.transaction-reference-unique').verdict).toBe('PASS');
  });
});

test.describe('client.<op>.pacing.*', () => {
  test('pacing.limit: a 429 the judge sent for the limit FAILs; a 429 of the rate-limited scenario is no violation', async () => {
    const over = await record(async (c) => {
      expect((await c.enquireFee(fee())).status).toBe(200);
      expect((await c.enquireFee(fee())).status).toBe(429);
    }, { rateLimits: { bill: 1000, moi: 1 } });
    expect(over[1]).toMatchObject({ status: 429, source: 'judge', scenario: null });
    expect(verdict(judge(over), 'client.moi-enquiry.pacing.limit')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #2: over the limit of 3 calls per 60 s/) });

    const scenario = await record(async (c) => {
      const f = fee(SCENARIO_MAGIC.rateLimited);
      expect((await c.enquireFee(f)).status).toBe(429);
      expect((await c.enquireFee(f)).status).toBe(200); // (no wait: Retry-After is another rule's)
    });
    expect(scenario[0]).toMatchObject({ status: 429, source: 'judge', scenario: 'rateLimited' });
    const cases = judge(scenario);
    expect(verdict(cases, 'client.moi-enquiry.pacing.limit').verdict).toBe('PASS');
    expect(verdict(cases, 'client.moi-enquiry.scenario.rate-limited').verdict).toBe('PASS');
    // a 429 the sandbox sent (proxy mode) is not the judge's limit either
    expect(verdict(judge([altered(over[0]!, {}), altered(over[1]!, { source: 'upstream' })]), 'client.moi-enquiry.pacing.limit').verdict).toBe('PASS');
  });

  test('pacing.retry-after: a call 0.5 s after a 429 with Retry-After 2 FAILs; 2.1 s after PASSes; without any 429 NOT_RUN', async () => {
    const records = await record(async (c) => {
      const s = bill(SCENARIO_MAGIC.rateLimited);
      const body = c.build('bill-enquiry', { entry: s });
      expect((await c.post('bill-enquiry', body)).status).toBe(429);
      expect((await c.post('bill-enquiry', body)).status).toBe(200);
    });
    const [refused, retry] = records as [TrafficRecord, TrafficRecord];
    expect(refused.responseHeaders['retry-after']).toBe(String(SCENARIO_RETRY_AFTER_SECONDS));
    // the recorded retry came at once; place it in time as a client would have sent it
    const after = (ms: number) => [refused, altered(retry, { t: refused.tEnd! + ms, tEnd: refused.tEnd! + ms + 5 })];
    expect(verdict(judge(after(500)), 'client.bill-enquiry.pacing.retry-after')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #2 came 0\.50 s after the 429 of call #1, which said Retry-After 2 s/) });
    expect(verdict(judge(after(2100)), 'client.bill-enquiry.pacing.retry-after').verdict).toBe('PASS');
    // the slack for the answer's trip: just inside it is still fine
    expect(verdict(judge(after(2000 - RETRY_AFTER_SLACK_MS + 10)), 'client.bill-enquiry.pacing.retry-after').verdict).toBe('PASS');
    // another operation's call in the window is not held against this one
    const payment = handRecord('bill-payment', null, { seq: 3, t: refused.tEnd! + 100, tEnd: refused.tEnd! + 110, status: 401 });
    expect(verdict(judge([...after(2100), payment]), 'client.bill-enquiry.pacing.retry-after').verdict).toBe('PASS');
    expect(verdict(judge([...after(2100), payment]), 'client.bill-payment.pacing.retry-after')).toMatchObject({ verdict: 'NOT_RUN', notes: expect.stringMatching(/followed a 429/) });
    // a client that gives up after the 429 has shown nothing about waiting: not exercised, never PASS
    expect(verdict(judge([refused]), 'client.bill-enquiry.pacing.retry-after')).toMatchObject({ verdict: 'NOT_RUN', notes: expect.stringMatching(/no call on the operation followed a 429 .*call the operation again once its Retry-After has passed/) });
  });
});

test.describe('client.<payment>.safety.*', () => {
  test('safety.enquire-first: a payment without an answered enquiry before it WARNs (bill and MOI); after one, PASS', async () => {
    const records = await record(async (c) => {
      await c.post('bill-payment', c.billPayment(bill(), 10, false));
      const f = fee();
      await c.post('moi-payment', c.feePayment(f, { FeeReferenceId: 'FR1', GroupPayId: '1', SadadReferenceId: '1', DueAmount: 10 }));
      // an enquiry that was refused tells nothing: still no answered enquiry
      const nf = bill(BILL_MAGIC.notFound);
      await c.post('bill-enquiry', c.build('bill-enquiry', { entry: nf }));
      await c.post('bill-payment', c.billPayment(nf, 10, false));
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-payment.safety.enquire-first')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/call #1 pays bill 002\/\d+ without an answered enquiry.*call #4/) });
    expect(verdict(cases, 'client.moi-payment.safety.enquire-first')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/call #2 pays fee 090\/\d+\/02/) });

    const clean = await record(async (c) => {
      const s = bill();
      await due(c, s);
      await c.post('bill-payment', c.billPayment(s, 10, false));
      const f = fee();
      await c.post('moi-payment', c.feePayment(f, await feeEntry(c, f)));
    });
    const ok = judge(clean);
    expect(verdict(ok, 'client.bill-payment.safety.enquire-first').verdict).toBe('PASS');
    expect(verdict(ok, 'client.moi-payment.safety.enquire-first').verdict).toBe('PASS');
  });

  test('safety.amount: paying more than the AmountDue FAILs; PayExactDue true with a smaller amount FAILs', async () => {
    const more = await record(async (c) => {
      const s = bill();
      const owed = await due(c, s);
      await c.post('bill-payment', c.billPayment(s, Math.round((owed + 1) * 100) / 100, false));
    });
    expect(verdict(judge(more), 'client.bill-payment.safety.amount')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/pays [\d.]+ where [\d.]+ is due/) });

    const exactLess = await record(async (c) => {
      const s = bill();
      await due(c, s);
      await c.post('bill-payment', c.billPayment(s, 10, true));
    });
    expect(verdict(judge(exactLess), 'client.bill-payment.safety.amount')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/PayExactDue true with 10\.00 where [\d.]+ is due/) });
  });

  test('safety.amount: an accepted partial payment lowers what is due; the full due again is an over-payment; the rest is fine', async () => {
    const records = await record(async (c) => {
      const s = bill();
      const owed = await due(c, s);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(200);
      await c.post('bill-payment', c.billPayment(s, owed, false));
      expect((await c.post('bill-payment', c.billPayment(s, Math.round((owed - 10) * 100) / 100, true))).status).toBe(200);
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-payment.safety.amount')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/^call #3, .*pays [\d.]+ where [\d.]+ is due$/) });
    expect(cases.get('client.bill-payment.safety.amount')!.notes).toHaveLength(1);
  });

  test('safety.amount: a bill that takes only the exact amount: paying part again after being told FAILs; paying it in full PASSes', async () => {
    const again = await record(async (c) => {
      const s = bill(BILL_MAGIC.exactPaymentOnly);
      await due(c, s);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(422);
      await c.post('bill-payment', c.billPayment(s, 11, false));
    });
    const cases = judge(again);
    expect(verdict(cases, 'client.bill-payment.safety.amount')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #3, .*after being told the bill takes only the exact amount/) });
    expect(verdict(cases, 'client.bill-payment.scenario.exact-payment-only').verdict).toBe('PASS');

    const full = await record(async (c) => {
      const s = bill(BILL_MAGIC.exactPaymentOnly);
      const owed = await due(c, s);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(422);
      expect((await c.post('bill-payment', c.billPayment(s, owed, true))).status).toBe(200);
    });
    expect(verdict(judge(full), 'client.bill-payment.safety.amount').verdict).toBe('PASS');
  });

  test('safety.amount: a refusal of PayExactDue on an ordinary bill does not make it an exact-only bill (a later partial payment is fine)', async () => {
    const records = await record(async (c) => {
      const s = bill();
      // no enquiry yet: PayExactDue true with a guessed amount is refused ("PayExactDue requires the exact due amount")
      expect((await c.post('bill-payment', c.billPayment(s, 10, true))).status).toBe(422);
      await due(c, s);
      // a partial payment of an ordinary bill, which the service accepts
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(200);
    });
    expect(verdict(judge(records), 'client.bill-payment.safety.amount')).toMatchObject({ verdict: 'PASS' });
  });

  test('scenario.exact-payment-only: a PayExactDue refusal on an ordinary bill does not reach it (the bill is no exact-only bill)', async () => {
    const records = await record(async (c) => {
      const s = bill();
      await due(c, s);
      const refused = await c.post('bill-payment', c.billPayment(s, 10, true));
      expect([refused.status, refused.body.errorMessage]).toEqual([422, expect.stringMatching(/PayExactDue requires the exact due amount/)]);
    });
    const cases = judge(records);
    expect(verdict(cases, 'client.bill-payment.safety.amount').verdict).toBe('FAIL'); // (PayExactDue with another amount)
    expect(verdict(cases, 'client.bill-payment.scenario.exact-payment-only').verdict).toBe('NOT_RUN');
  });

  test('safety.amount and no-double-pay: after a payment whose answer the client did not receive, the due it knows is unchanged', async () => {
    const records = await record(async (c) => {
      const s = bill(SCENARIO_MAGIC.lateAnswer);
      const owed = await due(c, s);
      // the payment takes effect, but its answer is held past the client's timeout
      await expect(c.post('bill-payment', c.billPayment(s, owed, true), { signal: AbortSignal.timeout(GIVE_UP_MS) })).rejects.toThrow();
      // paying the same amount again under a new SequenceNumber, without an enquiry
      await c.post('bill-payment', c.billPayment(s, owed, true));
    }, { lateAnswerMs: HELD_MS });
    expect(records[1]).toMatchObject({ op: 'bill-payment', status: 200, delivered: false, scenario: 'lateAnswer' });
    const cases = judge(records);
    // what the client knew was due is what it paid: no amount violation...
    expect(verdict(cases, 'client.bill-payment.safety.amount').verdict).toBe('PASS');
    // ...but a payment of unknown fate paid again under a new SequenceNumber is a double payment
    expect(verdict(cases, 'client.bill-payment.safety.no-double-pay')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #3 pays bill 002\/\d+ under a new SequenceNumber .* after call #2/) });
    expect(verdict(cases, 'client.bill-payment.scenario.late-answer').verdict).toBe('PASS');
  });

  test('safety.amount: without any enquiry, a refusal as an over-payment FAILs', async () => {
    const records = await record(async (c) => {
      expect((await c.post('bill-payment', c.billPayment(bill(), 99_999, false))).status).toBe(422);
    });
    expect(verdict(judge(records), 'client.bill-payment.safety.amount')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/over-payment/) });
  });

  test('safety.already-paid: paying an MOI fee or a bill its enquiry showed as paid (nothing due) WARNs; paying one with something due PASSes', async () => {
    const paid = await record(async (c) => {
      const f = fee(MOI_MAGIC.alreadyPaid);
      const e = await feeEntry(c, f);
      expect(Number(e.DueAmount)).toBe(0);
      expect((await c.post('moi-payment', c.feePayment(f, e))).status).not.toBe(200);
      const b = bill(BILL_MAGIC.alreadyPaid);
      expect(await due(c, b)).toBe(0);
      await c.post('bill-payment', c.billPayment(b, 10, false));
    });
    const cases = judge(paid);
    expect(verdict(cases, 'client.moi-payment.safety.already-paid')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/call #2 pays fee 090\/\S+, which enquiry #1 showed as paid \(DueAmount 0\.00\)/) });
    expect(verdict(cases, 'client.bill-payment.safety.already-paid')).toMatchObject({ verdict: 'WARN', notes: expect.stringMatching(/pays bill 002\/\S+, which enquiry #3 showed as paid \(AmountDue 0\.00\)/) });
    const unpaid = await record(async (c) => {
      const f = fee();
      expect((await c.post('moi-payment', c.feePayment(f, await feeEntry(c, f)))).status).toBe(200);
    });
    expect(verdict(judge(unpaid), 'client.moi-payment.safety.already-paid').verdict).toBe('PASS');
  });

  test('safety.fee-reference: an MOI payment quoting another FeeReferenceId, or another DueAmount, than its enquiry FAILs', async () => {
    const ref = await record(async (c) => {
      const f = fee();
      const e = await feeEntry(c, f);
      await c.post('moi-payment', c.feePayment(f, e, { FeeReferenceId: 'FR000001' }));
    });
    expect(verdict(judge(ref), 'client.moi-payment.safety.fee-reference')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/FeeReferenceId "FR000001" where enquiry #1 answered "FR\d+"/) });

    const amount = await record(async (c) => {
      const f = fee();
      const e = await feeEntry(c, f);
      await c.post('moi-payment', c.feePayment(f, e, { DueAmount: Number(e.DueAmount) - 1 }));
    });
    expect(verdict(judge(amount), 'client.moi-payment.safety.fee-reference')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/DueAmount [\d.]+ where enquiry #1 answered [\d.]+/) });

    const right = await record(async (c) => {
      const f = fee();
      expect((await c.post('moi-payment', c.feePayment(f, await feeEntry(c, f)))).status).toBe(200);
    });
    expect(verdict(judge(right), 'client.moi-payment.safety.fee-reference').verdict).toBe('PASS');
  });

  test('safety.no-double-pay: after a 503 payment, a new SequenceNumber without an enquiry FAILs; with an enquiry between, or the same SequenceNumber, PASS', async () => {
    // (SCENARIO_MAGIC.unavailable: the first call of each operation for the account gets a 503)
    const unenquired = await record(async (c) => {
      const s = bill(SCENARIO_MAGIC.unavailable);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(503);
      await c.post('bill-payment', c.billPayment(s, 10, false));
    });
    expect(verdict(judge(unenquired), 'client.bill-payment.safety.no-double-pay')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #2 pays bill 002\/\d+9503 under a new SequenceNumber/) });

    const enquired = await record(async (c) => {
      const s = bill(SCENARIO_MAGIC.unavailable);
      expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: s }))).status).toBe(503); // the enquiry's own blip, first
      await due(c, s);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(503);
      await due(c, s);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(200);
    });
    expect(verdict(judge(enquired), 'client.bill-payment.safety.no-double-pay').verdict).toBe('PASS');

    const replayed = await record(async (c) => {
      const s = bill(SCENARIO_MAGIC.unavailable);
      const body = c.billPayment(s, 10, false);
      expect((await c.post('bill-payment', body)).status).toBe(503);
      expect((await c.post('bill-payment', body)).status).toBe(200);
    });
    expect(verdict(judge(replayed), 'client.bill-payment.safety.no-double-pay').verdict).toBe('PASS');

    // a client that gives up after the 503 has shown nothing about paying again: not exercised, never PASS
    const gaveUp = await record(async (c) => {
      expect((await c.post('bill-payment', c.billPayment(bill(SCENARIO_MAGIC.unavailable), 10, false))).status).toBe(503);
    });
    expect(verdict(judge(gaveUp), 'client.bill-payment.safety.no-double-pay')).toMatchObject({ verdict: 'NOT_RUN', notes: expect.stringMatching(/then enquire, or replay with the same SequenceNumber/) });
  });

  test('safety.no-double-pay: an enquiry that itself got a 503 tells nothing; a new SequenceNumber after it still FAILs', async () => {
    const records = await record(async (c) => {
      const s = bill(SCENARIO_MAGIC.unavailable);
      expect((await c.post('bill-payment', c.billPayment(s, 10, false))).status).toBe(503);
      expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: s }))).status).toBe(503);
      await c.post('bill-payment', c.billPayment(s, 10, false));
    });
    expect(verdict(judge(records), 'client.bill-payment.safety.no-double-pay')).toMatchObject({ verdict: 'FAIL' });
  });

  test('safety.no-double-pay on MOI: a late-answered payment paid again under a new SequenceNumber FAILs', async () => {
    const records = await record(async (c) => {
      const f = fee(SCENARIO_MAGIC.lateAnswer);
      const e = await feeEntry(c, f);
      await expect(c.post('moi-payment', c.feePayment(f, e), { signal: AbortSignal.timeout(GIVE_UP_MS) })).rejects.toThrow();
      await c.post('moi-payment', c.feePayment(f, e));
    }, { lateAnswerMs: HELD_MS });
    const cases = judge(records);
    expect(verdict(cases, 'client.moi-payment.safety.no-double-pay')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/call #3 pays fee 090\/\d+9408\/02 under a new SequenceNumber/) });
    expect(verdict(cases, 'client.moi-payment.scenario.late-answer').verdict).toBe('PASS');
  });
});

test.describe('what is judged at all', () => {
  test('an operation without a call: all its rules NOT_RUN; a rule without relevant traffic NOT_RUN with what it needs', async () => {
    const records = await record(async (c) => { await c.enquireBill(bill()); });
    const cases = judge(records);
    for (const op of ['bill-payment', 'moi-enquiry', 'moi-payment'] as const) {
      for (const id of ruleIds(op)) expect(verdict(cases, id), id).toEqual({ verdict: 'NOT_RUN', notes: `no ${op} call was recorded` });
    }
    expect(verdict(cases, 'client.bill-enquiry.pacing.retry-after')).toMatchObject({ verdict: 'NOT_RUN', notes: expect.stringMatching(/never put this rule to the test: no call on the operation followed a 429/) });
    expect(verdict(cases, 'client.bill-enquiry.req.schema').verdict).toBe('PASS');
    // the payment rules exist only for payments
    expect(cases.has('client.bill-enquiry.safety.amount')).toBe(false);
    expect(cases.has('client.moi-payment.safety.amount')).toBe(false);
    expect(cases.has('client.bill-payment.safety.fee-reference')).toBe(false);
  });

  test('an operation left out of `operations`: every case of it NOT_APPLICABLE, rules and scenarios, even with calls', async () => {
    const records = await record(async (c) => {
      await c.enquireBill(bill());
      await c.post('bill-payment', c.billPayment(bill(), 99_999, true, { SequenceNumber: 'x' }));
    });
    const cases = judge(records, { operations: ['bill-enquiry'] });
    const others = [...cases.values()].filter((c) => c.operation !== 'bill-enquiry');
    expect(others.length).toBe(ruleIds('bill-payment').length + ruleIds('moi-enquiry').length + ruleIds('moi-payment').length + SCENARIOS.filter((s) => s.op !== 'bill-enquiry').length);
    for (const c of others) expect([c.id, c.verdict, c.notes[0]?.text]).toEqual([c.id, 'NOT_APPLICABLE', `${c.operation} is not among the operations certified (--operations)`]);
    expect(verdict(cases, 'client.bill-enquiry.req.schema').verdict).toBe('PASS');
  });

  test('scenarios: one reached PASSes; every one not reached is NOT_RUN with its trigger in the note', async () => {
    const records = await record(async (c) => {
      expect((await c.post('bill-enquiry', c.build('bill-enquiry', { entry: bill(BILL_MAGIC.notFound) }))).status).toBe(422);
    });
    const cases = judge(records);
    expect(cases.get('client.bill-enquiry.scenario.not-found')).toMatchObject({ verdict: 'PASS', observation: { reachedBy: ['call #1'], calls: 1 } });
    for (const s of SCENARIOS.filter((x) => scenarioId(x) !== 'client.bill-enquiry.scenario.not-found')) {
      const c = cases.get(scenarioId(s))!;
      expect(c.verdict, c.id).toBe('NOT_RUN');
      expect(c.notes[0]!.text, c.id).toContain(s.trigger);
      expect(c.trigger).toBe(s.trigger);
    }
    // every case id once: the 14 rules where they apply, and the scenarios
    const expected = operations.flatMap((op) => ruleIds(op.id)).length + SCENARIOS.length;
    expect(cases.size).toBe(expected);
  });
});

test.describe('judgeSandbox (proxy mode)', () => {
  test('a wrong MessageType from the sandbox FAILs; a proxy fault is OBSERVED; calls the judge answered are not the sandbox\'s', async () => {
    const records = await record(async (c) => {
      await c.enquireBill(bill());
      await c.post('bill-payment', c.billPayment(bill(), 10, false));
      await c.enquireFee(fee());
      await c.post('moi-payment', c.feePayment(fee(), { FeeReferenceId: 'FR1', GroupPayId: '1', SadadReferenceId: '1', DueAmount: 10 }));
    });
    const [enquiry, payment, moiEnquiry, moiPayment] = records as [TrafficRecord, TrafficRecord, TrafficRecord, TrafficRecord];
    expect(payment.status).toBe(200);
    const wrongType = payment.responseBody.replace('"MessageType":"SADADTRN"', '"MessageType":"SADADENQ"');
    expect(wrongType).not.toBe(payment.responseBody);
    const traffic = [
      altered(enquiry, { source: 'upstream' }),
      altered(payment, { source: 'upstream', responseBody: wrongType }),
      // the judge's own answer (e.g. an injected scenario), whatever it says: not the sandbox's
      altered(moiEnquiry, { source: 'judge', responseBody: moiEnquiry.responseBody.replace('"MessageType":"SADADMOI"', '"MessageType":"NOPE"') }),
      altered(moiPayment, {
        source: 'proxy-fault', status: 502, upstreamError: 'the sandbox gave no answer: connect ECONNREFUSED 127.0.0.1:9',
        responseBody: JSON.stringify({ errorCode: 'PROXY-502', errorMessage: 'the sandbox gave no answer' }),
      }),
    ];
    const cases = judgeSandboxCases(traffic);
    expect(verdict(cases, 'sandbox.bill-payment.res.message-type')).toMatchObject({ verdict: 'FAIL', notes: expect.stringMatching(/MessageType "SADADENQ", expected SADADTRN/) });
    expect(verdict(cases, 'sandbox.bill-enquiry.res.message-type').verdict).toBe('PASS');
    expect(verdict(cases, 'sandbox.bill-enquiry.res.echo').verdict).toBe('PASS');
    expect(verdict(cases, 'sandbox.moi-payment.availability')).toMatchObject({ verdict: 'OBSERVED', notes: expect.stringMatching(/ECONNREFUSED/) });
    expect(verdict(cases, 'sandbox.moi-payment.res.message-type').verdict).toBe('NOT_RUN');
    for (const check of ['res.schema', 'res.message-type', 'res.echo', 'availability']) {
      expect(verdict(cases, `sandbox.moi-enquiry.${check}`).verdict, check).toBe('NOT_RUN');
    }
    expect(verdict(cases, 'sandbox.bill-enquiry.availability').verdict).toBe('PASS');
    expect([...cases.values()].every((c) => c.side === 'sandbox')).toBe(true);
    // judgeClient holds none of it against the client's identifiers or headers
    const client = judge(traffic);
    expect(verdict(client, 'client.bill-payment.headers.required').verdict).toBe('PASS');
  });
});
