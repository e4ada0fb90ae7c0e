/**
 * schemas/openapi.json: no drift from its generator, valid OpenAPI 3.1 with every $ref resolved,
 * examples that meet the suite's own schemas, and usable by a real tool (Prism mocks it, accepts
 * the suite's generated requests and refuses them with a required field dropped).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { validate, dereference } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { operation, operations, type Operation } from '../../src/contract/catalogue.js';
import { conformantHeaders, referenceIdHeader } from '../../src/contract/headers.js';
import { SPEC_PREFIX } from '../../src/contract/prefix.js';
import { SCHEMA_BASE, schemaFileName } from '../../src/contract/schema-files.js';
import { validateRequest, validateResponse } from '../../src/contract/validator.js';
import { MOCK_DEFAULTS } from '../../src/config/index.js';
import { mutationsOf } from '../../src/generators/mutations.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { ROOT, SCHEMAS_DIR } from '../../src/paths.js';
import { buildBundledOpenApi, exampleRequest, exampleResponse, OPENAPI_FILE, renderOpenApi } from '../../scripts/gen-openapi.js';

type Json = Record<string, any>;
const committed = () => readFileSync(OPENAPI_FILE, 'utf8');
const postOf = (doc: Json, op: Operation): Json => doc.paths[op.path].post;

/**
 * The schema files' `$id`s sit under a placeholder host (SCHEMA_BASE), and the `$ref`s inside them
 * (`common.schema.json#/$defs/...`) resolve against it, as JSON Schema 2020-12 says. Like the
 * suite's Ajv (which loads every file by its `$id`), the parser is told that base is this folder;
 * it may read local files only and never goes to the network.
 */
const localFiles = {
  order: 1,
  canRead: () => true,
  read: (file: { url: string }) => {
    const url = file.url;
    const path = url.startsWith(SCHEMA_BASE) ? join(SCHEMAS_DIR, url.slice(SCHEMA_BASE.length))
      : url.startsWith('file:') ? fileURLToPath(url) : url;
    if (!path.startsWith('/')) throw new Error(`refusing to fetch ${url}: only the schema files next to openapi.json are read`);
    return readFileSync(path);
  },
};
// The parser's options type lists `file` as a boolean; an object is passed through to json-schema-ref-parser as the file resolver.
const parserOptions = { resolve: { file: localFiles as unknown as boolean } };

test('the committed openapi.json is what the generator writes now, byte for byte (run `npm run openapi`)', () => {
  const now = renderOpenApi();
  expect(renderOpenApi(), 'the generator is deterministic').toBe(now);
  expect(committed(), 'schemas/openapi.json drifted from scripts/gen-openapi.ts: run `npm run openapi` and review the diff').toBe(now);
});

test('it describes the catalogue: four POST operations, headers, bearer auth, error answers, rate limits', () => {
  const doc = JSON.parse(committed()) as Json;
  expect(doc.openapi).toMatch(/^3\.1\./);
  expect(Object.keys(doc.paths).sort()).toEqual(operations.map((o) => o.path).sort());
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
  const params = doc.components.parameters as Record<string, Json>;
  for (const op of operations) {
    const item = doc.paths[op.path] as Json;
    expect(Object.keys(item), op.id).toEqual(['post']);
    const post = postOf(doc, op);
    expect(post.operationId).toBe(op.id);
    expect(post.security).toEqual([{ bearerAuth: [] }]);
    const headers = (post.parameters as Json[]).map((p) => params[p.$ref.split('/').pop()]!);
    const required = headers.filter((h) => h.required).map((h) => h.name);
    expect(required.sort()).toEqual(['CompanyId', referenceIdHeader(SPEC_PREFIX), 'DateTimeStamp', 'Device', 'Content-Type'].sort());
    const optional = headers.filter((h) => !h.required).map((h) => h.name);
    expect(optional).toEqual(op.clientHeaders ? ['clientid', 'clientsecret'] : []);
    expect(post.requestBody.content['application/json'].schema).toEqual({ $ref: `./${schemaFileName(op.id, 'request')}` });
    expect(post.responses['200'].content['application/json'].schema).toEqual({ $ref: `./${schemaFileName(op.id, 'lenient')}` });
    const codes = Object.keys(post.responses);
    for (const code of ['400', '401', '413', '415', '422', '429', '5XX']) expect(codes, `${op.id} ${code}`).toContain(code);
    if (op.kind === 'payment') expect(codes).toContain('409');
    expect(post['x-rate-limit']).toEqual({ limit: op.defaultRateLimit, windowSeconds: 60, scope: 'per operation and company', environment: 'sandbox' });
    expect(post.description).toContain(`${op.defaultRateLimit} calls per 60 s`);
  }
  expect(doc.components.responses.TooManyRequests.headers['Retry-After']).toBeDefined();
});

