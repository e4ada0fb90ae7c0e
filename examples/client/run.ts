/**
 * The sample client's flows: every scenario of the mock's magic values, played the way a careful
 * integration plays them. Run with `npx tsx examples/client/run.ts` (configuration: docs/configuration.md).
 *
 * One line per step; lines indented by four spaces are the calls themselves. Exit codes: 0 the
 * flows ran (expected refusals included), 1 the client broke (an exception, or a flow that could
 * not complete, e.g. a payment whose fate stayed unknown), 2 a bad setting (before any call).
 *
 * SAMPLE_CLIENT_DEFECT switches on one of the defects of defects.ts, to show that a judge of the
 * client's traffic catches it.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { isSampleClientDefect, SAMPLE_CLIENT_DEFECTS, type SampleClientDefect } from './defects.js';
import {
  amountOf, ConfigError, configFromEnv, localTimestamp, outcomeOf, SadadClient,
  type BillEnquiry, type BillSubject, type CallResult, type ClientConfig, type FeeEnquiry, type Json, type MoiSubject, type Outcome, type PaymentResult,
} from './sadad-client.js';

export { SAMPLE_CLIENT_DEFECTS, type SampleClientDefect } from './defects.js';

// ---------------------------------------------------------------------------------------------
// Magic values of the mock (last four characters of the bill account)

export const BILL_SUFFIX = {
  notFound: '9404',
  expired: '9410',
  alreadyPaid: '9200',
  exactOnly: '9300',
  inBandFailure: '9500',
  rateLimited: '9429',
  unavailable: '9503',
  lateAnswer: '9408',
} as const;
/** Last four characters of the MOI fee subject's ID. */
/** The MOI fee an enquiry shows as paid (DueAmount 0): only the pays-paid-fee defect pays it. */
const MOI_PAID = '9200';
export const MOI_SUFFIX = {
  notFound: '9404',
  rateLimited: '9429',
  unavailable: '9503',
  lateAnswer: '9408',
} as const;

const digits = (n: number) => Array.from({ length: n }, () => String(randomInt(10))).join('');
const lead = () => String(randomInt(1, 10));

/** 11 digits whose fourth-last is not 9: never one of the magic suffixes. */
const ordinaryAccount = () => `${lead()}${digits(6)}${randomInt(9)}${digits(3)}`;
/** 11 digits ending with a magic suffix; the leading digits are fresh each run, so every scenario starts anew. */
const magicAccount = (suffix: string) => `${lead()}${digits(6)}${suffix}`;

const billSubject = (account: string): BillSubject => ({
  billerId: '001', billCategory: 'GSN', subscriberNumber: `05${digits(8)}`, account, paymentType: 'postpaid',
});

/** A national id: 10 digits starting with 1, whose fourth-last is not 9. */
const ordinaryMoiId = () => `1${digits(5)}${randomInt(9)}${digits(3)}`;
const magicMoiId = (suffix: string) => `1${digits(5)}${suffix}`;
const moiSubject = (id: string): MoiSubject => ({
  id, poiType: 'NAT', accountNumber: `7${digits(9)}`, billerId: '090', billCategory: 'ALIEN', serviceCode: '01',
  branchCode: `0${digits(2)}`, requestType: '01', durationMonths: 12, sponsorId: `1${digits(9)}`, jobCategory: '23', visaCount: 1,
});

// ---------------------------------------------------------------------------------------------
// Running flows

/** A flow that could not do its job: the run exits 1. */
class FlowFailure extends Error {}

const money = (cents: number | undefined) => (cents === undefined ? '?' : amountOf(cents).toFixed(2));
const said = (o: Outcome) => (o.kind === 'accepted' ? 'accepted' : `${o.kind}${o.code ? ` ${o.code}` : ''}${o.http !== undefined ? ` (HTTP ${o.http})` : ''}`);
const saw = (calls: CallResult[], status: number) => calls.some((c) => c.kind === 'answer' && c.status === status);

/**
 * An enquiry must have been answered about the bill or fee itself: no answer at all (after its
 * retries), or a refusal of the request itself (its headers, credentials or body: 400, 401, 403,
 * ..., or an in-band MW-4xx), means the flow cannot tell anything.
 */
