/**
 * The importer (src/spec/import.ts, `npm run spec -- import`): the API document gives exactly the
 * committed data/field-tables.json and data/spec.json, the hand transcription the project started
 * from, and the catalogue's operations; a document it cannot read is refused with the line and
 * section, and nothing is written; a Word document gives the same as its Markdown.
 *
 * The changed documents are made here from the real one by small edits, never kept as copies.
 */
import { asWritten } from '../../src/spec/write.js';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { DEFAULT_RATE_WINDOW_SECONDS, operationFromSpec, operations } from '../../src/contract/catalogue.js';
import { requiredHeaderNames } from '../../src/contract/headers.js';
import { checkSpecFacts } from '../../src/contract/spec-facts.js';
import type { SpecFacts } from '../../src/contract/spec-model.js';
import { DATA_DIR, ROOT } from '../../src/paths.js';
import { DEFAULT_OVERRIDES, importDocument, importMarkdown, SpecImportError, type ImportedSpec } from '../../src/spec/import.js';
import { loadOverrides, NO_OVERRIDES, parseOverrides, type SpecOverrides } from '../../src/spec/overrides.js';
import { PANDOC_MISSING, wordToMarkdown } from '../../src/spec/word.js';
import { renderFacts, renderFieldTables } from '../../src/spec/write.js';

const DOC = join(ROOT, '..', 'shared', 'spec', 'api-spec.md');
const TEXT = readFileSync(DOC, 'utf8');
const SOURCE = { name: 'api-spec.md', sha256: createHash('sha256').update(readFileSync(DOC)).digest('hex') };
const committed = {
  fieldTables: readFileSync(join(DATA_DIR, 'field-tables.json'), 'utf8'),
  facts: readFileSync(join(DATA_DIR, 'spec.json'), 'utf8'),
};
const TRANSCRIPTION_COMMIT = 'daf866c';

let overrides: SpecOverrides;
test.beforeAll(async () => { overrides = await loadOverrides(DEFAULT_OVERRIDES); });

const tempDir = () => mkdtempSync(join(tmpdir(), 'spec-import-'));

/** The document with one passage replaced; the passage must be there (else the edit tests nothing). */
function edit(text: string, from: string | RegExp, to: string): string {
  const found = typeof from === 'string' ? text.includes(from) : from.test(text);
  if (!found) throw new Error(`the document has no ${String(from)} any more: update the test's edit`);
  return text.replace(from, to);
}
const lineOf = (text: string, needle: string) => {
  const at = text.indexOf(needle);
  if (at < 0) throw new Error(`no ${needle} in the document`);
  return text.slice(0, at).split('\n').length;
};

function importError(text: string, with_: SpecOverrides = overrides): SpecImportError {
  try {
    importMarkdown(text, SOURCE, with_);
  } catch (e) {
    if (e instanceof SpecImportError) return e;
    throw e;
  }
  throw new Error('the edited document was imported without an error');
}

/** The facts without what depends on the imported file's bytes and name. */
const apartFromSource = (f: SpecFacts) => ({ ...f, document: { ...f.document, source: '', sha256: '' } });

