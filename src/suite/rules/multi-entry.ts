/** Several TransactionData entries in one request are answered one for one, in order. */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { requestEntries, type RequestBody } from '../../contract/message.js';
import { defineCase } from '../case.js';
import { billPayment, enquireBills, enquireFees, feePayment, str } from '../prepare.js';
import { viewResponse } from '../../client/outcome.js';
import { onBills, onFees, sendPayment, type PaymentEffect } from '../payments.js';
import type { Exchange } from '../../client/exchange.js';

const ENTRIES = 3;

export function registerMultiEntryCases(opId: OperationId): void {
  const op = operation(opId);
  // MOI enquiry answers carry no sequence field: the entries are matched by the ID they answer for
  const key = op.responseSequenceField ?? 'ID';
  defineCase({ id: `${opId}.multi.order`, family: 'multi-entry', op: opId, sections: ['2', op.sections.request, op.sections.response], level: 'MUST', pays: op.kind === 'payment',
    ...(op.kind === 'payment' ? { payments: { debits: ENTRIES, subjects: ENTRIES } } : {}),
    calls: op.kind === 'payment' ? { [opId]: 1, [opId === 'bill-payment' ? 'bill-enquiry' : 'moi-enquiry']: 1 } : { [opId]: 1 },
    expectation: `a request with ${ENTRIES} TransactionData entries is answered with ${ENTRIES} entries in the same order (matched by ${key})` }, async (c) => {
    const what = `the request with ${ENTRIES} entries`;
    let body: RequestBody;
    let ex: Exchange;
    // a payment whose answer was lost took effect but left no answer to judge: pay other subjects
    for (let attempt = 1; ; attempt++) {
      const label = attempt === 1 ? `${ENTRIES} entries` : `${ENTRIES} entries, subjects ${attempt}`;
      let effect: PaymentEffect | undefined;
      if (opId === 'bill-payment') { const bills = await enquireBills(c, await c.bills(ENTRIES)); body = billPayment(c.gen, bills); effect = onBills(c, bills); }
      else if (opId === 'moi-payment') { const fees = await enquireFees(c, await c.fees(ENTRIES)); body = feePayment(c.gen, fees); effect = onFees(c, fees); }
      else body = c.gen.build(opId, { entries: ENTRIES });
      if (!effect) { ex = await c.send({ body, label }); break; }
      const paid = await sendPayment(c, body, effect, label);
      ex = paid.ex;
      if (!paid.answerLost) break;
      if (attempt > c.config.retries) return c.error(`the answers of ${attempt} requests with ${ENTRIES} payments were all lost: nothing to judge`);
    }
    c.requireAccepted(ex, what);
    const sent = requestEntries(opId, body, c.tagPrefix).map((e) => str(op.responseSequenceField ? e.SequenceNumber : e.ID));
    const got = viewResponse(opId, ex.json, c.tagPrefix).entries.map((e) => str(e[key]));
    c.observe('sent', sent);
    c.observe('answered', got);
    if (got.length !== sent.length) c.violated(`${sent.length} entries sent, ${got.length} answered`);
    else if (got.join('|') !== sent.join('|')) c.violated(`entries answered out of order or with other ${key} values: sent ${JSON.stringify(sent)}, answered ${JSON.stringify(got)}`);
  });
}
