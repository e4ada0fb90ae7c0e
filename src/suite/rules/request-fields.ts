/**
 * Every required request field omitted, of the wrong JSON type, null or empty; TransactionType of
 * another operation or unknown; AccountNumber at and over its limit. One case per field and defect,
 * generated from the field tables. Each mutates a request the target would otherwise accept.
 */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { fieldName, messageTable } from '../../contract/field-tables.js';
import { RequestGenerator } from '../../generators/requests.js';
import { mutationsOf, type Mutation } from '../../generators/mutations.js';
import { defineCase } from '../case.js';
import { expectRejection } from '../expect-rejection.js';
import { acceptableRequest, payableBaseCalls, spendPayable } from '../prepare.js';
import type { RuleFamily } from '../../vocabulary/verdicts.js';

function familyOf(m: Mutation): RuleFamily {
  if (m.field === 'TransactionType' && (m.kind === 'foreign' || m.kind === 'unknown')) return 'transaction-type';
  if (m.kind === 'at-limit' || m.kind === 'over-limit' || m.kind === 'non-alphanumeric') return 'account-number';
  return 'required-fields';
}

/** The mutation list is the same for every valid body of an operation: plan cases from a sample body. */
export function plannedMutations(opId: OperationId): Mutation[] {
  return mutationsOf(opId, new RequestGenerator({ seed: 1, tagPrefix: 'Svc' }).build(opId), 'Svc');
}

export function registerRequestFieldCases(opId: OperationId): void {
  const op = operation(opId);
  const sec = op.sections.request;
  for (const planned of plannedMutations(opId)) {
    const family = familyOf(planned);
    const sections = family === 'transaction-type' ? [sec, '4'] : family === 'account-number' ? [sec, '8'] : [sec, '2.9'];
    const row = messageTable(opId, 'request').fields.find((f) => f.path === planned.path)!;
    defineCase({
      id: `${opId}.req.${planned.id}`, family, op: opId, sections, level: 'MUST',
      expectation: planned.valid ? `a request with ${planned.description} is accepted` : `a request with ${planned.description} is rejected (4xx, or a failing in-band status)`,
      pays: op.kind === 'payment' && planned.valid, shared: payableBaseCalls(opId),
    }, async (c) => {
      const base = await acceptableRequest(c);
      const m = mutationsOf(opId, base, c.tagPrefix, planned.id)[0];
      if (!m) return c.error(`mutation ${planned.id} does not apply to the base request`);
      c.observe('mutated', `${m.pointer} (${fieldName(row.path)}: ${m.description})`);
      if (!m.valid) {
        const ex = await c.send({ body: m.body, label: planned.id, expect: 'rejection' });
        expectRejection(c, ex, m.description);
        return;
      }
      const ex = await c.send({ body: m.body, label: planned.id });
      const o = c.classify(ex);
      c.observe('answer', o.detail);
      if (o.kind === 'accepted') { if (op.kind === 'payment') spendPayable(c, opId); return c.pass(`${m.description}: accepted`); }
      c.requireAccepted(ex, `a request with ${m.description}`);
    });
  }
}
