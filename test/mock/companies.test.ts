/**
 * MOCK_COMPANIES: one sandbox serving many partners. The file is checked at start, every problem
 * naming MOCK_COMPANIES and the entry. Two companies, on either store: neither can act as the
 * other (its token or its token endpoint credentials with the other's CompanyId), see or pay the
 * other's bills, or spend the other's budget; each has its own limits and its own signature key.
 */
import { spawnSync } from 'node:child_process';
import { sign } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { mockOptionsFromEnv, readCompaniesFile, SIGNATURE_HEADER, TOKEN_PATH, type CompanyConfig } from '../../src/mock/index.js';
import { DATA_DIR, ROOT } from '../../src/paths.js';
import { freshAccount, MockClient, STORES, withMock, type Answer } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'sadad-companies-'));
let files = 0;
/** Writes a companies file; returns its path. */
function companiesFile(doc: unknown): string {
  const path = join(dir, `companies-${++files}.json`);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}
const PUBLIC_KEY = join(DATA_DIR, 'test-keys', 'signing-public.pem');
const PRIVATE_KEY = readFileSync(join(DATA_DIR, 'test-keys', 'signing-private.pem'), 'utf8');
const cents = (n: unknown) => Math.round(Number(n) * 100);

test('the file is checked at start: each problem names MOCK_COMPANIES and the entry', () => {
  const bad: [unknown, RegExp][] = [
    ['{ not json', /MOCK_COMPANIES: .* is not valid JSON/],
    [[], /MOCK_COMPANIES: must be a JSON array of at least one company/],
    [{ companyId: 'A' }, /must be a JSON array/],
    [[{ accessToken: 'tok-a' }], /MOCK_COMPANIES: entry 1: companyId is required/],
    [[{ companyId: 'A' }], /entry 1 \("A"\): needs an accessToken, or clientId and clientSecret/],
    [[{ companyId: 'A', clientId: 'a' }], /entry 1 \("A"\): clientId and clientSecret go together/],
    [[{ companyId: 'A', accessToken: 'tok a' }], /entry 1 \("A"\): accessToken must be a non-empty string without white space/],
    [[{ companyId: 'A', accessToken: 'tok-a' }, { companyId: 'B', accessToken: 'tok-a' }], /entry 2 \("B"\): accessToken is the same as entry 1's/],
    [[{ companyId: 'A', accessToken: 'tok-a' }, { companyId: 'A', accessToken: 'tok-b' }], /entry 2 \("A"\): companyId is the same as entry 1's/],
    [[{ companyId: 'A', clientId: 'c', clientSecret: 's' }, { companyId: 'B', clientId: 'c', clientSecret: 't' }], /entry 2 \("B"\): clientId is the same/],
    [[{ companyId: 'A', accessToken: 'tok-a', limit: { bill: 1 } }], /entry 1 \("A"\): unknown field "limit"/],
    [[{ companyId: 'A', accessToken: 'tok-a', limits: { bill: 0 } }], /entry 1 \("A"\): limits.bill must be a positive whole number/],
    [[{ companyId: 'A', accessToken: 'tok-a', limits: { pay: 2 } }], /limits: unknown field "pay"/],
    [[{ companyId: 'A', accessToken: 'tok-a' }, 'B'], /entry 2: must be an object/],
    [[{ companyId: 'A', accessToken: 'tok-a', signaturePublicKey: 'no/such/key.pem' }], /entry 1 \("A"\): signaturePublicKey: cannot read the file "no\/such\/key.pem"/],
    [[{ companyId: 'A', accessToken: 'tok-a', signaturePublicKey: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' }], /signaturePublicKey: not a PEM public key/],
  ];
  for (const [doc, message] of bad) expect(() => readCompaniesFile(companiesFile(doc)), JSON.stringify(doc)).toThrow(message);
  expect(() => readCompaniesFile(join(dir, 'missing.json'))).toThrow(/MOCK_COMPANIES: cannot read the file/);
  expect(() => mockOptionsFromEnv({ MOCK_COMPANIES: companiesFile([{ companyId: 'A', accessToken: 'tok-a' }]), MOCK_EXTRA_COMPANY_IDS: 'X' })).toThrow(/MOCK_EXTRA_COMPANY_IDS: cannot be used with MOCK_COMPANIES/);

  // a good file: keys inline or by path (relative to the file too), limits, client credentials
  const good = readCompaniesFile(companiesFile([
    { companyId: 'A', accessToken: 'tok-a', signaturePublicKey: PUBLIC_KEY, limits: { bill: 5 } },
    { companyId: 'B', clientId: 'b-client', clientSecret: 'b-secret', signaturePublicKey: readFileSync(PUBLIC_KEY, 'utf8') },
  ]));
  expect(good.map((c) => [c.companyId, c.limits, c.signaturePublicKeyPem?.startsWith('-----BEGIN PUBLIC KEY-----')])).toEqual([['A', { bill: 5 }, true], ['B', undefined, true]]);
  const options = mockOptionsFromEnv({ MOCK_COMPANIES: companiesFile([{ companyId: 'A', accessToken: 'tok-a' }, { companyId: 'B', accessToken: 'tok-b' }]) });
  expect(options.companies!.map((c) => c.companyId)).toEqual(['A', 'B']);
});

test('npm run mock with a bad MOCK_COMPANIES stops before listening, exit 2, naming the variable and the entry', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/mock.ts')], {
    cwd: ROOT, encoding: 'utf8', timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env'), MOCK_PORT: '0', MOCK_COMPANIES: companiesFile([{ companyId: 'A', accessToken: 'tok-a' }, { companyId: 'B' }]) },
  });
  expect(r.status, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toContain('mock: MOCK_COMPANIES: entry 2 ("B"): needs an accessToken');
});

const COMPANIES: CompanyConfig[] = [
  { companyId: 'ALPHA', accessToken: 'alpha-token-0123456789', limits: { bill: 3, moi: 2 } },
  { companyId: 'BETA', clientId: 'beta-client', clientSecret: 'beta-secret', limits: { bill: 2 } },
];

/** The client credentials' token of a company. */
async function tokenOf(c: MockClient, clientId: string, secret: string): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${c.mock.url}${TOKEN_PATH}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }).toString() });
  const body = (await res.json()) as { access_token?: string };
  return { status: res.status, ...(body.access_token ? { token: body.access_token } : {}) };
}

