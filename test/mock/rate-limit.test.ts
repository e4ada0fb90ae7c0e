import { expect, test } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sign } from 'node:crypto';
import { DATA_DIR } from '../../src/paths.js';
import { SIGNATURE_HEADER, TOKEN_PATH } from '../../src/mock/index.js';
import { STORES, withMock } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const store of STORES) {
test.describe(`${store} store`, () => {
  test('the first `limit` calls in a window are accepted, the next is 429 with Retry-After, and after the window calls pass again', async () => {
    await withMock({ rateWindowSeconds: 1, store }, async (c) => {
      for (const [opId, limit] of [['bill-enquiry', 10], ['moi-enquiry', 3]] as const) {
        const started = Date.now();
        for (let i = 0; i < limit; i++) {
          const a = await c.post(opId, c.build(opId));
          expect(a.status, `${opId} call ${i + 1}`).toBe(200);
          expect(a.headers.get('x-ratelimit-limit')).toBe(String(limit));
          expect(a.headers.get('x-ratelimit-remaining')).toBe(String(limit - i - 1));
        }
        const over = await c.post(opId, c.build(opId));
        expect(Date.now() - started, 'the calls fit in one window').toBeLessThan(1000);
        expect(over.status, `${opId} call ${limit + 1}`).toBe(429);
        expect(over.body).toMatchObject({ errorCode: 'MW-429', bankCode: '' });
        expect(over.headers.get('retry-after')).toBe('1');
        await sleep(Math.max(0, started + 1100 - Date.now()));
        expect((await c.post(opId, c.build(opId))).status, `${opId} after the window`).toBe(200);
      }
    });
  });

  test('Retry-After is the whole seconds left in the window, rounded up', async () => {
    await withMock({ rateWindowSeconds: 2.5, rateLimits: { bill: 1, moi: 1 }, store }, async (c) => {
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(200);
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).headers.get('retry-after')).toBe('3');
    });
  });

  test('budgets are separate per operation and per company', async () => {
    await withMock({ rateWindowSeconds: 5, rateLimits: { bill: 2, moi: 1 }, extraCompanyIds: ['SECONDCO'], store }, async (c) => {
      for (let i = 0; i < 2; i++) expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(200);
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(429);
      // same group, other operation: its own budget of the group's size
      const pay = c.build('bill-payment', { entry: { Amount: 1, PayExactDue: false } });
      expect((await c.post('bill-payment', pay)).status).toBe(200);
      expect((await c.post('bill-payment', c.build('bill-payment', { entry: { Amount: 1, PayExactDue: false } }))).status).toBe(200);
      expect((await c.post('bill-payment', c.build('bill-payment'))).status).toBe(429);
      // other company: its own budget on the exhausted operation
      expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { CompanyId: 'SECONDCO' } })).status).toBe(200);
      // MOI group: limit 1 per operation
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(200);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(429);
      expect((await c.post('moi-payment', c.build('moi-payment'))).status).toBe(422);
      expect((await c.post('moi-payment', c.build('moi-payment'))).status).toBe(429);
    });
  });

  test('every authenticated call counts, also ones rejected by validation or the rules; unauthenticated calls do not', async () => {
    await withMock({ rateWindowSeconds: 5, rateLimits: { bill: 10, moi: 3 }, store }, async (c) => {
      for (let i = 0; i < 5; i++) expect((await c.post('moi-enquiry', c.build('moi-enquiry'), { headers: { Authorization: 'Bearer wrong' } })).status).toBe(401);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry', { entry: { Duration: 'x' } }))).status).toBe(400);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry', { entry: { ID: '2000009404' } }))).status).toBe(422);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(200);
      const over = await c.post('moi-enquiry', c.build('moi-enquiry'));
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    });
  });

  test('a rate-limited call is a 429 also in in-band mode; the token endpoint is not limited', async () => {
    await withMock({ rateWindowSeconds: 5, rateLimits: { bill: 1, moi: 1 }, errors: 'in-band', store }, async (c) => {
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(200);
      expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(429);
      for (let i = 0; i < 5; i++) {
        const t = await fetch(`${c.mock.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'mock-client', client_secret: 'mock-client-secret' }) });
        expect(t.status).toBe(200);
      }
    });
  });

  test('calls with a bad signature are not counted: they are not authenticated', async () => {
    const key = (name: string) => readFileSync(join(DATA_DIR, 'test-keys', name), 'utf8');
    await withMock({ rateWindowSeconds: 5, rateLimits: { bill: 2, moi: 2 }, signaturePublicKeyPem: key('signing-public.pem'), store }, async (c) => {
      for (let i = 0; i < 4; i++) expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { [SIGNATURE_HEADER]: 'AAAA' } })).status).toBe(401);
      const signed = async () => {
        const body = c.build('bill-enquiry');
        const signature = sign('sha256', Buffer.from(JSON.stringify(body.Message)), key('signing-private.pem')).toString('base64');
        return (await c.post('bill-enquiry', body, { headers: { [SIGNATURE_HEADER]: signature } })).status;
      };
      expect([await signed(), await signed(), await signed()]).toEqual([200, 200, 429]);
    });
  });
});
}
