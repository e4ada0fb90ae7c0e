import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { sign } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { operations } from '../../src/contract/catalogue.js';
import { requiredHeaderNames } from '../../src/contract/headers.js';
import { DATA_DIR } from '../../src/paths.js';
import { SIGNATURE_HEADER, TOKEN_PATH } from '../../src/mock/index.js';
import { UNLIMITED, withMock, type Answer } from './helpers.js';

const PRIVATE_KEY = readFileSync(join(DATA_DIR, 'test-keys', 'signing-private.pem'), 'utf8');
const PUBLIC_KEY = readFileSync(join(DATA_DIR, 'test-keys', 'signing-public.pem'), 'utf8');
const signatureOf = (body: { Message: unknown }) => sign('sha256', Buffer.from(JSON.stringify(body.Message)), PRIVATE_KEY).toString('base64');

function expectUnauthorized(a: Answer, pointer: string, label = pointer) {
  expect(a.status, label).toBe(401);
  expect(a.body, label).toMatchObject({ bankCode: '', errorCode: 'MW-401', errorMessage: 'UNAUTHORIZED' });
  expect(a.body.correlationId, label).toBe(a.headers.get('x-correlation-id'));
  expect(a.body.details?.[0]?.pointer, label).toBe(pointer);
}

test('every required header missing is a 401 naming it, on every operation', async () => {
  await withMock(UNLIMITED, async (c) => {
    for (const op of operations) {
      const body = c.build(op.id);
      // a generated payment may fail the business rules (422); here only authentication matters
      expect([200, 422], `${op.id} with all headers`).toContain((await c.post(op.id, body)).status);
      for (const name of requiredHeaderNames(c.options.headerPrefix)) {
        expectUnauthorized(await c.post(op.id, body, { headers: { [name]: undefined } }), `header:${name}`, `${op.id} without ${name}`);
      }
    }
  });
});

test('malformed headers, a bad token and an unknown company are 401', async () => {
  await withMock(UNLIMITED, async (c) => {
    const body = c.build('bill-enquiry');
    const post = (headers: Record<string, string>) => c.post('bill-enquiry', body, { headers });
    // the document: ISO 8601 without a zone, in the sample's form
    for (const stamp of ['2025-01-02 10:20:39', '2025-01-02T10:20:39Z', '2025-01-02T10:20:39+03:00', '20250102T102039', '2025-13-02T10:20:39']) {
      expectUnauthorized(await post({ DateTimeStamp: stamp }), 'header:DateTimeStamp', stamp);
    }
    expectUnauthorized(await post({ Authorization: 'mock-access-token-0123456789' }), 'header:Authorization', 'no Bearer scheme');
    expectUnauthorized(await post({ Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }), 'header:Authorization', 'Basic');
    const bad = await post({ Authorization: 'Bearer not-the-token' });
    expectUnauthorized(bad, 'header:Authorization', 'wrong token');
    expect(bad.headers.get('www-authenticate')).toContain('invalid_token');
    expect(JSON.stringify(bad.body)).not.toContain('not-the-token');
    expectUnauthorized(await post({ CompanyId: 'OTHERCO' }), 'header:CompanyId');
    expect((await post({ Authorization: 'bearer mock-access-token-0123456789' })).status, 'scheme is case-insensitive').toBe(200);
  });
});

test('what the document allows is accepted; SADAD_CLIENT_PROFILE=strict-deployment refuses the forms only a real deployment enforces', async () => {
  // the document gives the reference id no form, and ISO 8601 without a zone allows fractions of a second
  const deploymentOnly = [{ SvcReferenceID: randomUUID() }, { SvcReferenceID: 'has space' }, { SvcReferenceID: 'A'.repeat(17) }, { DateTimeStamp: `${new Date().toISOString().slice(0, 19)}.123` }];
  await withMock(UNLIMITED, async (c) => {
    for (const headers of deploymentOnly) expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers })).status, JSON.stringify(headers)).toBe(200);
  });
  await withMock({ ...UNLIMITED, clientProfile: 'strict-deployment' }, async (c) => {
    for (const headers of deploymentOnly) expectUnauthorized(await c.post('bill-enquiry', c.build('bill-enquiry'), { headers }), `header:${Object.keys(headers)[0]}`, JSON.stringify(headers));
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status, 'the deployment\'s own forms').toBe(200);
  });
});

test('the header prefix names the reference-id header', async () => {
  await withMock({ ...UNLIMITED, headerPrefix: 'SV' }, async (c) => {
    const body = c.build('moi-enquiry');
    expect((await c.post('moi-enquiry', body)).status).toBe(200);
    expectUnauthorized(await c.post('moi-enquiry', body, { headers: { SVReferenceID: undefined, SvcReferenceID: 'SV150619940615' } }), 'header:SVReferenceID');
  });
});

test('an extra accepted company has its own calls accepted', async () => {
  await withMock({ ...UNLIMITED, extraCompanyIds: ['SECONDCO'] }, async (c) => {
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { CompanyId: 'SECONDCO' } })).status).toBe(200);
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { CompanyId: 'THIRDCO' } })).status).toBe(401);
  });
});

