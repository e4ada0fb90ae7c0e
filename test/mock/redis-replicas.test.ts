/**
 * Three replicas of the mock on one Redis (MOCK_REDIS_URL) behind a per-request round-robin load
 * balancer (test/support/balancer.ts) are one sandbox: a payment made through one is seen by the
 * next, identical payments released together take effect once, a company's budget is one for the
 * set, and restarting every replica and Redis itself (from its append-only file) forgets nothing.
 * Each is shown against three in-memory replicas too, which get every one of these wrong (the
 * measurements of issue 20): that is what the shared store is for.
 */
import { expect, test } from '@playwright/test';
import { operation, type OperationId } from '../../src/contract/catalogue.js';
import { resolveMockOptions, startMock, type MockOptions, type RunningMock } from '../../src/mock/index.js';
import { uniquePrefix } from '../../src/mock/store/redis.js';
import { startBalancer, type Balancer } from '../support/balancer.js';
import { startMockProcess, type MockProcess } from '../support/mock-process.js';
import { freePort, startRedis } from '../support/redis.js';
import { freshAccount, MockClient, sharedRedis, type Answer, type StoreKind } from './helpers.js';
import { sendTogether } from '../support/burst.js';

test.describe.configure({ timeout: 180_000 });

const cents = (n: unknown) => Math.round(Number(n) * 100);

interface Sandbox { mocks: RunningMock[]; lb: Balancer; client: MockClient; close(): Promise<void> }

/** Three replicas behind the balancer; with Redis, one key prefix for the three (one sandbox). */
async function sandbox(store: StoreKind, options: Partial<MockOptions> = {}): Promise<Sandbox> {
  const shared = store === 'redis' ? { redisUrl: (await sharedRedis()).url, redisPrefix: uniquePrefix('replicas') } : {};
  const mocks = await Promise.all([0, 1, 2].map(() => startMock({ port: 0, style: 'table', ...options, ...shared })));
  const lb = await startBalancer(mocks.map((m) => m.url));
  return {
    mocks, lb,
    client: new MockClient({ ...mocks[0]!, url: lb.url }),
    async close() { await lb.close(); await Promise.all(mocks.map((m) => m.close())); },
  };
}

/** Sends every body at once through the balancer, its sockets opened on GET /health (test/support/burst.ts). */
async function burst(c: MockClient, opId: OperationId, bodies: unknown[]): Promise<Answer[]> {
  return (await sendTogether(c.mock.url, operation(opId).path, bodies.map((body) => ({ headers: c.headers(opId), body })), { path: '/health', headers: {} })).answers;
}

const tally = (xs: (string | number)[]) => xs.reduce<Record<string, number>>((t, x) => ({ ...t, [x]: (t[x] ?? 0) + 1 }), {});

