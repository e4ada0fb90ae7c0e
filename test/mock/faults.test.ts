import { expect, test } from '@playwright/test';
import type { OperationId } from '../../src/contract/catalogue.js';
import { ConfigError } from '../../src/contract/prefix.js';
import { FAULT_KINDS, mockOptionsFromEnv, startMock, TOKEN_PATH, type FaultKind, type FaultSettings } from '../../src/mock/index.js';
import { freshAccount, issueToken, MockClient, UNLIMITED, withMock, type Answer } from './helpers.js';

const cents = (n: unknown) => Math.round(Number(n) * 100);

/** The answer, or undefined when none came (reset, lost, hang given up on). */
const attempt = (c: MockClient, op: OperationId, body: unknown, opts: Parameters<MockClient['post']>[2] = {}): Promise<Answer | undefined> =>
  c.post(op, body, opts).then((a) => a, () => undefined);

/** Repeats a call until it is answered (the faults are drawn again each time). */
async function answered(c: MockClient, op: OperationId, body: unknown, tries = 30): Promise<Answer> {
  for (let i = 0; i < tries; i++) {
    const a = await attempt(c, op, body);
    if (a !== undefined && a.status < 500 && a.status !== 429 && !(a.status === 401 && c.options.faults?.revoke)) return a;
  }
  throw new Error(`${op}: no usable answer in ${tries} tries`);
}

const zeroCounts = () => Object.fromEntries([...FAULT_KINDS, 'outage'].map((k) => [k, 0])) as Record<FaultKind | 'outage', number>;

test.describe('configuration', () => {
  test('MOCK_FAULTS takes name=value parts; unset means no faults', () => {
    expect(mockOptionsFromEnv({}).faults).toEqual({});
    expect(mockOptionsFromEnv({ MOCK_FAULTS: ' ' }).faults).toEqual({});
    expect(mockOptionsFromEnv({ MOCK_FAULTS: '503=0.02, reset=0.01,lost=.01,latency=120,jitter=80,hang=0.001,seed=7,retry-after=3,' }).faults).toEqual({
      '503': 0.02, reset: 0.01, lost: 0.01, latency: 120, jitter: 80, hang: 0.001, seed: 7, 'retry-after': 3,
    });
    expect(mockOptionsFromEnv({ MOCK_FAULTS: '502=1,504=0,429=0.5,revoke=1' }).faults).toEqual({ '502': 1, '504': 0, '429': 0.5, revoke: 1 });
    expect(mockOptionsFromEnv({ MOCK_FAULTS: '503=0.01,outage-after=40,outage-seconds=2.5,outage-kind=reset' }).faults).toEqual({
      '503': 0.01, 'outage-after': 40, 'outage-seconds': 2.5, 'outage-kind': 'reset',
    });
    expect(mockOptionsFromEnv({ MOCK_FAULTS: 'outage-after=1,outage-seconds=.5' }).faults).toEqual({ 'outage-after': 1, 'outage-seconds': 0.5 });
  });

  test('a bad MOCK_FAULTS part is a ConfigError naming the variable and the part', () => {
    const bad: Record<string, string> = {
      'bogus=1': 'bogus', '503=2': '503=2', '503=-1': '503', '503': '503', 'latency=abc': 'latency=abc', 'seed=1.5': 'seed=1.5',
      'retry-after=0.5': 'retry-after=0.5', '503=1,503=0.5': '503', 'latency=9999999': 'latency=9999999', 'reset=1e-2': 'reset=1e-2', 'hang=': 'hang=',
      'outage-after=0,outage-seconds=1': 'outage-after=0', 'outage-after=2.5,outage-seconds=1': 'outage-after=2.5', 'outage-after=3,outage-seconds=0': 'outage-seconds=0',
      'outage-after=3,outage-seconds=90000': 'outage-seconds=90000', 'outage-after=3,outage-seconds=1,outage-kind=down': 'outage-kind=down',
      'outage-after=3,outage-seconds=1,outage-kind=': 'outage-kind=', 'outage-after=3': 'needs both', 'outage-seconds=2': 'needs both', 'outage-kind=reset': 'needs both',
      'outage-after=abc,outage-seconds=1': 'outage-after=abc',
    };
    for (const [value, part] of Object.entries(bad)) {
      const read = () => mockOptionsFromEnv({ MOCK_FAULTS: value });
      expect(read, value).toThrow(ConfigError);
      expect(read, value).toThrow(/^MOCK_FAULTS: /);
      expect(read, value).toThrow(part);
    }
  });

  test('MOCK_LIMITER takes the five kinds; another value is a ConfigError naming it', async () => {
    expect(mockOptionsFromEnv({}).limiter).toBe('fixed');
    for (const kind of ['fixed', 'calendar', 'sliding', 'bucket', 'spaced']) expect(mockOptionsFromEnv({ MOCK_LIMITER: kind }).limiter).toBe(kind);
    expect(() => mockOptionsFromEnv({ MOCK_LIMITER: 'leaky' })).toThrow(/^MOCK_LIMITER: must be one of fixed, calendar, sliding, bucket, spaced, got "leaky"/);
    await expect(startMock({ port: 0, limiter: 'leaky' as never })).rejects.toThrow(/^limiter: /);
    await expect(startMock({ port: 0, faults: { '503': 2 } })).rejects.toThrow(/^faults: part "503=2"/);
    await expect(startMock({ port: 0, faults: { nope: 1 } as FaultSettings })).rejects.toThrow(ConfigError);
    await expect(startMock({ port: 0, faults: { 'outage-after': 5, 'outage-seconds': 1, 'outage-kind': 'gone' as never } })).rejects.toThrow(/^faults: part "outage-kind=gone": must be one of maintenance, reset/);
    await expect(startMock({ port: 0, faults: { 'outage-seconds': 1 } })).rejects.toThrow(/^faults: part "outage-seconds": an outage needs both/);
  });

  test('without faults nothing is injected and the counters stay at zero', async () => {
    await withMock(UNLIMITED, async (c) => {
      for (let i = 0; i < 20; i++) expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(200);
      expect(c.mock.faultCounts()).toEqual({ 'bill-enquiry': zeroCounts(), 'bill-payment': zeroCounts(), 'moi-enquiry': zeroCounts(), 'moi-payment': zeroCounts() });
    });
  });
});

