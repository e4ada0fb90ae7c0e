/**
 * The operation catalogue (design.md §2): the single list that schemas, generators, specs and the
 * mock are driven from, read from the API document's import (data/spec.json, design.md §13). Tags
 * are written as the spec writes them (prefix `Svc`); use `tagsOf` for a deployment's prefix.
 */
import { withTagPrefix } from './prefix.js';
import { SPEC_FILE, specFacts } from './spec-facts.js';
import type { SpecOperation } from './spec-model.js';

export type OperationId = 'bill-enquiry' | 'bill-payment' | 'moi-enquiry' | 'moi-payment';
export type RateGroup = 'bill' | 'moi';

export interface Operation {
  id: OperationId;
  title: string;
  method: 'POST';
  path: string;
  transactionType: 'SADADENQ' | 'SADADTRN' | 'SADADMOI';
  kind: 'enquiry' | 'payment';
  /** Rate-limit group: its own budget per operation, sized by the group's limit (spec §4, §8). */
  rateGroup: RateGroup;
  /** Sandbox calls per window (spec §8); configurable per group at run time. */
  defaultRateLimit: number;
  requestRoot: string;
  responseRoot: string;
  /** The array of items under the root, in requests and responses alike. */
  listTag: string;
  /** Name of the echoed sequence field in response TransactionData; null where the response has none. */
  responseSequenceField: 'SequenceNumber' | 'SequenceNum' | null;
  /** Bill operations' samples carry `clientid`/`clientsecret` (spec §4 rule 3, §5 rule 2). */
  clientHeaders: boolean;
  sections: { request: string; response: string; endpoint: string };
}

/**
 * What the code knows how to handle, per fact of an operation: a document that brings another value
 * needs code first (generators, mock data, the rate groups' settings), so loading refuses it with a
 * clear message rather than letting a run meet it halfway.
 */
const KNOWN = {
  id: ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'],
  method: ['POST'],
  transactionType: ['SADADENQ', 'SADADTRN', 'SADADMOI'],
  kind: ['enquiry', 'payment'],
  rateGroup: ['bill', 'moi'],
  responseSequenceField: ['SequenceNumber', 'SequenceNum', null],
} satisfies { [K in keyof Operation]?: readonly Operation[K][] };

/** An operation of data/spec.json as the code's Operation; throws on a value the code does not know. */
export function operationFromSpec(o: SpecOperation): Operation {
  for (const [key, values] of Object.entries(KNOWN) as [keyof typeof KNOWN, readonly unknown[]][]) {
    if (!values.includes(o[key])) {
      throw new Error(`${SPEC_FILE}: operation ${o.id} has ${key} ${JSON.stringify(o[key])}, which the code does not know (it knows ${values.map((v) => JSON.stringify(v)).join(', ')}): `
        + `a new ${key === 'id' ? 'operation' : `${key} value`} needs code: generators and mock data (src/contract/catalogue.ts, KNOWN)`);
    }
  }
  return {
    id: o.id as OperationId, title: o.title, method: o.method as 'POST', path: o.path, transactionType: o.transactionType as Operation['transactionType'],
    kind: o.kind, rateGroup: o.rateGroup as RateGroup, defaultRateLimit: o.rateLimit,
    requestRoot: o.requestRoot, responseRoot: o.responseRoot, listTag: o.listTag,
    responseSequenceField: o.responseSequenceField as Operation['responseSequenceField'], clientHeaders: o.clientHeaders,
    sections: { request: o.sections.request, response: o.sections.response, endpoint: o.sections.endpoint },
  };
}

/** The operations of the document's endpoints table (data/spec.json), in its order. */
export const operations: readonly Operation[] = specFacts.operations.map(operationFromSpec);

const missing = KNOWN.id.filter((id) => !operations.some((o) => o.id === id));
if (missing.length) throw new Error(`${SPEC_FILE}: the document has no operation ${missing.join(', ')}, which the code is written for: removing an operation needs code (OperationId, generators, mock data)`);

/** One rate window for all operations: the document's (§4), which the pacer and the mock share. */
export const DEFAULT_RATE_WINDOW_SECONDS: number = (() => {
  const windows = [...new Set(specFacts.operations.map((o) => o.windowSeconds))];
  if (windows.length !== 1) throw new Error(`${SPEC_FILE}: the operations' rate windows differ (${windows.join(', ')} s): the code has one window for all`);
  return windows[0]!;
})();

export function operation(id: string): Operation {
  const op = operations.find((o) => o.id === id);
  if (!op) throw new Error(`unknown operation ${JSON.stringify(id)}; known: ${operations.map((o) => o.id).join(', ')}`);
  return op;
}

export function operationByPath(path: string): Operation | undefined {
  return operations.find((o) => o.path === path);
}

/** The operation's tags spelled with a deployment's tag prefix. */
export function tagsOf(op: Operation, tagPrefix: string) {
  return {
    requestRoot: withTagPrefix(op.requestRoot, tagPrefix),
    responseRoot: withTagPrefix(op.responseRoot, tagPrefix),
    listTag: withTagPrefix(op.listTag, tagPrefix),
  };
}
