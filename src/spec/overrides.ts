/**
 * data/spec-overrides.json: what the importer cannot read from the document's tables and a person
 * decided instead (an alias a note gives in prose, a format the section's introduction states,
 * children given in a meaning cell, the project's names for the operations). Each entry names the
 * section and the target it changes, what it sets or adds, and why. An entry whose target the
 * document no longer has stops the import: a decision about a row that is gone must be made again.
 *
 * File shape: `{ "$comment": "...", "overrides": [entry, ...] }`, an entry:
 *   { "section": "2.4" | ["2.2", "2.4"], "target": "TransactionData[].BillerID" | [...],
 *     "set": { ... } | "add": [ { ... }, ... ] | "moveAfter": "<sibling>", "reason": "..." }
 * A field target is the end of a row's path (`TimeStamp`, `Fees[]`); an operation target (the
 * endpoints section) is the operation's id. Every section x target pair must match exactly once.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { FieldRow } from '../contract/field-tables.js';
import { SpecImportError } from './errors.js';
import { isFieldType, isFormat, SAMPLE_TYPES } from './vocabulary.js';

export interface OverrideEntry {
  /** 1-based position in the file, for messages. */
  index: number;
  section: string[];
  target: string[];
  set?: Record<string, unknown>;
  add?: Record<string, unknown>[];
  /** The name of a sibling under the same parent: the target row (and its children) goes right after it. */
  moveAfter?: string;
  reason: string;
}

export interface SpecOverrides {
  /** The file's base name, for messages. */
  name: string;
  entries: OverrideEntry[];
}

export const NO_OVERRIDES: SpecOverrides = { name: '(no overrides)', entries: [] };

type Check = (v: unknown) => string | null;
const isString: Check = (v) => (typeof v === 'string' && v.length > 0 ? null : 'a non-empty string');
const isBoolean: Check = (v) => (typeof v === 'boolean' ? null : 'true or false');
const oneOf = (values: readonly string[]): Check => (v) => (typeof v === 'string' && values.includes(v) ? null : `one of ${values.join(', ')}`);

/** What an entry may set on a field row, each with its check. */
export const FIELD_SETTABLE: Record<string, Check> = {
  aliases: (v) => (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === 'string' && /^[A-Za-z_]\w*$/.test(a)) ? null : 'a list of tag names'),
  type: (v) => (typeof v === 'string' && isFieldType(v) ? null : 'a known type (String, Numerical, Boolean, Object, Alphanumeric)'),
  format: (v) => (typeof v === 'string' && isFormat(v) ? null : 'a known format (YYYYMMDD, YYYY-MM-DDTHH:MM:SS)'),
  sampleType: oneOf(SAMPLE_TYPES),
  sampleFormat: isString,
  const: isString,
  maxLength: (v) => (Number.isInteger(v) && (v as number) > 0 ? null : 'a positive whole number'),
  pattern: oneOf(['alphanumeric']),
  required: isBoolean,
};

/** What an added field row holds: its name under the target, and what a row may set. */
export const FIELD_ADDABLE: Record<string, Check> = { name: (v) => (typeof v === 'string' && /^[A-Za-z_]\w*(\[\])?$/.test(v) ? null : 'a tag name'), ...FIELD_SETTABLE };

/** What an entry may set on an operation of the endpoints table. */
export const OPERATION_SETTABLE: Record<string, Check> = {
  title: isString,
  clientHeaders: isBoolean,
  rateGroup: (v) => (typeof v === 'string' && /^[a-z][a-z0-9-]*$/.test(v) ? null : 'a lower-case group name'),
};

const label = (e: Pick<OverrideEntry, 'index' | 'section' | 'target'>) => `entry ${e.index} (§${e.section.join(', §')} ${e.target.join(', ')})`;
export const entryLabel = label;

function checkKeys(what: Record<string, unknown>, allowed: Record<string, Check>, fail: (d: string) => never, where: string): void {
  for (const [key, value] of Object.entries(what)) {
    const check = allowed[key];
    if (!check) fail(`${where}: "${key}" cannot be set (settable: ${Object.keys(allowed).join(', ')})`);
    const wrong = check(value);
    if (wrong) fail(`${where}: "${key}" must be ${wrong}, not ${JSON.stringify(value)}`);
  }
}

