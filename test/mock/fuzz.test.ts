/**
 * A seeded fuzz of the mock: thousands of requests built from valid bodies (RequestGenerator,
 * mutationsOf) and then bent (fields dropped, retyped and duplicated, prototype keys, deep nesting,
 * huge strings, many entries), raw bytes and invalid UTF-8, odd headers, methods and paths, and
 * malformed HTTP on a bare socket. Nothing may yield a 5xx or go unanswered, and the mock must
 * still answer a valid enquiry correctly afterwards.
 *
 * Every case is derived from (seed, index) alone, so a failure names both: rerun it with
 * `FUZZ_SEED=<seed> FUZZ_ONLY=<index>` (or `<from>-<to>`) (FUZZ_COUNT changes how many are sent).
 */
import http from 'node:http';
import net from 'node:net';
import { expect, test } from '@playwright/test';
import { operations, type Operation, type OperationId } from '../../src/contract/catalogue.js';
import { referenceIdHeader, specTimestamp } from '../../src/contract/headers.js';
import { mutationsOf } from '../../src/generators/mutations.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { BODY_LIMIT, startMock, TOKEN_PATH, type MockOptions, type RunningMock } from '../../src/mock/index.js';
import { billFacts } from '../../src/mock/world.js';
import { freshAccount, MockClient, UNLIMITED } from './helpers.js';
import { mulberry32 } from '../../src/generators/prng.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const COUNT = Number(process.env.FUZZ_COUNT ?? 10_000);
/** `FUZZ_ONLY=<index>` or `<from>-<to>`: replays those cases of the main run alone. */
const ONLY = process.env.FUZZ_ONLY === undefined ? undefined : process.env.FUZZ_ONLY.split('-').map(Number) as [number, number?];
const CONCURRENCY = 32;
/** A request not answered in this time counts as dropped (a hang). */
const ANSWER_TIMEOUT_MS = 20_000;

// ---------------------------------------------------------------------------------------------
// Seeded randomness


class Rng {
  private readonly next: () => number;
  constructor(seed: number) { this.next = mulberry32(seed); }
  float(): number { return this.next(); }
  int(min: number, max: number): number { return min + Math.floor(this.next() * (max - min + 1)); }
  chance(p: number): boolean { return this.next() < p; }
  pick<T>(list: readonly T[]): T { return list[Math.floor(this.next() * list.length)]!; }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.next() * 256);
    return b;
  }
  /** Picks by weight: [[weight, value], ...]. */
  weighted<T>(table: readonly (readonly [number, T])[]): T {
    let r = this.next() * table.reduce((s, [w]) => s + w, 0);
    for (const [w, v] of table) if ((r -= w) < 0) return v;
    return table[table.length - 1]![1];
  }
}