test.describe('gateway answers', () => {
  for (const kind of ['502', '503', '504', '429'] as const) {
    test(`${kind}: answered at once with a gateway error body, before authentication and the rate limit`, async () => {
      await withMock({ rateLimits: { bill: 1, moi: 1 }, faults: { [kind]: 1, 'retry-after': 3 } }, async (c) => {
        for (let i = 0; i < 3; i++) {
          // the third with a bad token: the fault answers before authentication would refuse it
          const a = await c.post('bill-payment', c.build('bill-payment'), i === 2 ? { headers: { Authorization: 'Bearer wrong' } } : {});
          expect(a.status).toBe(Number(kind));
          expect(a.body).toMatchObject({ bankCode: '', errorCode: `MW-${kind}` });
          expect(a.body.correlationId).toBe(a.headers.get('x-correlation-id'));
          expect(a.headers.get('retry-after')).toBe(kind === '503' || kind === '429' ? '3' : null);
          // the real limiter never saw the call
          expect(a.headers.get('x-ratelimit-limit')).toBeNull();
        }
        expect(c.mock.faultCounts()['bill-payment']).toEqual({ ...zeroCounts(), [kind]: 3 });
        expect(c.mock.faultCounts()['bill-enquiry']).toEqual(zeroCounts());
      });
    });
  }

  test('a call answered by an earlier fault is not also lost', async () => {
    await withMock({ ...UNLIMITED, faults: { '503': 1, lost: 1 } }, async (c) => {
      for (let i = 0; i < 3; i++) expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(503);
      expect(c.mock.faultCounts()['bill-enquiry']).toEqual({ ...zeroCounts(), '503': 3 });
    });
  });

  test('Retry-After is 1 second unless retry-after says otherwise', async () => {
    await withMock({ ...UNLIMITED, faults: { '503': 1 } }, async (c) => {
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).headers.get('retry-after')).toBe('1');
    });
  });

  test('the token endpoint, 404 and 405 answers are never faulted', async () => {
    await withMock({ ...UNLIMITED, faults: { '503': 1, reset: 1 } }, async (c) => {
      expect(await issueToken(c.mock)).toMatch(/^mock-/);
      expect((await c.post('bill-enquiry', undefined, { method: 'GET' })).status).toBe(405);
      expect((await c.post('bill-enquiry', {}, { path: '/api/nothing/here' })).status).toBe(404);
      expect((await fetch(`${c.mock.url}${TOKEN_PATH}`)).status).toBe(405);
      expect(Object.values(c.mock.faultCounts()).every((n) => Object.values(n).every((v) => v === 0))).toBe(true);
    });
  });
});

