/**
 * The rate limit (spec §4, §8), judged by what the limiter was seen to do (design.md §6).
 *
 * `SADAD_RATE_SHAPE=burst` (the default; "10 calls per minute"): from a quiet operation, of
 * `limit`+1 calls sent together exactly `limit` are accepted and one is refused, and after the
 * window (Retry-After honoured) a call is accepted again. The case holds the operation alone in
 * the pacer, so no other case's call can be counted in its window.
 * - The refusal's status is the limiter's: a 429, or another status (nginx's default 503, a 403)
 *   given to exactly the calls over the limit, consistently, which is a WARN naming it, and which
 *   the pacer then reads as the limiter's answer everywhere else in the run (pacer/over-limit.ts).
 *   A 5xx on the calls over the limit is believed only when two checks, each from a fresh window,
 *   meet it there: once it may be a gateway's blip (or two, or a probe's); a blip there (the next
 *   call refused otherwise) hides what the limiter answered, and the check is repeated.
 * - The reset: a call after the window that is refused is tried again, with growing pauses, for up
 *   to two windows more (a blending limiter like HAProxy's counts the burst a little longer, and
 *   counts every refused try too); PASS when the first call after the window is accepted, WARN
 *   "resets N ms after the window" within two windows, FAIL beyond.
 * - A limiter that accepts fewer than `limit` calls sent together because it spaces them (nginx
 *   limit_req without burst): probes after the burst measure the spacing, and the case FAILs once
 *   with it in words; every other case of the run is judged normally, the pacing spaces calls anyway.
 * - A transient fault inside a check bends it, and the check is repeated.
 *
 * `SADAD_RATE_SHAPE=spaced` (the bank documents one call per window / limit): calls spaced by the
 * window / limit (plus the margin) are all accepted, `limit` + 1 of them over more than a window; a
 * call halfway between window / (limit + 1) and window / limit after an accepted one is refused;
 * and a call spaced again after that refusal is accepted.
 */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { summarize, type Exchange } from '../../client/exchange.js';
import type { RequestBody } from '../../contract/message.js';
import { defineCase, endOf, type CaseContext } from '../case.js';
import { answerFact } from '../walk.js';
import { plannedLimit } from '../../vocabulary/plan.js';
import type { Registration } from '../registration.js';
import { acceptableRequest, enquireBills, enquireFees, billPayment, feePayment } from '../prepare.js';
import { reachMs, spreadOf, startTogether, type Via } from '../burst.js';
import { answerSignature, burstRepeats, exhausted, retryAfterMs } from '../../client/transient.js';
import { defaultMarginMs } from '../../pacer/budget.js';
import type { Outcome } from '../../client/outcome.js';

/** `n` requests the target would accept, each a separate transaction (payments: separate subjects). */
async function acceptableRequests(c: CaseContext, n: number): Promise<RequestBody[]> {
  const op = c.def.op;
  if (op === 'bill-payment') {
    const bills = await enquireBills(c, await c.bills(n), `bill enquiry for ${n} bills`);
    return bills.map((b) => billPayment(c.gen, [b]));
  }
  if (op === 'moi-payment') {
    const fees = [];
    for (let i = 0; i < n; i += 3) fees.push(...await enquireFees(c, await c.fees(Math.min(3, n - i)), 'MOI fee enquiry'));
    return fees.map((f) => feePayment(c.gen, [f]));
  }
  // one after another: each waits on the shared preconditions first, and the seeded data must be drawn
  // in one order whatever order those answers come in (a re-judge draws it again, src/replay)
  const out: RequestBody[] = [];
  for (let i = 0; i < n; i++) out.push(await acceptableRequest(c));
  return out;
}

/** How often all limit+1 calls may be accepted before it counts as a violation (see the case). */
const OVER_CHECKS = 3;

/**
 * `at`: when the fault that bent the check happened (ms), to tell whether an outage covered it.
 * `suspect`: a 5xx on the calls over the limit, to be seen again in the next check before it is believed.
 */
/**
 * `unless-outage`: a 5xx that may be the outage's rather than the limiter's. Decided once the
 * operation's hold is released (the outage watch's probe may need that operation): bent when the
 * watch saw the target down at `at`, else `otherwise` judges it.
 */
type Settled = { result: 'judged' } | { result: 'bent'; why: string; at: number; suspect?: string } | { result: 'over'; spread: string };
type Check = Settled | { result: 'unless-outage'; why: string; at: number; otherwise: () => Settled; learn?: () => Promise<unknown> };

