/**
 * Rules on the answer to a request the target should accept: schema (lenient FAIL, strict WARN),
 * MessageType, echoes, root tag, arrays, formats. One accepted exchange per operation and worker
 * serves all of them, which spares the rate budget; specs/response.spec.ts runs an operation's
 * cases in one worker, so a run makes it once per operation, as `res.schema` plans.
 */
import { operation, tagsOf, type OperationId } from '../../contract/catalogue.js';
import { messageTable, fieldName } from '../../contract/field-tables.js';
import { requestEntries, requestItems } from '../../contract/message.js';
import { validateResponse } from '../../contract/validator.js';
import { isSpecDate, isSpecTimestamp } from '../../contract/formats.js';
import { describeValue } from '../../contract/validator.js';
import type { Exchange } from '../../client/exchange.js';
import { CaseStop, defineCase, type CaseContext } from '../case.js';
import { acceptableRequest, str } from '../prepare.js';
import { acceptablePayment, sendPayment } from '../payments.js';
import { viewResponse } from '../../client/outcome.js';
import { fieldShape, valuesAt } from '../walk.js';
import { fieldOf, findingCause, typeCause } from '../causes.js';

interface Accepted { request: unknown; exchange: Exchange }
/** The worker's accepted exchange for the operation, attached to every case that reads it. */
async function acceptedExchange(c: CaseContext): Promise<Accepted> {
  const op = c.def.op;
  const accepted = c.rt.kept<Promise<Accepted>>('accepted');
  let p = accepted.get(op);
  if (!p) {
    p = (async () => {
      if (operation(op).kind === 'enquiry') {
        const request = await acceptableRequest(c);
        return { request, exchange: await c.send({ body: request, label: 'accepted request' }) };
      }
      // a payment whose answer was lost took effect but left nothing to judge: pay another subject
      for (let attempt = 1; ; attempt++) {
        const { body, effect } = await acceptablePayment(c, op, { ownSubject: 'accepted request' });
        // each case judges the answer itself (requireAccepted below), as for enquiries
        const paid = await sendPayment(c, body, effect, attempt === 1 ? 'accepted request' : `accepted request, subject ${attempt}`);
        if (!paid.answerLost) return { request: body, exchange: paid.ex };
        if (attempt > c.config.retries) return c.error(`the answers of ${attempt} accepted ${op} requests were all lost: nothing to judge`);
      }
    })();
    accepted.set(op, p);
  } else {
    // a shared exchange that failed is judged below, as the case that made it ended (never swallowed into a PASS)
    const shared = await p.catch(() => undefined);
    if (shared) {
      const { exchange } = shared;
      c.exchanges.push(exchange);
      c.attachJson(`exchange-shared-${op}.json`, { request: exchange.request, response: exchange.response, error: exchange.error });
    }
  }
  const result = await p.catch((e) => {
    if (!(e instanceof CaseStop) || !e.note) return c.error(`could not obtain an accepted ${op} exchange: ${(e as Error).message}`);
    // the case that made the shared exchange has its note already; one that waited for it ends the way it did,
    // a refused step as INCONCLUSIVE under the same cause (never an ERROR: the suite did not break)
    if (c.notes.includes(e.note)) throw e;
    const n = e.note;
    if (n.verdict === 'ERROR') return c.error(`could not obtain an accepted ${op} exchange: ${n.text}`);
    if (n.verdict === 'SKIPPED') return c.skip(n.text);
    if (n.verdict === 'NOT_APPLICABLE') return c.notApplicable(n.text);
    return c.inconclusive(n.verdict === 'INCONCLUSIVE' ? n.text : `precondition not met: the accepted ${op} request this rule reads was not obtained (${n.text}); ${op}.res.schema tests that step directly`,
      n.cause ?? `precondition: ${op} not accepted`, n.testedBy ?? `${op}.res.schema`);
  });
  // A 2xx whose structure cannot be read (a wrapped root, a list as an object) is what these rules
  // judge: each reads it for itself. A refusal is another matter: res.schema tests the acceptance
  // itself, and the other rules cannot go on without one (INCONCLUSIVE).
  if (c.classify(result.exchange).kind === 'unclear') return result;
  c.requireAccepted(result.exchange, `the ${op} request built to be accepted`, op, c.def.id === `${op}.res.schema` ? undefined : { testedBy: `${op}.res.schema` });
  return result;
}