/** The seed of case `index`: cases do not depend on each other, so one can be replayed alone. */
const caseSeed = (seed: number, index: number) => (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;

// ---------------------------------------------------------------------------------------------
// JSON as a tree that can hold what objects cannot: duplicate keys, `__proto__` keys, raw text

type Node = { t: 'obj'; pairs: [string, Node][] } | { t: 'arr'; items: Node[] } | { t: 'lit'; text: string };

function toTree(v: unknown): Node {
  if (Array.isArray(v)) return { t: 'arr', items: v.map(toTree) };
  if (v !== null && typeof v === 'object') return { t: 'obj', pairs: Object.entries(v).map(([k, x]) => [k, toTree(x)]) };
  return { t: 'lit', text: JSON.stringify(v) ?? 'null' };
}

function serialize(n: Node, out: string[] = []): string[] {
  if (n.t === 'lit') out.push(n.text);
  else if (n.t === 'arr') {
    out.push('[');
    n.items.forEach((x, i) => { if (i > 0) out.push(','); serialize(x, out); });
    out.push(']');
  } else {
    out.push('{');
    n.pairs.forEach(([k, x], i) => { if (i > 0) out.push(','); out.push(JSON.stringify(k), ':'); serialize(x, out); });
    out.push('}');
  }
  return out;
}
const textOf = (n: Node) => serialize(n).join('');

interface Slot { parent: Extract<Node, { t: 'obj' | 'arr' }>; index: number; key?: string }

function slotsOf(n: Node, out: Slot[] = []): Slot[] {
  if (n.t === 'obj') n.pairs.forEach(([k, x], index) => { out.push({ parent: n, index, key: k }); slotsOf(x, out); });
  if (n.t === 'arr') n.items.forEach((x, index) => { out.push({ parent: n, index }); slotsOf(x, out); });
  return out;
}
const objectsOf = (n: Node, out: Extract<Node, { t: 'obj' }>[] = []): Extract<Node, { t: 'obj' }>[] => {
  if (n.t === 'obj') { out.push(n); n.pairs.forEach(([, x]) => objectsOf(x, out)); }
  if (n.t === 'arr') n.items.forEach((x) => objectsOf(x, out));
  return out;
};
function setSlot(s: Slot, v: Node): void {
  if (s.parent.t === 'obj') s.parent.pairs[s.index]![1] = v;
  else s.parent.items[s.index] = v;
}
function removeSlot(s: Slot): void {
  if (s.parent.t === 'obj') s.parent.pairs.splice(s.index, 1);
  else s.parent.items.splice(s.index, 1);
}
const lit = (text: string): Node => ({ t: 'lit', text });

/** One shared big string, sliced: huge values without building megabytes per case. */
const BIG = 'A'.repeat(2 * 1024 * 1024 + 16);
const hugeString = (length: number) => `"${BIG.slice(0, length)}"`;

function deep(depth: number, kind: 'arr' | 'obj' | 'mixed'): string {
  if (kind === 'arr') return '['.repeat(depth) + ']'.repeat(depth);
  if (kind === 'obj') return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  return '[{"a":'.repeat(depth / 2) + 'null' + '}]'.repeat(depth / 2);
}

const ODD_VALUES = [
  'null', 'true', 'false', '0', '-1', '1.5', '-0', '1e308', '1e309', '-1e309', '1e-400', '123456789012345678901234567890',
  '9007199254740993', '0.1', '1.005', '""', '" "', '"0"', '"true"', '"null"', '[]', '{}', '[null]', '{"a":1}', '[[[]]]',
  '"\\u0000"', '"\\ud800"', '"\\udfff\\ud800"', '"😀😀"', '"\\u202e\\u200b\\ufeff"', '"٣٤٥٦"', '"１２３４"', '"12.345"', '"1e3"',
  '"<script>alert(1)</script>"', `"${'x'.repeat(300)}"`, '"\\"quoted\\""', '"a\\nb\\tc"', '"%s%n%x"', '"../../etc/passwd"',
  '"\' OR 1=1 --"', '"${jndi:ldap://x}"', '{"$gt":""}', '"__proto__"',
];
/** Not JSON: these make the whole body malformed. */
const BAD_LITERALS = ['NaN', 'Infinity', '-Infinity', 'undefined', '0x10', '01', '.5', '+1', "'x'", '"\u0001"', '"a\nb"', '[1,]', '{"a":1,}', '// c', 'tru'];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf', '__defineGetter__', 'isPrototypeOf'];
const PROTO_VALUES = ['{"polluted":true}', '{"prototype":{"polluted":true}}', '"x"', 'null', '[]', '{"toString":1}', '{"__proto__":{"polluted":true}}', '1'];

/** How much a copying bend (dup, many) may add: bodies stay around the sizes the cases intend. */
const MAX_GROWTH = 600_000;

type Bend = 'drop' | 'retype' | 'dup' | 'proto' | 'deep' | 'bad-literal' | 'many' | 'huge' | 'empty-container' | 'wrap';

/** Bends a body tree in place; returns a note of what it did. */
function bend(tree: Node, rng: Rng, kind: Bend): string {
  const slots = slotsOf(tree);
  const slot = slots.length > 0 ? rng.pick(slots) : undefined;
  const at = slot?.key ?? (slot ? `[${slot.index}]` : 'root');
  switch (kind) {
    case 'drop': if (slot) removeSlot(slot); return `drop ${at}`;
    case 'retype': { const v = rng.pick(ODD_VALUES); if (slot) setSlot(slot, lit(v)); return `${at}=${v.slice(0, 20)}`; }
    case 'bad-literal': { const v = rng.pick(BAD_LITERALS); if (slot) setSlot(slot, lit(v)); return `${at}=${JSON.stringify(v)}`; }
    case 'empty-container': { const v = rng.pick(['{}', '[]', '[{}]', '[[]]']); if (slot) setSlot(slot, lit(v)); return `${at}=${v}`; }
    case 'dup': {
      const objs = objectsOf(tree).filter((o) => o.pairs.length > 0);
      if (objs.length === 0) return 'dup none';
      const o = rng.pick(objs);
      const [k, v] = rng.pick(o.pairs);
      const copy: Node = rng.chance(0.5) ? v : lit(rng.pick(ODD_VALUES));
      const times = Math.min(rng.pick([1, 1, 1, 5, 100]), Math.max(1, Math.floor(MAX_GROWTH / textOf(copy).length)));
      for (let i = 0; i < times; i++) o.pairs.splice(rng.int(0, o.pairs.length), 0, [k, copy]);
      return `dup ${k} x${times}`;
    }
    case 'proto': {
      const objs = objectsOf(tree);
      if (objs.length === 0) return 'proto none';
      const o = rng.pick(objs);
      const k = rng.pick(PROTO_KEYS);
      o.pairs.splice(rng.int(0, o.pairs.length), 0, [k, lit(rng.pick(PROTO_VALUES))]);
      return `proto ${k}`;
    }
    case 'deep': {
      const depth = rng.weighted([[4, 100], [4, 1_000], [4, 10_000], [1, 100_000]] as const);
      const shape = rng.pick(['arr', 'obj', 'mixed'] as const);
      if (slot) setSlot(slot, lit(deep(depth, shape)));
      return `deep ${shape} ${depth} at ${at}`;
    }
    case 'many': {
      const arrs: Slot[] = slots.filter((s) => s.key === 'TransactionData' || (s.parent.t === 'obj' && s.key !== undefined && /Svc\w+(Enquiry|Payment)$/.test(s.key) && !s.key.endsWith('Request')));
      const target = arrs.length > 0 ? rng.pick(arrs) : slot;
      if (!target || target.parent.t !== 'obj') return 'many none';
      const node = target.parent.pairs[target.index]![1];
      if (node.t !== 'arr' || node.items.length === 0) return 'many none';
      const first = textOf(node.items[0]!);
      const n = Math.min(rng.pick([2, 10, 100, 1000]), Math.max(2, Math.floor(MAX_GROWTH / first.length)));
      node.items = Array.from({ length: n }, () => lit(first));
      return `many ${target.key} x${n}`;
    }
    case 'huge': {
      const length = rng.pick([100_000, 900_000, BODY_LIMIT - 64, BODY_LIMIT + 1, 1_500_000, 2_000_000]);
      if (slot) setSlot(slot, lit(hugeString(length)));
      return `huge ${length} at ${at}`;
    }
    case 'wrap': {
      // the root becomes [root] or {"Message": root}, in place (the caller holds the root)
      const inner: Node = tree.t === 'obj' ? { t: 'obj', pairs: tree.pairs } : tree.t === 'arr' ? { t: 'arr', items: tree.items } : { t: 'lit', text: tree.text };
      const root = tree as { t: string; pairs?: unknown; items?: unknown; text?: unknown };
      delete root.pairs;
      delete root.items;
      delete root.text;
      Object.assign(root, rng.chance(0.5) ? { t: 'arr', items: [inner] } : { t: 'obj', pairs: [['Message', inner]] });
      return `wrap in ${tree.t}`;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cases

interface HttpCase { via: 'http'; method: string; path: string; headers: string[]; body?: Buffer }
interface RawCase { via: 'raw'; bytes: Buffer }
type Case = (HttpCase | RawCase) & { kind: string; note: string };

type Outcome = { status: number; statuses?: number[] } | { dropped: string };

interface Material {
  options: MockOptions;
  /** Valid bodies per operation. */
  valid: Record<OperationId, unknown[]>;
  /** Single-defect bodies per operation (mutationsOf). */
  mutated: Record<OperationId, { id: string; body: unknown }[]>;
}

function material(options: MockOptions, seed: number): Material {
  const gen = new RequestGenerator({ seed, tagPrefix: options.tagPrefix });
  const valid = {} as Material['valid'];
  const mutated = {} as Material['mutated'];
  for (const op of operations) {
    valid[op.id] = Array.from({ length: 8 }, (_, i) => gen.build(op.id, op.id === 'bill-payment' && i % 2 === 0 ? { entry: { Amount: 1, PayExactDue: false } } : {}));
    mutated[op.id] = mutationsOf(op.id, valid[op.id][0], options.tagPrefix).map((m) => ({ id: m.id, body: m.body }));
  }
  return { options, valid, mutated };
}

/** Gives every SequenceNumber of a body a fresh, deterministic value (else valid payments are all duplicates). */
function freshSequences(body: unknown, tag: string): unknown {
  let n = 0;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === 'SequenceNumber' && typeof x === 'string' ? `F${tag}N${n++}` : walk(x)]));
    }
    return v;
  };
  return walk(body);
}