/**
 * The limiter's answer other than 429 is taught to the pacer (pacer/over-limit.ts) once the check is
 * judged, or when what may have been an outage was not: an outage's maintenance page is no limiter's.
 */
async function teachOnceJudged(r: Check, learn: (() => Promise<unknown>) | undefined): Promise<Check> {
  if (!learn) return r;
  if (r.result === 'judged') await learn();
  return r.result === 'unless-outage' ? { ...r, learn } : r;
}

const started = (ex: Exchange) => Date.parse(ex.startedAt);
const ms = (n: number) => `${Math.round(n)} ms`;

/** The figures a check reads: the window, the margin, the limit, and the spacing of a smoothing limiter. */
interface Frame { limit: number; windowMs: number; marginMs: number; windowText: string }

/** How often a token bucket refilled at the limit per window frees one call. */
const refillMs = (f: Frame) => f.windowMs / f.limit;

export function registerRateLimitCases(opId: OperationId, reg: Registration): void {
  const op = operation(opId);
  const spaced = reg.shape === 'spaced';
  const n = plannedLimit(reg.limits, op.rateGroup) + (spaced ? 3 : 2);
  const calls = opId === 'bill-payment' ? { [opId]: n, 'bill-enquiry': 1 } : opId === 'moi-payment' ? { [opId]: n, 'moi-enquiry': Math.ceil(n / 3) } : { [opId]: n };
  defineCase({ id: `${opId}.rate.limit`, family: 'rate-limit', op: opId, sections: ['4', '8'], level: 'MUST', slow: true, pays: op.kind === 'payment', calls,
    ...(op.kind === 'payment' ? { payments: { debits: n - 1, subjects: n - 1 } } : {}),
    expectation: spaced
      ? 'calls spaced by window/<limit> are accepted, a call sooner than that after an accepted one is refused, and a call spaced again after it is accepted (SADAD_RATE_SHAPE=spaced)'
      : 'in a fresh window, of <limit>+1 calls sent together exactly <limit> are accepted and one is rejected, and after the window a call is accepted again' }, async (c) => {
    const limit = c.rt.limitOf(opId);
    const windowMs = c.config.rateWindowSeconds * 1000;
    const frame: Frame = { limit, windowMs, marginMs: defaultMarginMs(windowMs), windowText: `${c.config.rateWindowSeconds} s` };
    c.observe('limit per window', `${limit} calls per ${c.config.rateWindowSeconds} s${c.config.rateShape === 'spaced' ? ', spaced (SADAD_RATE_SHAPE=spaced)' : ''}`);
    return c.config.rateShape === 'spaced' ? spacedLimit(c, frame) : burstLimit(c, frame);
  });
}

/**
 * Sent together, the limit+1 calls reach the target within milliseconds whatever its latency, so
 * no conformant limiter (fixed, clock-aligned or sliding window, token bucket) can have freed a slot
 * between them, except a clock-aligned window whose boundary falls inside the burst, or a bucket
 * that freed a call while they reached it apart (a loaded machine opening their connections): a
 * check whose calls may have arrived that far apart is not judged but repeated. A target that accepts them
 * all in OVER_CHECKS checks, each from a fresh window, breaks the limit.
 */
async function burstLimit(c: CaseContext, f: Frame): Promise<void> {
  return checkUntilJudged(c, f, f.limit + 2, 'the limit', (check, bodies, via, suspect) => oneCheck(c, f, check, bodies, via, suspect));
}

/**
 * Checks, each from a quiet operation held alone in the pacer, until one is judged. A check bent by
 * a transient fault is repeated (3 repeats per retry; one bent while the target was down, an outage,
 * does not count: the run paused for it); one in which all calls were accepted counts toward
 * OVER_CHECKS. `calls`: the requests a check needs, prepared before the hold.
 */
