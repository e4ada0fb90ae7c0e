/**
 * The outage watch (src/pacer/outage.ts) on its own: when it probes, what counts as a failure in a
 * row, what it records, when the run is paused and let go, and when it gives up. The suite-level
 * behaviour (a conformant target down for 16 windows certifies with 0 ERROR) is in
 * test/suite/outage.test.ts.
 */
import { expect, test } from '@playwright/test';
import { coveredBy, OutageWatch, type Outage, type ProbeResult } from '../../src/pacer/outage.js';

const settled = async (p: Promise<unknown>, ms = 30) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

function probes(results: boolean[], delayMs = 1) {
  const sent: string[] = [];
  return {
    sent,
    probe: async (op: string): Promise<ProbeResult> => {
      sent.push(op);
      await new Promise((r) => setTimeout(r, delayMs));
      const ok = results.shift() ?? true;
      return { ok, op, ...(ok ? {} : { kind: 'HTTP 503', retryAfterMs: 0 }), at: new Date().toISOString(), summary: ok ? 'HTTP 200' : 'HTTP 503 maintenance' };
    },
  };
}

test('three failures in a row are probed; a failing probe pauses every grant until a probe is answered', async () => {
  const p = probes([false, false, true]);
  const changes: Outage[][] = [];
  const w = new OutageWatch({ probe: p.probe, windowMs: 20, maxSeconds: 60, onChange: (o) => changes.push(o) });
  const first = Date.now() - 5;
  w.report({ ok: false, op: 'bill-payment', kind: 'HTTP 503', at: first });
  w.report({ ok: false, op: 'moi-enquiry', kind: 'reset' });
  expect(w.paused, 'two failures are not yet an outage').toBe(false);
  expect(await settled(w.gate())).toBe(true);
  w.report({ ok: false, op: 'moi-payment', kind: 'refused' });
  expect(w.paused).toBe(true);
  expect(await settled(w.gate()), 'the gate holds while the target is probed and found down').toBe(false);
  await w.gate();
  expect(p.sent, 'one probe, then one per window, of the failing side\'s enquiry').toEqual(['moi-enquiry', 'moi-enquiry', 'moi-enquiry']);
  const [o] = w.list();
  expect(o!.start, 'the outage starts at the first failure of the streak').toBe(new Date(first).toISOString());
  expect(o!.end).not.toBeNull();
  expect(o!.probes).toBe(3);
  expect(o!.gaveUp).toBe(false);
  expect(Object.keys(o!.kinds).sort()).toEqual(['HTTP 503', 'refused', 'reset']);
  expect(changes.at(-1)![0]!.end, 'outages.json learns the end').not.toBeNull();
  expect(coveredBy(w.list(), first), 'the first failure is covered: no case counts it').toBe(true);
  expect(coveredBy(w.list(), Date.now() + 1000)).toBe(false);
});

test('a probe that is answered at once was no outage: nothing recorded, the run goes on', async () => {
  const p = probes([true]);
  const w = new OutageWatch({ probe: p.probe, windowMs: 20, maxSeconds: 60 });
  for (let i = 0; i < 3; i++) w.report({ ok: false, op: 'bill-enquiry', kind: 'timeout' });
  await w.gate();
  expect(p.sent).toEqual(['bill-enquiry']);
  expect(w.list()).toEqual([]);
  expect(w.paused).toBe(false);
});

test('an answer breaks the streak; a 429 or a refused token is not the target being away', async () => {
  const p = probes([false, true]);
  const w = new OutageWatch({ probe: p.probe, windowMs: 20, maxSeconds: 60 });
  w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 503' });
  w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 503' });
  w.report({ ok: true, op: 'bill-enquiry' });
  w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 503' });
  w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 429' });
  w.report({ ok: false, op: 'bill-enquiry', kind: 'token refused' });
  w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 502' });
  expect(w.paused).toBe(false);
  expect(p.sent).toEqual([]);
  w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 504' });
  expect(w.paused).toBe(true);
  await w.gate();
  expect(w.list()).toHaveLength(1);
});

test('an outage longer than the maximum is given up once, and the gate never opens again', async () => {
  const p = probes(Array(100).fill(false), 1);
  let gaveUp: Outage | undefined;
  const w = new OutageWatch({ probe: p.probe, windowMs: 10, maxSeconds: 0.05, onGiveUp: (o) => { gaveUp = o; } });
  for (let i = 0; i < 3; i++) w.report({ ok: false, op: 'moi-payment', kind: 'reset' });
  await expect.poll(() => gaveUp !== undefined, { timeout: 2000 }).toBe(true);
  expect(gaveUp!.gaveUp).toBe(true);
  expect(gaveUp!.end).toBeNull();
  expect(gaveUp!.durationMs).toBeGreaterThan(50);
  const probesThen = p.sent.length;
  expect(await settled(w.gate(), 100), 'the run is stopping: nothing is let through').toBe(false);
  expect(p.sent.length, 'and no more probes are sent').toBe(probesThen);
});

test('a Retry-After longer than the window spaces the probes', async () => {
  const times: number[] = [];
  let n = 0;
  const w = new OutageWatch({
    windowMs: 5, maxSeconds: 60,
    probe: async (op) => { times.push(Date.now()); n++; return n < 3 ? { ok: false, op, kind: 'HTTP 503', retryAfterMs: 120, at: new Date().toISOString(), summary: '503' } : { ok: true, op, at: new Date().toISOString(), summary: '200' }; },
  });
  for (let i = 0; i < 3; i++) w.report({ ok: false, op: 'bill-enquiry', kind: 'HTTP 503' });
  await w.gate();
  expect(times).toHaveLength(3);
  expect(times[1]! - times[0]!, 'the target asked for 120 ms').toBeGreaterThanOrEqual(110);
  expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(110);
});