test('faults before the call spend no budget: the real limit is reached by answered calls only', async () => {
  await withMock({ rateWindowSeconds: 30, rateLimits: { bill: 2, moi: 2 }, faults: { '503': 0.5, seed: 3 } }, async (c) => {
    const statuses: number[] = [];
    while (statuses.filter((s) => s !== 503).length < 3) statuses.push((await c.post('bill-enquiry', c.build('bill-enquiry'))).status);
    expect(statuses.filter((s) => s !== 503)).toEqual([200, 200, 429]);
    expect(statuses.filter((s) => s === 503).length, 'with this seed, faulted calls came before the limit was reached').toBeGreaterThanOrEqual(2);
    expect(c.mock.faultCounts()['bill-enquiry']['503']).toBe(statuses.filter((s) => s === 503).length);
  });
});

test('a seeded mix: counters agree with what the client saw, failed calls have no effect, and the seed repeats the sequence', async () => {
  const faults: FaultSettings = { reset: 0.1, '502': 0.1, '503': 0.1, '504': 0.1, '429': 0.1, seed: 20261121 };
  const account = freshAccount();
  const run = async () => withMock({ ...UNLIMITED, style: 'table', faults }, async (c) => {
    const subject = { BillerId: '002', AccountNumber: account };
    const seen: (number | 'reset')[] = [];
    const before = await answered(c, 'bill-enquiry', c.build('bill-enquiry', { entry: subject }));
    for (let i = 0; i < 40; i++) {
      const a = await attempt(c, 'bill-payment', c.billPayment(subject, 1, false));
      seen.push(a === undefined ? 'reset' : a.status);
    }
    const after = await answered(c, 'bill-enquiry', c.build('bill-enquiry', { entry: subject }));
    const count = (s: number | 'reset') => seen.filter((x) => x === s).length;
    const accepted = count(200);
    expect(accepted + count('reset') + count(502) + count(503) + count(504) + count(429)).toBe(40);
    expect(accepted).toBeGreaterThan(10);
    expect(cents(c.entries('bill-enquiry', after)[0]!.AmountDue), 'only the answered payments debited').toBe(cents(c.entries('bill-enquiry', before)[0]!.AmountDue) - 100 * accepted);
    expect(c.mock.faultCounts()['bill-payment']).toEqual({ ...zeroCounts(), reset: count('reset'), '502': count(502), '503': count(503), '504': count(504), '429': count(429) });
    for (const kind of ['reset', 502, 503, 504, 429] as const) expect(count(kind), `with this seed, ${kind} happened`).toBeGreaterThan(0);
    return seen;
  });
  expect(await run()).toEqual(await run());
});

test('reset: the connection is dropped before the call has an effect', async () => {
  await withMock({ ...UNLIMITED, faults: { reset: 1 } }, async (c) => {
    const err = await c.post('bill-enquiry', c.build('bill-enquiry')).then(() => undefined, (e: unknown) => e as Error & { cause?: { code?: string; message?: string } });
    expect(err, 'fetch rejects').toBeDefined();
    expect(`${err!.cause?.code ?? ''} ${err!.cause?.message ?? ''}`).toMatch(/ECONNRESET|socket hang up|other side closed|UND_ERR_SOCKET/);
    expect(c.mock.faultCounts()['bill-enquiry'].reset).toBe(1);
  });
});