/** The headers a well-behaved client sends, as a flat list (names may repeat there). */
function goodHeaders(o: MockOptions, index: number): string[] {
  return [
    'Host', `127.0.0.1:${o.port}`,
    'Content-Type', 'application/json',
    'Authorization', `Bearer ${o.accessToken}`,
    'CompanyId', o.companyId,
    referenceIdHeader(o.headerPrefix), `FZ${String(index).padStart(8, '0')}`,
    'DateTimeStamp', specTimestamp(),
    'Device', 'Web',
  ];
}

function withBody(headers: string[], body: Buffer | undefined): string[] {
  return body === undefined ? headers : [...headers, 'Content-Length', String(body.length)];
}

function removeHeader(headers: string[], name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < headers.length; i += 2) if (headers[i]!.toLowerCase() !== name.toLowerCase()) out.push(headers[i]!, headers[i + 1]!);
  return out;
}
const setHeader = (headers: string[], name: string, value: string) => [...removeHeader(headers, name), name, value];

const CONTENT_TYPES = [
  'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16',
  'application/json; charset=latin1', 'application/json; charset=ISO-8859-1', 'application/json;charset="utf-8"', 'APPLICATION/JSON',
  'application/json ; charset=utf-8', 'application/json;', 'application/json; foo=bar', 'application/jsonx', 'application/vnd.api+json',
  'application/problem+json', '*/*', '', 'json', 'application/', ';', 'application/json, text/plain', 'application/json; charset=utf-8; charset=ascii',
  'application/json; charset=klingon', 'text/json', 'application/json\t', 'application/json; charset=', 'application/json;charset=UTF-8',
];
const SCHEME_ODDITIES = ['Basic bW9jazptb2Nr', 'Bearer', 'bearer mock-access-token-0123456789', 'Bearer  mock-access-token-0123456789  ', 'Bearer a b', 'Token x', '', 'Bearer \u00e9\u00e9'];
const ODD_HEADER_VALUES = ['', ' ', 'x'.repeat(17), '2024-13-45T25:61:61', '2024-01-01T00:00:00Z', '2024-01-01 00:00:00', 'null', '\u00e9\u00e8\u00ff', 'a\tb', '%00', '../../', '0'.repeat(100)];