async function checkUntilJudged(c: CaseContext, f: Frame, calls: number, what: string, one: (check: number, bodies: RequestBody[], via: Via, suspect: string | undefined) => Promise<Check>): Promise<void> {
  let over = 0;
  const bent: number[] = [];
  const start = c.faults.length;
  let suspect: string | undefined;
  for (let check = 1; ; check++) {
    const bodies = await acceptableRequests(c, calls);
    const mark = c.faults.length;
    const first = c.exchanges.length;
    const notesBefore = c.notes.length;
    const checked = await c.rt.pacer.exclusive(c.def.op, (via) => one(check, bodies, via, suspect));
    // a 5xx while the target was down (a maintenance page that began inside the check) is the
    // outage's answer: the check is repeated once it is back, and what it noted (the limiter's
    // status, read from the outage's answers) is no finding
    let r: Settled;
    if (checked.result !== 'unless-outage') r = checked;
    else if (await c.duringOutage(checked.at)) {
      c.withdrawNotes(notesBefore);
      r = { result: 'bent', why: checked.why, at: checked.at };
    } else {
      await checked.learn?.();
      r = checked.otherwise();
    }
    // a judged check is past every fault the earlier, bent ones met
    if (r.result === 'judged') { c.recovered(start); return; }
    if (r.result === 'over') {
      c.observe(`check ${check}`, `all ${f.limit + 1} calls accepted; ${r.spread}`);
      if (++over >= OVER_CHECKS) return c.stop(`in ${over} checks, each from a fresh window, all ${f.limit + 1} calls sent together were accepted (limit ${f.limit} per ${f.windowText})`);
      continue;
    }
    c.observe(`check ${check}`, `not judged: ${r.why}; repeated from a quiet operation`);
    c.setAside(c.exchanges.slice(first));
    suspect = r.suspect;
    bent.push(r.at);
    if (await c.retriesExhausted(bent, burstRepeats(c.config.retries))) {
      const kinds = c.faults.slice(mark).map((x) => x.kind);
      return c.error(kinds.length ? `${exhausted(kinds)}: ${r.why}` : `${r.why}, ${bent.length} times: ${what} could not be checked`);
    }
  }
}