test('lost: a bill payment takes effect but its answer never arrives; an enquiry shows the debit and a replay is a duplicate', async () => {
  await withMock({ ...UNLIMITED, style: 'table', faults: { lost: 0.5, seed: 11 } }, async (c) => {
    const subject = { BillerId: '002', AccountNumber: freshAccount() };
    const due = cents(c.entries('bill-enquiry', await answered(c, 'bill-enquiry', c.build('bill-enquiry', { entry: subject })))[0]!.AmountDue);
    let accepted = 0;
    const lost: unknown[] = [];
    for (let i = 0; i < 30 && (lost.length === 0 || accepted === 0); i++) {
      const body = c.billPayment(subject, 2, false);
      const a = await attempt(c, 'bill-payment', body);
      if (a === undefined) lost.push(body);
      else {
        expect(a.status).toBe(200);
        accepted += 1;
      }
    }
    expect(lost.length, 'with this seed, a payment answer was lost').toBeGreaterThan(0);
    const after = c.entries('bill-enquiry', await answered(c, 'bill-enquiry', c.build('bill-enquiry', { entry: subject })))[0]!;
    expect(cents(after.AmountDue), 'every payment debited, the lost ones too').toBe(due - 200 * (accepted + lost.length));
    // what a careful client does next: replay the same payment, and learn it was already taken
    const replay = await answered(c, 'bill-payment', lost[0]);
    expect(replay.status).toBe(409);
    expect(replay.body.errorCode).toBe('MW-409-DUPLICATE');
    expect(c.mock.faultCounts()['bill-payment'].lost).toBeGreaterThanOrEqual(lost.length);
  });
});

test('hang: no answer within the client\'s timeout, and close() still returns promptly', async () => {
  const mock = await startMock({ port: 0, ...UNLIMITED, faults: { hang: 1 } });
  const c = new MockClient(mock);
  let closed = false;
  try {
    const started = Date.now();
    const gaveUp = await c.post('bill-enquiry', c.build('bill-enquiry'), { signal: AbortSignal.timeout(500) }).then(() => false, (e: Error) => e.name);
    expect(gaveUp).toBe('TimeoutError');
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    // a second client that waits forever: closing the mock ends it
    const waiting = c.post('moi-enquiry', c.build('moi-enquiry')).then(() => 'answered', () => 'dropped');
    await new Promise((r) => setTimeout(r, 300));
    const closing = Date.now();
    await mock.close();
    closed = true;
    expect(Date.now() - closing, 'close() does not wait for the hung calls').toBeLessThan(5000);
    expect(await waiting).toBe('dropped');
    expect(mock.faultCounts()['bill-enquiry'].hang).toBe(1);
    expect(mock.faultCounts()['moi-enquiry'].hang).toBe(1);
  } finally {
    if (!closed) await mock.close();
  }
});

test('revoke: an issued token stays revoked and a new one works; the static token is refused only once', async () => {
  await withMock({ ...UNLIMITED, faults: { revoke: 0.5, seed: 5 } }, async (c) => {
    const call = (token: string) => c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { Authorization: `Bearer ${token}` } });
    const first = await issueToken(c.mock);
    let refused: Answer | undefined;
    for (let i = 0; i < 30 && refused === undefined; i++) {
      const a = await call(first);
      if (a.status !== 200) refused = a;
    }
    expect(refused, 'with this seed, the token was revoked').toBeDefined();
    expect(refused!.status).toBe(401);
    expect(refused!.body).toMatchObject({ errorCode: 'MW-401', details: [{ pointer: 'header:Authorization' }] });
    expect(refused!.headers.get('www-authenticate')).toContain('invalid_token');
    for (let i = 0; i < 5; i++) expect((await call(first)).status, 'the revoked token stays refused').toBe(401);

    // what a client does: a new token after each 401, until a call goes through
    const revoked = [first];
    let accepted = false;
    for (let i = 0; i < 30 && !accepted; i++) {
      const token = await issueToken(c.mock);
      accepted = (await call(token)).status === 200;
      if (!accepted) revoked.push(token);
    }
    expect(accepted, 'a new token works').toBe(true);
    for (const token of revoked) expect((await call(token)).status, 'revoked tokens are still refused').toBe(401);

    const statics: number[] = [];
    for (let i = 0; i < 12; i++) statics.push((await c.post('moi-enquiry', c.build('moi-enquiry'))).status);
    const firstRefusal = statics.indexOf(401);
    expect(firstRefusal, 'with this seed, the static token was refused').toBeGreaterThanOrEqual(0);
    expect(statics.slice(firstRefusal), 'and accepted again afterwards').toContain(200);
    expect(c.mock.faultCounts()['moi-enquiry'].revoke).toBeGreaterThanOrEqual(2);
  });
});

