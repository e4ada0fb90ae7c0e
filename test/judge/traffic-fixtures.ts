/**
 * Recorded traffic for the client judge's tests: real calls to the mock in judging mode (a
 * TrafficRecorder attached, as certify-client does), or records built by hand or retimed from real
 * ones where timing or the answer's source matters (Retry-After, a proxy's fault).
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { operation, type OperationId } from '../../src/contract/catalogue.js';
import { judgeClient, judgeSandbox, type JudgeInput } from '../../src/judge/judge.js';
import type { ClientCase } from '../../src/judge/model.js';
import { TrafficRecorder, type TrafficRecord } from '../../src/judge/traffic.js';
import { startMock, type MockOptions } from '../../src/mock/index.js';
import type { Verdict } from '../../src/vocabulary/verdicts.js';
import { MockClient } from '../mock/helpers.js';

export const ALL_OPERATIONS: OperationId[] = ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'];

/** Limits the judge is told about (the mock's own budget is set far above, see `record`). */
export const LIMITS = { windowSeconds: 60, bill: 10, moi: 3 };

/**
 * Starts a mock with a recorder, lets `use` talk to it, waits until every call has ended (the
 * recorder stamps tEnd when the socket closes), and returns the ended records.
 */
export async function record(use: (c: MockClient) => Promise<void>, options: Partial<MockOptions> = {}): Promise<TrafficRecord[]> {
  const recorder = new TrafficRecorder();
  const mock = await startMock({ port: 0, rateLimits: { bill: 1000, moi: 1000 }, ...options }, { recorder });
  try {
    await use(new MockClient(mock));
    await settle(recorder);
  } finally {
    await mock.close();
  }
  return recorder.ended();
}

/** Waits (a bounded while) until no recorded call is still in flight. */
export async function settle(recorder: TrafficRecorder, maxMs = 3000): Promise<void> {
  const until = Date.now() + maxMs;
  await sleep(30);
  while (recorder.records.some((r) => r.tEnd === null) && Date.now() < until) await sleep(10);
}

export function judgeInput(records: TrafficRecord[], over: Partial<JudgeInput> = {}): JudgeInput {
  return {
    records, tagPrefix: 'Svc', headerPrefix: 'Svc', limits: LIMITS, signatureKey: null, requireClientHeaders: false,
    operations: [...ALL_OPERATIONS], runId: 'r', startedAt: new Date().toISOString(), ...over,
  };
}

/** The client cases of the traffic, by id. */
export function judge(records: TrafficRecord[], over: Partial<JudgeInput> = {}): Map<string, ClientCase> {
  return new Map(judgeClient(judgeInput(records, over)).map((c) => [c.id, c]));
}

export function judgeSandboxCases(records: TrafficRecord[], over: Partial<JudgeInput> = {}): Map<string, ClientCase> {
  return new Map(judgeSandbox(judgeInput(records, over)).map((c) => [c.id, c]));
}

/** A case's verdict with its notes, so that a failing expectation shows why. */
export function verdict(cases: Map<string, ClientCase>, id: string): { verdict: Verdict | 'missing'; notes: string } {
  const c = cases.get(id);
  return c ? { verdict: c.verdict, notes: c.notes.map((n) => n.text).join(' | ') } : { verdict: 'missing', notes: '' };
}

/** A copy of a record with some fields changed (records from `record` are otherwise left alone). */
export function altered(r: TrafficRecord, change: Partial<TrafficRecord>): TrafficRecord {
  return { ...structuredClone(r), ...change };
}

/** A record built by hand: a POST to the operation's path, answered 200 by the judge, unless told otherwise. */
export function handRecord(op: OperationId, body: unknown, over: Partial<TrafficRecord> = {}): TrafficRecord {
  return {
    seq: 1, op, method: 'POST', path: operation(op).path, startedAt: new Date().toISOString(), t: 0, tEnd: 10,
    headers: { 'content-type': 'application/json' }, body: body === null ? null : JSON.stringify(body), status: 200,
    responseHeaders: {}, responseBody: '', delivered: true, source: 'judge', scenario: null, ...over,
  };
}

/** An RSA key pair for X-Signature, and a signer of a body's Message as the spec says. */
export function signingKeys(): { publicKey: KeyObject; signMessage: (body: unknown) => string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    publicKey,
    signMessage: (body) => sign('sha256', Buffer.from(JSON.stringify((body as { Message: unknown }).Message)), privateKey).toString('base64'),
  };
}