function mustBeAnswered(o: Outcome, what: string): void {
  if (o.kind === 'uncertain' || o.kind === 'throttled') throw new FlowFailure(`${what}: no usable answer (${said(o)}: ${o.detail})`);
  const requestRefused = (o.http !== undefined && o.http >= 400 && o.http < 500 && ![409, 422].includes(o.http)) || /^MW-4\d\d/.test(o.code ?? '');
  if (o.kind === 'refused' && requestRefused) throw new FlowFailure(`${what}: the request itself was refused (${said(o)}: ${o.detail})`);
}

interface Context {
  client: SadadClient;
  config: ClientConfig;
  defect: SampleClientDefect | undefined;
  step: (line: string) => void;
  /** SequenceNumbers of accepted bill payments (for `reuses-sequence`). */
  acceptedBillSequences: string[];
}

/** Enquires a bill the flow means to pay; anything but a payable bill is a failure. */
async function payableBill(ctx: Context, s: BillSubject, what: string): Promise<BillEnquiry> {
  const bill = await ctx.client.enquireBill(s);
  if (bill.outcome.kind !== 'accepted') throw new FlowFailure(`${what}: the enquiry of ${s.account} was ${said(bill.outcome)}: ${bill.outcome.detail}`);
  ctx.step(`enquiry of ${s.account}: AmountDue ${money(bill.dueCents)}, ${bill.billStatus ?? 'no BillStatus'}`);
  if (bill.payableCents <= 0) throw new FlowFailure(`${what}: ${s.account} has nothing to pay (AmountDue ${money(bill.dueCents)}, ${bill.billStatus ?? ''})`);
  return bill;
}

function mustBePaid(ctx: Context, p: PaymentResult, what: string, seq: string): void {
  if (p.status !== 'paid') throw new FlowFailure(`${what}: payment ${seq} ${p.status}: ${p.note} (${said(p.outcome)} ${p.outcome.detail})`);
  ctx.step(`${what}: paid (${p.note}${p.sends > 1 ? `, ${p.sends} sends of the same body` : ''})`);
}

async function payBillExact(ctx: Context, s: BillSubject, bill: BillEnquiry, what: string): Promise<PaymentResult> {
  const request = ctx.client.billPayment(s, bill, bill.payableCents, true);
  ctx.step(`${what}: paying ${money(request.amountCents)} (PayExactDue true), seq ${request.sequenceNumber}`);
  const paid = await ctx.client.payBill(s, request);
  mustBePaid(ctx, paid, what, request.sequenceNumber);
  ctx.acceptedBillSequences.push(request.sequenceNumber);
  return paid;
}

// ---------------------------------------------------------------------------------------------
// The flows

/** An ordinary bill: enquire, pay about half, enquire again, pay the rest exactly. */
async function ordinaryBill(ctx: Context): Promise<void> {
  const s = billSubject(ordinaryAccount());
  const bill = await payableBill(ctx, s, 'ordinary bill');
  if (bill.payableCents >= 2) {
    const partial = ctx.client.billPayment(s, bill, Math.floor(bill.payableCents / 2), false);
    ctx.step(`partial payment of ${money(partial.amountCents)} (PayExactDue false), seq ${partial.sequenceNumber}`);
    mustBePaid(ctx, await ctx.client.payBill(s, partial), 'partial payment', partial.sequenceNumber);
    ctx.acceptedBillSequences.push(partial.sequenceNumber);
  }
  const rest = await payableBill(ctx, s, 'ordinary bill, the rest');
  if (bill.dueCents !== undefined && rest.dueCents !== bill.dueCents - Math.floor(bill.payableCents / 2)) {
    ctx.step(`note: AmountDue ${money(rest.dueCents)} after the partial payment, expected ${money(bill.dueCents - Math.floor(bill.payableCents / 2))}`);
  }
  await payBillExact(ctx, s, rest, 'the rest');
}

