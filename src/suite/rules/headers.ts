/**
 * Each required header (spec §5) missing or malformed, a bad bearer token, the signature missing or
 * wrong, and whether the bill operations' clientid/clientsecret are required (observed). The body
 * is one the target would accept, so a rejection can only be the header's doing.
 */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { referenceIdHeader, requiredHeaderNames } from '../../contract/headers.js';
import { SPEC_PREFIX } from '../../contract/prefix.js';
import { defineCase, type CaseContext } from '../case.js';
import { expectRejection } from '../expect-rejection.js';
import { acceptableRequest, payableBaseCalls } from '../prepare.js';
import type { Level } from '../../vocabulary/verdicts.js';
import type { Outcome } from '../../client/outcome.js';
import { acceptablePayment, sendPayment } from '../payments.js';

interface HeaderDefect { header: (hp: string) => string; specName: string; kind: string; level: Level; value: string | null; description: string }

/** Malformed values chosen so that only a target that checks the header can tell. */
const DEFECTS: HeaderDefect[] = [
  // one per header of the document's table (§5), the reference id spelled with the deployment's prefix
  ...requiredHeaderNames(SPEC_PREFIX).map((name): HeaderDefect => {
    const reference = name === referenceIdHeader(SPEC_PREFIX);
    return {
      header: (hp) => (reference ? referenceIdHeader(hp) : name), specName: name,
      kind: 'missing', level: 'MUST', value: null, description: `no ${reference ? '<prefix>ReferenceID' : name} header`,
    };
  }),
  { header: () => 'CompanyId', specName: 'CompanyId', kind: 'unknown', level: 'MUST', value: 'NOSUCHCOMPANY0', description: 'a CompanyId the target does not know' },
  { header: (hp) => referenceIdHeader(hp), specName: `${SPEC_PREFIX}ReferenceID`, kind: 'empty', level: 'SHOULD', value: '', description: 'an empty reference id' },
  { header: () => 'DateTimeStamp', specName: 'DateTimeStamp', kind: 'malformed', level: 'SHOULD', value: '02/01/2025 10:20:39', description: 'a DateTimeStamp not in YYYY-MM-DDTHH:MM:SS' },
  { header: () => 'Device', specName: 'Device', kind: 'empty', level: 'SHOULD', value: '', description: 'an empty Device' },
  { header: () => 'Authorization', specName: 'Authorization', kind: 'bad-token', level: 'MUST', value: 'Bearer not-a-valid-token-0000', description: 'a bearer token the target never issued' },
  { header: () => 'Authorization', specName: 'Authorization', kind: 'not-bearer', level: 'MUST', value: 'Basic bm90OmJlYXJlcg==', description: 'an Authorization that is not Bearer' },
  { header: () => 'Content-Type', specName: 'Content-Type', kind: 'malformed', level: 'MUST', value: 'text/plain', description: 'Content-Type text/plain for a JSON body' },
];

async function acceptable(c: CaseContext) {
  return acceptableRequest(c);
}

export function registerHeaderCases(opId: OperationId): void {
  const op = operation(opId);
  for (const d of DEFECTS) {
    defineCase({ id: `${opId}.hdr.${d.specName}.${d.kind}`, family: 'headers', op: opId, sections: ['5', op.sections.endpoint], level: d.level, shared: payableBaseCalls(opId),
      expectation: `a request with ${d.description} is rejected` }, async (c) => {
      const body = await acceptable(c);
      const ex = await c.send({ body, headers: { [d.header(c.config.headerPrefix)]: d.value }, label: `${d.specName} ${d.kind}`, expect: 'rejection' });
      expectRejection(c, ex, d.description, { authIsTheSubject: true });
    });
  }

  for (const kind of ['missing', 'invalid'] as const) {
    defineCase({ id: `${opId}.hdr.signature.${kind}`, family: 'headers', op: opId, sections: ['5'], level: 'MUST', needs: 'signer', shared: payableBaseCalls(opId),
      expectation: kind === 'missing' ? 'an unsigned request is rejected' : 'a request whose signature does not match its body is rejected' }, async (c) => {
      const signer = c.rt.client.signer;
      if (!signer) return c.notApplicable('no signer is configured (SADAD_SIGNING_KEY or SADAD_SIGNER), so the target is assumed not to check signatures');
      const body = await acceptable(c);
      if (kind === 'missing') {
        const ex = await c.send({ body, sign: false, label: 'unsigned', expect: 'rejection' });
        return expectRejection(c, ex, 'no signature', { authIsTheSubject: true });
      }
      // a valid signature of another body
      const other = await acceptable(c);
      const forged = signer.sign({ bodyText: JSON.stringify(other), body: other, headers: {} });
      const ex = await c.send({ body, sign: false, headers: forged, label: 'signature of another body', expect: 'rejection' });
      expectRejection(c, ex, 'a signature of another body', { authIsTheSubject: true });
    });
  }

  if (op.clientHeaders) {
    defineCase({ id: `${opId}.hdr.client-headers.required`, family: 'headers', op: opId, sections: ['4', '5'], level: 'OBSERVE',
      ...(op.kind === 'payment' ? { payments: { debits: 1, subjects: 1 }, calls: { [opId]: 1, 'bill-enquiry': 1 } } : {}),
      expectation: 'record whether clientid/clientsecret are required (the spec leaves it open)' }, async (c) => {
      const headers = { clientid: null, clientsecret: null };
      const label = 'without clientid/clientsecret';
      let o: Outcome;
      if (op.kind === 'payment') {
        // the target may accept it: a payment, sent as a careful client does, of a subject of its own
        const { body, effect } = await acceptablePayment(c, opId, { ownSubject: 'without client headers' });
        const paid = await sendPayment(c, body, effect, label, { headers });
        o = paid.answerLost ? { kind: 'accepted', detail: 'accepted (the answer was lost; an enquiry showed the payment took effect)' } : paid.outcome!;
      } else {
        o = c.classify(await c.send({ body: await acceptable(c), headers, label }));
      }
      if (o.status === 429) c.error('rate limited: the pacer\'s limits do not match the target\'s');
      const required = o.kind === 'rejected';
      c.observe('clientid/clientsecret required', required ? `yes (${o.detail})` : o.kind === 'accepted' ? 'no: accepted without them' : `unclear (${o.detail})`, required ? 'yes' : o.kind === 'accepted' ? 'no' : 'unclear');
      c.violated(required ? 'the target requires clientid/clientsecret' : 'the target does not require clientid/clientsecret');
    });
  }
}