test.describe('the document as it is', () => {
  let imported: ImportedSpec;
  test.beforeAll(async () => { imported = await importDocument(DOC); });

  test('gives exactly the committed data/field-tables.json and data/spec.json, byte for byte', () => {
    expect(imported.fieldTables).toEqual(JSON.parse(committed.fieldTables));
    expect(asWritten(imported.facts)).toEqual(JSON.parse(committed.facts));
    // the document's sentences stay out of the project: its rules and header meanings by digest and values only
    expect(committed.facts).not.toContain(imported.facts.rules[0]!.text!);
    expect(JSON.parse(committed.facts).rules.every((r: Record<string, unknown>) => !('text' in r) && typeof r.digest === 'string')).toBe(true);
    expect(renderFieldTables(imported.fieldTables)).toBe(committed.fieldTables);
    expect(renderFacts(imported.facts)).toBe(committed.facts);
    expect(imported.facts.document).toEqual({ title: expect.any(String), source: 'api-spec.md', sha256: `sha256:${SOURCE.sha256}`, version: null });
  });

  test(`gives the hand transcription of the field tables the project was built from (git ${TRANSCRIPTION_COMMIT})`, () => {
    const git = spawnSync('git', ['show', `${TRANSCRIPTION_COMMIT}:data/field-tables.json`], { cwd: ROOT, encoding: 'utf8' });
    test.skip(!!git.error, `git is not available (${git.error?.message}): the comparison with the hand transcription of ${TRANSCRIPTION_COMMIT} cannot be made here`);
    test.skip(git.status !== 0 && /not a git repository/i.test(git.stderr), `the project is not a git checkout: the comparison with the hand transcription of ${TRANSCRIPTION_COMMIT} cannot be made here`);
    test.skip(git.status !== 0 && /invalid object|bad revision|does not exist|unknown revision|ambiguous argument/i.test(git.stderr),
      `the history holds no ${TRANSCRIPTION_COMMIT} (a shallow clone?): the comparison with the hand transcription cannot be made here`);
    expect(git.status, git.stderr).toBe(0);
    expect(imported.fieldTables).toEqual(JSON.parse(git.stdout));
  });

  test("the catalogue's operations, rate window and required headers are the imported facts", () => {
    const facts = imported.facts;
    expect(operations).toEqual(facts.operations.map((o) => ({
      id: o.id, title: o.title, method: o.method, path: o.path, transactionType: o.transactionType, kind: o.kind, rateGroup: o.rateGroup,
      defaultRateLimit: o.rateLimit, requestRoot: o.requestRoot, responseRoot: o.responseRoot, listTag: o.listTag,
      responseSequenceField: o.responseSequenceField, clientHeaders: o.clientHeaders, sections: o.sections,
    })));
    expect(facts.operations.map((o) => o.windowSeconds)).toEqual(operations.map(() => DEFAULT_RATE_WINDOW_SECONDS));
    expect(requiredHeaderNames(facts.prefix)).toEqual(facts.headers.map((h) => h.name));
    expect(requiredHeaderNames('SV')).toContain('SVReferenceID');
    expect(requiredHeaderNames('SV')).not.toContain('SvcReferenceID');
  });

  test('every override changes what the document alone gives, and only where it says', () => {
    const bare = importMarkdown(TEXT, SOURCE, NO_OVERRIDES);
    const rows = (s: ImportedSpec) => Object.values(s.fieldTables.messages).flatMap((m) => m.fields);
    const changed = rows(imported).filter((r) => !rows(bare).some((b) => JSON.stringify(b) === JSON.stringify(r))).map((r) => r.path);
    expect(changed.filter((p) => p.endsWith('.BillerID'))).toHaveLength(5);
    expect(changed.filter((p) => p.endsWith('.TimeStamp'))).toHaveLength(4);
    expect(changed.filter((p) => /\.(envelopeDateTime|FeeAmount|FeeType)$/.test(p))).toHaveLength(3);
    expect(changed).toHaveLength(12);
    const order = (s: ImportedSpec) => s.fieldTables.messages['bill-payment.response']!.fields.map((f) => f.path.split('.').pop());
    expect(order(bare).indexOf('MessageDescription')).toBeLessThan(order(bare).indexOf('TransactionReferenceNumber'));
    expect(order(imported).indexOf('MessageDescription')).toBeGreaterThan(order(imported).indexOf('TransactionReferenceNumber'));
    expect(bare.facts.operations.map((o) => [o.title, o.clientHeaders])).toEqual([['Bill Enquiry', false], ['Bill Payment', false], ['MOI Enquiry', false], ['MOI Payment', false]]);
    expect(imported.facts.operations.map((o) => [o.title, o.clientHeaders])).toEqual([['Bill Enquiry', true], ['Bill Payment', true], ['MOI Fee Enquiry', false], ['MOI Fee Payment', false]]);
  });
});

