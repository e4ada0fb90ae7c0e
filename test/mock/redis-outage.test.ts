/**
 * The shared store's bad moments: Redis killed, or stopped dead (a Redis that answers nothing).
 * Every call then answers 503 with Retry-After within 3 s (never a 500, never a hang), /ready
 * says so while /health does not, and the mock reconnects by itself: with Redis back from its
 * append-only file, calls answer 200 again and nothing acknowledged was lost. And a graceful
 * shutdown: SIGTERM lets the call in flight finish, turns new ones away, then quits.
 */
import { expect, test } from '@playwright/test';
import { mockOptionsFromEnv, resolveMockOptions, SCENARIO_MAGIC, startMock, type RunningMock } from '../../src/mock/index.js';
import { uniquePrefix } from '../../src/mock/store/redis.js';
import { startMockProcess } from '../support/mock-process.js';
import { freePort, startRedis, type RunningRedis } from '../support/redis.js';
import { freshAccount, issueToken, MockClient, type Answer } from './helpers.js';

test.describe.configure({ timeout: 120_000 });

const cents = (n: unknown) => Math.round(Number(n) * 100);
const OUTAGE_ANSWER_MS = 3_000;

async function timed<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = Date.now();
  const v = await f();
  return [v, Date.now() - t];
}

/** Waits until the mock says it is ready again (it reconnects by itself). */
async function readyAgain(mock: RunningMock, withinMs = 10_000): Promise<number> {
  const t = Date.now();
  while (Date.now() - t < withinMs) {
    if ((await fetch(`${mock.url}/ready`)).status === 200) return Date.now() - t;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready within ${withinMs} ms`);
}

function expectUnavailable(a: Answer, ms: number, what: string): void {
  expect(a.status, `${what}: ${JSON.stringify(a.body)}`).toBe(503);
  expect(Number(a.headers.get('retry-after')), `${what}: Retry-After`).toBeGreaterThanOrEqual(1);
  expect(ms, `${what}: answered within ${OUTAGE_ANSWER_MS} ms`).toBeLessThan(OUTAGE_ANSWER_MS);
}

/** Every kind of call while Redis is away: enquiries, payments, an issued token, the token endpoint. */
async function duringOutage(c: MockClient, subject: { BillerId: string; AccountNumber: string }, token: string, label: string): Promise<void> {
  const calls: [string, () => Promise<Answer>][] = [
    ['enquiry', () => c.post('bill-enquiry', c.build('bill-enquiry', { entry: subject }))],
    ['payment', () => c.post('bill-payment', c.billPayment(subject, 1, false))],
    ['call with an issued token', () => c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { Authorization: `Bearer ${token}` } })],
    ['token endpoint', async () => {
      const res = await fetch(`${c.mock.url}/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'mock-client', client_secret: 'mock-client-secret' }) });
      return { status: res.status, headers: res.headers, body: await res.json() };
    }],
  ];
  for (const [what, call] of calls) {
    const [a, ms] = await timed(call);
    expectUnavailable(a, ms, `${label}, ${what}`);
    console.log(`${label}: ${what} answered ${a.status} in ${ms} ms`);
  }
  const ready = await fetch(`${c.mock.url}/ready`);
  expect(ready.status, `${label}: /ready`).toBe(503);
  expect((await ready.json()).status).toBe('not ready');
  expect((await fetch(`${c.mock.url}/health`)).status, `${label}: /health (the process is alive)`).toBe(200);
}

test('Redis killed: 503 with Retry-After within 3 s; back from its append-only file: 200 again, nothing lost', async () => {
  const redis = await startRedis({ appendonly: true });
  const mock = await startMock({ port: 0, style: 'table', redisUrl: redis.url, redisPrefix: uniquePrefix('outage'), rateLimits: { bill: 1000, moi: 1000 } });
  try {
    const c = new MockClient(mock);
    expect((await fetch(`${mock.url}/ready`)).status).toBe(200);
    const subject = { BillerId: '002', AccountNumber: freshAccount() };
    const due = cents((await c.enquireBill(subject)).AmountDue);
    const payment = c.billPayment(subject, 7.5, false);
    expect((await c.post('bill-payment', payment)).status).toBe(200);
    const token = await issueToken(mock);

    redis.kill();
    await duringOutage(c, subject, token, 'killed');

    await redis.restart();
    console.log(`ready again ${await readyAgain(mock)} ms after redis-server answered`);
    expect(cents((await c.enquireBill(subject)).AmountDue), 'the debit survived').toBe(due - 750);
    expect((await c.post('bill-payment', payment)).status, 'the SequenceNumber too').toBe(409);
    expect((await c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { Authorization: `Bearer ${token}` } })).status, 'and the issued token').toBe(200);
    expect((await c.post('bill-payment', c.billPayment(subject, 1, false))).status).toBe(200);
    expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(due - 850);
  } finally {
    await mock.close();
    await redis.stop();
  }
});