test('its examples meet the suite\'s schemas: requests, answers (lenient and strict), error bodies', () => {
  const doc = JSON.parse(committed()) as Json;
  for (const op of operations) {
    const post = postOf(doc, op);
    const request = post.requestBody.content['application/json'].examples.generated.value;
    expect(request).toEqual(JSON.parse(JSON.stringify(exampleRequest(op.id))));
    expect(validateRequest(op.id, request, SPEC_PREFIX).findings, op.id).toEqual([]);
    const answer = post.responses['200'].content['application/json'].examples.accepted.value;
    expect(answer).toEqual(exampleResponse(op.id));
    expect(validateResponse(op.id, answer, 'lenient', SPEC_PREFIX).findings, op.id).toEqual([]);
    expect(validateResponse(op.id, answer, 'strict', SPEC_PREFIX).findings, op.id).toEqual([]);
  }
  const ajv = new Ajv2020({ strict: true });
  ajv.addSchema({ ...doc.components.schemas.ErrorDetail, $id: 'ErrorDetail' });
  const errorBody = ajv.compile(JSON.parse(JSON.stringify(doc.components.schemas.ErrorBody).replaceAll('#/components/schemas/ErrorDetail', 'ErrorDetail')));
  for (const [name, response] of Object.entries(doc.components.responses as Record<string, Json>)) {
    for (const [key, example] of Object.entries(response.content['application/json'].examples as Record<string, Json>)) {
      expect(errorBody(example.value), `${name}.${key}: ${JSON.stringify(errorBody.errors)}`).toBe(true);
    }
  }
});

test('it validates as OpenAPI 3.1 (@readme/openapi-parser), every $ref resolved into the suite\'s schema files', async () => {
  const result = await validate(OPENAPI_FILE, parserOptions);
  expect(result.valid ? [] : result.errors, 'validation errors').toEqual([]);
  expect(result.warnings).toEqual([]);
  const doc = await dereference(OPENAPI_FILE, parserOptions) as Json;
  const refs: string[] = [];
  (function walk(node: unknown) {
    if (Array.isArray(node)) node.forEach(walk);
    else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) (k === '$ref' ? refs.push(String(v)) : walk(v));
  })(doc);
  expect(refs, 'unresolved $refs').toEqual([]);
  // the request schema arrived from its file, and the leaf types from common.schema.json through it
  const root = postOf(doc, operation('bill-enquiry')).requestBody.content['application/json'].schema.properties.Message.properties.SvcSadadBillEnquiryRequest;
  expect(root.properties.TransactionType).toMatchObject({ const: 'SADADENQ', type: 'string', minLength: 1 });
  const entry = root.properties.SvcSadadBillEnquiry.items.properties.TransactionData.items;
  expect(entry.properties.AccountNumber).toMatchObject({ type: 'string', maxLength: 24, pattern: '^[A-Za-z0-9]+$' });
});

test('the bundled variant (npm run openapi -- --bundle <file>) is self-contained and valid too', async () => {
  const bundled = buildBundledOpenApi() as Json;
  const text = JSON.stringify(bundled);
  expect(text).not.toContain('.schema.json');
  expect(text).not.toContain(SCHEMA_BASE);
  const result = await validate(structuredClone(bundled) as Parameters<typeof validate>[0]); // the parser dereferences its argument in place
  expect(result.valid ? [] : result.errors, 'validation errors').toEqual([]);
  for (const op of operations) {
    expect(postOf(bundled, op).requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${op.id}.request` });
    expect(bundled.components.schemas[`${op.id}.request`].required).toEqual(['Message']);
  }
});

/* ---------------------------------------------------------------- Prism ---------------------------------------------------------------- */

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Starts `prism mock schemas/openapi.json` on a free port and resolves once it listens. */
async function startPrism(): Promise<{ child: ChildProcess; baseUrl: string; output: () => string }> {
  const port = await freePort();
  const bin = join(ROOT, 'node_modules', '.bin', 'prism');
  const child = spawn(bin, ['mock', OPENAPI_FILE, '--host', '127.0.0.1', '--port', String(port)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const output = () => out;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not listen within 30 s:\n${out}`)), 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`listening on http://127.0.0.1:${port}`)) { clearTimeout(timer); resolve(); }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (e) => { clearTimeout(timer); reject(e); });
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`Prism exited (${code ?? signal}) before listening:\n${out}`)); });
  }).catch((e) => { stopPrism(child); throw e; });
  return { child, baseUrl: `http://127.0.0.1:${port}`, output };
}