test.describe('a document it cannot read: the line and section, and nothing else', () => {
  /** Each kind of unreadable document: the edit, where the error must point, what it must say. */
  const CASES: { name: string; make: () => { text: string; line: number; section: string; says: RegExp } }[] = [
    {
      name: 'a column renamed',
      make: () => {
        const text = edit(TEXT, '| Path | Required | Type | Meaning |', '| Path | Required | Kind | Meaning |');
        return { text, line: lineOf(text, '| Path | Required | Kind |'), section: '2.1', says: /the field table of §2\.1 has no "Type" column \(its columns: Path, Required, Kind, Meaning\)/ };
      },
    },
    {
      name: 'a required section removed',
      make: () => {
        const text = edit(TEXT, /## 5\. Authentication[\s\S]*?(?=## 6\.)/, '');
        return { text, line: lineOf(text, '## 6.'), section: '5', says: /required section 5 \(the header table\) is missing/ };
      },
    },
    {
      name: 'a type it does not know',
      make: () => {
        const text = edit(TEXT, '| ...AccountNumber | yes | Alphanumeric |', '| ...AccountNumber | yes | Integer |');
        return { text, line: lineOf(text, '| ...AccountNumber | yes | Integer |'), section: '2.1', says: /unknown type "Integer" .*known: String, Numerical, Boolean, Object, Alphanumeric/ };
      },
    },
    {
      name: 'a row whose depth has no parent',
      make: () => {
        const text = edit(TEXT, '| ...SequenceNumber | yes |', '| ....SequenceNumber | yes |');
        return { text, line: lineOf(text, '| ....SequenceNumber |'), section: '2.1', says: /"\.\.\.\.SequenceNumber" has no parent: no Object row at depth 3/ };
      },
    },
    {
      name: 'an override whose target the document no longer has',
      make: () => {
        const text = edit(TEXT, /\| \.\.\.envelopeDateTime \|.*\n/, '');
        return { text, line: lineOf(text, '### 2.4'), section: '2.4', says: /spec-overrides\.json entry \d+ \(§2\.4 TransactionData\[\]\.envelopeDateTime\): the table has no row "TransactionData\[\]\.envelopeDateTime" any more/ };
      },
    },
    {
      name: 'an endpoint whose body section has no table',
      make: () => {
        const text = edit(TEXT, '| 2.5 | 2.6 |', '| 2.5 | 2.9 |');
        return { text, line: lineOf(text, '### 2.9'), section: '2.9', says: new RegExp(`MOI Enquiry's response body \\(endpoints table, line ${lineOf(text, '| 2.5 | 2.9 |')}\\): §2\\.9 has no field table`) };
      },
    },
    {
      name: "§4's TransactionType rule disagreeing with the tables",
      make: () => {
        const text = edit(TEXT, '`SADADTRN` for Bill Payment', '`SADADPAY` for Bill Payment');
        return { text, line: lineOf(text, '`SADADPAY` for Bill Payment') , section: '4', says: /rule 4\.2 gives SADADPAY for Bill Payment; its tables \(§2\.3, §2\.4\) fix SADADTRN/ };
      },
    },
    {
      name: "§8's rate disagreeing with the endpoints table",
      make: () => {
        const text = edit(TEXT, '| Sandbox rate, MOI Enquiry and MOI Payment | 3 calls per minute |', '| Sandbox rate, MOI Enquiry and MOI Payment | 4 calls per minute |');
        return { text, line: lineOf(text, '| Sandbox rate, MOI Enquiry'), section: '8', says: /MOI Enquiry: the limits table says 4 calls per minute, the endpoints table \(line \d+\) says 3 per 60 s/ };
      },
    },
  ];

  for (const c of CASES) {
    test(`${c.name}: a SpecImportError at its line`, () => {
      const { text, line, section, says } = c.make();
      const e = importError(text);
      expect(e.message).toMatch(new RegExp(`^api-spec\\.md:${line} \\(§${section.replace('.', '\\.')}\\): `));
      expect(e.message).toMatch(says);
    });
  }

  test('the CLI writes nothing: the output folder keeps what it had, exit 1 with the error', () => {
    const dir = tempDir();
    try {
      const doc = join(dir, 'api-spec.md');
      writeFileSync(doc, edit(TEXT, '| ...AccountNumber | yes | Alphanumeric |', '| ...AccountNumber | yes | Integer |'));
      const out = join(dir, 'out');
      mkdirSync(out);
      writeFileSync(join(out, 'field-tables.json'), 'before\n');
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/spec.ts', 'import', doc, '--out', out], { cwd: ROOT, encoding: 'utf8' });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain(`api-spec.md:${lineOf(TEXT, '| ...AccountNumber |')} (§2.1): unknown type "Integer"`);
      expect(run.stderr).toContain('nothing was written');
      expect(readdirSync(out)).toEqual(['field-tables.json']);
      expect(readFileSync(join(out, 'field-tables.json'), 'utf8')).toBe('before\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an overrides file that is not what it should be names the entry', () => {
    const entry = { section: '2.4', target: 'TimeStamp', set: { format: 'YYYYMMDD' } };
    expect(() => parseOverrides(JSON.stringify({ overrides: [entry] }), 'o.json')).toThrow(/^o\.json: entry 1: "reason" must say/);
    expect(() => parseOverrides(JSON.stringify({ overrides: [{ ...entry, reason: 'a reason long enough', add: [] }] }), 'o.json')).toThrow(/entry 1: give exactly one of "set"/);
    const wrong = parseOverrides(JSON.stringify({ overrides: [{ ...entry, set: { format: 'DDMMYYYY' }, reason: 'a reason long enough' }] }), 'o.json');
    expect(importError(TEXT, wrong).message).toMatch(/^api-spec\.md:\d+ \(§2\.4\): o\.json entry 1 \(§2\.4 TimeStamp\): "format" must be a known format/);
  });
});

test.describe('what the code knows', () => {
  const facts = JSON.parse(committed.facts) as SpecFacts;

  test('an operation the code does not know stops the catalogue at load, saying it needs code', () => {
    const op = facts.operations[0]!;
    expect(() => operationFromSpec({ ...op, id: 'bill-refund' })).toThrow(/operation bill-refund has id "bill-refund", which the code does not know .*a new operation needs code: generators and mock data/);
    expect(() => operationFromSpec({ ...op, rateGroup: 'fees' })).toThrow(/rateGroup "fees"/);
    expect(operationFromSpec(op).defaultRateLimit).toBe(op.rateLimit);
  });

  test("data/spec.json's shape is checked at load, naming the key at fault", () => {
    expect(checkSpecFacts(facts, 'spec.json')).toBe(facts);
    const broken = { ...facts, operations: [{ ...facts.operations[0], rateLimit: '10' }] };
    expect(() => checkSpecFacts(broken, 'spec.json')).toThrow(/^spec\.json: operations\[0\]\.rateLimit is not a number/);
    expect(() => checkSpecFacts({ ...facts, headers: undefined }, 'spec.json')).toThrow(/"headers" is not a list/);
  });
});

test.describe('a Word document', () => {
  test('converted by pandoc, gives the same field tables and facts as its Markdown', async () => {
    const dir = tempDir();
    try {
      const docx = join(dir, 'api-spec.docx');
      const made = spawnSync('pandoc', ['-f', 'gfm', '-t', 'docx', '-o', docx, DOC], { encoding: 'utf8' });
      expect(made.error?.message ?? made.stderr, 'pandoc makes the .docx (install it: apt-get install pandoc)').toBeFalsy();
      const fromWord = await importDocument(docx);
      const fromMarkdown = importMarkdown(TEXT, SOURCE, overrides);
      expect(fromWord.fieldTables).toEqual(fromMarkdown.fieldTables);
      expect(apartFromSource(fromWord.facts)).toEqual(apartFromSource(fromMarkdown.facts));
      expect(fromWord.facts.document.source).toBe('api-spec.docx');
      expect(fromWord.facts.document.sha256).toBe(`sha256:${createHash('sha256').update(readFileSync(docx)).digest('hex')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without pandoc: an error naming pandoc and how to install it, nothing written', async () => {
    const dir = tempDir();
    try {
      const docx = join(dir, 'api-spec.docx');
      writeFileSync(docx, 'not opened: pandoc is missing');
      await expect(wordToMarkdown(docx, 'pandoc-is-not-here')).rejects.toThrow(PANDOC_MISSING);
      const noPandoc = join(dir, 'bin');
      mkdirSync(noPandoc);
      const out = join(dir, 'out');
      const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/spec.ts', 'import', docx, '--out', out], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, PATH: noPandoc } });
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toContain('api-spec.docx: pandoc is not installed');
      expect(run.stderr).toContain('apt-get install pandoc');
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test('npm run spec -- import <document> --out <dir>: writes both files as committed and says what it did', () => {
  const dir = tempDir();
  try {
    const run = spawnSync('npm', ['run', '--silent', 'spec', '--', 'import', DOC, '--out', dir], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(join(dir, 'field-tables.json'), 'utf8')).toBe(committed.fieldTables);
    expect(readFileSync(join(dir, 'spec.json'), 'utf8')).toBe(committed.facts);
    expect(readdirSync(dir).sort()).toEqual(['field-tables.json', 'spec.json']);
    const tables = JSON.parse(committed.fieldTables) as ImportedSpec['fieldTables'];
    const facts = JSON.parse(committed.facts) as SpecFacts;
    const fields = Object.values(tables.messages).reduce((n, m) => n + m.fields.length, 0);
    expect(run.stdout).toContain(`wrote ${join(dir, 'field-tables.json')}`);
    expect(run.stdout).toContain(`wrote ${join(dir, 'spec.json')}`);
    expect(run.stdout).toContain(`imported ${basename(DOC)} (sha256:`);
    expect(run.stdout).toContain(`: ${Object.keys(tables.messages).length} messages, ${fields} fields, ${facts.operations.length} operations, `
      + `${facts.headers.length} headers, ${facts.rules.length} rules, ${overrides.entries.length} overrides applied`);
    expect(run.stdout).not.toContain('schemas/');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
