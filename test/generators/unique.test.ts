import { expect, test } from '@playwright/test';
import { ROOT } from '../../src/paths.js';
import { uniqueId, shortUniqueId } from '../../src/base/unique.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { requestEntries, requestItems } from '../../src/contract/message.js';

test('100k sequence numbers in one process are unique', () => {
  const ids = new Set<string>();
  for (let i = 0; i < 100_000; i++) ids.add(uniqueId('S'));
  expect(ids.size).toBe(100_000);
  const short = new Set<string>();
  for (let i = 0; i < 100_000; i++) short.add(shortUniqueId(16));
  expect(short.size).toBe(100_000);
  expect([...short][0]).toMatch(/^[0-9A-Z]{16}$/);
});

test('the same seed in four concurrent processes still yields unique SequenceNumber and TransactionReferenceNumber', async () => {
  const script = `
    import { RequestGenerator } from './src/generators/requests.ts';
    import { requestEntries, requestItems } from './src/contract/message.ts';
    const g = new RequestGenerator({ seed: 77 }); const out = [];
    for (let i = 0; i < 5000; i++) { const b = g.build('bill-payment'); out.push(requestEntries('bill-payment', b, 'Svc')[0].SequenceNumber, requestItems('bill-payment', b, 'Svc')[0].TransactionReferenceNumber); }
    console.log(JSON.stringify(out));`;
  const { spawn } = await import('node:child_process');
  const runs = await Promise.all([0, 1, 2, 3].map(() => new Promise<string[]>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`))));
  })));
  const all = runs.flat();
  expect(all).toHaveLength(40_000);
  expect(new Set(all).size).toBe(40_000);
  // and the seeded part of the data is identical across the processes
  const g1 = new RequestGenerator({ seed: 77 }), g2 = new RequestGenerator({ seed: 77 });
  expect(requestEntries('bill-payment', g1.build('bill-payment'), 'Svc')[0]!.Amount).toBe(requestEntries('bill-payment', g2.build('bill-payment'), 'Svc')[0]!.Amount);
  expect(requestItems('bill-payment', g1.build('bill-payment'), 'Svc')[0]!.TransactionReferenceNumber).not.toBe(requestItems('bill-payment', g2.build('bill-payment'), 'Svc')[0]!.TransactionReferenceNumber);
});
