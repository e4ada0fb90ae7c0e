/**
 * What an answer means (design.md §4): a rejection is an HTTP 4xx, or a 2xx whose items carry a
 * non-success Status/StatusCode; success is a 2xx whose statuses are all OK/SUCCESS/true.
 */
import { operation, tagsOf, type OperationId } from '../contract/catalogue.js';
import type { Exchange } from './exchange.js';

export type OutcomeKind = 'accepted' | 'rejected' | 'server-error' | 'no-answer' | 'unclear';

export interface Outcome {
  kind: OutcomeKind;
  /** How a rejection was expressed. */
  form?: 'http' | 'in-band';
  status?: number;
  /** Plain words for reports: what the target did. */
  detail: string;
  /** Per response entry: did it succeed? (2xx answers with a readable body only) */
  entries?: boolean[];
}

const SUCCESS = /^(OK|SUCCESS|TRUE|I0{6})$/i;
export const isSuccessFlag = (v: unknown) => v === true || (typeof v === 'string' && SUCCESS.test(v.trim()));

export interface ResponseView { root: Record<string, unknown> | undefined; items: Record<string, unknown>[]; entries: Record<string, unknown>[] }

/** The response root, its items and the first item's TransactionData, wherever they are well formed. */
export function viewResponse(opId: OperationId, json: unknown, tagPrefix: string): ResponseView {
  const { responseRoot, listTag } = tagsOf(operation(opId), tagPrefix);
  const root = json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>)[responseRoot] : undefined;
  if (!root || typeof root !== 'object' || Array.isArray(root)) return { root: undefined, items: [], entries: [] };
  const list = (root as Record<string, unknown>)[listTag];
  const items = (Array.isArray(list) ? list : list && typeof list === 'object' ? [list] : []).filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  const entries = items.flatMap((it) => {
    const td = it.TransactionData;
    return (Array.isArray(td) ? td : td && typeof td === 'object' ? [td] : []).filter((x): x is Record<string, unknown> => !!x && typeof x === 'object');
  });
  return { root: root as Record<string, unknown>, items, entries };
}

export function classify(opId: OperationId, ex: Exchange, tagPrefix: string): Outcome {
  if (ex.error) return { kind: 'no-answer', detail: `no HTTP answer (${ex.error.kind}: ${ex.error.message})` };
  const status = ex.response!.status;
  if (status >= 500) return { kind: 'server-error', status, detail: `HTTP ${status} (server error)` };
  if (status >= 400) return { kind: 'rejected', form: 'http', status, detail: `HTTP ${status}` };
  if (status < 200 || status >= 300) return { kind: 'unclear', status, detail: `HTTP ${status} (neither success nor rejection)` };
  if (ex.json === undefined) return { kind: 'unclear', status, detail: `HTTP ${status} with ${ex.parseError ? 'a body that is not JSON' : 'an empty body'}` };
  const view = viewResponse(opId, ex.json, tagPrefix);
  const flags = [...view.items.map((i) => i.Status).filter((v) => v !== undefined), ...view.entries.map((e) => e.StatusCode).filter((v) => v !== undefined)];
  const entries = view.entries.map((e) => isSuccessFlag(e.StatusCode ?? e.Status ?? true));
  if (!flags.length) return { kind: 'unclear', status, detail: `HTTP ${status} without any Status/StatusCode to read`, entries };
  const failing = flags.filter((f) => !isSuccessFlag(f));
  if (failing.length) {
    const details = view.entries.map((e) => e.StatusDetail).filter((d) => typeof d === 'string' && d).slice(0, 2);
    return { kind: 'rejected', form: 'in-band', status, detail: `HTTP ${status}, in-band ${failing.map((f) => JSON.stringify(f)).join(', ')}${details.length ? ` (${details.join('; ')})` : ''}`, entries };
  }
  return { kind: 'accepted', status, detail: `HTTP ${status}, success`, entries };
}
