/**
 * MOCK_ACCESS_LOG: one JSON line per call, exactly `time, method, path, status, companyId,
 * referenceId`, for answered calls (2xx, 4xx, fault answers) and dropped connections (status null),
 * with the reference id header of the configured prefix; flushed on close, appended across restarts.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { operation } from '../../src/contract/catalogue.js';
import { ACCESS_LOG_KEYS, type AccessLogLine } from '../../src/mock/access-log.js';
import { mockOptionsFromEnv, startMock, TOKEN_PATH, type MockOptions } from '../../src/mock/index.js';
import { MockClient, UNLIMITED } from './helpers.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function tempLog(): string {
  return join(mkdtempSync(join(tmpdir(), 'access-log-')), 'access.jsonl');
}

/** Every line parsed, each checked to have exactly the keys, in order, and well-typed values. */
function readLog(file: string): AccessLogLine[] {
  const text = readFileSync(file, 'utf8');
  expect(text.endsWith('\n'), 'the file ends with a newline').toBe(true);
  return text.split('\n').filter((l) => l !== '').map((l) => {
    const line = JSON.parse(l) as AccessLogLine;
    expect(Object.keys(line)).toEqual([...ACCESS_LOG_KEYS]);
    expect(line.time).toMatch(ISO);
    expect(typeof line.method).toBe('string');
    expect(line.path.startsWith('/')).toBe(true);
    expect(line.status === null || Number.isInteger(line.status)).toBe(true);
    expect(line.companyId === null || typeof line.companyId === 'string').toBe(true);
    expect(line.referenceId === null || typeof line.referenceId === 'string').toBe(true);
    return line;
  });
}

async function withLoggedMock(options: Partial<MockOptions>, use: (c: MockClient) => Promise<void>): Promise<AccessLogLine[]> {
  const file = options.accessLog ?? tempLog();
  const mock = await startMock({ port: 0, ...UNLIMITED, ...options, accessLog: file });
  try {
    await use(new MockClient(mock));
  } finally {
    await mock.close();
  }
  return readLog(file);
}