/** One check from a fresh window (the case holds the operation alone in the pacer). */
async function oneCheck(c: CaseContext, f: Frame, check: number, bodies: RequestBody[], via: Via, suspect: string | undefined): Promise<Check> {
  const { limit } = f;
  const together = startTogether(via, limit + 1);
  const tag = check > 1 ? `check ${check}, ` : '';
  const burst = await Promise.all(bodies.slice(0, limit + 1).map((body, i) => c.send({ body, via: together, retry: 'none', label: `${tag}call ${i + 1} of ${limit + 1}, sent together` })));
  const end = Math.max(...burst.map(endOf));
  const outcomes = burst.map((ex) => c.classify(ex));
  const accepted = outcomes.filter((o) => o.kind === 'accepted').length;
  const refusedIdx = outcomes.flatMap((o, i) => (o.kind === 'accepted' ? [] : [i]));
  const refused = refusedIdx.map((i) => burst[i]!);
  // no answer at all (a reset, a timeout) says nothing about the limiter: the check is bent
  if (refused.some((ex) => ex.error)) {
    const kinds = burst.map((ex) => (ex.error ? c.fault(ex, c.def.op, { allow429: true }) : undefined)).filter(Boolean);
    return { result: 'bent', why: `${kinds.join(', ')} inside the burst`, at: end };
  }
  const spread = spreadOf(burst);
  const odd = refusedIdx.find((i) => outcomes[i]!.kind !== 'rejected' && outcomes[i]!.kind !== 'server-error');
  if (odd !== undefined) return c.stop(`call ${odd + 1} of ${limit + 1} in a fresh window got ${outcomes[odd]!.detail}, neither an acceptance nor a rejection: ${summarize(burst[odd]!)}`);
  if (accepted === limit + 1) {
    // a machine that slept, or a link slower than the window: the calls may have spanned two windows,
    // which lets every conformant limiter accept them all. Only an over-acceptance can be excused so:
    // a slow burst never makes a conformant target accept fewer than the limit
    const slowest = end - Math.min(...burst.map(started));
    if (slowest >= f.windowMs) return { result: 'bent', why: `the burst took ${slowest} ms, not within the ${f.windowMs} ms window`, at: end };
    // a token bucket frees a call every window / limit: calls that left that far apart may all be
    // accepted by a conformant one (seen behind nginx on a loaded CI machine, 3 checks in a row)
    const reach = reachMs(burst);
    if (reach >= refillMs(f)) return { result: 'bent', why: `the ${limit + 1} calls left on their connections over ${ms(reach)} (${spread}), time enough for a token bucket to free a call (one per ${ms(refillMs(f))})`, at: end };
    return { result: 'over', spread };
  }
  // not one accepted, and never one of this operation in this case: the burst says nothing about a limit, only
  // that these requests are refused (no vacuous FAIL); after an accepted burst, none accepted is the limit not resetting
  if (accepted === 0 && !c.acceptedOps.has(c.def.op)) {
    const inconclusive = () => c.inconclusive(`not one of the ${limit + 1} calls sent together in a fresh window was accepted, so the limit could not be checked: ${summarize(burst[0]!)}; ${c.def.op}.res.schema tests acceptance directly`, `precondition: ${operation(c.def.op).title} not accepted`, `${c.def.op}.res.schema`);
    // every call a 5xx: the outage's answer when the target was down then, not a refusal of these requests
    if (outcomes.every((o) => o.kind === 'server-error')) return { result: 'unless-outage', why: `HTTP ${burst[0]!.response?.status} on every call of the burst while the target was down (an outage)`, at: end, otherwise: inconclusive };
    return inconclusive();
  }
  // one answer for every refused call (a limiter answers alike), or several (a blip among them)
  const signatures = new Set(refused.map(answerSignature));
  const consistent = signatures.size === 1;
  const status = refused[0]!.response!.status;
  if (accepted < limit) {
    // the same 5xx on every refused call may be a limiter's (nginx limit_req without burst answers 503
    // by default) or a gateway's blips that met two calls of the burst (seen in the detection run with
    // faults: the blips read as a limiter that spaces calls, a false FAIL). Repeated from a fresh
    // window, and believed when the next burst meets it again
    const few = `few:${answerSignature(refused[0]!)}`;
    if (consistent && status >= 500 && suspect !== few) {
      const kinds = refused.map((ex) => c.fault(ex, c.def.op, { allow429: true })).filter(Boolean);
      return { result: 'bent', why: `HTTP ${status} on the ${refused.length} calls refused inside the burst (${kinds.join(', ') || 'a 5xx'}): the limiter's answer, or a gateway's blips`, at: end, suspect: few };
    }
    if (consistent) {
      const spacing = await measureSpacing(c, f, burst, outcomes, bodies, via, tag);
      if (spacing) return c.stop(spacing.text, spacing.cause);
    }
    // refusals that are not the limiter's own (a gateway's 5xx among them): the burst was bent
    if (!consistent || status >= 500) {
      const kinds = refused.map((ex) => c.fault(ex, c.def.op, { allow429: true })).filter(Boolean);
      return { result: 'bent', why: `${kinds.length ? kinds.join(', ') : `only ${accepted} accepted`} inside the burst`, at: end };
    }
    return c.stop(`only ${accepted} of ${limit + 1} calls sent together in a fresh window were accepted, expected ${limit}: ${refused.slice(0, 2).map(summarize).join(' | ')}`);
  }
  // exactly the limit accepted: the one refused call is the limiter's answer
  const overEx = refused[0]!;
  const o = outcomes[refusedIdx[0]!]!;
  const signature = answerSignature(overEx);
  if (status >= 500) {
    // nginx's limit_req answers 503 by default, which is also what a gateway blip looks like: one
    // more call at once, still inside the window, tells them apart. The limiter answers it alike; a
    // blip (never counted by the limiter) leaves the limiter's own refusal to it, or a free slot.
    // Believed when two checks, each from a fresh window, see it so
    const probe = await c.send({ body: bodies[refusedIdx[0]!]!, via, retry: 'none', label: `${tag}one more call at once: the limiter's answer again, or a blip` });
    const p = c.classify(probe);
    if (p.kind === 'accepted') {
      // accepted once a token bucket may have freed a call since the burst began, it says nothing
      const reach = reachMs([...burst, probe]);
      if (reach >= refillMs(f)) return { result: 'bent', why: `HTTP ${status} on the call over the limit, then one more call accepted, but it left ${ms(reach)} after the burst's first, time enough for a token bucket to free a call (one per ${ms(refillMs(f))})`, at: endOf(probe) };
      return { result: 'over', spread: `${spread}; HTTP ${status} on call ${refusedIdx[0]! + 1} was a blip, and one more call at once was accepted too` };
    }
    // the same 5xx again: a limiter answering so, or a gateway's blips one after another (seen in the
    // detection run with faults: two blips read as a limiter answering 503, a false WARN)
    const over = `over:${signature}`;
    if (answerSignature(probe) !== signature) {
      c.fault(overEx, c.def.op);
      if (p.kind !== 'rejected') return { result: 'bent', why: `HTTP ${status} on the call over the limit, then ${c.fault(probe, c.def.op) ?? p.detail}`, at: endOf(probe) };
      // the 5xx was a blip, and the limiter refused the call after it: but the blip hid what the limiter
      // answered the call over the limit, and a target that accepts one too many, its extra call hidden
      // so, answers exactly alike (seen in the detection run with faults: the defect missed). Repeated.
      return { result: 'bent', why: `HTTP ${status} on call ${refusedIdx[0]! + 1} was a blip (one more call at once got the limiter's ${p.detail}): it hid whether the limiter accepted that call`, at: endOf(probe) };
    }
    if (suspect !== over) return { result: 'bent', why: `HTTP ${status} on the call over the limit and on one more call at once: the limiter's answer, or a gateway's blips`, at: endOf(probe), suspect: over };
  }
  const learn = o.status !== 429 ? () => c.input('pacing', `learn ${o.status}`, () => c.rt.pacer.learnOverLimit({ status: o.status!, signature, op: c.def.op }).then(() => true).catch(() => false)) : undefined;
  recordRefusal(c, overEx, o);
  c.observe('burst', `${limit} accepted, call ${refusedIdx[0]! + 1} rejected; ${spread}`);
  return teachOnceJudged(await resetCheck(c, f, [...burst, overEx], overEx, bodies[limit + 1]!, via, tag, false), learn);
}