/** 9300: only the exact amount due is accepted. */
async function exactOnly(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.exactOnly));
  const bill = await payableBill(ctx, s, 'exact-only bill');
  const partial = ctx.client.billPayment(s, bill, Math.max(1, Math.floor(bill.payableCents / 2)), false);
  ctx.step(`trying a partial payment of ${money(partial.amountCents)}, seq ${partial.sequenceNumber}`);
  const p = await ctx.client.payBill(s, partial);
  if (p.status === 'rejected') {
    ctx.step(`partial payment refused as expected (${said(p.outcome)}): paying the exact amount due`);
    await payBillExact(ctx, s, bill, 'exact payment');
  } else if (p.status === 'paid') {
    ctx.step('note: the partial payment was accepted (expected a refusal, MW-004); paying the rest exactly');
    ctx.acceptedBillSequences.push(partial.sequenceNumber);
    await payBillExact(ctx, s, await payableBill(ctx, s, 'exact-only bill, the rest'), 'the rest');
  } else {
    throw new FlowFailure(`partial payment ${p.status}: ${p.note}`);
  }
}

/** 9404: the enquiry is refused (not found): nothing to pay. */
async function notFound(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.notFound));
  const bill = await ctx.client.enquireBill(s);
  mustBeAnswered(bill.outcome, `enquiry of ${s.account}`);
  if (bill.outcome.kind === 'refused') ctx.step(`enquiry of ${s.account} refused (${said(bill.outcome)}: ${bill.outcome.detail}): nothing to pay`);
  else ctx.step(`note: enquiry of ${s.account} was ${said(bill.outcome)} (expected a not-found refusal); not paying`);
}

/** 9410: the bill has expired: do not pay. */
async function expired(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.expired));
  const bill = await ctx.client.enquireBill(s);
  mustBeAnswered(bill.outcome, `enquiry of ${s.account}`);
  if (bill.outcome.kind === 'accepted' && bill.expired) ctx.step(`enquiry of ${s.account}: ${bill.billStatus ?? ''}, expiry ${bill.expiryDate ?? '?'}: expired, not paying`);
  else if (bill.outcome.kind === 'refused') ctx.step(`note: enquiry of ${s.account} refused (${said(bill.outcome)}), expected an answered expired bill; not paying`);
  else ctx.step(`note: enquiry of ${s.account} was ${said(bill.outcome)}, ${bill.billStatus ?? ''} (expected BillExpired); not paying`);
}

/** 9200: already paid: AmountDue 0, nothing to pay. */
async function alreadyPaid(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.alreadyPaid));
  const bill = await ctx.client.enquireBill(s);
  mustBeAnswered(bill.outcome, `enquiry of ${s.account}`);
  if (bill.outcome.kind === 'accepted' && bill.dueCents === 0) ctx.step(`enquiry of ${s.account}: AmountDue 0.00, ${bill.billStatus ?? ''}: nothing to pay`);
  else ctx.step(`note: enquiry of ${s.account} was ${said(bill.outcome)}, AmountDue ${money(bill.dueCents)} (expected 0); not paying`);
}

/** 9500: HTTP 200 with a failing status: nothing happened, do not pay. */
async function inBandFailure(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.inBandFailure));
  const bill = await ctx.client.enquireBill(s);
  const o = bill.outcome;
  mustBeAnswered(o, `enquiry of ${s.account}`);
  if (o.kind === 'refused' && o.http !== undefined && o.http < 300) ctx.step(`enquiry of ${s.account}: HTTP ${o.http} with a failing status (${o.detail}): nothing happened, not paying`);
  else ctx.step(`note: enquiry of ${s.account} was ${said(o)} (expected HTTP 200 with a failing status); not paying`);
}

/** 9429: the first call of each operation is answered 429 Retry-After: wait, then retry. */
async function rateLimited(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.rateLimited));
  const bill = await payableBill(ctx, s, 'rate-limited bill');
  if (!saw(bill.calls, 429)) ctx.step('note: the enquiry was not answered 429');
  const p = await payBillExact(ctx, s, bill, 'rate-limited payment');
  if (!saw(p.calls, 429)) ctx.step('note: the payment was not answered 429');
}

/** 9503: the first call of each operation is answered 503: retry the enquiry; check, then replay the payment. */
async function unavailable(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.unavailable));
  const bill = await payableBill(ctx, s, 'unavailable bill');
  if (!saw(bill.calls, 503)) ctx.step('note: the enquiry was not answered 503');
  const p = await payBillExact(ctx, s, bill, 'payment after a 503');
  if (!saw(p.calls, 503)) ctx.step('note: the payment was not answered 503');
}

