/**
 * The rate limit (spec §4, §8): from a fresh window the first `limit` calls are accepted, the next
 * is rejected, and after the window (Retry-After honoured) a call is accepted again. The case holds
 * the operation alone in the pacer, so no other case's call can be counted in its window.
 */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { summarize } from '../../client/exchange.js';
import type { RequestBody } from '../../contract/message.js';
import { defineCase, type CaseContext } from '../case.js';
import { plannedLimit } from '../plan.js';
import { acceptableRequest, enquireBills, enquireFees, billPayment, feePayment } from '../prepare.js';

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
  return Promise.all(Array.from({ length: n }, () => acceptableRequest(c)));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function registerRateLimitCases(opId: OperationId): void {
  const op = operation(opId);
  const n = plannedLimit(op.rateGroup) + 2;
  const calls = opId === 'bill-payment' ? { [opId]: n, 'bill-enquiry': 1 } : opId === 'moi-payment' ? { [opId]: n, 'moi-enquiry': Math.ceil(n / 3) } : { [opId]: n };
  defineCase({ id: `${opId}.rate.limit`, family: 'rate-limit', op: opId, sections: ['4', '8'], level: 'MUST', slow: true, pays: op.kind === 'payment', calls,
    expectation: 'in a fresh window the first <limit> calls are accepted, the next one is rejected, and after the window a call is accepted again' }, async (c) => {
    const limit = c.rt.limitOf(opId);
    const windowMs = c.config.rateWindowSeconds * 1000;
    const bodies = await acceptableRequests(c, limit + 2);
    c.observe('limit per window', `${limit} calls per ${c.config.rateWindowSeconds} s`);
    await c.rt.pacer.exclusive(opId, async (via) => {
      const first = Date.now();
      // sent together: the burst must fit in one window however slow the machine or the link
      const burst = await Promise.all(bodies.slice(0, limit).map((body, i) => c.send({ body, via, label: `call ${i + 1} of ${limit}` })));
      for (const [i, ex] of burst.entries()) {
        const o = c.classify(ex);
        if (o.kind !== 'accepted') {
          if (o.kind === 'no-answer') return c.error(`call ${i + 1}: ${o.detail}`);
          return c.stop(`call ${i + 1} of ${limit} in a fresh window was not accepted: ${summarize(ex)}`);
        }
      }
      const elapsed = Date.now() - first;
      if (elapsed >= windowMs) return c.error(`the ${limit} calls took ${elapsed} ms, longer than the ${windowMs} ms window: the burst cannot test the limit`);
      const over = await c.send({ body: bodies[limit], via, label: `call ${limit + 1}, over the limit` });
      const o = c.classify(over);
      const retryAfter = over.response?.headers['retry-after'];
      const rateHeaders = Object.fromEntries(Object.entries(over.response?.headers ?? {}).filter(([k]) => /rate|retry/i.test(k)));
      c.observe('rate-limit answer', o.detail);
      c.observe('rate-limit headers', Object.keys(rateHeaders).length ? rateHeaders : 'none');
      c.observe('rate-limit body', over.response?.body.slice(0, 500) ?? over.error?.message);
      if (o.kind === 'no-answer') return c.error(`call ${limit + 1}: ${o.detail}`);
      if (o.kind !== 'rejected') return c.stop(`call ${limit + 1} within one window was not rejected: ${summarize(over)}`);
      if (o.status !== 429) c.warn(`the over-limit call was rejected with ${o.detail}; HTTP 429 is the common practice`);
      if (o.status === 429 && retryAfter === undefined) c.warn('429 without a Retry-After header');
      // wait out the window: Retry-After when the target gives one (bounded), else the window from the first call
      const retrySeconds = Number(retryAfter);
      const waitMs = Number.isFinite(retrySeconds) && retrySeconds >= 0 && retrySeconds <= 2 * c.config.rateWindowSeconds + 1
        ? retrySeconds * 1000 + 50
        : Math.max(0, first + windowMs - Date.now()) + Math.max(50, windowMs * 0.05);
      c.observe('waited before retrying (ms)', Math.round(waitMs));
      await sleep(waitMs);
      const again = await c.send({ body: bodies[limit + 1], via, label: 'after the window' });
      const a = c.classify(again);
      if (a.kind === 'no-answer') return c.error(`after the window: ${a.detail}`);
      if (a.kind !== 'accepted') c.violated(`after waiting out the window the call was not accepted: ${summarize(again)}`);
    });
  });
}