/** What the over-limit answer looked like, and a WARN when it is not the common 429 with Retry-After. */
function recordRefusal(c: CaseContext, ex: Exchange, o: Outcome): void {
  const rateHeaders = Object.fromEntries(Object.entries(ex.response?.headers ?? {}).filter(([k]) => /rate|retry/i.test(k)));
  const retryAfter = ex.response?.headers['retry-after'];
  c.observe('rate-limit answer', o.detail, answerFact(ex));
  c.observe('rate-limit headers', Object.keys(rateHeaders).length ? rateHeaders : 'none', Object.keys(rateHeaders).sort().join(', ') || 'none');
  // its form, not its value: the seconds left in the window differ from call to call
  c.facts['Retry-After'] = retryAfter === undefined ? 'none' : /^\d+$/.test(retryAfter.trim()) ? 'seconds' : Number.isNaN(Date.parse(retryAfter)) ? 'unreadable' : 'an HTTP date';
  c.observe('rate-limit body', ex.response?.body.slice(0, 500));
  if (o.status !== 429) c.warn(`the limiter refuses a call over the limit with ${o.detail}${o.status !== undefined && o.status >= 500 ? ' (seen on exactly the calls over the limit, so it is the limiter, not an outage)' : ''}; HTTP 429 is the common practice`);
  else if (ex.response?.headers['retry-after'] === undefined) c.warn('429 without a Retry-After header');
}

/**
 * After the window (the target's Retry-After when it gives one, bounded, else the window from the
 * first call plus the margin) a call must be accepted again. A refused one is tried again after a
 * growing pause (a quarter window, a half, a whole, or the Retry-After), each try counting at a
 * limiter that counts refusals, for up to two windows after the window: PASS at the first call,
 * WARN with the measured reset within two windows, FAIL beyond. `after` is when the window started.
 */