/** What an entry does to its target: exactly one of these. */
const ACTIONS = ['set', 'add', 'moveAfter'] as const;

const list = (v: unknown): string[] | null => (typeof v === 'string' ? [v] : Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string') ? v : null);

/**
 * Reads the overrides file's text. The shape is checked here; whether each target exists, and
 * whether what it sets suits the target (field or operation), is checked against the document.
 */
export function parseOverrides(text: string, name: string): SpecOverrides {
  const fail = (detail: string): never => { throw new SpecImportError({ source: name }, detail); };
  let json: unknown;
  try { json = JSON.parse(text); } catch (e) { fail(`not JSON: ${(e as Error).message}`); }
  const entries = (json as { overrides?: unknown } | null)?.overrides;
  if (!Array.isArray(entries)) fail('expected { "overrides": [ ... ] }');
  return {
    name,
    entries: (entries as unknown[]).map((raw, i): OverrideEntry => {
      const e = (raw ?? {}) as Record<string, unknown>;
      const where = `entry ${i + 1}`;
      const unknown = Object.keys(e).filter((k) => !['section', 'target', ...ACTIONS, 'reason'].includes(k));
      if (unknown.length) fail(`${where}: unknown key ${unknown.map((k) => `"${k}"`).join(', ')} (an entry has section, target, one of ${ACTIONS.join(', ')}, reason)`);
      const section = list(e.section)?.map((s) => s.replace(/^§/, ''));
      const target = list(e.target);
      if (!section) fail(`${where}: "section" must be a section number like "2.4", or a list of them`);
      if (!target) fail(`${where}: "target" must be a row path end or an operation id, or a list of them`);
      if (typeof e.reason !== 'string' || e.reason.trim().length < 10) fail(`${where}: "reason" must say in a sentence why the document is read this way`);
      if (ACTIONS.filter((a) => e[a] !== undefined).length !== 1) fail(`${where}: give exactly one of "set" (change the target), "add" (rows under the target), "moveAfter" (put the target after a sibling)`);
      if (e.set !== undefined && (typeof e.set !== 'object' || e.set === null || Array.isArray(e.set) || !Object.keys(e.set).length)) fail(`${where}: "set" must be an object of what to change`);
      if (e.add !== undefined && (!Array.isArray(e.add) || !e.add.length || !e.add.every((r) => typeof r === 'object' && r !== null && !Array.isArray(r)))) fail(`${where}: "add" must be a list of rows`);
      if (e.moveAfter !== undefined && (typeof e.moveAfter !== 'string' || !/^[A-Za-z_]\w*(\[\])?$/.test(e.moveAfter))) fail(`${where}: "moveAfter" must be the name of a sibling row`);
      return {
        index: i + 1, section: section!, target: target!, reason: e.reason as string,
        ...(e.set !== undefined ? { set: e.set as Record<string, unknown> } : {}),
        ...(e.add !== undefined ? { add: e.add as Record<string, unknown>[] } : {}),
        ...(e.moveAfter !== undefined ? { moveAfter: e.moveAfter as string } : {}),
      };
    }),
  };
}

export async function loadOverrides(file: string): Promise<SpecOverrides> {
  let text: string;
  try { text = await readFile(file, 'utf8'); } catch (e) {
    throw new SpecImportError({ source: basename(file) }, `cannot read the overrides file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseOverrides(text, basename(file));
}

/** Checks what an entry sets or adds against the kind of target it names. */
export function checkEntry(e: OverrideEntry, kind: 'field' | 'operation', fail: (d: string) => never): void {
  const where = label(e);
  if (kind === 'operation') {
    if (!e.set) fail(`${where}: an operation can only be changed with "set"`);
    checkKeys(e.set!, OPERATION_SETTABLE, fail, where);
    return;
  }
  if (e.set) checkKeys(e.set, FIELD_SETTABLE, fail, where);
  for (const row of e.add ?? []) {
    checkKeys(row, FIELD_ADDABLE, fail, where);
    if (!row.name || !row.type) fail(`${where}: an added row needs at least "name" and "type"`);
  }
}

export type AddedRow = Omit<FieldRow, 'path' | 'required'> & { name: string; required?: boolean };
