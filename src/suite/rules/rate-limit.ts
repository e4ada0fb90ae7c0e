/**
 * The rate limit (spec §4, §8): from a fresh window, of `limit`+1 calls sent together exactly
 * `limit` are accepted and one is rejected, and after the window (Retry-After honoured) a call is
 * accepted again. The case holds the operation alone in the pacer, so no other case's call can be
 * counted in its window; a transient fault inside a check bends it, and the check is repeated.
 */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { summarize } from '../../client/exchange.js';
import type { RequestBody } from '../../contract/message.js';
import { defineCase, endOf, type CaseContext } from '../case.js';
import { plannedLimit } from '../plan.js';
import { acceptableRequest, enquireBills, enquireFees, billPayment, feePayment } from '../prepare.js';
import { spreadOf, startTogether, type Via } from '../burst.js';
import { burstRepeats, exhausted } from '../../client/transient.js';

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

/** `at`: when the fault that bent the check happened (ms), to tell whether an outage covered it. */
type Check = { result: 'judged' } | { result: 'bent'; why: string; at: number } | { result: 'over'; spread: string };

export function registerRateLimitCases(opId: OperationId): void {
  const op = operation(opId);
  const n = plannedLimit(op.rateGroup) + 2;
  const calls = opId === 'bill-payment' ? { [opId]: n, 'bill-enquiry': 1 } : opId === 'moi-payment' ? { [opId]: n, 'moi-enquiry': Math.ceil(n / 3) } : { [opId]: n };
  defineCase({ id: `${opId}.rate.limit`, family: 'rate-limit', op: opId, sections: ['4', '8'], level: 'MUST', slow: true, pays: op.kind === 'payment', calls,
    ...(op.kind === 'payment' ? { payments: { debits: n - 1, subjects: n - 1 } } : {}),
    expectation: 'in a fresh window, of <limit>+1 calls sent together exactly <limit> are accepted and one is rejected, and after the window a call is accepted again' }, async (c) => {
    const limit = c.rt.limitOf(opId);
    const windowMs = c.config.rateWindowSeconds * 1000;
    c.observe('limit per window', `${limit} calls per ${c.config.rateWindowSeconds} s`);
    // Sent together, the limit+1 calls reach the target within milliseconds whatever its latency,
    // so no conformant limiter (fixed, clock-aligned or sliding window, token bucket) can have
    // freed a slot between them, except a clock-aligned window whose boundary falls inside the
    // burst, or a bucket refilling on a very slow link: then all are accepted once, by chance. A
    // target that accepts them all in OVER_CHECKS checks, each from a fresh window, breaks the limit.
    let over = 0;
    const bent: number[] = [];
    const start = c.faults.length;
    for (let check = 1; ; check++) {
      const bodies = await acceptableRequests(c, limit + 2);
      const mark = c.faults.length;
      const r = await c.rt.pacer.exclusive(opId, (via) => oneCheck(c, check, limit, windowMs, bodies, via));
      // a judged check is past every fault the earlier, bent ones met
      if (r.result === 'judged') { c.recovered(start); return; }
      if (r.result === 'over') {
        c.observe(`check ${check}`, `all ${limit + 1} calls accepted; ${r.spread}`);
        if (++over >= OVER_CHECKS) return c.stop(`in ${over} checks, each from a fresh window, all ${limit + 1} calls sent together were accepted (limit ${limit} per ${c.config.rateWindowSeconds} s)`);
        continue;
      }
      c.observe(`check ${check}`, `not judged: ${r.why}; repeated from a fresh window`);
      // a check bent while the target was down (an outage) does not count: the run paused for it
      bent.push(r.at);
      if (await c.retriesExhausted(bent, burstRepeats(c.config.retries))) {
        const kinds = c.faults.slice(mark).map((f) => f.kind);
        return c.error(kinds.length ? `${exhausted(kinds)}: ${r.why}` : `${r.why}, ${bent.length} times: the limit could not be checked`);
      }
    }
  });
}