/** 9408: the payment takes effect but its answer comes too late: time out, enquire, do not pay again. */
async function lateAnswer(ctx: Context): Promise<void> {
  const s = billSubject(magicAccount(BILL_SUFFIX.lateAnswer));
  const bill = await payableBill(ctx, s, 'late-answer bill');
  if (ctx.defect === 'new-sequence-on-retry') {
    const request = ctx.client.billPayment(s, bill, bill.payableCents, true);
    ctx.step(`paying ${money(request.amountCents)} (PayExactDue true), seq ${request.sequenceNumber}`);
    const first = await ctx.client.send('bill-payment', request.body);
    const o = outcomeOf('bill-payment', first, ctx.config.tagPrefix);
    ctx.step(`payment ${request.sequenceNumber}: ${first.kind === 'answer' ? said(o) : first.kind}`);
    if (o.kind !== 'uncertain') {
      ctx.step('note: the payment was answered in time; the defect needs a timeout (SAMPLE_CLIENT_TIMEOUT_MS below the mock\'s hold)');
      return;
    }
    // defect: pays again at once under a new SequenceNumber, without asking whether the first took effect
    const again = ctx.client.billPayment(s, bill, bill.payableCents, true);
    const second = await ctx.client.send('bill-payment', again.body);
    ctx.step(`defect new-sequence-on-retry: paid again at once with a new seq ${again.sequenceNumber}: ${said(outcomeOf('bill-payment', second, ctx.config.tagPrefix))}`);
    return;
  }
  const p = await payBillExact(ctx, s, bill, 'late-answered payment');
  if (!p.calls.some((c) => c.kind === 'timeout')) ctx.step('note: the payment was answered within the timeout (the mock holds the answer of 9408 for MOCK_LATE_ANSWER_MS)');
}

/** Enquires a fee the flow means to pay; anything but a payable fee is a failure. */
async function payableFee(ctx: Context, m: MoiSubject, what: string): Promise<FeeEnquiry> {
  const fee = await ctx.client.enquireFee(m);
  if (fee.outcome.kind !== 'accepted') throw new FlowFailure(`${what}: the MOI enquiry of ${m.id} was ${said(fee.outcome)}: ${fee.outcome.detail}`);
  ctx.step(`MOI enquiry of ${m.id}: DueAmount ${fee.dueAmount ?? '?'}, FeeReferenceId ${fee.feeReferenceId ?? '?'}`);
  if (fee.payableCents <= 0) throw new FlowFailure(`${what}: the MOI fee of ${m.id} has nothing to pay`);
  return fee;
}

async function payFee(ctx: Context, m: MoiSubject, fee: FeeEnquiry, what: string): Promise<PaymentResult> {
  const request = ctx.client.moiPayment(m, fee);
  ctx.step(`${what}: paying ${fee.dueAmount ?? '?'} quoting FeeReferenceId ${fee.feeReferenceId ?? '?'}, seq ${request.sequenceNumber}`);
  const paid = await ctx.client.payFee(m, request);
  mustBePaid(ctx, paid, what, request.sequenceNumber);
  return paid;
}

/** MOI: enquire an ordinary fee and pay it quoting the enquiry. */
async function moiOrdinary(ctx: Context): Promise<void> {
  const m = moiSubject(ordinaryMoiId());
  await payFee(ctx, m, await payableFee(ctx, m, 'MOI fee'), 'MOI payment');
}

/** MOI 9404: the fee subject does not exist. */
async function moiNotFound(ctx: Context): Promise<void> {
  const m = moiSubject(magicMoiId(MOI_SUFFIX.notFound));
  const fee = await ctx.client.enquireFee(m);
  mustBeAnswered(fee.outcome, `MOI enquiry of ${m.id}`);
  if (fee.outcome.kind === 'refused') ctx.step(`MOI enquiry of ${m.id} refused (${said(fee.outcome)}: ${fee.outcome.detail}): nothing to pay`);
  else ctx.step(`note: MOI enquiry of ${m.id} was ${said(fee.outcome)} (expected a not-found refusal); not paying`);
}

