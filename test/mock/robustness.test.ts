import { expect, test } from '@playwright/test';
import { operations } from '../../src/contract/catalogue.js';
import { BODY_LIMIT } from '../../src/mock/index.js';
import { UNLIMITED, withMock, type Answer } from './helpers.js';

function expectError(a: Answer, status: number, code: string, label: string) {
  expect(a.status, label).toBe(status);
  expect(a.body, label).toMatchObject({ bankCode: '', errorCode: code });
  expect(a.body.correlationId, label).toMatch(/^[0-9a-f-]{36}$/);
  expect(a.headers.get('x-correlation-id'), label).toBe(a.body.correlationId);
  expect(a.body.timeStamp, label).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/);
}

test('malformed JSON and an empty body are 400 MW-400-MALFORMED, in both error modes', async () => {
  for (const errors of ['http', 'in-band'] as const) {
    await withMock({ ...UNLIMITED, errors }, async (c) => {
      for (const op of operations) {
        for (const raw of ['{"Message": ', '{not json}', '[1,2', '']) {
          expectError(await c.post(op.id, undefined, { raw }), 400, 'MW-400-MALFORMED', `${errors} ${op.id} ${JSON.stringify(raw)}`);
        }
      }
      // well-formed JSON that is not an envelope is a validation failure, not a crash
      for (const raw of ['null', '42', '"text"', '[]', '{}', '{"Message": []}', '{"Message": {"SvcSadadBillEnquiryRequest": null}}']) {
        expectError(await c.post('bill-enquiry', undefined, { raw }), 400, 'MW-400-VALIDATION', `${errors} ${raw}`);
      }
    });
  }
});

test('a content type other than JSON is 415; JSON with a charset is fine', async () => {
  await withMock(UNLIMITED, async (c) => {
    const body = c.build('bill-enquiry');
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
      expectError(await c.post('bill-enquiry', body, { headers: { 'Content-Type': type } }), 415, 'MW-415', type);
    }
    expect((await c.post('bill-enquiry', body, { headers: { 'Content-Type': 'application/json; charset=utf-8' } })).status).toBe(200);
  });
});

test('a body over 1 MiB is 413', async () => {
  await withMock(UNLIMITED, async (c) => {
    const body = c.build('bill-enquiry') as { Message: Record<string, unknown>; padding?: string };
    body.padding = 'x'.repeat(BODY_LIMIT);
    expectError(await c.post('bill-enquiry', body), 413, 'MW-413', 'oversized');
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status, 'the mock still serves').toBe(200);
  });
});

test('unknown paths are 404, other methods on an operation are 405 with Allow: POST', async () => {
  await withMock(UNLIMITED, async (c) => {
    for (const path of ['/', '/api/enquiry/sadad', '/api/enquiry/sadad/bills', '/API/ENQUIRY/SADAD/BILL/extra', '/api/payment/sadad/water']) {
      expectError(await c.post('bill-enquiry', c.build('bill-enquiry'), { path }), 404, 'MW-404', path);
    }
    expectError(await c.post('bill-enquiry', undefined, { method: 'GET', path: '/nowhere' }), 404, 'MW-404', 'GET unknown');
    for (const op of operations) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const a = await c.post(op.id, c.build(op.id), { method });
        expectError(a, 405, 'MW-405', `${method} ${op.path}`);
        expect(a.headers.get('allow')).toBe('POST');
      }
      expect((await fetch(`${c.mock.url}${op.path}`, { method: 'HEAD' })).status).toBe(405);
    }
  });
});

test('__proto__ and constructor keys are harmless: no 5xx, no pollution, the call is still answered', async () => {
  await withMock(UNLIMITED, async (c) => {
    const valid = JSON.stringify(c.build('bill-enquiry'));
    const raws = [
      '{"__proto__": {"polluted": true}}',
      '{"constructor": {"prototype": {"polluted": true}}}',
      valid.replace('{"Message":{', '{"__proto__":{"polluted":true},"Message":{"__proto__":{"polluted":true},'),
      valid.replace('"TransactionData":[{', '"TransactionData":[{"__proto__":{"Amount":1,"polluted":true},"constructor":{"prototype":{"polluted":true}},'),
      valid.replace('{"Message":{', '{"constructor":"x","toString":"y","hasOwnProperty":"z","Message":{'),
    ];
    const statuses: number[] = [];
    for (const raw of raws) {
      const a = await c.post('bill-enquiry', undefined, { raw });
      expect(a.status, raw.slice(0, 60)).toBeLessThan(500);
      statuses.push(a.status);
    }
    expect(statuses.slice(2), 'valid bodies with extra keys are answered').toEqual([200, 200, 200]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status).toBe(200);
  });
});

test('odd but well-formed values never cause a 5xx', async () => {
  await withMock({ ...UNLIMITED, errors: 'in-band' }, async (c) => {
    const odd: unknown[] = [1e308, -0, 'ÿ'.repeat(1000), '\u0000', { nested: { deep: [1, [2, [3]]] } }, [], true, '9404'];
    for (const op of operations) {
      for (const value of odd) {
        for (const field of ['SequenceNumber', 'Amount', 'DueAmount', 'AccountNumber', 'BillAccountID', 'ID', 'BillerId', 'BillerID', 'FeeReferenceId']) {
          const a = await c.post(op.id, c.build(op.id, { entry: { [field]: value } }));
          expect(a.status, `${op.id} ${field}=${JSON.stringify(value).slice(0, 30)}`).toBeLessThan(500);
        }
      }
    }
  });
});
