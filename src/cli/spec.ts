/**
 * `npm run spec -- <command>`: the API document as the source of the project's contract
 * (design.md §13, docs/spec.md).
 *
 *   import <document>   reads the document (Markdown, or Word/OpenDocument through pandoc) and
 *                       writes data/field-tables.json and data/spec.json, then regenerates the
 *                       schemas and the OpenAPI file from them
 *   diff <old> <new>    every change between two versions, classified (src/cli/spec-diff.ts)
 *
 * Exit codes: 0 done, 1 the document could not be imported (nothing written) or a generator
 * failed, 2 a usage error.
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DATA_DIR, ROOT } from '../paths.js';
import { DEFAULT_OVERRIDES, importDocument, SpecImportError, type ImportedSpec } from '../spec/import.js';
import { loadOverrides } from '../spec/overrides.js';
import { writeSpec } from '../spec/write.js';

type Out = { log: (s: string) => void; error: (s: string) => void };

interface Command { usage: string; what: string; run: (args: string[], out: Out) => Promise<number> }

/** What `import` regenerates from the files it wrote, in this order (each a child process). */
const GENERATORS = [
  { script: 'scripts/gen-schemas.ts', writes: 'schemas/*.schema.json' },
  { script: 'scripts/gen-openapi.ts', writes: 'schemas/openapi.json' },
];

const IMPORT_USAGE = 'import <document> [--out <dir>] [--overrides <file>] [--no-generate]';
const IMPORT_HELP = `npm run spec -- ${IMPORT_USAGE}

  <document>           the API document: .md/.markdown (GFM tables), or .docx/.odt (converted by pandoc)
  --out <dir>          write field-tables.json and spec.json into <dir> instead of data/ (no regeneration)
  --overrides <file>   the reader's decisions to apply (default: ${relative(ROOT, DEFAULT_OVERRIDES)})
  --no-generate        write data/ only; do not rewrite schemas/ and schemas/openapi.json

Nothing is written unless the whole document is read; an error names the line and section.`;

/** The options of `import`: each flag, whether it takes a value, and where it goes. */
const IMPORT_FLAGS: Record<string, { value: boolean; key: 'out' | 'overrides' | 'noGenerate' }> = {
  '--out': { value: true, key: 'out' },
  '--overrides': { value: true, key: 'overrides' },
  '--no-generate': { value: false, key: 'noGenerate' },
};

async function runImport(args: string[], out: Out): Promise<number> {
  const opts: { out?: string; overrides?: string; noGenerate?: boolean } = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') { out.log(IMPORT_HELP); return 0; }
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const flag = IMPORT_FLAGS[name];
    if (!flag && arg.startsWith('-')) { out.error(`spec import: unknown option ${arg}\nusage: npm run spec -- ${IMPORT_USAGE}`); return 2; }
    if (!flag) { positional.push(arg); continue; }
    if (!flag.value) { (opts as Record<string, unknown>)[flag.key] = true; continue; }
    const value = inline ?? args[++i];
    if (!value || value.startsWith('--')) { out.error(`spec import: ${name} needs a value\nusage: npm run spec -- ${IMPORT_USAGE}`); return 2; }
    (opts as Record<string, unknown>)[flag.key] = value;
  }
  if (positional.length !== 1) {
    out.error(`spec import: ${positional.length ? `one document, not ${positional.length}` : 'which document?'}\nusage: npm run spec -- ${IMPORT_USAGE}`);
    return 2;
  }
  const document = resolve(positional[0]!);
  const overridesFile = resolve(opts.overrides ?? DEFAULT_OVERRIDES);
  let spec;
  let overrides;
  try {
    overrides = await loadOverrides(overridesFile);
    spec = await importDocument(document, { overrides: overridesFile });
  } catch (e) {
    if (!(e instanceof SpecImportError)) throw e;
    out.error(`spec import: ${e.message}\nnothing was written`);
    return 1;
  }
  const dir = opts.out ? resolve(opts.out) : DATA_DIR;
  const show = (f: string) => (relative(process.cwd(), f).startsWith('..') ? f : relative(process.cwd(), f) || '.');
  for (const file of writeSpec(dir, spec)) out.log(`wrote ${show(file)}`);
  if (!opts.out && !opts.noGenerate) {
    for (const g of GENERATORS) {
      const run = spawnSync(process.execPath, ['--import', 'tsx', g.script], { cwd: ROOT, encoding: 'utf8', env: process.env });
      if (run.status !== 0) {
        out.error(`spec import: ${g.script} failed (exit ${run.status ?? run.signal}): ${(run.stderr || run.stdout).trim()}\nthe data files are written; fix the generator and run it again (npm run ${g.script.includes('openapi') ? 'openapi' : 'schemas'})`);
        return 1;
      }
      out.log(`wrote ${show(join(ROOT, g.writes))}`);
    }
  }
  const messages = Object.values(spec.fieldTables.messages);
  const f = spec.facts;
  out.log(`imported ${f.document.source} (${f.document.sha256.slice(0, 19)}…): ${messages.length} messages, ${messages.reduce((n, m) => n + m.fields.length, 0)} fields, `
    + `${f.operations.length} operations, ${f.headers.length} headers, ${f.rules.length} rules, ${overrides.entries.length} overrides applied`);
  return 0;
}

async function runDiffCommand(args: string[], out: Out): Promise<number> {
  let mod: typeof import('./spec-diff.js');
  try {
    mod = await import('./spec-diff.js');
  } catch (e) {
    out.error(`spec diff: not available (src/cli/spec-diff.ts could not be loaded: ${(e as Error).message})`);
    return 2;
  }
  // the cases each change adds, removes or changes, by this project's suite (replay/spec-change.ts);
  // loaded only here: the suite loads the catalogue, which needs this project's data/ to be readable
  const cases = async (old: ImportedSpec, next: ImportedSpec) => {
    try {
      const { casesChange } = await import('../replay/spec-change.js');
      return casesChange(old, next);
    } catch (e) {
      out.error(`spec diff: the cases are left out: this project's suite did not load (${(e as Error).message.split('\n')[0]})`);
      return null;
    }
  };
  return mod.runDiff(args, { cases });
}

const COMMANDS: Record<string, Command> = {
  import: { usage: IMPORT_USAGE, what: 'read the API document into data/field-tables.json and data/spec.json, then regenerate schemas/', run: runImport },
  diff: { usage: 'diff <old> <new> [--json] [--html <file>] [--fail-on <class>]', what: 'every change between two versions of the document, classified (docs/spec-diff.md)', run: runDiffCommand },
};

const HELP = `npm run spec -- <command>   (docs/spec.md)

${Object.values(COMMANDS).map((c) => `  ${c.usage}\n      ${c.what}`).join('\n')}

npm run spec -- <command> --help   for a command's options`;

export async function spec(args: string[], out: Out = console): Promise<number> {
  const [name, ...rest] = args;
  if (!name || name === '--help' || name === '-h' || name === 'help') { (name ? out.log : out.error)(HELP); return name ? 0 : 2; }
  const command = COMMANDS[name];
  if (!command) { out.error(`spec: unknown command ${JSON.stringify(name)}\n\n${HELP}`); return 2; }
  return command.run(rest, out);
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = await spec(process.argv.slice(2));
}
