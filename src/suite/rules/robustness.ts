/** Bodies no client should send: each gets a 4xx (never a 5xx, a hang or a dropped connection). */
import { operation, type OperationId } from '../../contract/catalogue.js';
import { summarize } from '../../client/exchange.js';
import { exhausted, transientKind } from '../../client/transient.js';
import { defineCase } from '../case.js';
import { expectRejection } from '../expect-rejection.js';

interface BadBody { kind: string; description: string; text: (valid: string) => string; contentType?: string; mayBeAccepted?: boolean }

const BODIES: BadBody[] = [
  { kind: 'malformed-json', description: 'a body that is not valid JSON', text: (v) => v.slice(0, Math.floor(v.length / 2)) },
  { kind: 'empty-body', description: 'an empty body', text: () => '' },
  { kind: 'json-array', description: 'a JSON array instead of an object', text: (v) => `[${v}]` },
  { kind: 'json-string', description: 'a bare JSON string', text: () => '"Message"' },
  { kind: 'xml-body', description: 'an XML body sent as application/xml', text: () => '<Message><Request/></Message>', contentType: 'application/xml' },
  { kind: 'prototype-keys', description: 'a body whose only keys are __proto__ and constructor', text: () => '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}' },
  { kind: 'oversized-body', description: 'a 2 MiB body', text: (v) => `{"Padding":"${'x'.repeat(2 * 1024 * 1024)}","Message":${JSON.stringify(JSON.parse(v).Message)}}`, mayBeAccepted: true },
];

export function registerRobustnessCases(opId: OperationId): void {
  const op = operation(opId);
  for (const b of BODIES) {
    defineCase({ id: `${opId}.robust.${b.kind}`, family: 'robustness', op: opId, sections: [op.sections.endpoint, op.sections.request], level: 'MUST',
      expectation: b.mayBeAccepted ? `${b.description} gets a 4xx or a 2xx, never a 5xx or a dropped connection` : `${b.description} is rejected with a 4xx, never a 5xx` }, async (c) => {
      // a generated, not a payable body: none of these should ever reach the payment logic
      const valid = JSON.stringify(c.gen.build(opId));
      const headers: Record<string, string> = b.contentType ? { 'Content-Type': b.contentType } : {};
      // every one of these must be refused or answered harmlessly: safe to repeat after a transient fault;
      // a body cut off mid-upload on every attempt is judged below, not an ERROR
      const ex = await c.send({ bodyText: b.text(valid), headers, label: b.kind, expect: 'rejection', onExhausted: b.mayBeAccepted ? 'return' : 'error' });
      const o = c.classify(ex);
      // a gateway's 502/503/504 on every attempt is its bad moment, not an answer to the body (a FAIL
      // "answered HTTP 503" would blame the service for the gateway)
      const gateway = ex.response ? transientKind(ex) : undefined;
      if (b.mayBeAccepted && gateway && gateway !== 'HTTP 429') return c.error(`${exhausted(c.faults.filter((f) => f.op === opId).map((f) => f.kind))} (${b.kind}; last: ${summarize(ex)})`);
      if (b.mayBeAccepted && o.kind !== 'server-error' && o.kind !== 'no-answer') {
        c.observe('answer', o.detail);
        return;
      }
      // a server may refuse a large body while it is still arriving (answer, then close): the
      // upload then breaks before the answer can be read; that is no crash, but no clean 4xx either
      if (b.mayBeAccepted && ex.error && ['EPIPE', 'ECONNRESET'].includes(ex.error.code ?? '')) {
        c.observe('answer', `connection closed during the upload (${ex.error.code})`);
        return c.warn(`the target closed the connection while the ${b.description} was being sent (${ex.error.code}) instead of answering 413`);
      }
      if (o.kind === 'no-answer' && ex.error?.kind === 'network') return c.stop(`the target dropped the connection: ${summarize(ex)}`);
      if (o.kind === 'rejected' && o.form !== 'http') c.warn(`rejected in-band with HTTP ${o.status}; a body that cannot be read is usually refused with a 4xx`);
      expectRejection(c, ex, b.description);
    });
  }
}