test('Redis stopped dead (it takes the connection but answers nothing): 503 within 3 s, then served again when it wakes', async () => {
  const redis: RunningRedis = await startRedis();
  const mock = await startMock({ port: 0, style: 'table', redisUrl: redis.url, redisPrefix: uniquePrefix('paused'), rateLimits: { bill: 1000, moi: 1000 } });
  try {
    const c = new MockClient(mock);
    const subject = { BillerId: '001', AccountNumber: freshAccount() };
    const due = cents((await c.enquireBill(subject)).AmountDue);
    const token = await issueToken(mock);
    redis.pause();
    await duringOutage(c, subject, token, 'paused');
    redis.resume();
    await readyAgain(mock);
    // a payment that timed out may still have been applied when Redis woke: an enquiry tells
    const now = cents((await c.enquireBill(subject)).AmountDue);
    expect([due, due - 100]).toContain(now);
    expect((await c.post('bill-payment', c.billPayment(subject, 2, false))).status).toBe(200);
    expect(cents((await c.enquireBill(subject)).AmountDue)).toBe(now - 200);
  } finally {
    redis.resume();
    await mock.close();
    await redis.stop();
  }
});

test('a replica started while Redis is down serves 503 and becomes ready when Redis comes', async () => {
  const redis = await startRedis();
  await redis.stop();
  const [mock, startMs] = await timed(() => startMock({ port: 0, redisUrl: redis.url, redisPrefix: uniquePrefix('late') }));
  try {
    expect(startMs, 'it does not wait for Redis for long').toBeLessThan(6_000);
    const c = new MockClient(mock);
    const [a, ms] = await timed(() => c.post('bill-enquiry', c.build('bill-enquiry')));
    expectUnavailable(a, ms, 'no Redis yet');
    expect((await fetch(`${mock.url}/ready`)).status).toBe(503);
    await redis.restart();
    await readyAgain(mock);
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(200);
  } finally {
    await mock.close();
    await redis.stop();
  }
});

test('graceful shutdown: on SIGTERM the call in flight is answered and stored, new calls get 503 and /ready 503, then the process exits 0', async () => {
  const redis = await startRedis({ appendonly: true });
  const env = { MOCK_REDIS_URL: redis.url, MOCK_REDIS_PREFIX: uniquePrefix('shutdown'), MOCK_STYLE: 'table', MOCK_LATE_ANSWER_MS: '2000' };
  const replica = await startMockProcess(env, await freePort());
  try {
    const c = new MockClient({ url: replica.url, options: resolveMockOptions({ style: 'table' }) } as RunningMock);
    // the late-answer magic value holds the payment's answer for 2 s after its effect
    const subject = { BillerId: '002', AccountNumber: freshAccount(SCENARIO_MAGIC.lateAnswer) };
    const due = cents((await c.enquireBill(subject)).AmountDue);
    const inFlight = c.post('bill-payment', c.billPayment(subject, 3, false));
    await new Promise((r) => setTimeout(r, 500));
    replica.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    const ready = await fetch(`${replica.url}/ready`);
    expect(ready.status, 'draining: no longer ready').toBe(503);
    const turnedAway = await c.post('bill-enquiry', c.build('bill-enquiry'));
    expect(turnedAway.status).toBe(503);
    expect(turnedAway.headers.get('retry-after')).toBe('1');
    const answered = await inFlight;
    expect(answered.status, 'the call in flight was answered').toBe(200);
    expect((await replica.exited).code, replica.output()).toBe(0);
    expect(replica.output()).toContain('SIGTERM: closing');

    // the payment was stored: another replica sees it
    const next = await startMock({ port: 0, style: 'table', redisUrl: redis.url, redisPrefix: env.MOCK_REDIS_PREFIX });
    try {
      expect(cents((await new MockClient(next).enquireBill(subject)).AmountDue)).toBe(due - 300);
    } finally {
      await next.close();
    }
  } finally {
    if (replica.child.exitCode === null) await replica.stop('SIGKILL');
    await redis.stop();
  }
});

test('configuration: MOCK_REDIS_URL and MOCK_REDIS_PREFIX are checked before anything listens; in memory /ready is always ready', async () => {
  expect(() => mockOptionsFromEnv({ MOCK_REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/MOCK_REDIS_URL: must start with redis:\/\//);
  expect(() => mockOptionsFromEnv({ MOCK_REDIS_URL: 'redis://127.0.0.1:6379/cache' })).toThrow(/MOCK_REDIS_URL: the path is the database number/);
  expect(() => mockOptionsFromEnv({ MOCK_REDIS_URL: 'not a url' })).toThrow(/MOCK_REDIS_URL: must be a URL like redis:\/\/127.0.0.1:6379\/0/);
  expect(() => mockOptionsFromEnv({ MOCK_REDIS_PREFIX: 'two words' })).toThrow(/MOCK_REDIS_PREFIX: must not contain white space/);
  expect(mockOptionsFromEnv({ MOCK_REDIS_URL: 'redis://:secret@127.0.0.1:6379/2', MOCK_REDIS_PREFIX: 'sandbox-a:' })).toMatchObject({ redisUrl: 'redis://:secret@127.0.0.1:6379/2', redisPrefix: 'sandbox-a:' });
  expect(mockOptionsFromEnv({}).redisUrl).toBeUndefined();

  const mock = await startMock({ port: 0, rateLimits: { bill: 1, moi: 1 } });
  try {
    expect(mock.store).toBe('memory');
    for (let i = 0; i < 3; i++) {
      const ready = await fetch(`${mock.url}/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', store: 'memory' }]);
      expect((await fetch(`${mock.url}/health`)).status, 'not authenticated, not limited').toBe(200);
    }
  } finally {
    await mock.close();
  }
});