async function resetCheck(c: CaseContext, f: Frame, burst: Exchange[], refusal: Exchange, body: RequestBody, via: Via, tag: string, spacedShape: boolean, windowFrom?: number): Promise<Check> {
  const first = windowFrom ?? Math.min(...burst.map(started));
  const windowEnd = first + f.windowMs;
  const deadline = windowEnd + 2 * f.windowMs;
  const retryAfter = burst.map((ex) => retryAfterMs(ex, endOf(ex))).find((x) => x !== undefined);
  const honoured = retryAfter !== undefined && retryAfter <= 2 * f.windowMs + 1000;
  let at = honoured ? Math.max(...burst.map(endOf)) + retryAfter! + 50 : windowEnd + Math.max(50, f.marginMs);
  c.observe('waited before retrying (ms)', Math.round(at - Math.max(...burst.map(endOf))));
  let pause = f.windowMs / 4;
  // the limiter's own answer, as the burst met it: the same answer again is the limiter still refusing
  const limiterSignature = answerSignature(refusal);
  let lastRefusedLate = 0;
  for (let attempt = 1; ; attempt++) {
    await c.sleep(Math.max(0, at - Date.now()));
    const again = await c.send({ body, via, retry: 'none', label: `${tag}after the window${attempt > 1 ? ` (try ${attempt})` : ''}` });
    // a refusal now is the limiter (judged below); anything else transient bends the check
    const o = c.classify(again);
    const limiterAnswer = o.kind === 'rejected' || (o.kind === 'server-error' && answerSignature(again) === limiterSignature);
    if (!limiterAnswer && o.kind !== 'accepted') {
      const kind = c.fault(again, c.def.op, { allow429: true });
      if (kind) return { result: 'bent', why: `${kind} on the call after the window`, at: endOf(again) };
    }
    if (o.kind === 'accepted') {
      const late = started(again) - windowEnd;
      c.observe('reset', attempt === 1 ? `accepted on the first call after the window (${ms(Math.max(0, late))} after it)` : `accepted ${ms(late)} after the window, on try ${attempt}`);
      if (attempt > 1) c.warn(`the limit resets ${ms(late)} after the ${spacedShape ? 'spacing' : 'window'}: a call ${ms(lastRefusedLate)} after it was still refused (a limiter that blends the previous window in, or counts refused calls, counts longer than ${spacedShape ? ms(f.windowMs) : f.windowText})`);
      return { result: 'judged' };
    }
    lastRefusedLate = started(again) - windowEnd;
    const after = retryAfterMs(again, endOf(again));
    const next = endOf(again) + Math.max(after !== undefined && after <= 2 * f.windowMs ? after + 50 : 0, pause);
    pause *= 2;
    if (next > deadline) {
      const fail = (): Settled => {
        c.violated(`after waiting out the ${spacedShape ? 'spacing' : 'window'} the call was still refused ${ms(started(again) - windowEnd)} after it (${attempt === 1 ? 'one try' : `the last of ${attempt} tries`}; the limit had two more ${spacedShape ? 'spacings' : 'windows'} to reset): ${summarize(again)}`);
        return { result: 'judged' };
      };
      // a 5xx refusal (a maintenance page that began in the burst answers every call alike): the
      // outage's, when the watch saw the target down then; the check is repeated once it is back
      if (o.kind === 'server-error') return { result: 'unless-outage', why: `HTTP ${again.response?.status} on the call after the window while the target was down (an outage)`, at: endOf(again), otherwise: fail };
      return fail();
    }
    at = next;
  }
}

/** A limiter that lets calls through one at a time, measured: the text and the cause of its FAIL. */
interface Spacing { text: string; cause: string }

/**
 * Probes after a burst that had fewer than `limit` accepted: a call a half and three quarters of
 * window / limit after the last accepted one, then one a full spacing (plus the margin) after it.
 * Refused early and accepted at the spacing, the limiter spaces calls (one per window / limit)
 * rather than counting `limit` per window; a windowed limiter with too small a budget refuses all
 * three (its window is full), a burst bent by a blip accepts the first. The probes reuse the
 * bodies of the refused calls: a refusal changed nothing at the target.
 */
async function measureSpacing(c: CaseContext, f: Frame, burst: Exchange[], outcomes: Outcome[], bodies: RequestBody[], via: Via, tag: string): Promise<Spacing | undefined> {
  const interval = f.windowMs / f.limit;
  const accepted = burst.filter((_, i) => outcomes[i]!.kind === 'accepted');
  // the refused calls' bodies (a refusal changed nothing at the target) and the unused one
  const spare = [...burst.map((_, i) => i).filter((i) => outcomes[i]!.kind !== 'accepted').map((i) => bodies[i]!), bodies[f.limit + 1]!];
  const refusedSignature = answerSignature(burst.find((_, i) => outcomes[i]!.kind !== 'accepted')!);
  if (!accepted.length || spare.length < 3) return undefined;
  // A call reaches the limiter somewhere between its start and its answer (calls sent together open
  // connections of their own, and a loaded machine answers late): the probes count from the answer
  // of the last accepted call, a refusal proves a gap at least that long was refused, an acceptance
  // that a gap at most from that call's start to the probe's answer was accepted
  let ref = { start: Math.max(...accepted.map(started)), end: Math.max(...accepted.map(endOf)) };
  let refusedGap = 0;
  const shares = [0.5, 0.75, 1 + f.marginMs / f.windowMs];
  for (let k = 0, i = 0; k < spare.length && i < shares.length; k++, i++) {
    const share = shares[i]!;
    await c.sleep(Math.max(0, ref.end + share * interval - Date.now()));
    const probe = await c.send({ body: spare[k]!, via, retry: 'none', label: `${tag}probe ${k + 1}: ${Math.round(share * 100)} % of window / limit after the last accepted call's answer` });
    const o = c.classify(probe);
    if (probe.error || (o.kind === 'server-error' && answerSignature(probe) !== refusedSignature)) return undefined;
    if (o.kind !== 'accepted') { refusedGap = Math.max(refusedGap, started(probe) - ref.end); continue; }
    const atMost = endOf(probe) - ref.start;
    // accepted surely sooner than the spacing: a slot was free, the burst was bent, not spaced
    if (atMost < 0.9 * interval) return undefined;
    if (!refusedGap) {
      // accepted, but the last call's answer came so late that the probe was not surely early: measure again from this one
      ref = { start: started(probe), end: endOf(probe) };
      i = -1;
      continue;
    }
    const gap = started(probe) - ref.start;
    const about = interval > refusedGap && interval <= atMost ? interval : gap;
    const per = `one per ~${ms(about)}`;
    c.observe('spacing', `a call ${ms(refusedGap)} after an accepted one's answer was refused, one ${ms(gap)} after it was sent was accepted: ${per}`);
    const title = operation(c.def.op).title;
    const lead = accepted.length === 1 ? `calls are let through ${per}` : `after them, calls are let through ${per}`;
    return {
      text: `accepts ${accepted.length} of ${f.limit + 1} calls sent together: ${lead} (a call ${ms(refusedGap)} after an accepted one's answer was refused, one ${ms(gap)} after it was sent was accepted), not ${f.limit} per ${f.windowText} window. If the bank documents this spacing, SADAD_RATE_SHAPE=spaced checks it instead`,
      cause: `${title}: the limiter lets calls through ${per}, not ${f.limit} per ${f.windowText} window (calls sent together are refused)`,
    };
  }
  return undefined;
}