test('latency and jitter delay every API answer, rejections and gateway errors included', async () => {
  await withMock({ ...UNLIMITED, faults: { latency: 300, jitter: 100, seed: 1 } }, async (c) => {
    const timed = async (send: () => Promise<Answer>) => {
      const started = Date.now();
      const a = await send();
      return { status: a.status, ms: Date.now() - started };
    };
    for (const t of [
      await timed(() => c.post('bill-enquiry', c.build('bill-enquiry'))),
      await timed(() => c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { Authorization: 'Bearer wrong' } })),
      await timed(() => c.post('bill-enquiry', c.build('bill-enquiry', { entry: { BillerId: '' } }))),
    ]) expect(t.ms, `HTTP ${t.status}`).toBeGreaterThanOrEqual(295);
  });
  await withMock({ ...UNLIMITED, faults: { latency: 250, '504': 1 } }, async (c) => {
    const started = Date.now();
    expect((await c.post('moi-payment', c.build('moi-payment'))).status).toBe(504);
    expect(Date.now() - started).toBeGreaterThanOrEqual(245);
  });
});

test.describe('outage', () => {
  /** The call `send` makes, timed: when it started, and its answer (undefined: the connection was dropped). */
  const timed = async (send: () => Promise<Answer>) => {
    const at = Date.now();
    return { at, answer: await send().then((a) => a, () => undefined) };
  };

  test('maintenance: from the n-th API call, for its seconds, every call gets 503 HTML with Retry-After, before authentication and without effect; then the mock answers as before', async () => {
    const seconds = 2;
    await withMock({ ...UNLIMITED, rateLimits: { bill: 1000, moi: 1000 }, style: 'table', faults: { 'outage-after': 3, 'outage-seconds': seconds, 'retry-after': 4 } }, async (c) => {
      const subject = { BillerId: '002', AccountNumber: freshAccount() };
      const due = cents(c.entries('bill-enquiry', await c.post('bill-enquiry', c.build('bill-enquiry', { entry: subject })))[0]!.AmountDue);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status, 'the second call: before the outage').toBe(200);
      expect(c.mock.outage()).toEqual({ startedAt: null, endedAt: null, calls: 0 });

      const third = await timed(() => c.post('bill-payment', c.billPayment(subject, 1, false)));
      const during = [
        third,
        await timed(() => c.post('bill-payment', c.billPayment(subject, 1, false))),
        // a bad token: the outage answers before authentication would refuse it
        await timed(() => c.post('moi-payment', c.build('moi-payment'), { headers: { Authorization: 'Bearer wrong' } })),
        await timed(() => c.post('bill-enquiry', c.build('bill-enquiry', { entry: subject }))),
      ];
      const started = Date.parse(c.mock.outage().startedAt!);
      expect(started, 'the outage started at the third call').toBeGreaterThanOrEqual(third.at - 5);
      expect(during.every((d) => d.at < started + seconds * 1000), 'these calls fell inside the span (a stalled machine would not let them)').toBe(true);
      for (const { answer } of during) {
        expect(answer?.status).toBe(503);
        expect(answer!.headers.get('content-type')).toMatch(/^text\/html/);
        expect(answer!.body).toContain('Scheduled maintenance');
        expect(answer!.headers.get('retry-after')).toBe('4');
        // the real limiter never saw the call
        expect(answer!.headers.get('x-ratelimit-limit')).toBeNull();
      }
      // the token endpoint stays up
      expect(await issueToken(c.mock)).toMatch(/^mock-/);
      expect(c.mock.outage()).toEqual({ startedAt: new Date(started).toISOString(), endedAt: null, calls: 4 });

      await new Promise((r) => setTimeout(r, started + seconds * 1000 - Date.now() + 20));
      const after = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: subject }));
      expect(after.status, 'answered as before once the span is over').toBe(200);
      expect(cents(c.entries('bill-enquiry', after)[0]!.AmountDue), 'the payments sent during the outage debited nothing').toBe(due);
      expect((await c.post('bill-payment', c.billPayment(subject, 1, false))).status).toBe(200);
      expect(c.mock.outage()).toEqual({ startedAt: new Date(started).toISOString(), endedAt: new Date(started + seconds * 1000).toISOString(), calls: 4 });
      expect(c.mock.faultCounts()).toEqual({
        'bill-enquiry': { ...zeroCounts(), outage: 1 }, 'bill-payment': { ...zeroCounts(), outage: 2 },
        'moi-enquiry': zeroCounts(), 'moi-payment': { ...zeroCounts(), outage: 1 },
      });
    });
  });

  test('reset: the connections of the span are reset; after it the calls are answered', async () => {
    await withMock({ ...UNLIMITED, faults: { 'outage-after': 2, 'outage-seconds': 1, 'outage-kind': 'reset' } }, async (c) => {
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(200);
      const err = await c.post('moi-enquiry', c.build('moi-enquiry')).then(() => undefined, (e: unknown) => e as Error & { cause?: { code?: string; message?: string } });
      expect(err, 'fetch rejects').toBeDefined();
      expect(`${err!.cause?.code ?? ''} ${err!.cause?.message ?? ''}`).toMatch(/ECONNRESET|socket hang up|other side closed|UND_ERR_SOCKET/);
      expect(await attempt(c, 'bill-payment', c.build('bill-payment')), 'every call of the span').toBeUndefined();
      const started = Date.parse(c.mock.outage().startedAt!);
      await new Promise((r) => setTimeout(r, started + 1000 - Date.now() + 20));
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(200);
      expect(c.mock.outage()).toMatchObject({ calls: 2, endedAt: new Date(started + 1000).toISOString() });
      expect(c.mock.faultCounts()['moi-enquiry']).toEqual({ ...zeroCounts(), outage: 1 });
      expect(c.mock.faultCounts()['bill-payment']).toEqual({ ...zeroCounts(), outage: 1 });
    });
  });

  test('with the other faults: the seeded draws go on through the outage, so the calls around it fare as without one', async () => {
    const faults: FaultSettings = { '503': 0.3, '429': 0.2, seed: 77 };
    const seconds = 1.5;
    const answers = (outage: FaultSettings) => withMock({ ...UNLIMITED, faults: { ...faults, ...outage } }, async (c) => {
      const seen: (number | 'maintenance')[] = [];
      for (let i = 0; i < 24; i++) {
        if (i === 10 && outage['outage-after']) await new Promise((r) => setTimeout(r, Date.parse(c.mock.outage().startedAt!) + seconds * 1000 - Date.now() + 20));
        const a = await c.post('bill-enquiry', c.build('bill-enquiry'));
        seen.push(a.headers.get('content-type')?.startsWith('text/html') ? 'maintenance' : a.status);
      }
      return seen;
    });
    const without = await answers({});
    const withOutage = await answers({ 'outage-after': 5, 'outage-seconds': seconds });
    expect(withOutage.slice(4, 10), 'calls 5 to 10: the maintenance page').toEqual(Array(6).fill('maintenance'));
    expect([...withOutage.slice(0, 4), ...withOutage.slice(10)]).toEqual([...without.slice(0, 4), ...without.slice(10)]);
    expect(new Set(without), 'with this seed, the draws gave faults and answers').toEqual(new Set([200, 503, 429]));
  });
});
