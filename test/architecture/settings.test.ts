/**
 * One settings object (src/config/settings.ts): outside src/config and the entry points in src/cli,
 * no module reads the process's environment; everything else is given the settings, or the part it
 * needs, as a parameter. Read from the syntax tree (swc's parser, which dependency-cruiser uses too), so that a comment or a
 * string that names `process.env` does not count and `process['env']` or `const { env } = process`
 * does; the checker is shown failing on each form.
 */
import { test, expect } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseSync } from '@swc/core';
import { ROOT } from '../../src/paths.js';

/** Where reading the environment is the job. */
const ALLOWED = /^src\/(config|cli)\//;

type Node = { type?: string; span?: { start: number }; [key: string]: unknown };

/** Each place `source` reads the process's environment, as `line: text`. */
function envReads(file: string, source: string): string[] {
  const ast = parseSync(source, { syntax: 'typescript', comments: false }) as unknown as Node;
  // swc's offsets run on across the files it parsed: the module's own start is the origin (1-based)
  const origin = ast.span!.start;
  const found: string[] = [];
  const isProcess = (n: unknown) => (n as Node)?.type === 'Identifier' && (n as Node).value === 'process';
  const named = (n: unknown, name: string): boolean => {
    const k = n as Node;
    return (k?.type === 'Identifier' && k.value === name) || (k?.type === 'StringLiteral' && k.value === name) || (k?.type === 'Computed' && named(k.expression, name));
  };
  const at = (n: Node) => {
    const offset = Buffer.from(source).subarray(0, n.span!.start - origin).toString().length;
    return `${source.slice(0, offset).split('\n').length}: ${source.slice(offset, offset + 60).split('\n')[0]}`;
  };
  const visit = (n: unknown): void => {
    if (Array.isArray(n)) { for (const x of n) visit(x); return; }
    if (!n || typeof n !== 'object') return;
    const node = n as Node;
    if (node.type === 'MemberExpression' && isProcess(node.object) && named(node.property, 'env')) found.push(at(node));
    if (node.type === 'VariableDeclarator' && isProcess(node.init) && (node.id as Node)?.type === 'ObjectPattern'
      && ((node.id as Node).properties as Node[]).some((p) => named(p.key, 'env'))) found.push(at(node));
    for (const [k, v] of Object.entries(node)) if (k !== 'span') visit(v);
  };
  visit(ast);
  return found;
}

const sources = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true })
  .flatMap((e) => (e.isDirectory() ? sources(`${dir}/${e.name}`) : e.name.endsWith('.ts') ? [`${dir}/${e.name}`] : []));

test('outside src/config and src/cli, no module reads process.env: the settings are passed down', () => {
  const files = sources('src').filter((f) => !ALLOWED.test(f));
  expect(files.length).toBeGreaterThan(100);
  const reads = files.flatMap((f) => envReads(f, readFileSync(join(ROOT, f), 'utf8')).map((r) => `${f}:${r}`));
  expect(reads, 'read the settings in src/config (settings.ts) and pass them as a parameter').toEqual([]);
  // the rooms that read it are there, and are seen reading it
  const config = relative(ROOT, join(ROOT, 'src/config/settings.ts'));
  expect(envReads(config, readFileSync(join(ROOT, config), 'utf8')).length).toBeGreaterThan(0);
});

test('the check sees every form of reading the environment, and no mention of it', () => {
  const suite = readFileSync(join(ROOT, 'src/suite/runtime.ts'), 'utf8');
  expect(envReads('src/suite/runtime.ts', suite)).toEqual([]);
  for (const [form, line] of [
    ['a property', 'const url = process.env.SADAD_BASE_URL;'],
    ['an index', "const url = process['env'].SADAD_BASE_URL;"],
    ['a default parameter', 'export function f(env: NodeJS.ProcessEnv = process.env) { return env; }'],
    ['a destructuring', 'const { env } = process;'],
    ['a renamed destructuring', 'const { env: vars } = process;'],
  ] as const) {
    expect(envReads('src/suite/runtime.ts', `${suite}\n${line}\n`), form).toHaveLength(1);
  }
  for (const mention of ['// process.env is read in src/config', "const s = 'process.env';", '/** `process.env` */ const x = 1;', 'const other = { env: 1 }.env;']) {
    expect(envReads('src/suite/runtime.ts', `${suite}\n${mention}\n`), mention).toEqual([]);
  }
});
