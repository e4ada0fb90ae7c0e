/**
 * `npm run spec -- diff <old> <new> [--json] [--html <file>] [--fail-on <class>] [--why]`: every
 * change between two versions of the API document, classified for clients and for the service
 * (src/spec/diff.ts, the table in src/spec/classify.ts; docs/spec-diff.md). src/cli/spec.ts hands
 * it the arguments after `diff`.
 *
 * Each of <old> and <new> is a document (.md, .markdown, .docx, .odt: imported in memory, nothing
 * written) or an imported spec: a folder holding field-tables.json and spec.json, as data/ does.
 * Exit 0, or 1 when `--fail-on` names a class a change is in (`any`: any change at all), or 2 on a
 * usage error or an input that cannot be read (nothing was compared).
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { ROOT } from '../paths.js';
import type { FieldTables } from '../contract/field-tables.js';
import type { SpecFacts } from '../contract/spec-model.js';
import { classesOf, type ChangeClass } from '../spec/classify.js';
import { diffSpecs, type CaseChanges, type SpecDiff } from '../spec/diff.js';
import { formatDiffText } from '../spec/diff-text.js';
import { importDocument, type ImportedSpec } from '../spec/import.js';

const USAGE = 'usage: npm run spec -- diff <old> <new> [--json] [--html <file>] [--fail-on breaking-for-clients|breaking-for-service|any] [--why] [--overrides <file>]\n' +
  '  <old>, <new>: a document (.md, .markdown, .docx, .odt) or a folder holding field-tables.json and spec.json (like data/)\n' +
  '  --overrides <file>: the reader\'s decisions a document is imported with (default: data/spec-overrides.json)';

/** What `--fail-on` accepts, and which changes each one fails on. */
const FAIL_ON: Record<string, { means: string; fails: (classes: ChangeClass[]) => boolean }> = {
  'breaking-for-clients': { means: 'a change breaking for clients', fails: (k) => k.includes('breaking-for-clients') },
  'breaking-for-service': { means: 'a change breaking for the service', fails: (k) => k.includes('breaking-for-service') },
  any: { means: 'any change, compatible and review included', fails: () => true },
};

const DOCUMENT_EXTENSIONS = ['.md', '.markdown', '.docx', '.odt'];

export interface DiffArgs { old: string; next: string; json: boolean; html: string | null; failOn: string | null; why: boolean; overrides: string | null }

export function parseDiffArgs(args: string[]): DiffArgs | { error: string } {
  const positional: string[] = [];
  const out = { json: false, html: null as string | null, failOn: null as string | null, why: false, overrides: null as string | null };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const value = (name: string): string | null => {
      if (a.startsWith(`${name}=`)) return a.slice(name.length + 1) || null;
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) return null;
      i++;
      return next;
    };
    if (a === '--json') out.json = true;
    else if (a === '--why') out.why = true;
    else if (a === '--html' || a.startsWith('--html=')) { const v = value('--html'); if (!v) return { error: '--html needs the file to write the page to' }; out.html = v; }
    else if (a === '--overrides' || a.startsWith('--overrides=')) { const v = value('--overrides'); if (!v) return { error: '--overrides needs the overrides file' }; out.overrides = v; }
    else if (a === '--fail-on' || a.startsWith('--fail-on=')) {
      const v = value('--fail-on');
      if (!v || !FAIL_ON[v]) return { error: `--fail-on takes one of ${Object.keys(FAIL_ON).join(', ')}${v ? `, not ${JSON.stringify(v)}` : ''}` };
      out.failOn = v;
    } else if (a === '--help' || a === '-h') return { error: '' };
    else if (a.startsWith('-') && a !== '-') return { error: `unknown option ${a}` };
    else positional.push(a);
  }
  if (positional.length !== 2) return { error: `name two versions of the document, the old one and the new one (${positional.length ? `got ${positional.length}: ${positional.join(' ')}` : 'got none'})` };
  return { old: positional[0]!, next: positional[1]!, ...out };
}

/** An input that cannot be read: the command says which, and compares nothing. */
class InputError extends Error {}