for (const store of STORES) {
  test.describe(`${store} store`, () => {
    test('two companies from MOCK_COMPANIES cannot act as each other, see each other\'s bills, or spend each other\'s limits', async () => {
      await withMock({ style: 'table', rateWindowSeconds: 30, rateLimits: { bill: 10, moi: 3 }, companies: COMPANIES, store }, async (c) => {
        const beta = await tokenOf(c, 'beta-client', 'beta-secret');
        expect(beta.status).toBe(200);
        expect((await tokenOf(c, 'beta-client', 'wrong')).status).toBe(401);
        const as = (company: string, token: string) => ({ headers: { CompanyId: company, Authorization: `Bearer ${token}` } });
        const A = as('ALPHA', 'alpha-token-0123456789');
        const B = as('BETA', beta.token!);
        const post = (op: Parameters<MockClient['post']>[0], body: unknown, who: { headers: Record<string, string> }) => c.post(op, body, who);

        // credentials of one company with the other's CompanyId: refused, and no budget spent
        const crossed: Answer[] = [
          await post('bill-enquiry', c.build('bill-enquiry'), as('BETA', 'alpha-token-0123456789')),
          await post('bill-enquiry', c.build('bill-enquiry'), as('ALPHA', beta.token!)),
          await post('bill-enquiry', c.build('bill-enquiry'), as('GAMMA', 'alpha-token-0123456789')),
          await post('bill-enquiry', c.build('bill-enquiry'), as('ALPHA', 'mock-access-token-0123456789')),
        ];
        expect(crossed.map((a) => a.status)).toEqual([401, 401, 401, 401]);
        expect(crossed[0]!.body.details[0]).toMatchObject({ pointer: 'header:CompanyId', expected: 'the company the credentials belong to' });

        // ALPHA pays a bill; BETA, enquiring the same account, sees its own bill, untouched
        const subject = { BillerId: '002', AccountNumber: freshAccount() };
        const enquiry = c.build('bill-enquiry', { entry: subject });
        const dueA = cents(c.entries('bill-enquiry', await post('bill-enquiry', enquiry, A))[0]!.AmountDue);
        const payment = c.billPayment(subject, 10, false);
        expect((await post('bill-payment', payment, A)).status).toBe(200);
        const seenByB = await post('bill-enquiry', c.build('bill-enquiry', { entry: subject }), B);
        expect(cents(c.entries('bill-enquiry', seenByB)[0]!.AmountDue), 'BETA does not see ALPHA\'s payment').toBe(dueA);
        // the same payment (same SequenceNumber) by BETA is BETA's own, on BETA's own bill: ALPHA's stays as it was
        expect((await post('bill-payment', payment, B)).status).toBe(200);
        expect(cents(c.entries('bill-enquiry', await post('bill-enquiry', c.build('bill-enquiry', { entry: subject }), A))[0]!.AmountDue)).toBe(dueA - 1000);

        // budgets: ALPHA 3 bill enquiries per window (its own limit), BETA 2, whatever the other spent
        const enquire = (who: { headers: Record<string, string> }) => post('bill-enquiry', c.build('bill-enquiry'), who);
        const alpha = await enquire(A); // ALPHA's third bill enquiry of the window
        expect(alpha.status).toBe(200);
        expect(alpha.headers.get('x-ratelimit-limit')).toBe('3');
        expect((await enquire(A)).status, 'ALPHA is out of budget').toBe(429);
        const betaCalls = [await enquire(B), await enquire(B)];
        expect(betaCalls.map((a) => a.status), 'BETA had used 1 of its 2; ALPHA\'s calls spent none of it').toEqual([200, 429]);
        expect(betaCalls[0]!.headers.get('x-ratelimit-limit')).toBe('2');
        // MOI: ALPHA's own limit 2; BETA takes MOCK_RATE_LIMIT_MOI (3)
        const moi = async (who: { headers: Record<string, string> }) => (await post('moi-enquiry', c.build('moi-enquiry'), who)).status;
        expect([await moi(A), await moi(A), await moi(A)]).toEqual([200, 200, 429]);
        expect([await moi(B), await moi(B), await moi(B), await moi(B)]).toEqual([200, 200, 200, 429]);
      });
    });

    test('each company\'s own signature key and client headers', async () => {
      const companies: CompanyConfig[] = [
        { companyId: 'SIGNS', accessToken: 'signs-token-0123456789', clientId: 'signs-client', clientSecret: 'signs-secret', signaturePublicKeyPem: readFileSync(PUBLIC_KEY, 'utf8') },
        { companyId: 'PLAIN', accessToken: 'plain-token-0123456789' },
      ];
      await withMock({ style: 'table', rateLimits: { bill: 100, moi: 100 }, companies, store }, async (c) => {
        const body = c.build('bill-enquiry');
        const signature = sign('sha256', Buffer.from(JSON.stringify(body.Message)), PRIVATE_KEY).toString('base64');
        const call = (company: string, token: string, extra: Record<string, string> = {}) => c.post('bill-enquiry', body, { headers: { CompanyId: company, Authorization: `Bearer ${token}`, ...extra } });
        const unsigned = await call('SIGNS', 'signs-token-0123456789');
        expect([unsigned.status, unsigned.body.details?.[0]?.pointer]).toEqual([401, `header:${SIGNATURE_HEADER}`]);
        expect((await call('SIGNS', 'signs-token-0123456789', { [SIGNATURE_HEADER]: signature })).status).toBe(200);
        expect((await call('PLAIN', 'plain-token-0123456789')).status, 'PLAIN has no key: nothing to sign').toBe(200);
        // client headers: SIGNS's own; PLAIN has none registered, so any it sends is refused
        expect((await call('SIGNS', 'signs-token-0123456789', { [SIGNATURE_HEADER]: signature, clientid: 'signs-client', clientsecret: 'signs-secret' })).status).toBe(200);
        expect((await call('PLAIN', 'plain-token-0123456789', { clientid: 'signs-client', clientsecret: 'signs-secret' })).status).toBe(401);
        // a token from SIGNS's client credentials serves SIGNS only
        const t = await tokenOf(c, 'signs-client', 'signs-secret');
        expect((await call('PLAIN', t.token!)).status).toBe(401);
        expect((await call('SIGNS', t.token!, { [SIGNATURE_HEADER]: signature })).status).toBe(200);
      });
    });
  });
}