for (const store of ['redis', 'memory'] as const) {
  const shared = store === 'redis';

  test(`${store}: enquire on one replica, pay on a second, the third ${shared ? 'sees' : 'does not see'} the debit`, async () => {
    const s = await sandbox(store, { rateLimits: { bill: 1000, moi: 1000 } });
    try {
      const c = s.client;
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const at = [...s.lb.counts];
      const due = cents((await c.enquireBill(subject)).AmountDue);
      expect((await c.post('bill-payment', c.billPayment(subject, 12.34, false))).status).toBe(200);
      const third = cents((await c.enquireBill(subject)).AmountDue);
      expect(s.lb.counts.map((n, i) => n - at[i]!), 'one call on each replica').toEqual([1, 1, 1]);
      expect(third).toBe(shared ? due - 1234 : due);
    } finally {
      await s.close();
    }
  });

  test(`${store}: 9 identical payments released together across the replicas: ${shared ? 'one accepted, one debit' : 'accepted once per replica'}, no 5xx`, async () => {
    const s = await sandbox(store, { rateLimits: { bill: 1000, moi: 1000 } });
    try {
      const c = s.client;
      const subject = { BillerId: '001', AccountNumber: freshAccount() };
      const due = cents((await c.enquireBill(subject)).AmountDue);
      const at = [...s.lb.counts];
      const body = c.billPayment(subject, 1, false);
      const answers = await burst(c, 'bill-payment', Array.from({ length: 9 }, () => body));
      expect(s.lb.counts.map((n, i) => n - at[i]!), 'the GETs and the payments spread evenly').toEqual([6, 6, 6]);
      const statuses = tally(answers.map((a) => a.status));
      console.log(`${store}: 9 identical payments -> ${JSON.stringify(statuses)}`);
      expect(answers.filter((a) => a.status >= 500), 'no 5xx').toEqual([]);
      const accepted = shared ? 1 : 3;
      expect(statuses).toEqual({ 200: accepted, 409: 9 - accepted });
      // an enquiry on each replica: one debit (in memory, each replica its own, three in all)
      const after = await Promise.all([0, 1, 2].map(async () => cents((await c.enquireBill(subject)).AmountDue)));
      expect(after).toEqual([due - 100, due - 100, due - 100]);
    } finally {
      await s.close();
    }
  });

  test(`${store}: 11 enquiries from a fresh window across the replicas: ${shared ? '10 accepted and a 429' : 'all accepted'}`, async () => {
    const s = await sandbox(store, { rateWindowSeconds: 60, rateLimits: { bill: 10, moi: 3 } });
    try {
      const c = s.client;
      const answers = await burst(c, 'bill-enquiry', Array.from({ length: 11 }, () => c.build('bill-enquiry')));
      const statuses = tally(answers.map((a) => a.status));
      console.log(`${store}: 11 enquiries in one window -> ${JSON.stringify(statuses)}`);
      expect(statuses).toEqual(shared ? { 200: 10, 429: 1 } : { 200: 11 });
      if (shared) {
        const refused = answers.find((a) => a.status === 429)!;
        expect(refused.body.errorCode).toBe('MW-429');
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // and the next call, on whichever replica, is refused too: one budget for the set
        for (let i = 0; i < 3; i++) expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(429);
      }
    } finally {
      await s.close();
    }
  });
}

test('every replica and Redis restarted (Redis killed, back from its append-only file): the debit and the used SequenceNumber are still known', async () => {
  const redis = await startRedis({ appendonly: true });
  const ports = await Promise.all([0, 1, 2].map(() => freePort()));
  const env = { MOCK_REDIS_URL: redis.url, MOCK_REDIS_PREFIX: uniquePrefix('restart'), MOCK_STYLE: 'table', MOCK_RATE_LIMIT_BILL: '1000', MOCK_RATE_LIMIT_MOI: '1000' };
  let replicas: MockProcess[] = await Promise.all(ports.map((p) => startMockProcess(env, p)));
  const lb = await startBalancer(replicas.map((r) => r.url));
  try {
    // a client of the balancer with the replicas' (default) credentials
    const c = new MockClient({ url: lb.url, options: resolveMockOptions({ style: 'table' }) } as RunningMock);
    const subject = { BillerId: '002', AccountNumber: freshAccount() };
    const due = cents((await c.enquireBill(subject)).AmountDue);
    const payment = c.billPayment(subject, 20, false);
    const paid = await c.post('bill-payment', payment);
    expect(paid.status).toBe(200);
    const reference = c.entries('bill-payment', paid)[0]!.PaymentRefNumber;

    // every replica stopped (SIGTERM: a clean exit), Redis killed outright, then all back
    const exits = await Promise.all(replicas.map((r) => r.stop()));
    expect(exits.map((e) => e.code), replicas.map((r) => r.output()).join('\n')).toEqual([0, 0, 0]);
    redis.kill();
    await redis.restart();
    replicas = await Promise.all(ports.map((p) => startMockProcess(env, p)));

    const at = [...lb.counts];
    const seen = await Promise.all([0, 1, 2].map(async () => cents((await c.enquireBill(subject)).AmountDue)));
    expect(seen, 'the debit, on every replica').toEqual([due - 2000, due - 2000, due - 2000]);
    const again = await c.post('bill-payment', payment);
    expect(again.status, 'the used SequenceNumber').toBe(409);
    expect(again.body.errorCode).toBe('MW-409-DUPLICATE');
    const fresh = await c.post('bill-payment', c.billPayment(subject, 1, false));
    expect(fresh.status).toBe(200);
    expect(c.entries('bill-payment', fresh)[0]!.PaymentRefNumber, 'references never repeat across restarts').not.toBe(reference);
    expect(lb.counts.map((n, i) => n - at[i]!).every((n) => n >= 1), 'every new replica answered').toBe(true);
  } finally {
    await lb.close();
    await Promise.all(replicas.map((r) => r.stop()));
    await redis.stop();
  }
});