function pickBody(m: Material, rng: Rng, op: Operation, tag: string): unknown {
  const base = rng.chance(0.7) ? rng.pick(m.valid[op.id]) : rng.pick(m.mutated[op.id]).body;
  return freshSequences(base, tag);
}

function buildCase(m: Material, seed: number, index: number): Case {
  const rng = new Rng(caseSeed(seed, index));
  const o = m.options;
  const op = rng.pick(operations);
  const tag = `${seed}I${index}`;
  const kind = rng.weighted([
    [6, 'valid'], [14, 'mutation'], [34, 'bent'], [2, 'huge'], [12, 'raw-body'], [14, 'headers'], [12, 'method-path'], [6, 'raw-socket'],
  ] as const);
  const http = (note: string, body: Buffer | undefined, headers = goodHeaders(o, index), method = 'POST', path = op.path): Case =>
    ({ via: 'http', kind, note: `${op.id} ${note}`, method, path, headers: withBody(headers, body), ...(body === undefined ? {} : { body }) });
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));

  switch (kind) {
    case 'valid': return http('valid', json(pickBody(m, rng, op, tag)));
    case 'mutation': {
      const mut = rng.pick(m.mutated[op.id]);
      return http(`mutation ${mut.id}`, json(freshSequences(mut.body, tag)));
    }
    case 'bent': {
      const tree = toTree(pickBody(m, rng, op, tag));
      const bends: Bend[] = ['drop', 'retype', 'dup', 'proto', 'deep', 'bad-literal', 'many', 'empty-container', 'wrap', 'huge'];
      const notes: string[] = [];
      for (let i = rng.int(1, 3); i > 0; i--) {
        notes.push(bend(tree, rng, rng.weighted(bends.map((b) => [b === 'huge' ? 0.15 : b === 'wrap' || b === 'many' ? 0.5 : 1, b] as const))));
      }
      return http(`bent: ${notes.join('; ')}`, Buffer.from(textOf(tree)));
    }
    case 'huge': {
      // around the 1 MiB limit, 1.5-2 MiB, and rarely past the 16 MiB the mock reads before answering 413
      const length = rng.weighted([[3, BODY_LIMIT - 1], [3, BODY_LIMIT], [3, BODY_LIMIT + 1], [3, 1_500_000], [3, 2 * 1024 * 1024], [0.2, 17 * 1024 * 1024]] as const);
      const text = JSON.stringify(pickBody(m, rng, op, tag));
      const how = length > BIG.length ? 'leading-space' : rng.pick(['padding-field', 'leading-space', 'string-value'] as const);
      let body: Buffer;
      if (how === 'leading-space') body = Buffer.concat([Buffer.alloc(Math.max(0, length - text.length), 0x20), Buffer.from(text)]);
      else if (how === 'padding-field') body = Buffer.from(`{"padding":${hugeString(Math.max(0, length - text.length - 14))},${text.slice(1)}`);
      else body = Buffer.from(text.replace(/"AccountNumber":"[^"]*"|"ID":"[^"]*"|"SequenceNumber":"[^"]*"/, (s) => `${s.slice(0, s.indexOf(':'))}:${hugeString(Math.max(0, length - text.length))}`));
      return http(`huge ${how} ${body.length} bytes`, body);
    }
    case 'raw-body': {
      const text = JSON.stringify(pickBody(m, rng, op, tag));
      const how = rng.pick(['random-bytes', 'flipped-bytes', 'truncated', 'invalid-utf8', 'utf16', 'bom', 'scalars', 'two-docs', 'trailing-garbage', 'control-chars', 'nul-bytes'] as const);
      let body: Buffer;
      switch (how) {
        case 'random-bytes': body = rng.bytes(rng.int(1, 4096)); break;
        case 'flipped-bytes': {
          body = Buffer.from(text);
          for (let i = rng.int(1, 8); i > 0; i--) body[rng.int(0, body.length - 1)] = rng.int(0, 255);
          break;
        }
        case 'truncated': body = Buffer.from(text.slice(0, rng.int(0, text.length - 1))); break;
        case 'invalid-utf8': {
          const bad = Buffer.from(rng.pick([[0xff], [0xc3, 0x28], [0xe2, 0x28, 0xa1], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80], [0xf4, 0x90, 0x80, 0x80], [0xfe, 0xfe, 0xff, 0xff]]));
          const at = text.indexOf('"', rng.int(0, text.length - 2) + 1);
          const cut = at < 0 ? text.length : at + 1;
          body = Buffer.concat([Buffer.from(text.slice(0, cut)), bad, Buffer.from(text.slice(cut))]);
          break;
        }
        case 'utf16': body = Buffer.concat([rng.chance(0.5) ? Buffer.from([0xff, 0xfe]) : Buffer.alloc(0), Buffer.from(text, 'utf16le')]); break;
        case 'bom': body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]); break;
        case 'scalars': body = Buffer.from(rng.pick(['', ' ', '\n\t\r ', 'null', '0', '-0', '""', '[]', '{}', 'true', '[{}]', '{"Message":null}', '{"Message":{}}', '1e999', '"\\ud800"', '{"":""}'])); break;
        case 'two-docs': body = Buffer.from(`${text}${rng.pick(['', '\n', ' '])}${text}`); break;
        case 'trailing-garbage': body = Buffer.from(`${text}${rng.pick(['}', ']', ',', 'x', '\u0000', '//', '/* c */'])}`); break;
        case 'control-chars': body = Buffer.from(text.replace(/"([A-Z])/, `"\u0001\u0002\u001b[31m$1`)); break;
        case 'nul-bytes': body = Buffer.concat([Buffer.from(text.slice(0, 20)), Buffer.alloc(rng.int(1, 64)), Buffer.from(text.slice(20))]); break;
      }
      return http(`raw body ${how} (${body.length} bytes)`, body);
    }
    case 'headers': {
      const body = json(pickBody(m, rng, op, tag));
      let h = goodHeaders(o, index);
      const how = rng.pick(['missing', 'duplicate', 'huge', 'many', 'content-type', 'content-type-twice', 'auth-scheme', 'odd-value', 'high-bytes', 'case', 'extras'] as const);
      let note: string = how;
      const required = ['Content-Type', 'Authorization', 'CompanyId', referenceIdHeader(o.headerPrefix), 'DateTimeStamp', 'Device', 'Host'];
      switch (how) {
        case 'missing': { const n = rng.pick(required); h = removeHeader(h, n); note += ` ${n}`; break; }
        case 'duplicate': {
          const n = rng.pick(required);
          const i = h.findIndex((x) => x === n);
          h.push(n, rng.chance(0.5) ? h[i + 1]! : rng.pick(ODD_HEADER_VALUES));
          note += ` ${n}`;
          break;
        }
        case 'huge': {
          const size = rng.pick([1_000, 8_000, 15_000, 17_000, 64_000, 1_000_000]);
          const n = rng.pick(['X-Pad', 'Authorization', 'CompanyId', 'Device', 'Cookie']);
          h = n === 'X-Pad' || n === 'Cookie' ? [...h, n, 'p'.repeat(size)] : setHeader(h, n, n === 'Authorization' ? `Bearer ${'t'.repeat(size)}` : 'v'.repeat(size));
          note += ` ${n} ${size}`;
          break;
        }
        case 'many': { const n = rng.pick([50, 500, 1_999, 3_000]); for (let i = 0; i < n; i++) h.push(`X-H${i}`, String(i)); note += ` ${n}`; break; }
        case 'content-type': { const t = rng.pick(CONTENT_TYPES); h = setHeader(h, 'Content-Type', t); note += ` ${JSON.stringify(t)}`; break; }
        case 'content-type-twice': { const t = rng.pick(CONTENT_TYPES); h.push('Content-Type', t); note += ` + ${JSON.stringify(t)}`; break; }
        case 'auth-scheme': { const v = rng.pick(SCHEME_ODDITIES); h = setHeader(h, 'Authorization', v); note += ` ${JSON.stringify(v)}`; break; }
        case 'odd-value': { const n = rng.pick(required.slice(1, 6)); const v = rng.pick(ODD_HEADER_VALUES); h = setHeader(h, n, v); note += ` ${n}=${JSON.stringify(v)}`; break; }
        case 'high-bytes': { const n = rng.pick(required.slice(1, 6)); h = setHeader(h, n, Buffer.from('Wéb ✓ ویب', 'utf8').toString('latin1')); note += ` ${n}`; break; }
        case 'case': { h = h.map((x, i) => (i % 2 === 0 ? (rng.chance(0.5) ? x.toUpperCase() : x.toLowerCase()) : x)); break; }
        case 'extras': {
          const extras = rng.pick([['Expect', '100-continue'], ['Connection', 'close'], ['Accept-Encoding', 'gzip, br, zstd'], ['Accept', 'application/xml'], ['X-Forwarded-For', '1.2.3.4, ::1'], ['Content-Encoding', 'gzip'], ['Accept-Charset', 'utf-16'], ['X-Signature', 'AAAA']]);
          h.push(extras[0]!, extras[1]!);
          note += ` ${extras[0]}`;
          break;
        }
      }
      return http(`headers ${note}`, body, h);
    }
    case 'method-path': {
      const method = rng.weighted([[3, 'POST'], [2, 'GET'], [1, 'PUT'], [1, 'DELETE'], [1, 'PATCH'], [1, 'OPTIONS'], [1, 'HEAD'], [0.3, 'TRACE'], [0.3, 'PROPFIND'], [0.3, 'PURGE']] as const);
      const p = op.path;
      const path = rng.pick([
        p, `${p}/`, `${p}?a=1`, `${p}?${'q'.repeat(rng.pick([100, 5_000]))}=1`, `${p}?a=%zz&b=%00`, `${p}#frag`, p.replace('bill', '%62ill').replace('moi', '%6Doi'),
        p.replace(/\/([^/]*)$/, '%2F$1'), `${p}%00`, `${p}%`, '/%zz', `${p};x=1`, `/${p}`, p.replace('/sadad/', '/./sadad/'), p.replace('/sadad/', '/sadad/../sadad/'),
        p.toUpperCase(), `${p}\u00ef`, `/${'a'.repeat(rng.pick([1_000, 10_000, 15_000, 20_000, 100_000]))}`, `${p}/${'b/'.repeat(2_000)}`, '*', '/', '',
        `http://127.0.0.1:${o.port}${p}`, '/api', '/api/enquiry/sadad/', TOKEN_PATH, `${TOKEN_PATH}/`, '/favicon.ico', '/.env', '/api/payment/sadad/bill/../../enquiry/sadad/bill',
      ]);
      const safePath = path === '' ? '/' : path;
      const body = method === 'GET' || method === 'HEAD' ? (rng.chance(0.3) ? json(pickBody(m, rng, op, tag)) : undefined) : json(pickBody(m, rng, op, tag));
      return http(`${method} ${safePath.slice(0, 80)}${safePath.length > 80 ? `...(${safePath.length})` : ''}`, body, goodHeaders(o, index), method, safePath);
    }
    case 'raw-socket': {
      const body = JSON.stringify(pickBody(m, rng, op, tag));
      const headerLines = (extra: string[] = [], contentLength = Buffer.byteLength(body)) => {
        const h = goodHeaders(o, index);
        const lines: string[] = [];
        for (let i = 0; i < h.length; i += 2) lines.push(`${h[i]}: ${h[i + 1]}`);
        return [...lines, ...(contentLength >= 0 ? [`Content-Length: ${contentLength}`] : []), ...extra, 'Connection: close'];
      };
      const request = (line: string, lines: string[], payload: string | Buffer = body, eol = '\r\n') =>
        Buffer.concat([Buffer.from(`${line}${eol}${lines.join(eol)}${eol}${eol}`, 'latin1'), Buffer.from(payload)]);
      const how = rng.pick(['garbage-line', 'http-version', 'http09', 'bare-lf', 'no-colon', 'space-before-colon', 'bad-name', 'nul-value', 'obs-fold', 'cl-and-te', 'two-cl', 'negative-cl', 'bad-cl', 'chunked', 'bad-chunk', 'pipelined', 'garbage-after', 'random', 'expect', 'http10', 'absolute-uri', 'utf8-path', 'connect', 'upgrade', 'h2-preface'] as const);
      const line = `POST ${op.path} HTTP/1.1`;
      let bytes: Buffer;
      switch (how) {
        case 'garbage-line': bytes = Buffer.from(`${rng.pick(['GARBAGE', 'POST', 'POST /x HTTP/1.1 extra', '\u0000\u0001\u0002', 'POST\t/x\tHTTP/1.1', 'GET / FTP/1.0'])}\r\n\r\n`, 'latin1'); break;
        case 'http-version': bytes = request(`POST ${op.path} HTTP/${rng.pick(['9.9', '2.0', '1.2', '0.9', 'x', '1.1.1'])}`, headerLines()); break;
        case 'http09': bytes = Buffer.from(`GET ${op.path}\r\n\r\n`); break;
        case 'bare-lf': bytes = request(line, headerLines(), body, '\n'); break;
        case 'no-colon': bytes = request(line, [...headerLines(), 'NoColonHere']); break;
        case 'space-before-colon': bytes = request(line, [...headerLines(), 'X-Odd : 1']); break;
        case 'bad-name': bytes = request(line, [...headerLines(), `X-B${rng.pick(['@', '(', '{', '"', '\u00e9'])}d: 1`]); break;
        case 'nul-value': bytes = request(line, [...headerLines(), 'X-Nul: a\u0000b']); break;
        case 'obs-fold': bytes = request(line, [...headerLines(), 'X-Fold: a', ' continued']); break;
        case 'cl-and-te': bytes = request(line, headerLines(['Transfer-Encoding: chunked']), `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`); break;
        case 'two-cl': bytes = request(line, headerLines([`Content-Length: ${Buffer.byteLength(body) + 1}`])); break;
        case 'negative-cl': bytes = request(line, headerLines([], -1).concat(['Content-Length: -5'])); break;
        case 'bad-cl': bytes = request(line, headerLines([], -1).concat([`Content-Length: ${rng.pick(['abc', '1e3', '0x10', '99999999999999999999', ' ', '1,2'])}`])); break;
        case 'chunked': {
          const mid = Math.floor(body.length / 2);
          const chunks = [body.slice(0, mid), body.slice(mid)].map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('');
          bytes = request(line, headerLines(['Transfer-Encoding: chunked'], -1), `${chunks}0\r\n\r\n`);
          break;
        }
        case 'bad-chunk': bytes = request(line, headerLines(['Transfer-Encoding: chunked'], -1), `zz\r\n${body}\r\n0\r\n\r\n`); break;
        case 'pipelined': {
          const one = request(line, headerLines().filter((l) => l !== 'Connection: close'));
          bytes = Buffer.concat([one, one, request(line, headerLines())]);
          break;
        }
        case 'garbage-after': bytes = Buffer.concat([request(line, headerLines().filter((l) => l !== 'Connection: close')), rng.bytes(rng.int(1, 200))]); break;
        case 'random': bytes = rng.bytes(rng.int(1, 2000)); break;
        case 'expect': bytes = request(line, headerLines(['Expect: 100-continue'])); break;
        case 'http10': bytes = request(`POST ${op.path} HTTP/1.0`, headerLines().filter((l) => !l.startsWith('Host:'))); break;
        case 'absolute-uri': bytes = request(`POST http://example.com${op.path} HTTP/1.1`, headerLines()); break;
        case 'utf8-path': bytes = request(`POST ${Buffer.from(`${op.path}/ünï✓`, 'utf8').toString('latin1')} HTTP/1.1`, headerLines()); break;
        case 'connect': bytes = request(`CONNECT 127.0.0.1:${o.port} HTTP/1.1`, headerLines()); break;
        case 'upgrade': bytes = request(line, headerLines([rng.pick(['Upgrade: websocket', 'Upgrade: h2c', 'Upgrade: TLS/1.2']), 'Connection: Upgrade'])); break;
        case 'h2-preface': bytes = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'); break;
      }
      return { via: 'raw', kind, note: `${op.id} raw socket ${how}`, bytes };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Sending, and telling a complete answer from a dropped one

/** The last answer each keep-alive socket carried: when a reused socket fails, the cause is often there. */
const lastOnSocket = new WeakMap<object, string>();

function sendHttp(c: Case & HttpCase, index: number, port: number, agent: http.Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let previous: string | undefined;
    const finish = (o: Outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if ('dropped' in o && req.reusedSocket) o = { dropped: `${o.dropped} on a reused socket, whose previous answer was to #${previous ?? '?'}` };
      resolve(o);
    };
    const req = http.request({ host: '127.0.0.1', port, method: c.method, path: c.path, headers: c.headers, setHost: false, agent }, (res) => {
      lastOnSocket.set(res.socket, `${index} ${c.note.slice(0, 80)}: ${res.statusCode}${res.headers.connection === 'close' ? ', Connection: close' : ''}`);
      let bytes = 0;
      res.on('data', (d: Buffer) => { bytes += d.length; });
      res.on('end', () => {
        const declared = res.headers['content-length'];
        if (c.method !== 'HEAD' && declared !== undefined && Number(declared) !== bytes) finish({ dropped: `body cut at ${bytes} of ${declared} bytes` });
        else if (!res.complete) finish({ dropped: 'incomplete answer' });
        else finish({ status: res.statusCode ?? 0 });
      });
      res.on('aborted', () => finish({ dropped: 'answer aborted' }));
      res.on('error', (e: NodeJS.ErrnoException) => finish({ dropped: `answer ${e.code ?? e.message}` }));
    });
    req.on('socket', (socket) => { previous = lastOnSocket.get(socket); });
    // an error after the whole answer arrived (e.g. EPIPE on the rest of an upload) is not a drop
    req.on('error', (e: NodeJS.ErrnoException) => finish({ dropped: `request ${e.code ?? e.message}` }));
    const timer = setTimeout(() => { finish({ dropped: `no answer in ${ANSWER_TIMEOUT_MS} ms` }); req.destroy(); }, ANSWER_TIMEOUT_MS);
    req.end(c.body);
  });
}