function stopPrism(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => { clearTimeout(force); resolve(); });
    child.kill('SIGTERM');
  });
}

/** The headers a conformant client sends (spec §5), with the embedded mock's credentials. */
const headersFor = (op: Operation) => conformantHeaders(op, MOCK_DEFAULTS);

interface Answer { status: number; violations: { message: string; location?: string[] }[]; body: unknown }

async function post(baseUrl: string, op: Operation, body: unknown, headers: Record<string, string | null> = {}): Promise<Answer> {
  const sent: Record<string, string> = headersFor(op);
  for (const [k, v] of Object.entries(headers)) { if (v === null) delete sent[k]; else sent[k] = v; }
  const res = await fetch(`${baseUrl}${op.path}`, { method: 'POST', headers: sent, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const header = res.headers.get('sl-violations');
  return { status: res.status, violations: header ? JSON.parse(header) : [], body: text ? JSON.parse(text) : undefined };
}

test.describe('Prism mocks the document', () => {
  test.describe.configure({ mode: 'serial', timeout: 90_000 });
  let prism: Awaited<ReturnType<typeof startPrism>> | undefined;

  test.beforeAll(async () => {
    prism = await startPrism();
    // should the worker die before afterAll, do not leave Prism behind
    const child = prism.child;
    process.once('exit', () => { if (child.exitCode === null) child.kill('SIGKILL'); });
  });

  test.afterAll(async () => {
    await stopPrism(prism?.child);
  });

  for (const op of operations) {
    test(`${op.id}: accepts the suite's generated request, refuses it without TransactionType or with an empty SequenceNumber`, async () => {
      const { baseUrl, output } = prism!;
      // a seed other than the examples', so Prism checks the schema, not a copy of the example
      const valid = new RequestGenerator({ seed: 424242, tagPrefix: SPEC_PREFIX }).build(op.id);
      expect(validateRequest(op.id, valid, SPEC_PREFIX).findings).toEqual([]);

      const ok = await post(baseUrl, op, valid);
      expect(ok.status, `Prism refused a valid ${op.id} request: ${JSON.stringify(ok.violations)}\n${output()}`).toBe(200);
      expect(ok.violations, 'Prism found the request or its own answer invalid').toEqual([]);
      expect(validateResponse(op.id, ok.body, 'lenient', SPEC_PREFIX).findings).toEqual([]);

      const mutations = mutationsOf(op.id, valid, SPEC_PREFIX);
      for (const id of ['TransactionType.missing', 'SequenceNumber.empty']) {
        const m = mutations.find((x) => x.id === id)!;
        expect(m, id).toBeDefined();
        const refused = await post(baseUrl, op, m.body);
        expect(refused.status, `${op.id} ${id}: ${JSON.stringify(refused.body)}`).toBeGreaterThanOrEqual(400);
        expect(refused.status).toBeLessThan(500);
        // Prism's own validation error names the field
        expect(refused.violations.map((v) => v.message).join('\n'), `${op.id} ${id}`).toContain(m.field === 'TransactionType' ? "required property 'TransactionType'" : 'SequenceNumber');
      }
    });
  }

  test('the §5 headers: a missing or malformed one is refused, a missing bearer token is a 401, clientid/clientsecret are optional', async () => {
    const { baseUrl } = prism!;
    const op = operation('bill-enquiry');
    const body = new RequestGenerator({ seed: 424243, tagPrefix: SPEC_PREFIX }).build(op.id);
    const names = (a: Answer) => a.violations.map((v) => v.message).join('\n').toLowerCase();
    for (const name of ['CompanyId', referenceIdHeader(SPEC_PREFIX), 'DateTimeStamp', 'Device']) {
      const a = await post(baseUrl, op, body, { [name]: null });
      expect(a.status, name).toBe(422);
      expect(names(a), name).toContain(`required property '${name.toLowerCase()}'`);
    }
    const malformed = await post(baseUrl, op, body, { DateTimeStamp: '2026-11-21 10:20:39' });
    expect(malformed.status).toBe(422);
    expect(names(malformed)).toContain('datetimestamp');
    expect((await post(baseUrl, op, body, { Authorization: null })).status).toBe(401);
    const withoutClient = await post(baseUrl, op, body, { clientid: null, clientsecret: null });
    expect(withoutClient.status, JSON.stringify(withoutClient.violations)).toBe(200);
  });
});