/** One check from a fresh window (the case holds the operation alone in the pacer). */
async function oneCheck(c: CaseContext, check: number, limit: number, windowMs: number, bodies: RequestBody[], via: Via): Promise<Check> {
  const together = startTogether(via, limit + 1);
  const tag = check > 1 ? `check ${check}, ` : '';
  const burst = await Promise.all(bodies.slice(0, limit + 1).map((body, i) => c.send({ body, via: together, retry: 'none', label: `${tag}call ${i + 1} of ${limit + 1}, sent together` })));
  // the 429 is the answer this case is after: not a transient fault here
  const faulted = burst.map((ex) => c.fault(ex, c.def.op, { allow429: true })).filter(Boolean);
  if (faulted.length) return { result: 'bent', why: `${faulted.join(', ')} inside the burst`, at: Math.max(...burst.map(endOf)) };
  const outcomes = burst.map((ex) => c.classify(ex));
  const spread = spreadOf(burst);
  const odd = outcomes.findIndex((o) => o.kind !== 'accepted' && o.kind !== 'rejected');
  if (odd >= 0) return c.stop(`call ${odd + 1} of ${limit + 1} in a fresh window got ${outcomes[odd]!.detail}, neither an acceptance nor a rejection: ${summarize(burst[odd]!)}`);
  const accepted = outcomes.filter((o) => o.kind === 'accepted').length;
  if (accepted === limit + 1) {
    // a machine that slept, or a link slower than the window: the calls may have spanned two windows,
    // which lets every conformant limiter accept them all. Only an over-acceptance can be excused so:
    // a slow burst never makes a conformant target accept fewer than the limit (a bent check used to
    // be repeated from a "fresh" window even then, and a limit that never resets read as never accepting)
    const slowest = Math.max(...burst.map((ex) => Date.parse(ex.startedAt) + ex.durationMs)) - Math.min(...burst.map((ex) => Date.parse(ex.startedAt)));
    if (slowest >= windowMs) return { result: 'bent', why: `the burst took ${slowest} ms, not within the ${windowMs} ms window`, at: Math.max(...burst.map(endOf)) };
    return { result: 'over', spread };
  }
  // not one accepted, and never one of this operation in this case: the burst says nothing about a limit, only
  // that these requests are refused (no vacuous FAIL); after an accepted burst, none accepted is the limit not resetting
  if (accepted === 0 && !c.acceptedOps.has(c.def.op)) return c.inconclusive(`not one of the ${limit + 1} calls sent together in a fresh window was accepted, so the limit could not be checked: ${summarize(burst[0]!)}; ${c.def.op}.res.schema tests acceptance directly`, `precondition: ${operation(c.def.op).title} not accepted`, `${c.def.op}.res.schema`);
  if (accepted < limit) {
    const refused = burst.filter((_, i) => outcomes[i]!.kind === 'rejected').map(summarize);
    return c.stop(`only ${accepted} of ${limit + 1} calls sent together in a fresh window were accepted, expected ${limit}: ${refused.slice(0, 2).join(' | ')}`);
  }
  const overIdx = outcomes.findIndex((o) => o.kind === 'rejected');
  const overEx = burst[overIdx]!;
  const o = outcomes[overIdx]!;
  const retryAfter = overEx.response?.headers['retry-after'];
  const rateHeaders = Object.fromEntries(Object.entries(overEx.response?.headers ?? {}).filter(([k]) => /rate|retry/i.test(k)));
  c.observe('rate-limit answer', o.detail);
  c.observe('rate-limit headers', Object.keys(rateHeaders).length ? rateHeaders : 'none');
  c.observe('rate-limit body', overEx.response?.body.slice(0, 500));
  c.observe('burst', `${limit} accepted, call ${overIdx + 1} rejected; ${spread}`);
  if (o.status !== 429) c.warn(`the over-limit call was rejected with ${o.detail}; HTTP 429 is the common practice`);
  if (o.status === 429 && retryAfter === undefined) c.warn('429 without a Retry-After header');
  // wait out the window: Retry-After when the target gives one (bounded), else the window from the first call
  const first = Math.min(...burst.map((ex) => Date.parse(ex.startedAt)));
  const retrySeconds = Number(retryAfter);
  const waitMs = Number.isFinite(retrySeconds) && retrySeconds >= 0 && retrySeconds <= 2 * c.config.rateWindowSeconds + 1
    ? retrySeconds * 1000 + 50
    : Math.max(0, first + windowMs - Date.now()) + Math.max(50, windowMs * 0.05);
  c.observe('waited before retrying (ms)', Math.round(waitMs));
  await c.sleep(waitMs);
  const again = await c.send({ body: bodies[limit + 1], via, retry: 'none', label: `${tag}after the window` });
  // a 429 now is the verdict (the window did not reset), anything else transient bends the check
  const kind = c.fault(again, c.def.op, { allow429: true });
  if (kind) return { result: 'bent', why: `${kind} on the call after the window`, at: endOf(again) };
  const a = c.classify(again);
  if (a.kind !== 'accepted') c.violated(`after waiting out the window the call was not accepted: ${summarize(again)}`);
  return { result: 'judged' };
}