/** MOI 9429: the first call of each operation is answered 429. */
async function moiRateLimited(ctx: Context): Promise<void> {
  const m = moiSubject(magicMoiId(MOI_SUFFIX.rateLimited));
  const fee = await payableFee(ctx, m, 'rate-limited MOI fee');
  if (!saw(fee.calls, 429)) ctx.step('note: the enquiry was not answered 429');
  const p = await payFee(ctx, m, fee, 'rate-limited MOI payment');
  if (!saw(p.calls, 429)) ctx.step('note: the payment was not answered 429');
}

/** MOI 9503: the first call of each operation is answered 503. */
async function moiUnavailable(ctx: Context): Promise<void> {
  const m = moiSubject(magicMoiId(MOI_SUFFIX.unavailable));
  const fee = await payableFee(ctx, m, 'unavailable MOI fee');
  if (!saw(fee.calls, 503)) ctx.step('note: the enquiry was not answered 503');
  const p = await payFee(ctx, m, fee, 'MOI payment after a 503');
  if (!saw(p.calls, 503)) ctx.step('note: the payment was not answered 503');
}

/** MOI 9408: the payment takes effect, its answer comes too late. */
async function moiLateAnswer(ctx: Context): Promise<void> {
  const m = moiSubject(magicMoiId(MOI_SUFFIX.lateAnswer));
  const p = await payFee(ctx, m, await payableFee(ctx, m, 'late-answer MOI fee'), 'late-answered MOI payment');
  if (!p.calls.some((c) => c.kind === 'timeout')) ctx.step('note: the payment was answered within the timeout');
}

// ---------------------------------------------------------------------------------------------
// The defects' extra steps (each breaks one client rule on purpose)

/** bursts-past-limit: limit+1 bill enquiries at once, past the pacer (still in its log). */
async function burstPastLimit(ctx: Context): Promise<void> {
  const s = billSubject(ordinaryAccount());
  const n = ctx.config.rateLimits.bill + 1;
  const bodies = Array.from({ length: n }, () => ctx.client.billEnquiryBody(s));
  ctx.step(`defect bursts-past-limit: ${n} bill enquiries of ${s.account} at once (limit ${ctx.config.rateLimits.bill} per ${ctx.config.rateWindowSeconds} s)`);
  const results = await Promise.all(bodies.map((b) => ctx.client.send('bill-enquiry', b, { bypassPacer: true })));
  const throttled = results.flatMap((r, i) => (r.kind === 'answer' && r.status === 429 ? [bodies[i]!] : []));
  ctx.step(`burst answered: ${results.map((r) => (r.kind === 'answer' ? r.status : r.kind)).join(' ')}`);
  for (const body of throttled) {
    // waits Retry-After (the pacer holds the operation), then the same request again
    const { outcome } = await ctx.client.enquire('bill-enquiry', body);
    ctx.step(`throttled enquiry retried after Retry-After: ${said(outcome)}`);
  }
}

/** A bill enquiry body whose single entry is changed by `edit` (for the defects that break the body). */
function editedEnquiry(ctx: Context, s: BillSubject, edit: (request: Json, entry: Json) => void): Json {
  const body = ctx.client.billEnquiryBody(s);
  const request = (body.Message as Json)[`${ctx.config.tagPrefix}SadadBillEnquiryRequest`] as Json;
  const item = (request[`${ctx.config.tagPrefix}SadadBillEnquiry`] as Json[])[0]!;
  edit(request, (item.TransactionData as Json[])[0]!);
  return body;
}

