import { expect, test } from '@playwright/test';
import { operations, tagsOf } from '../../src/contract/catalogue.js';
import { mutationsOf } from '../../src/generators/mutations.js';
import { validateResponse } from '../../src/contract/validator.js';
import { UNLIMITED, withMock, type MockClient } from './helpers.js';

/** Mutations that break the envelope above the entries leave nothing to answer entry by entry. */
function structural(c: MockClient, opId: (typeof operations)[number]['id'], pointer: string): boolean {
  const { requestRoot, listTag } = tagsOf(operations.find((o) => o.id === opId)!, c.options.tagPrefix);
  return ['/Message', `/Message/${requestRoot}`, `/Message/${requestRoot}/${listTag}`, `/Message/${requestRoot}/${listTag}/0/TransactionData`].includes(pointer);
}

for (const op of operations) {
  test(`${op.id}: every invalid mutation is a 400 naming its pointer; valid ones pass validation`, async () => {
    await withMock(UNLIMITED, async (c) => {
      const valid = c.build(op.id);
      const mutations = mutationsOf(op.id, valid, c.options.tagPrefix);
      expect(mutations.length).toBeGreaterThan(20);
      for (const m of mutations) {
        const a = await c.post(op.id, m.body);
        if (m.valid) {
          expect(a.status, m.id).not.toBe(400);
          continue;
        }
        expect(a.status, m.id).toBe(400);
        expect(a.body.errorCode, m.id).toBe('MW-400-VALIDATION');
        const pointers = (a.body.details as { pointer: string }[]).map((d) => d.pointer);
        expect(pointers.some((p) => p === m.pointer || p.startsWith(`${m.pointer}/`)), `${m.id}: ${pointers.join(', ')}`).toBe(true);
      }
    });
  });

  test(`${op.id}: in-band mode answers invalid mutations with every entry failed, or a 400 when no entry can be located`, async () => {
    await withMock({ ...UNLIMITED, errors: 'in-band', style: 'table' }, async (c) => {
      for (const m of mutationsOf(op.id, c.build(op.id, { entries: 2 }), c.options.tagPrefix)) {
        if (m.valid) continue;
        const a = await c.post(op.id, m.body);
        if (structural(c, op.id, m.pointer)) {
          expect(a.status, m.id).toBe(400);
          expect(a.body.errorCode, m.id).toBe('MW-400-VALIDATION');
          continue;
        }
        expect(a.status, m.id).toBe(200);
        expect(validateResponse(op.id, a.body, 'strict', 'Svc').findings, m.id).toEqual([]);
        const entries = c.entries(op.id, a);
        expect(entries.length, m.id).toBe(2);
        for (const e of entries) {
          expect(e.StatusCode, m.id).toBe(false);
          expect(String(e.StatusDetail), m.id).toMatch(/^MW-400-VALIDATION /);
        }
        // the failing entry's detail names the offending path
        expect(entries.some((e) => String(e.StatusDetail).includes(m.pointer)), `${m.id}: ${entries.map((e) => e.StatusDetail).join(' | ')}`).toBe(true);
        if (op.kind === 'enquiry') expect(c.items(op.id, a)[0]!.Status, m.id).toBe(false);
      }
    });
  });
}

test('TransactionType pairing: each operation rejects the others\' TransactionType', async () => {
  await withMock(UNLIMITED, async (c) => {
    for (const op of operations) {
      for (const other of operations.filter((o) => o.transactionType !== op.transactionType)) {
        const body = c.build(op.id) as { Message: Record<string, { TransactionType: string }> };
        const root = tagsOf(op, c.options.tagPrefix).requestRoot;
        body.Message[root]!.TransactionType = other.transactionType;
        const a = await c.post(op.id, body);
        expect(a.status, `${op.id} with ${other.transactionType}`).toBe(400);
        expect(a.body.details).toContainEqual(expect.objectContaining({ pointer: `/Message/${root}/TransactionType` }));
      }
    }
  });
});

test('bill enquiry AccountNumber: 24 alphanumerics accepted, 25 and non-alphanumeric rejected', async () => {
  await withMock(UNLIMITED, async (c) => {
    const ok = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: 'A1B2C3D4E5F6G7H8I9J0K1L2' } }));
    expect(ok.status).toBe(200);
    for (const bad of ['A1B2C3D4E5F6G7H8I9J0K1L2M', 'ABC-123', 'ABC 123']) {
      const a = await c.post('bill-enquiry', c.build('bill-enquiry', { entry: { AccountNumber: bad } }));
      expect(a.status, bad).toBe(400);
      expect(a.body.details[0].pointer, bad).toMatch(/\/TransactionData\/0\/AccountNumber$/);
    }
  });
});