export function registerResponseCases(opId: OperationId): void {
  const op = operation(opId);
  const sec = op.sections.response;
  // the accepted exchange is made by res.schema, the first of the operation's cases (specs/response.spec.ts)
  const shared = op.kind === 'payment' ? { [opId]: 1, [opId === 'bill-payment' ? 'bill-enquiry' : 'moi-enquiry']: 1 } : { [opId]: 1 };

  defineCase({ id: `${opId}.res.schema`, family: 'response-schema', op: opId, sections: [sec, '2.9'], level: 'MUST', calls: shared,
    ...(op.kind === 'payment' ? { payments: { debits: 1, subjects: 1 } } : {}),
    expectation: `an accepted answer that meets the ${sec} response schema (lenient profile); strict-profile deviations are warnings` }, async (c) => {
    const { exchange } = await acceptedExchange(c);
    // every field and its JSON type: what a comparison of two runs reads (still lenient-valid changes too)
    const fields = fieldShape(exchange.json);
    c.observe('response fields', fields, fields.join('\n'));
    const lenient = validateResponse(opId, exchange.json, 'lenient', c.tagPrefix);
    for (const f of lenient.findings) c.violated(`${f.pointer}: expected ${f.expected}, found ${f.found}`, findingCause(opId, f));
    if (!lenient.valid) return;
    const strict = validateResponse(opId, exchange.json, 'strict', c.tagPrefix);
    for (const f of strict.findings) c.warn(`strict profile: ${f.pointer}: expected ${f.expected}, found ${f.found}`);
    // where and what, not the value found (a reference or a time the service generated)
    c.facts['strict-profile deviations'] = [...new Set(strict.findings.map((f) => `${f.pointer.replace(/\/\d+(?=\/|$)/g, '/[]')}: expected ${f.expected}`))].sort().join('; ') || 'none';
    const style = strict.valid ? 'table types' : 'sample types';
    c.observe('response style', style, style);
  });

  defineCase({ id: `${opId}.res.MessageType`, calls: {}, family: 'message-type', op: opId, sections: [sec, '4'], level: 'MUST',
    expectation: `MessageType ${op.transactionType}, equal to the request's TransactionType` }, async (c) => {
    const { exchange } = await acceptedExchange(c);
    const root = viewResponse(opId, exchange.json, c.tagPrefix).root;
    if (!root) return c.stop(`no ${tagsOf(op, c.tagPrefix).responseRoot} at the top level to read MessageType from`);
    if (root.MessageType !== op.transactionType) c.violated(`MessageType is ${describeValue(root.MessageType)}, expected "${op.transactionType}"`, `${op.title}: MessageType is not ${op.transactionType}`);
  });

  defineCase({ id: `${opId}.res.echo`, calls: {}, family: 'echo', op: opId, sections: [sec], level: 'MUST',
    expectation: `the item echoes the request's identification fields${op.responseSequenceField ? ` and each entry echoes its SequenceNumber as ${op.responseSequenceField}` : ''}` }, async (c) => {
    const { exchange, request } = await acceptedExchange(c);
    const view = viewResponse(opId, exchange.json, c.tagPrefix);
    const reqItem = requestItems(opId, request, c.tagPrefix)[0]!;
    const item = view.items[0];
    if (!item) return c.stop('the answer has no item to compare');
    const echoed = messageTable(opId, 'response').fields.filter((f) => f.path.split('.').length === 3).map((f) => fieldName(f.path)).filter((n) => n in reqItem);
    for (const name of echoed) if (str(item[name]) !== str(reqItem[name])) c.violated(`${name}: sent ${describeValue(reqItem[name])}, echoed ${describeValue(item[name])}`);
    if (op.responseSequenceField) {
      const sent = requestEntries(opId, request, c.tagPrefix).map((e) => str(e.SequenceNumber));
      const got = view.entries.map((e) => str(e[op.responseSequenceField!]));
      if (sent.join('|') !== got.join('|')) c.violated(`${op.responseSequenceField}: sent ${JSON.stringify(sent)}, echoed ${JSON.stringify(got)}`);
    }
  });

  defineCase({ id: `${opId}.res.root-tag`, calls: {}, family: 'root-tag', op: opId, sections: ['2', sec], level: 'MUST',
    expectation: `the root tag ${op.responseRoot} at the top level of the body, without a Message wrapper` }, async (c) => {
    const { exchange } = await acceptedExchange(c);
    const rootTag = tagsOf(op, c.tagPrefix).responseRoot;
    const body = exchange.json as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) return c.stop(`the body is not a JSON object: ${describeValue(body)}`);
    const wrapped = body.Message && typeof body.Message === 'object' && rootTag in (body.Message as object);
    if (wrapped) c.violated(`the root tag is wrapped: found /Message/${rootTag}`, `${op.title}: the answer wrapped in Message`);
    else if (!(rootTag in body)) c.violated(`no ${rootTag} at the top level; top-level keys: ${JSON.stringify(Object.keys(body))}`, `${op.title}: no ${op.responseRoot} at the top level`);
  });

  defineCase({ id: `${opId}.res.lists`, calls: {}, family: 'lists', op: opId, sections: ['2', sec], level: 'MUST',
    expectation: 'every list the tables mark (items, TransactionData, fee lists) is a JSON array' }, async (c) => {
    const { exchange } = await acceptedExchange(c);
    let present = 0;
    for (const row of messageTable(opId, 'response').fields.filter((f) => f.array)) {
      for (const f of valuesAt(exchange.json, row.path, c.tagPrefix)) {
        if (!f.present) continue;
        present++;
        if (!Array.isArray(f.value)) c.violated(`${f.pointer}: expected an array, found ${describeValue(f.value)}`, typeCause(opId, f.pointer, 'array', describeValue(f.value).split(' ')[0]!));
      }
    }
    // an answer with none of its lists where the tables put them has nothing this rule could pass
    if (!present) c.violated(`no list of the ${op.responseRoot} answer found where the tables put them (${messageTable(opId, 'response').fields.filter((f) => f.array).map((f) => f.path).slice(0, 3).join(', ')}, ...)`);
  });

  defineCase({ id: `${opId}.res.formats`, calls: {}, family: 'formats', op: opId, sections: ['2', sec], level: 'MUST',
    expectation: 'TimeStamp as YYYY-MM-DDTHH:MM:SS (no zone) and every date as YYYYMMDD' }, async (c) => {
    const { exchange } = await acceptedExchange(c);
    let checked = 0;
    for (const row of messageTable(opId, 'response').fields.filter((f) => f.format)) {
      const ok = row.format === 'YYYYMMDD' ? isSpecDate : isSpecTimestamp;
      for (const f of valuesAt(exchange.json, row.path, c.tagPrefix, row.aliases)) {
        if (!f.present) continue;
        checked++;
        if (typeof f.value !== 'string' || !ok(f.value)) c.violated(`${f.pointer}: expected ${row.format}, found ${describeValue(f.value)}`, `${op.title}: ${fieldOf(f.pointer)} not in ${row.format}`);
      }
    }
    if (!checked) c.violated('no TimeStamp or date field found to check');
  });
}