async function defectExtras(ctx: Context): Promise<void> {
  const client = ctx.client;
  const refusedOrNote = (what: string, o: Outcome) =>
    ctx.step(o.kind === 'refused' ? `${what}: refused as expected (${said(o)}); moving on` : `note: ${what}: ${said(o)} (expected a refusal); moving on`);
  switch (ctx.defect) {
    case 'omits-header': {
      const s = billSubject(ordinaryAccount());
      const r = await client.send('bill-enquiry', client.billEnquiryBody(s), { omitHeaders: ['Device'] });
      refusedOrNote(`defect omits-header: bill enquiry of ${s.account} without Device`, outcomeOf('bill-enquiry', r, ctx.config.tagPrefix));
      return;
    }
    case 'zoned-timestamp': {
      const s = billSubject(ordinaryAccount());
      // UTC with its zone: the document's DateTimeStamp carries none
      const r = await client.send('bill-enquiry', client.billEnquiryBody(s), { headerValues: { DateTimeStamp: `${new Date().toISOString().slice(0, 19)}Z` } });
      refusedOrNote(`defect zoned-timestamp: bill enquiry of ${s.account} with a DateTimeStamp ending Z`, outcomeOf('bill-enquiry', r, ctx.config.tagPrefix));
      return;
    }
    case 'uuid-reference-id': {
      const s = billSubject(ordinaryAccount());
      // the document gives the reference id no form: accepted, but not what a real deployment takes
      const r = await client.send('bill-enquiry', client.billEnquiryBody(s), { headerValues: { [`${ctx.config.headerPrefix}ReferenceID`]: randomUUID() } });
      ctx.step(`defect uuid-reference-id: bill enquiry of ${s.account} with a UUID reference id: ${said(outcomeOf('bill-enquiry', r, ctx.config.tagPrefix))}`);
      return;
    }
    case 'pays-paid-fee': {
      const m = moiSubject(magicMoiId(MOI_PAID));
      const fee = await client.enquireFee(m);
      mustBeAnswered(fee.outcome, `MOI enquiry of ${m.id}`);
      // pays what the enquiry showed (DueAmount 0, its references) though it says the fee is paid
      const r = await client.send('moi-payment', client.moiPayment(m, fee).body);
      refusedOrNote(`defect pays-paid-fee: payment of the paid fee ${m.id}`, outcomeOf('moi-payment', r, ctx.config.tagPrefix));
      return;
    }
    case 'other-zone-stamp': {
      const s = billSubject(ordinaryAccount());
      // the right clock written in another zone (three hours ahead of the sandbox's): a whole number of hours off
      const r = await client.send('bill-enquiry', client.billEnquiryBody(s), { headerValues: { DateTimeStamp: localTimestamp(new Date(Date.now() + 3 * 3600_000)) } });
      ctx.step(`defect other-zone-stamp: bill enquiry of ${s.account} stamped 3 h ahead: ${said(outcomeOf('bill-enquiry', r, ctx.config.tagPrefix))}`);
      return;
    }
    case 'reuses-sequence': {
      const reused = ctx.acceptedBillSequences[0];
      if (reused === undefined) throw new FlowFailure('reuses-sequence: no accepted bill payment to take a SequenceNumber from');
      const s = billSubject(ordinaryAccount());
      const bill = await payableBill(ctx, s, 'reuses-sequence');
      const request = client.billPayment(s, bill, bill.payableCents, true);
      const entry = ((((request.body.Message as Json)[`${ctx.config.tagPrefix}SadadBillPaymentRequest`] as Json)[`${ctx.config.tagPrefix}SadadBillPayment`] as Json[])[0]!.TransactionData as Json[])[0]!;
      entry.SequenceNumber = reused;
      const r = await client.send('bill-payment', request.body);
      refusedOrNote(`defect reuses-sequence: payment of ${s.account} with the used seq ${reused}`, outcomeOf('bill-payment', r, ctx.config.tagPrefix));
      return;
    }
    case 'pays-more-than-due': {
      const s = billSubject(ordinaryAccount());
      const bill = await payableBill(ctx, s, 'pays-more-than-due');
      const request = client.billPayment(s, bill, bill.payableCents + 1000, false);
      const r = await client.send('bill-payment', request.body);
      refusedOrNote(`defect pays-more-than-due: paying ${money(request.amountCents)} of ${money(bill.payableCents)} due`, outcomeOf('bill-payment', r, ctx.config.tagPrefix));
      return;
    }
    case 'drops-required-field': {
      const s = billSubject(ordinaryAccount());
      const body = editedEnquiry(ctx, s, (_request, entry) => { delete entry.BillCategory; });
      const r = await client.send('bill-enquiry', body);
      refusedOrNote(`defect drops-required-field: bill enquiry of ${s.account} without BillCategory`, outcomeOf('bill-enquiry', r, ctx.config.tagPrefix));
      return;
    }
    case 'foreign-transaction-type': {
      const s = billSubject(ordinaryAccount());
      const body = editedEnquiry(ctx, s, (request) => { request.TransactionType = 'SADADMOI'; });
      const r = await client.send('bill-enquiry', body);
      refusedOrNote(`defect foreign-transaction-type: bill enquiry of ${s.account} with TransactionType SADADMOI`, outcomeOf('bill-enquiry', r, ctx.config.tagPrefix));
      return;
    }
    default:
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Main

function defectFromEnv(env: Record<string, string | undefined>): SampleClientDefect | undefined {
  const raw = env.SAMPLE_CLIENT_DEFECT?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (!isSampleClientDefect(raw)) throw new ConfigError('SAMPLE_CLIENT_DEFECT', `unknown defect ${JSON.stringify(raw)}; known: ${SAMPLE_CLIENT_DEFECTS.join(', ')}`);
  return raw;
}

export async function main(env: Record<string, string | undefined> = process.env): Promise<number> {
  let config: ClientConfig;
  let defect: SampleClientDefect | undefined;
  try {
    config = configFromEnv(env);
    defect = defectFromEnv(env);
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`sample client: ${e.message}`);
      return 2;
    }
    throw e;
  }
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;
  const client = new SadadClient(config, {
    log: (line) => console.log(`${elapsed()} ${line}`),
    // the defect bends the bill enquiry only, so that exactly one case (client.bill-enquiry.pacing.retry-after) shows it
    ...(defect === 'ignores-retry-after' ? { hooks: { retryAfterOverride: { ms: 100, ops: ['bill-enquiry'] } } } : {}),
  });
  const acceptedBillSequences: string[] = [];

  console.log(`sample client: ${config.baseUrl}, company ${config.companyId}, limits ${config.rateLimits.bill} bill / ${config.rateLimits.moi} MOI calls per ${config.rateWindowSeconds} s per operation, timeout ${config.timeoutMs} ms, token ${config.tokenUrl !== undefined ? 'from SADAD_TOKEN_URL' : 'static'}${defect ? `, DEFECT ${defect}` : ''}`);
  type Flow = [string, (ctx: Context) => Promise<void>];
  const billLane: Flow[] = [
    ...(defect === 'bursts-past-limit' ? [['burst', burstPastLimit] as Flow] : []),
    ['ordinary', ordinaryBill],
    ['exact-only 9300', exactOnly],
    ['not-found 9404', notFound],
    ['expired 9410', expired],
    ['already-paid 9200', alreadyPaid],
    ['in-band-failure 9500', inBandFailure],
    ['rate-limited 9429', rateLimited],
    ['unavailable 9503', unavailable],
    ['late-answer 9408', lateAnswer],
    ...(defect !== undefined && !['bursts-past-limit', 'ignores-retry-after', 'new-sequence-on-retry'].includes(defect) ? [[`defect ${defect}`, defectExtras] as Flow] : []),
  ];
  const moiLane: Flow[] = [
    ['moi ordinary', moiOrdinary],
    ['moi not-found 9404', moiNotFound],
    ['moi rate-limited 9429', moiRateLimited],
    ['moi unavailable 9503', moiUnavailable],
    ['moi late-answer 9408', moiLateAnswer],
  ];
  const failed: string[] = [];
  // The bill and MOI operations have budgets of their own: the two lanes run side by side.
  const runLane = async (flows: Flow[]) => {
    for (const [name, flow] of flows) {
      const step = (line: string) => console.log(`${elapsed()} [${name}] ${line}`);
      try {
        await flow({ client, config, defect, step, acceptedBillSequences });
      } catch (e) {
        failed.push(name);
        if (e instanceof FlowFailure) step(`FAILED: ${e.message}`);
        else step(`FAILED with an unexpected error: ${(e as Error).stack ?? String(e)}`);
      }
    }
  };
  await Promise.all([runLane(billLane), runLane(moiLane)]);
  const total = billLane.length + moiLane.length;
  console.log(`${elapsed()} sample client: ${total - failed.length}/${total} flows completed${failed.length ? `; failed: ${failed.join(', ')}` : ''}`);
  return failed.length === 0 ? 0 : 1;
}

/** Runs only as a program, not when a test imports SAMPLE_CLIENT_DEFECTS from here. */
function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return pathToFileURL(realpathSync(script)).href === pathToFileURL(realpathSync(new URL(import.meta.url))).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  main().then((code) => { process.exitCode = code; }, (e: unknown) => {
    console.error(`sample client: ${(e as Error).stack ?? String(e)}`);
    process.exitCode = 1;
  });
}
