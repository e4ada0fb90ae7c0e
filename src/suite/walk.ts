/** Finds every value a field-table path names in a response, expanding arrays. */
import { withTagPrefix } from '../contract/prefix.js';

export interface Found { pointer: string; value: unknown; present: boolean; parentIsArrayItem: boolean }

export function valuesAt(json: unknown, tablePath: string, tagPrefix: string, aliases: string[] = []): Found[] {
  const segs = tablePath.split('.').map((s) => ({ key: withTagPrefix(s.replace(/\[\]$/, ''), tagPrefix), array: s.endsWith('[]') }));
  let frontier: { node: unknown; pointer: string }[] = [{ node: json, pointer: '' }];
  const out: Found[] = [];
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1;
    const next: typeof frontier = [];
    for (const { node, pointer } of frontier) {
      if (!node || typeof node !== 'object' || Array.isArray(node)) continue;
      const obj = node as Record<string, unknown>;
      const key = [seg.key, ...(last ? aliases : [])].find((k) => Object.prototype.hasOwnProperty.call(obj, k));
      const p = `${pointer}/${key ?? seg.key}`;
      if (last) { out.push({ pointer: p, value: key ? obj[key] : undefined, present: !!key, parentIsArrayItem: false }); continue; }
      if (!key) continue;
      const v = obj[key];
      if (seg.array && Array.isArray(v)) v.forEach((x, j) => next.push({ node: x, pointer: `${p}/${j}` }));
      else next.push({ node: v, pointer: p });
    }
    frontier = next;
  });
  return out;
}

/**
 * The shape of an answer: every leaf as `path: type`, array positions written `[]`, sorted and
 * without duplicates. A target that changes a field's type (still lenient-valid) or adds or drops
 * a field shows as a change between two runs' packages.
 */
export function fieldShape(json: unknown): string[] {
  const out = new Set<string>();
  const visit = (node: unknown, path: string) => {
    if (Array.isArray(node)) {
      if (!node.length) out.add(`${path}[]: empty array`);
      for (const x of node) visit(x, `${path}[]`);
    } else if (node && typeof node === 'object') {
      const entries = Object.entries(node as Record<string, unknown>);
      if (!entries.length) out.add(`${path}: empty object`);
      for (const [k, v] of entries) visit(v, path ? `${path}.${k}` : k);
    } else {
      out.add(`${path}: ${node === null ? 'null' : typeof node}`);
    }
  };
  visit(json, '');
  return [...out].sort();
}

/**
 * An answer as a comparison of two runs reads it (CaseContext.stableFacts): its status and the shape
 * of its body, two levels of keys with the JSON type of each leaf, never a value: `HTTP 400 {code:
 * string, message: string}`, `HTTP 200 {SvcSadadBillEnquiryResponse: {MessageType: string, ...}}`,
 * `HTTP 503 text`, `no answer (reset)`.
 */
export function answerFact(ex: { response?: { status: number; body: string }; error?: { kind: string } }): string {
  if (!ex.response) return `no answer (${ex.error?.kind ?? 'none'})`;
  const body = ex.response.body;
  if (!body.trim()) return `HTTP ${ex.response.status} empty`;
  let json: unknown;
  try { json = JSON.parse(body); } catch { return `HTTP ${ex.response.status} text`; }
  const shape = (node: unknown, depth: number): string => {
    if (Array.isArray(node)) return 'array';
    if (node === null) return 'null';
    if (typeof node !== 'object') return typeof node;
    if (depth === 0) return 'object';
    return `{${Object.keys(node).sort().map((k) => `${k}: ${shape((node as Record<string, unknown>)[k], depth - 1)}`).join(', ')}}`;
  };
  return `HTTP ${ex.response.status} ${shape(json, 2)}`;
}