/** How often the "too soon" probe of a spaced limit may miss its band (jitter) before the case gives up on it. */
const SOON_TRIES = 5;

/**
 * SADAD_RATE_SHAPE=spaced: the limit is one call per window / limit. From a quiet operation: a call,
 * then `limit` calls each a spacing (window / limit plus the margin's share) after the previous one
 * (all accepted: more than a window's worth at the documented rate), then a call sooner (between
 * window / (limit + 1) and window / limit: a limiter that allows one call more per window accepts
 * it), which is refused, then a call a spacing after that refusal, accepted again. A
 * transient fault bends the check, which is repeated from a quiet operation.
 */
async function spacedLimit(c: CaseContext, f: Frame): Promise<void> {
  return checkUntilJudged(c, f, f.limit + 3, 'the spacing', (check, bodies, via, suspect) => oneSpacedCheck(c, f, check, bodies, via, suspect));
}

async function oneSpacedCheck(c: CaseContext, f: Frame, check: number, bodies: RequestBody[], via: Via, suspect: string | undefined): Promise<Check> {
  const interval = f.windowMs / f.limit;
  const spacing = (f.windowMs + f.marginMs) / f.limit;
  // a quarter of the way from window / (limit + 1) to window / limit: a limiter that lets one call
  // more per window through accepts it, and its answer still comes before window / limit has passed
  const oneMore = f.windowMs / (f.limit + 1);
  const soon = oneMore + (interval - oneMore) / 4;
  const tag = check > 1 ? `check ${check}, ` : '';
  // A call reached the limiter somewhere between its start and its answer: the spaced calls go a
  // spacing after the previous answer (surely spaced enough, so a refusal is the limiter's doing),
  // and a call accepted too soon counts only when it surely was (its answer came before the spacing)
  let lastAccepted = -Infinity;
  let lastAcceptedEnd = -Infinity;
  const sendAt = async (at: number, body: RequestBody, label: string) => {
    await c.sleep(Math.max(0, at - Date.now()));
    const ex = await c.send({ body, via, retry: 'none', label: `${tag}${label}` });
    return { ex, o: c.classify(ex) };
  };
  // a call a spacing after the previous answer (the first from a quiet operation): accepted, or what ends the check
  const spaced = async (body: RequestBody, first: boolean, which: string, label: string): Promise<Check | undefined> => {
    const { ex, o } = await sendAt(first ? 0 : lastAcceptedEnd + spacing, body, label);
    if (o.kind === 'accepted') { lastAccepted = started(ex); lastAcceptedEnd = endOf(ex); return undefined; }
    if (ex.error || o.kind === 'server-error') return { result: 'bent', why: `${c.fault(ex, c.def.op) ?? o.detail} on ${which}`, at: endOf(ex) };
    if (first && !c.acceptedOps.has(c.def.op)) return c.inconclusive(`the first call was not accepted, so the spacing could not be checked: ${summarize(ex)}; ${c.def.op}.res.schema tests acceptance directly`, `precondition: ${operation(c.def.op).title} not accepted`, `${c.def.op}.res.schema`);
    return c.stop(`a call ${first ? 'from a quiet operation' : `${ms(started(ex) - lastAcceptedEnd)} after an accepted one's answer`} was refused, though one call per ${ms(interval)} is the documented spacing: ${summarize(ex)}`);
  };
  // 1 + limit calls at the documented spacing: all accepted
  for (let i = 0; i <= f.limit; i++) {
    const ended = await spaced(bodies[i]!, i === 0, `call ${i + 1} of the spaced calls`, `call ${i + 1} of ${f.limit + 1}, ${i === 0 ? 'the first' : `${ms(spacing)} after the previous answer`}`);
    if (ended) return ended;
  }
  c.observe('spaced calls', `${f.limit + 1} calls, each ${ms(spacing)} after the previous, all accepted`);
  // a call sooner than the spacing: refused (judged only when it really went out inside the band).
  // A try that left late and was accepted is a transaction done: the next try sends another request
  // (the one kept for the reset, then new ones, below), never the same payment
  let soonBody = bodies[f.limit + 1]!;
  let resetBody: RequestBody | undefined = bodies[f.limit + 2]!;
  for (let t = 1; ; t++) {
    const { ex, o } = await sendAt(lastAccepted + soon, soonBody, `a call ${ms(soon)} after the previous${t > 1 ? ` (try ${t})` : ''}`);
    const gap = started(ex) - lastAccepted;
    if (o.kind === 'accepted') {
      // at the limiter at most this far apart: from the accepted one's start to this one's answer
      const atMost = endOf(ex) - lastAccepted;
      if (gap > f.windowMs / (f.limit + 1) && atMost < interval) return c.stop(`a call ${ms(gap)} after an accepted one was accepted (its answer came ${ms(atMost)} after that one was sent): the limiter lets more than one call through per ${ms(interval)} (window / limit)`);
      lastAccepted = started(ex);
      lastAcceptedEnd = endOf(ex);
      if (t >= SOON_TRIES) return c.error(`the call meant to go out ${ms(soon)} after an accepted one left ${ms(gap)} after it, ${t} times: the answers come later than the spacing, or this machine's timers are too coarse, to check it`);
      if (resetBody) { soonBody = resetBody; resetBody = undefined; continue; }
      // New requests, for the tries to come and the reset. A payment's are fetched with an enquiry,
      // which takes longer than `soon`: the try after it would leave late by construction (seen: tries
      // 3 to 5 sent at once after their enquiry, 2.9 s late, and an ERROR on a loaded machine whose
      // first two tries had missed the band by 9 and 34 ms). So the first of them goes out a spacing
      // after the last answer, accepted as the spaced calls were, and the try is timed from it
      const before = c.exchanges.length;
      const [next, after, reset] = await acceptableRequests(c, 3);
      if (c.exchanges.length === before) { soonBody = next!; resetBody = after!; continue; }
      const ended = await spaced(next!, false, `the call before try ${t + 1}`, `a call ${ms(spacing)} after the previous answer, before try ${t + 1}`);
      if (ended) return ended;
      soonBody = after!;
      resetBody = reset!;
      continue;
    }
    if (ex.error) return { result: 'bent', why: `${c.fault(ex, c.def.op)} on the call sooner than the spacing`, at: endOf(ex) };
    const signature = answerSignature(ex);
    if (o.kind === 'server-error' && suspect !== signature) {
      c.fault(ex, c.def.op);
      return { result: 'bent', why: `HTTP ${o.status} on the call sooner than the spacing (repeated: a limiter answering ${o.status} does it again, a blip does not)`, at: endOf(ex), suspect: signature };
    }
    recordRefusal(c, ex, o);
    c.observe('too soon', `a call ${ms(gap)} after an accepted one was refused: ${o.detail}`);
    const learn = o.status !== undefined && o.status !== 429 ? () => c.input('pacing', `learn ${o.status}`, () => c.rt.pacer.learnOverLimit({ status: o.status!, signature, op: c.def.op }).then(() => true).catch(() => false)) : undefined;
    // a spacing after the refusal (a limiter that counts refusals waits from it), accepted again
    resetBody ??= (await acceptableRequests(c, 1))[0]!;
    return teachOnceJudged(await resetCheck(c, { ...f, windowMs: spacing }, [ex], ex, resetBody, via, tag, true, endOf(ex)), learn);
  }
}
