/**
 * The CI templates against the CIs' own schemas, vendored in schemas/vendor/ (each names its origin
 * and commit in its `$comment`): examples/ci/github-actions.yml against SchemaStore's GitHub
 * workflow schema, examples/ci/gitlab-ci.yml against GitLab's CI schema (as gitlab-ci-local bundles
 * it). Both are JSON Schema draft-07: Ajv's draft-07 class, `strict: false` (they use keywords of
 * their own, such as `markdownDescription`). Each validation is shown to fail on an in-memory copy
 * with a mistake the CI would refuse.
 */
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import ajvFormats from 'ajv-formats';
import { parseDocument } from 'yaml';
import { ROOT, SCHEMAS_DIR } from '../../src/paths.js';

const addFormats = ajvFormats.default;
const GITHUB_SCHEMA = join(SCHEMAS_DIR, 'vendor', 'github-workflow.schema.json');
const GITLAB_SCHEMA = join(SCHEMAS_DIR, 'vendor', 'gitlab-ci.schema.json');
const github = () => readFileSync(join(ROOT, 'examples/ci/github-actions.yml'), 'utf8');
const gitlab = () => readFileSync(join(ROOT, 'examples/ci/gitlab-ci.yml'), 'utf8');

function validator(file: string): ValidateFunction {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(JSON.parse(readFileSync(file, 'utf8')));
}

/** The template as its CI reads it (YAML 1.2, `<<` merge keys), then the schema's errors, one line each. */
function errors(validate: ValidateFunction, text: string): string[] {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true });
  expect(doc.errors.map((e) => e.message)).toEqual([]);
  if (validate(doc.toJS({ maxAliasCount: 100 }))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : ''}`);
}

const edit = (text: string, from: string | RegExp, to: string) => {
  const out = text.replace(from, to);
  expect(out, `the edit ${String(from)} -> ${to} must change the template`).not.toBe(text);
  return out;
};

test.describe('CI templates against the CIs\' schemas', () => {
  test('the vendored schemas are draft-07 and name their origin and commit', () => {
    for (const [file, origin] of [
      [GITHUB_SCHEMA, 'https://github.com/SchemaStore/schemastore/blob/3b6446ad8a077bac56f4a4796c0b7fd88927fc8e/src/schemas/json/github-workflow.json'],
      [GITLAB_SCHEMA, 'https://github.com/firecow/gitlab-ci-local/blob/1e050e3be7f43b8aa366d993594f649de59894f6/src/schema.json'],
    ] as const) {
      const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
      expect(String(schema.$comment)).toContain(origin);
      expect(String(schema.$comment)).toMatch(/^Vendored unchanged \(but for this comment/);
    }
  });

  test('the GitHub Actions workflow is valid against SchemaStore\'s workflow schema', () => {
    expect(errors(validator(GITHUB_SCHEMA), github())).toEqual([]);
  });

  test('the GitLab CI file is valid against GitLab\'s CI schema', () => {
    expect(errors(validator(GITLAB_SCHEMA), gitlab())).toEqual([]);
  });

  test('each validation fails on a template the CI would refuse', () => {
    const gh = validator(GITHUB_SCHEMA);
    const expectInvalid = (problems: string[], pattern: RegExp) => expect(problems.filter((p) => pattern.test(p)), problems.join('\n')).not.toEqual([]);
    expectInvalid(errors(gh, edit(github(), /(nightly:[\s\S]*?)runs-on: ubuntu-latest/, '$1runs_on: ubuntu-latest')), /^\/jobs\/nightly .*(additional properties|runs-on)/);
    expectInvalid(errors(gh, edit(github(), 'cancel-in-progress: false', 'cancel-in-progress: sometimes')), /^\/jobs\/nightly\/concurrency/);
    expectInvalid(errors(gh, edit(github(), 'continue-on-error: true', 'continue_on_error: true')), /^\/jobs\/nightly\/steps\/\d+ .*(additional properties|continue_on_error)/);
    expectInvalid(errors(gh, edit(github(), '      checks: write       # to publish the JUnit results\n    strategy:', '      checks: writable\n    strategy:')), /^\/jobs\/mock\/permissions/);
    expectInvalid(errors(gh, edit(github(), '    branches: [main]', '    branch: [main]')), /^\/on\/push .*(additional properties|branch)/);

    const gl = validator(GITLAB_SCHEMA);
    expectInvalid(errors(gl, edit(gitlab(), '  resource_group: sadad-sandbox-nightly', '  resource-group: sadad-sandbox-nightly')), /^\/nightly .*(additional properties|resource-group)/);
    expectInvalid(errors(gl, edit(gitlab(), '    expire_in: 30 days', '    expire-in: 30 days')), /^\/nightly\/artifacts .*(additional properties|expire-in)/);
    expectInvalid(errors(gl, edit(gitlab(), /      when: never/, '      when: nevermore')), /^\/workflow\/rules\/\d+\/when/);
    // a line YAML reads as a mapping (`: ` in an unquoted line): GitLab refuses it as a script line
    expectInvalid(errors(gl, edit(gitlab(), '    - npm run certify -- --list\n', '    - echo "smoke: starting"\n    - npm run certify -- --list\n')), /^\/smoke\/script/);
  });
});