function readJson(file: string, what: string): unknown {
  let raw: string;
  try { raw = readFileSync(file, 'utf8'); } catch (e) {
    throw new InputError(`${file}: cannot read ${what}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  try { return JSON.parse(raw); } catch (e) { throw new InputError(`${file}: ${what} is not JSON: ${(e as Error).message}`); }
}

/** A folder like data/: field-tables.json and spec.json, each checked for the parts the diff reads. */
function readSpecFolder(dir: string): ImportedSpec {
  const tablesFile = join(dir, 'field-tables.json');
  const factsFile = join(dir, 'spec.json');
  const fieldTables = readJson(tablesFile, 'the field tables') as FieldTables;
  if (!fieldTables || typeof fieldTables !== 'object' || typeof fieldTables.messages !== 'object' || fieldTables.messages === null) {
    throw new InputError(`${tablesFile}: no "messages" object: not the field tables an import writes`);
  }
  for (const [key, t] of Object.entries(fieldTables.messages)) {
    if (!t || typeof t.message !== 'string' || typeof t.section !== 'string' || !Array.isArray(t.fields) || t.fields.some((f) => typeof f?.path !== 'string')) {
      throw new InputError(`${tablesFile}: messages["${key}"] needs a message, a section and fields with paths: not the field tables an import writes`);
    }
  }
  const facts = readJson(factsFile, 'the spec facts') as SpecFacts;
  for (const key of ['operations', 'headers', 'rules', 'limits', 'sections'] as const) {
    if (!facts || !Array.isArray(facts[key])) throw new InputError(`${factsFile}: no "${key}" list: not the spec.json an import writes`);
  }
  if (!facts.document || typeof facts.document.title !== 'string') throw new InputError(`${factsFile}: no "document" with a title: not the spec.json an import writes`);
  return { fieldTables, facts };
}

/** One of the two inputs read; what goes wrong is said with which one it was (`old`, `new`). */
async function readVersion(input: string, which: 'old' | 'new', overrides: string | null): Promise<ImportedSpec> {
  const path = resolve(input);
  const fail = (why: string): never => { throw new InputError(`the ${which} version, ${input}: ${why}`); };
  let isDir = false;
  try { isDir = statSync(path).isDirectory(); } catch { fail('no such file or folder'); }
  if (isDir) {
    try { return readSpecFolder(path); } catch (e) { return fail((e as Error).message); }
  }
  if (!DOCUMENT_EXTENSIONS.includes(extname(path).toLowerCase())) {
    fail(`neither a document (${DOCUMENT_EXTENSIONS.join(', ')}) nor a folder holding field-tables.json and spec.json`);
  }
  // the importer names the line and section it could not read, or that pandoc is missing
  try { return await importDocument(path, overrides ? { overrides: resolve(overrides) } : {}); } catch (e) { return fail((e as Error).message); }
}

function generator(): string {
  try {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name?: string; version?: string };
    return `${pkg.name ?? 'sadad-conformance'} ${pkg.version ?? ''}`.trim();
  } catch { return 'sadad-conformance'; }
}

export interface DiffExtras {
  /** The cases a change adds, removes or changes (the lead's mapping); shown where it answers. */
  cases?: (old: ImportedSpec, next: ImportedSpec) => Promise<CaseChanges | null>;
}

/** The JSON `--json` prints: the SpecDiff, with the cases where they are known. */
export type SpecDiffOutput = SpecDiff & { cases?: CaseChanges };

export async function runDiff(args: string[], extras: DiffExtras = {}): Promise<number> {
  const parsed = parseDiffArgs(args);
  if ('error' in parsed) {
    if (!parsed.error) { console.log(USAGE); return 0; }
    console.error(`spec diff: ${parsed.error}\n${USAGE}`);
    return 2;
  }
  let old: ImportedSpec;
  let next: ImportedSpec;
  try {
    old = await readVersion(parsed.old, 'old', parsed.overrides);
    next = await readVersion(parsed.next, 'new', parsed.overrides);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    console.error(`spec diff: ${e.message}\nNothing was compared.`);
    return 2;
  }
  const diff = diffSpecs(old, next);
  const cases = extras.cases ? await extras.cases(old, next) : null;
  // stdout carries the JSON alone under --json; what else is said goes to stderr then
  const say = parsed.json ? (s: string) => console.error(s) : (s: string) => console.log(s);
  if (parsed.json) {
    const out: SpecDiffOutput = cases ? { ...diff, cases } : diff;
    console.log(JSON.stringify(out, null, 2));
  } else {
    console.log(formatDiffText(diff, { why: parsed.why, cases }));
  }
  if (parsed.html) {
    try {
      // loaded only for --html: the report's kit reads the operation catalogue (data/spec.json), which
      // comparing two documents never needs, nor `npm run spec -- import` before data/spec.json exists
      const { renderSpecDiffHtml } = await import('../reporter/html-spec-diff.js');
      writeFileSync(parsed.html, renderSpecDiffHtml(diff, { cases, generator: generator() }));
    } catch (e) {
      console.error(`spec diff: --html ${parsed.html}: cannot write the page: ${(e as Error).message}`);
      return 2;
    }
    say(`The diff as a page: ${parsed.html}`);
  }
  if (parsed.failOn) {
    const rule = FAIL_ON[parsed.failOn]!;
    const failing = diff.changes.filter((c) => rule.fails(classesOf(c))).length;
    if (failing) {
      say(`--fail-on ${parsed.failOn}: ${failing} change${failing === 1 ? '' : 's'} (${rule.means}): exit 1`);
      return 1;
    }
  }
  return 0;
}