/** The answers in raw bytes, in order; an incomplete one ends the list with `incomplete`. */
function parseAnswers(data: Buffer): { statuses: number[]; incomplete?: string } {
  const statuses: number[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0) return { statuses, incomplete: `header block cut (${data.length - at} bytes)` };
    const head = data.subarray(at, end).toString('latin1');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(head);
    if (!m) return { statuses, incomplete: `not an HTTP answer: ${JSON.stringify(head.slice(0, 40))}` };
    const status = Number(m[1]);
    let next = end + 4;
    const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      for (;;) {
        const lineEnd = data.indexOf('\r\n', next);
        if (lineEnd < 0) return { statuses, incomplete: 'chunked body cut' };
        const size = parseInt(data.subarray(next, lineEnd).toString('latin1'), 16);
        next = lineEnd + 2 + size + 2;
        if (next > data.length) return { statuses, incomplete: 'chunked body cut' };
        if (size === 0) break;
      }
    } else if (cl) {
      next += Number(cl[1]);
      if (next > data.length) return { statuses, incomplete: `body cut at ${data.length - end - 4} of ${cl[1]} bytes` };
    } else if (status >= 200 && status !== 204 && status !== 304) {
      next = data.length; // delimited by the close
    }
    if (status >= 200) statuses.push(status);
    at = next;
  }
  return { statuses };
}

