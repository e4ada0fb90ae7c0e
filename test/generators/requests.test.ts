import { expect, test } from '@playwright/test';
import { operations } from '../../src/contract/catalogue.js';
import { requestEntries, requestItems } from '../../src/contract/message.js';
import { validateRequest } from '../../src/contract/validator.js';
import { mutationsOf } from '../../src/generators/mutations.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { seedOf as seedFrom } from '../../src/config/index.js';

const SEEDS = [1, 42, 20261121, 987654321];
const UNIQUE = new Set(['SequenceNumber', 'TransactionReferenceNumber']);
const withoutUniqueIds = (body: unknown) => JSON.parse(JSON.stringify(body, (k, v) => (UNIQUE.has(k) ? '<unique>' : v)));

for (const op of operations) {
  test(`${op.id}: 1000 generated requests over ${SEEDS.length} seeds all validate`, () => {
    let n = 0;
    for (const seed of SEEDS) {
      const gen = new RequestGenerator({ seed });
      for (let i = 0; i < 250; i++, n++) {
        const body = gen.build(op.id, { entries: 1 + (i % 3) });
        const { findings } = validateRequest(op.id, body, 'Svc');
        // asserted only when there are findings: 1000 passing expects would be 1000 Playwright steps (docs/architecture.md, Developing)
        if (findings.length) expect(findings, `seed ${seed} #${i}`).toEqual([]);
      }
    }
    expect(n).toBe(1000);
  });

  test(`${op.id}: every mutation of a valid request fails validation at the mutated path, and only there`, () => {
    const body = new RequestGenerator({ seed: 3 }).build(op.id);
    const mutations = mutationsOf(op.id, body, 'Svc');
    expect(new Set(mutations.map((m) => m.id)).size, 'mutation ids are unique').toBe(mutations.length);
    const kinds = new Map<string, Set<string>>();
    for (const m of mutations) {
      kinds.set(m.path, (kinds.get(m.path) ?? new Set()).add(m.kind));
      const { valid, findings } = validateRequest(op.id, m.body, 'Svc');
      if (m.valid) { expect(findings, m.id).toEqual([]); continue; }
      expect(valid, m.id).toBe(false);
      for (const f of findings) expect(f.pointer === m.pointer || f.pointer.startsWith(`${m.pointer}/`), `${m.id}: finding at ${f.pointer}`).toBe(true);
      expect(findings.length, m.id).toBeGreaterThan(0);
    }
    // every required field got an omission, a wrong type and a null value
    for (const [path, k] of kinds) for (const kind of ['missing', 'wrong-type', 'null']) expect(k.has(kind), `${path} ${kind}`).toBe(true);
  });

  test(`${op.id}: the same seed gives the same data, another seed other data`, () => {
    const run = (seed: number) => { const g = new RequestGenerator({ seed }); return Array.from({ length: 20 }, () => withoutUniqueIds(g.build(op.id, { entries: 2 }))); };
    expect(run(5)).toEqual(run(5));
    expect(run(5)).not.toEqual(run(6));
  });
}

test('bill enquiry AccountNumber limits: 24 accepted, 25 and non-alphanumeric rejected', () => {
  const body = new RequestGenerator({ seed: 9 }).build('bill-enquiry');
  const ms = Object.fromEntries(mutationsOf('bill-enquiry', body, 'Svc').filter((m) => m.field === 'AccountNumber').map((m) => [m.kind, m]));
  const account = (m: { body: unknown }) => requestEntries('bill-enquiry', m.body, 'Svc')[0]!.AccountNumber as string;
  expect(account(ms['at-limit']!)).toMatch(/^[A-Za-z0-9]{24}$/);
  expect(validateRequest('bill-enquiry', ms['at-limit']!.body, 'Svc').valid).toBe(true);
  expect(account(ms['over-limit']!)).toHaveLength(25);
  expect(validateRequest('bill-enquiry', ms['over-limit']!.body, 'Svc').findings[0]).toMatchObject({ keyword: 'maxLength' });
  expect(validateRequest('bill-enquiry', ms['non-alphanumeric']!.body, 'Svc').findings[0]).toMatchObject({ keyword: 'pattern' });
});

test('overrides reach the item and every entry, and identification fields come from the options', () => {
  const gen = new RequestGenerator({ seed: 11, bankCode: 'TESTBANK', companyCode: 'ACME' });
  const body = gen.build('bill-payment', { item: { MessageDescription: 'custom' }, entry: { Amount: 99.5, PayExactDue: false }, entries: [{}, { Amount: 1 }] });
  expect(requestItems('bill-payment', body, 'Svc')[0]).toMatchObject({ BankCode: 'TESTBANK', CompanyCode: 'ACME', MessageDescription: 'custom' });
  expect(requestEntries('bill-payment', body, 'Svc').map((e) => [e.Amount, e.PayExactDue])).toEqual([[99.5, false], [1, false]]);
  expect(validateRequest('bill-payment', body, 'Svc').findings).toEqual([]);
});

test('SADAD_SEED: an integer is used as given, a random one otherwise, garbage is an error naming it', () => {
  expect(seedFrom({ SADAD_SEED: '1234' })).toEqual({ seed: 1234, fromEnv: true });
  expect(seedFrom({}).fromEnv).toBe(false);
  expect(() => seedFrom({ SADAD_SEED: 'abc' })).toThrow(/^SADAD_SEED: /);
});
