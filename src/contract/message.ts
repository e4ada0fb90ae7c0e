/** Builds and reads the request envelope `{ Message: { <root>: { TransactionType, <list>: [item] } } }` (spec §2). */
import { operation, tagsOf, type OperationId } from './catalogue.js';

export type Fields = Record<string, unknown>;
export type RequestBody = { Message: Record<string, { TransactionType: string } & Fields> };

export function envelope(opId: OperationId, items: Fields[], tagPrefix: string): RequestBody {
  const op = operation(opId);
  const { requestRoot, listTag } = tagsOf(op, tagPrefix);
  return { Message: { [requestRoot]: { TransactionType: op.transactionType, [listTag]: items } } };
}

/** The request's items, or [] when the body does not have the expected shape. */
export function requestItems(opId: OperationId, body: unknown, tagPrefix: string): Fields[] {
  const { requestRoot, listTag } = tagsOf(operation(opId), tagPrefix);
  const list = (body as { Message?: Record<string, Fields> } | null)?.Message?.[requestRoot]?.[listTag];
  return Array.isArray(list) ? (list as Fields[]) : [];
}

/** The TransactionData entries of the request's first item. */
export function requestEntries(opId: OperationId, body: unknown, tagPrefix: string): Fields[] {
  const data = requestItems(opId, body, tagPrefix)[0]?.TransactionData;
  return Array.isArray(data) ? (data as Fields[]) : [];
}