function sendRaw(c: RawCase, port: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1');
    let error = '';
    const timer = setTimeout(() => { error = `no close in ${ANSWER_TIMEOUT_MS} ms`; socket.destroy(); }, ANSWER_TIMEOUT_MS);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => { error ||= e.code ?? e.message; });
    socket.on('close', () => {
      clearTimeout(timer);
      const { statuses, incomplete } = parseAnswers(Buffer.concat(chunks));
      if (statuses.length === 0) resolve({ dropped: incomplete ?? (error || 'closed without an answer') });
      // later answers of a pipeline after an incomplete one: the first complete answer is what counts
      else resolve({ status: statuses[0]!, statuses });
    });
    // the whole request, then end of input: the server always sees where the request stops
    socket.end(c.bytes);
  });
}

async function inPool(total: number, concurrency: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < total) await work(next++);
  }));
}

interface Failure { index: number; kind: string; note: string; outcome: string }

async function fuzz(mock: RunningMock, seed: number, count: number, label: string) {
  const m = material(mock.options, seed);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const byStatus = new Map<string, number>();
  const byKind = new Map<string, Map<string, number>>();
  const failures: Failure[] = [];
  const indexes = ONLY === undefined ? Array.from({ length: count }, (_, i) => i) : Array.from({ length: (ONLY[1] ?? ONLY[0]) - ONLY[0] + 1 }, (_, i) => ONLY[0] + i);
  const started = performance.now();
  let bytesSent = 0;
  const slowest: { ms: number; index: number; note: string }[] = [];
  try {
    await inPool(indexes.length, CONCURRENCY, async (k) => {
      const index = indexes[k]!;
      const c = buildCase(m, seed, index);
      bytesSent += c.via === 'raw' ? c.bytes.length : c.body?.length ?? 0;
      const t0 = performance.now();
      const outcome = c.via === 'raw' ? await sendRaw(c, mock.port) : await sendHttp(c, index, mock.port, agent);
      slowest.push({ ms: performance.now() - t0, index, note: c.note.slice(0, 100) });
      if (slowest.length > 20) slowest.sort((a, b) => b.ms - a.ms).splice(5);
      const key = 'status' in outcome ? String(outcome.status) : 'dropped';
      byStatus.set(key, (byStatus.get(key) ?? 0) + 1);
      const kinds = byKind.get(c.kind) ?? new Map<string, number>();
      kinds.set(key, (kinds.get(key) ?? 0) + 1);
      byKind.set(c.kind, kinds);
      if (!('status' in outcome) || outcome.status >= 500) {
        failures.push({ index, kind: c.kind, note: c.note.slice(0, 200), outcome: 'status' in outcome ? `HTTP ${outcome.status}` : `dropped: ${outcome.dropped}` });
      }
    });
  } finally {
    agent.destroy();
  }
  const seconds = (performance.now() - started) / 1000;
  const sorted = (map: Map<string, number>) => Object.fromEntries([...map].sort(([a], [b]) => a.localeCompare(b)));
  console.log(`fuzz ${label}: seed ${seed}, ${indexes.length} requests (${(bytesSent / 1e6).toFixed(0)} MB) in ${seconds.toFixed(1)} s = ${(indexes.length / seconds).toFixed(0)} req/s, concurrency ${CONCURRENCY}`);
  console.log(`  by status: ${JSON.stringify(sorted(byStatus))}`);
  for (const [kind, map] of [...byKind].sort(([a], [b]) => a.localeCompare(b))) console.log(`  ${kind.padEnd(12)} ${JSON.stringify(sorted(map))}`);
  console.log(`  slowest: ${slowest.sort((a, b) => b.ms - a.ms).slice(0, 5).map((x) => `#${x.index} ${x.ms.toFixed(0)} ms ${x.note}`).join(' | ')}`);
  return { failures, byStatus, seconds };
}

const describeFailures = (seed: number, failures: Failure[]) =>
  failures.slice(0, 25).map((f) => `seed ${seed} index ${f.index} [${f.kind}] ${f.note} -> ${f.outcome}`).join('\n');

/** A valid enquiry of a fresh bill, answered 200 with the facts the open world gives it. */
async function expectStillServes(mock: RunningMock) {
  const c = new MockClient(mock);
  const subject = { BillerId: '002', AccountNumber: freshAccount() };
  const entry = await c.enquireBill(subject);
  const facts = billFacts(subject.BillerId, subject.AccountNumber)!;
  expect(entry.BillAccountID ?? entry.AccountNumber).toBe(subject.AccountNumber);
  expect(Math.round(Number(entry.AmountDue) * 100)).toBe(facts.dueCents);
  expect(String(entry.BillNo)).toBe(facts.billNo);
}

test.describe.configure({ mode: 'default' });

test(`fuzz: ${COUNT} seeded odd requests, no 5xx, none unanswered, and the mock still serves`, async () => {
  test.setTimeout(180_000);
  const mock = await startMock({ port: 0, ...UNLIMITED });
  try {
    const { failures } = await fuzz(mock, SEED, COUNT, 'errors=http');
    expect(failures.length, `${failures.length} requests answered 5xx or not at all:\n${describeFailures(SEED, failures)}`).toBe(0);
    await expectStillServes(mock);
  } finally {
    await mock.close();
  }
});

test('fuzz in the in-band error mode: a shorter run, same guarantees', async () => {
  test.skip(ONLY !== undefined, 'replaying one case of the main run');
  test.setTimeout(120_000);
  const seed = SEED + 1;
  const mock = await startMock({ port: 0, ...UNLIMITED, errors: 'in-band' });
  try {
    const { failures } = await fuzz(mock, seed, Math.ceil(COUNT / 4), 'errors=in-band');
    expect(failures.length, `${failures.length} requests answered 5xx or not at all:\n${describeFailures(seed, failures)}`).toBe(0);
    await expectStillServes(mock);
  } finally {
    await mock.close();
  }
});

// a case builder that stays deterministic is what makes a seed and an index a reproduction
test('fuzz cases are a function of (seed, index)', () => {
  const options = { tagPrefix: 'Svc', headerPrefix: 'Svc', port: 1, accessToken: 't', companyId: 'C' } as MockOptions;
  const a = material(options, 7);
  const b = material(options, 7);
  for (const i of [0, 1, 99, 4_321]) {
    const x = buildCase(a, 7, i);
    const y = buildCase(b, 7, i);
    expect([x.kind, x.note, x.via]).toEqual([y.kind, y.note, y.via]);
  }
});