test('a line per call, answered or refused, with and without the headers; no secret in the file', async () => {
  const enquiry = operation('bill-enquiry').path;
  const sent: { ref: string | undefined; status: number }[] = [];
  const before = Date.now();
  const lines = await withLoggedMock({}, async (c) => {
    const ok = c.headers('bill-enquiry');
    const a = await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: ok });
    expect(a.status).toBe(200);
    sent.push({ ref: ok.SvcReferenceID, status: 200 });
    // no CompanyId and no reference id: 401, logged with nulls
    const bare = await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { CompanyId: undefined, SvcReferenceID: undefined } });
    expect(bare.status).toBe(401);
    // a 4xx past authentication: the body fails validation
    const bad = await c.post('bill-enquiry', undefined, { raw: '{"Message":{}}', headers: { SvcReferenceID: 'BAD0000000000001' } });
    expect(bad.status).toBe(400);
    const unknown = await c.post('bill-enquiry', {}, { path: '/api/nothing?x=1', headers: { SvcReferenceID: 'NOPE000000000001' } });
    expect(unknown.status).toBe(404);
    const token = await fetch(`${c.mock.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: c.options.clientId, client_secret: c.options.clientSecret }) });
    expect(token.status).toBe(200);
    await token.arrayBuffer();
    // a load balancer's probes are not calls
    for (const probe of ['/health', '/ready']) expect((await fetch(`${c.mock.url}${probe}`)).status).toBe(200);
  });
  const after = Date.now();
  expect(lines.map((l) => [l.method, l.path, l.status, l.companyId, l.referenceId])).toEqual([
    ['POST', enquiry, 200, 'MYCOMPANY', sent[0]!.ref],
    ['POST', enquiry, 401, null, null],
    ['POST', enquiry, 400, 'MYCOMPANY', 'BAD0000000000001'],
    ['POST', '/api/nothing', 404, 'MYCOMPANY', 'NOPE000000000001'],
    ['POST', TOKEN_PATH, 200, null, null],
  ]);
  for (const l of lines) {
    const t = Date.parse(l.time);
    expect(t).toBeGreaterThanOrEqual(before - 5);
    expect(t).toBeLessThanOrEqual(after);
  }
  const text = lines.map((l) => JSON.stringify(l)).join('\n');
  for (const secret of ['mock-access-token-0123456789', 'mock-client-secret', 'Bearer', 'access_token']) expect(text).not.toContain(secret);
});

test('dropped connections are logged with status null, fault answers with their status', async () => {
  // reset: the connection is reset before anything; lost: the call takes effect, its answer is dropped
  for (const kind of ['reset', 'lost'] as const) {
    const lines = await withLoggedMock({ faults: { [kind]: 1 } }, async (c) => {
      const h = c.headers('bill-enquiry');
      await expect(c.post('bill-enquiry', c.build('bill-enquiry'), { headers: h })).rejects.toThrow();
      await expect.poll(() => c.mock.faultCounts()['bill-enquiry'][kind]).toBe(1);
    });
    expect(lines, kind).toHaveLength(1);
    expect(lines[0], kind).toMatchObject({ method: 'POST', path: operation('bill-enquiry').path, status: null, companyId: 'MYCOMPANY' });
    expect(lines[0]!.referenceId, kind).toMatch(/^\w+$/);
  }
  // a gateway's 503 and a maintenance outage (HTML 503) are answers: logged with their status
  const lines503 = await withLoggedMock({ faults: { 503: 1 } }, async (c) => {
    expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(503);
  });
  expect(lines503.map((l) => l.status)).toEqual([503]);
  const outage = await withLoggedMock({ faults: { 'outage-after': 2, 'outage-seconds': 30 } }, async (c) => {
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(200);
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(503);
  });
  expect(outage.map((l) => l.status)).toEqual([200, 503]);
  expect(outage.every((l) => l.companyId === 'MYCOMPANY' && l.referenceId !== null)).toBe(true);
  // an outage of kind reset drops the connection
  const reset = await withLoggedMock({ faults: { 'outage-after': 1, 'outage-seconds': 30, 'outage-kind': 'reset' } }, async (c) => {
    await expect(c.post('bill-enquiry', c.build('bill-enquiry'))).rejects.toThrow();
  });
  expect(reset.map((l) => l.status)).toEqual([null]);
});

test('a client that gives up before the answer: status null', async () => {
  const file = tempLog();
  const lines = await withLoggedMock({ faults: { latency: 4000 }, accessLog: file }, async (c) => {
    // a second is long enough for the request to have arrived, even on a loaded machine
    await expect(c.post('bill-enquiry', c.build('bill-enquiry'), { signal: AbortSignal.timeout(1000) })).rejects.toThrow();
    // the line is written as the connection closes, before the answer's time
    await expect.poll(() => readFileSync(file, 'utf8'), { timeout: 2500 }).toContain('"status":null');
  });
  expect(lines.map((l) => l.status)).toEqual([null]);
});

test('the header prefix: <prefix>ReferenceID is the one logged; MOCK_ACCESS_LOG from the environment; appended across restarts', async () => {
  const file = tempLog();
  const options = mockOptionsFromEnv({ MOCK_ACCESS_LOG: file, SADAD_HEADER_PREFIX: 'SV', MOCK_RATE_LIMIT_BILL: '1000' });
  expect(options.accessLog).toBe(file);
  expect(options.headerPrefix).toBe('SV');
  for (let restart = 0; restart < 2; restart++) {
    const mock = await startMock({ ...options, port: 0 });
    try {
      const c = new MockClient(mock);
      const h = c.headers('bill-enquiry');
      expect(h.SVReferenceID).toBeTruthy();
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { ...h, SvcReferenceID: 'SPEC0000000001' } })).status).toBe(200);
      // the spec's spelling alone is no reference id for this deployment (and auth refuses it)
      const other = await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { SVReferenceID: undefined, SvcReferenceID: 'SPEC0000000002' } });
      expect(other.status).toBe(401);
    } finally {
      await mock.close();
    }
  }
  const lines = readLog(file);
  expect(lines.map((l) => [l.status, l.referenceId === null])).toEqual([[200, false], [401, true], [200, false], [401, true]]);
  expect(lines[0]!.referenceId).not.toBe('SPEC0000000001');
});

test('a file that cannot be opened stops the mock before it listens, naming MOCK_ACCESS_LOG', async () => {
  await expect(startMock({ port: 0, accessLog: join(tmpdir(), 'no-such-dir-for-access-log', 'x', 'access.jsonl') })).rejects.toThrow(/MOCK_ACCESS_LOG: cannot open/);
});
