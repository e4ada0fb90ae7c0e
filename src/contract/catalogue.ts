/**
 * The operation catalogue (design.md §2): the single list that schemas, generators, specs and the
 * mock are driven from. Tags are written as the spec writes them (prefix `Svc`); use `tagsOf` for a
 * deployment's prefix.
 */
import { withTagPrefix } from './prefix.js';

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

export const DEFAULT_RATE_WINDOW_SECONDS = 60;

export const operations: readonly Operation[] = [
  {
    id: 'bill-enquiry', title: 'Bill Enquiry', method: 'POST', path: '/api/enquiry/sadad/bill', transactionType: 'SADADENQ',
    kind: 'enquiry', rateGroup: 'bill', defaultRateLimit: 10,
    requestRoot: 'SvcSadadBillEnquiryRequest', responseRoot: 'SvcSadadBillEnquiryResponse', listTag: 'SvcSadadBillEnquiry',
    responseSequenceField: 'SequenceNumber', clientHeaders: true, sections: { request: '2.1', response: '2.2', endpoint: '4' },
  },
  {
    id: 'bill-payment', title: 'Bill Payment', method: 'POST', path: '/api/payment/sadad/bill', transactionType: 'SADADTRN',
    kind: 'payment', rateGroup: 'bill', defaultRateLimit: 10,
    requestRoot: 'SvcSadadBillPaymentRequest', responseRoot: 'SvcSadadBillPaymentResponse', listTag: 'SvcSadadBillPayment',
    responseSequenceField: 'SequenceNum', clientHeaders: true, sections: { request: '2.3', response: '2.4', endpoint: '4' },
  },
  {
    id: 'moi-enquiry', title: 'MOI Fee Enquiry', method: 'POST', path: '/api/enquiry/sadad/moi', transactionType: 'SADADMOI',
    kind: 'enquiry', rateGroup: 'moi', defaultRateLimit: 3,
    requestRoot: 'SvcSadadMOIEnquiryRequest', responseRoot: 'SvcSadadMOIEnquiryResponse', listTag: 'SvcSadadMOIEnquiry',
    responseSequenceField: null, clientHeaders: false, sections: { request: '2.5', response: '2.6', endpoint: '4' },
  },
  {
    id: 'moi-payment', title: 'MOI Fee Payment', method: 'POST', path: '/api/payment/sadad/moi', transactionType: 'SADADMOI',
    kind: 'payment', rateGroup: 'moi', defaultRateLimit: 3,
    requestRoot: 'SvcSadadMOIPaymentRequest', responseRoot: 'SvcSadadMOIPaymentResponse', listTag: 'SvcSadadMOIPayment',
    responseSequenceField: 'SequenceNum', clientHeaders: false, sections: { request: '2.7', response: '2.8', endpoint: '4' },
  },
];

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