test('clientid/clientsecret: optional by default but checked when sent; required when configured', async () => {
  await withMock(UNLIMITED, async (c) => {
    const body = c.build('bill-payment', { entry: { Amount: 1, PayExactDue: false } });
    expect((await c.post('bill-payment', body)).status, 'without client headers').not.toBe(401);
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { clientid: 'mock-client', clientsecret: 'mock-client-secret' } })).status).toBe(200);
    expectUnauthorized(await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { clientid: 'mock-client', clientsecret: 'wrong' } }), 'header:clientsecret');
  });
  await withMock({ ...UNLIMITED, requireClientHeaders: true }, async (c) => {
    for (const opId of ['bill-enquiry', 'bill-payment'] as const) {
      expectUnauthorized(await c.post(opId, c.build(opId)), 'header:clientid', `${opId} without client headers`);
      expectUnauthorized(await c.post(opId, c.build(opId), { headers: { clientid: 'mock-client' } }), 'header:clientsecret', `${opId} without clientsecret`);
    }
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { clientid: 'mock-client', clientsecret: 'mock-client-secret' } })).status).toBe(200);
    // the samples carry them on bill operations only (spec §4 rule 3)
    expect((await c.post('moi-enquiry', c.build('moi-enquiry'))).status).toBe(200);
  });
});

test('token endpoint: client credentials (JSON, form, client_code, Basic) issue tokens that work until they expire', async () => {
  await withMock({ ...UNLIMITED, tokenLifetimeSeconds: 0.6 }, async (c) => {
    const tokenUrl = `${c.mock.url}${TOKEN_PATH}`;
    const asJson = (body: object) => fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const asForm = (body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(tokenUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString() });

    const grants = [
      await asJson({ grant_type: 'client_credentials', client_id: 'mock-client', client_secret: 'mock-client-secret' }),
      await asJson({ grant_type: 'client_credentials', client_id: 'mock-client', client_code: 'mock-client-secret' }),
      await asForm({ grant_type: 'client_credentials', client_id: 'mock-client', client_secret: 'mock-client-secret' }),
      await asForm({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from('mock-client:mock-client-secret').toString('base64')}` }),
    ];
    const tokens: string[] = [];
    for (const g of grants) {
      expect(g.status).toBe(200);
      const t = (await g.json()) as { access_token: string; token_type: string; expires_in: number };
      expect(t).toMatchObject({ token_type: 'Bearer', expires_in: 1 });
      tokens.push(t.access_token);
    }
    expect(new Set(tokens).size).toBe(tokens.length);

    const withToken = (token: string) => c.post('bill-enquiry', c.build('bill-enquiry'), { headers: { Authorization: `Bearer ${token}` } });
    expect((await withToken(tokens[0]!)).status).toBe(200);
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status, 'the static token still works').toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    expectUnauthorized(await withToken(tokens[0]!), 'header:Authorization', 'expired token');

    const bad = await asJson({ grant_type: 'client_credentials', client_id: 'mock-client', client_secret: 'nope' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: 'invalid_client' });
    const grant = await asForm({ grant_type: 'password', client_id: 'mock-client', client_secret: 'mock-client-secret' });
    expect(grant.status).toBe(400);
    expect(await grant.json()).toEqual({ error: 'unsupported_grant_type' });
    expect((await fetch(tokenUrl)).status).toBe(405);
  });
});

test('signature: verified when a public key is configured; missing or bad is 401, good passes', async () => {
  await withMock({ ...UNLIMITED, signaturePublicKeyPem: PUBLIC_KEY }, async (c) => {
    for (const op of operations) {
      const body = c.build(op.id);
      expectUnauthorized(await c.post(op.id, body), `header:${SIGNATURE_HEADER}`, `${op.id} unsigned`);
      expect([200, 422], `${op.id} signed`).toContain((await c.post(op.id, body, { headers: { [SIGNATURE_HEADER]: signatureOf(body) } })).status);
      const other = c.build(op.id);
      expectUnauthorized(await c.post(op.id, body, { headers: { [SIGNATURE_HEADER]: signatureOf(other) } }), `header:${SIGNATURE_HEADER}`, `${op.id} signature of another body`);
      expectUnauthorized(await c.post(op.id, body, { headers: { [SIGNATURE_HEADER]: 'bm90IGEgc2lnbmF0dXJl' } }), `header:${SIGNATURE_HEADER}`, `${op.id} garbage signature`);
      expectUnauthorized(await c.post(op.id, body, { headers: { [SIGNATURE_HEADER]: '***' } }), `header:${SIGNATURE_HEADER}`, `${op.id} not base64`);
    }
  });
  await withMock(UNLIMITED, async (c) => {
    expect((await c.post('bill-enquiry', c.build('bill-enquiry'))).status, 'no key configured: no signature needed').toBe(200);
  });
});
