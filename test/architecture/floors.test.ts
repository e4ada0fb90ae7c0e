/**
 * The floors of src/ (.dependency-cruiser.cjs, docs/architecture.md): `npm run lint:deps` passes on
 * the tree as it is, and fails, naming the rule, on a copy of src/ with one forbidden import added:
 * an upward one, one between two rooms of a floor, a circle, one into another room's subfolder, and
 * one into a room that has no floor.
 */
import { test, expect } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../src/paths.js';

test.describe.configure({ timeout: 120_000 });

const CRUISER = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
function cruise(dir: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CRUISER, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  // eslint-disable-next-line no-control-regex
  const plain = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, '');
  return { status: r.status, stdout: plain(r.stdout), stderr: plain(r.stderr) };
}

/** A copy of what the rules read: src/, the rules and tsconfig.json, with node_modules linked. */
function copyOfTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sadad-floors-'));
  cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
  cpSync(join(ROOT, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', allowJs: false }, include: ['src'] }));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

test('the tree keeps its floors: no upward import, no import between rooms of a floor, no circle, no reaching into a subfolder', () => {
  const r = cruise(ROOT);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toMatch(/no dependency violations found \(\d+ modules/);
});

const BREAKS: { what: string; rule: RegExp; edit: (dir: string) => void }[] = [
  { what: 'the contract reading a type of the package (an upward import)', rule: /error floor-contract: src\/contract\/probe\.ts → src\/reporter\/model\.ts/,
    edit: (d) => writeFileSync(join(d, 'src/contract/probe.ts'), "import type { CaseReport } from '../reporter/model.js';\nexport type Probe = CaseReport;\n") },
  { what: 'the suite importing the reporter (rooms of one floor)', rule: /error floor-suite: src\/suite\/probe\.ts → src\/reporter\/compare\.ts/,
    edit: (d) => writeFileSync(join(d, 'src/suite/probe.ts'), "export { compareReports } from '../reporter/compare.js';\n") },
  { what: 'a circle inside a room', rule: /error no-circular: src\/pacer\/probe-[ab]\.ts →\s+src\/pacer\/probe-[ab]\.ts/,
    edit: (d) => {
      writeFileSync(join(d, 'src/pacer/probe-a.ts'), "import { b } from './probe-b.js';\nexport const a = () => b;\n");
      writeFileSync(join(d, 'src/pacer/probe-b.ts'), "import { a } from './probe-a.js';\nexport const b = () => a;\n");
    } },
  { what: "the judge reaching into the mock's store", rule: /error no-internals: src\/judge\/probe\.ts → src\/mock\/store\/memory\.ts/,
    edit: (d) => writeFileSync(join(d, 'src/judge/probe.ts'), "export { MemoryStore } from '../mock/store/memory.js';\n") },
  { what: 'a room with no floor', rule: /error every-room-has-a-floor: src\/cli\/probe\.ts → src\/annex\/thing\.ts/,
    edit: (d) => {
      mkdirSync(join(d, 'src/annex'));
      writeFileSync(join(d, 'src/annex/thing.ts'), 'export const thing = 1;\n');
      writeFileSync(join(d, 'src/cli/probe.ts'), "export { thing } from '../annex/thing.js';\n");
    } },
  { what: 'an import added to an existing module: the vocabulary reading the suite', rule: /error floor-vocabulary: src\/vocabulary\/verdicts\.ts → src\/suite\/case\.ts/,
    edit: (d) => appendFileSync(join(d, 'src/vocabulary/verdicts.ts'), "\nexport type { CaseSpec } from '../suite/case.js';\n") },
];

test('each rule fails on a copy of the tree that breaks it, naming the rule and the import', () => {
  // one copy with every break: each is reported on its own line, and one cruise takes about 5 s
  const dir = copyOfTree();
  for (const b of BREAKS) b.edit(dir);
  const r = cruise(dir);
  expect(r.status, r.stdout).not.toBe(0);
  for (const b of BREAKS) expect(r.stdout, b.what).toMatch(b.rule);
});
