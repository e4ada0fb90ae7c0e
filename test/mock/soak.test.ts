/**
 * Bounded state (src/mock/state.ts, docs/mock.md "Limits on state"): unit checks of the bounds and
 * the duplicate-detection horizon on MockState, then a soak: calls against one mock in a child
 * process (its resident memory is its own), new bills, fee subjects and sequence numbers all the
 * time, with small bounds so eviction runs throughout. Resident memory may not grow by more than
 * 30 MB per 80,000 calls (10 MB at least) from after the warm-up to the end, and the state sizes
 * stay within the bounds. `npm test` soaks 30,000 calls, its benchmark `npm run bench:soak` the
 * full 100,000 (SOAK_CALLS sets it); the bounds scale with the calls, so that the warm-up (a fifth
 * of them) fills them either way.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { referenceIdHeader, specTimestamp } from '../../src/contract/headers.js';
import { operation, type OperationId } from '../../src/contract/catalogue.js';
import { RequestGenerator } from '../../src/generators/requests.js';
import { defaultMockOptions, type MockOptions } from '../../src/mock/index.js';
import { DEFAULT_STATE_LIMITS, DUPLICATE_HORIZON_MS, MAX_BILLS_PER_COMPANY, MAX_FEES_PER_COMPANY, MAX_SEQUENCES_PER_COMPANY, MockState, type StateLimits, type StateStats } from '../../src/mock/state.js';
import { feeFacts } from '../../src/mock/world.js';
import { mulberry32 } from '../../src/generators/prng.js';

// ---------------------------------------------------------------------------------------------
// MockState's bounds, with a clock the test moves

test('the default bounds are the documented constants', () => {
  expect(DEFAULT_STATE_LIMITS).toEqual({ maxBills: MAX_BILLS_PER_COMPANY, maxFees: MAX_FEES_PER_COMPANY, maxSequences: MAX_SEQUENCES_PER_COMPANY, duplicateHorizonMs: DUPLICATE_HORIZON_MS });
  expect(new MockState().limits).toEqual(DEFAULT_STATE_LIMITS);
  // a day of single-entry payments at the spec's sandbox limits fits under the cap
  expect(MAX_SEQUENCES_PER_COMPANY).toBeGreaterThanOrEqual((10 + 3) * 60 * 24);
  expect(() => new MockState({ maxBills: 0 })).toThrow(/maxBills/);
  expect(() => new MockState({ duplicateHorizonMs: Number.NaN })).toThrow(/duplicateHorizonMs/);
});

test('bills: at most maxBills per company, the least recently used dropped; a dropped bill comes back as first derived', () => {
  const s = new MockState({ maxBills: 3 });
  const a = s.bill('CO', '002', '70000000001')!;
  s.payBill('CO', a, 500, 'SEQ-A');
  const paidDue = a.dueCents;
  s.bill('CO', '002', '70000000002');
  s.bill('CO', '002', '70000000003');
  expect(s.bill('CO', '002', '70000000001')!.dueCents, 'a hit keeps the bill (and marks it used)').toBe(paidDue);
  s.bill('CO', '002', '70000000004'); // drops ...002, the least recently used
  expect(s.stats()).toMatchObject({ bills: 3, evicted: { bills: 1 } });
  expect(s.bill('CO', '2', '70000000001')!.dueCents, '"2" and "002" are one biller').toBe(paidDue);
  s.bill('CO', '002', '70000000005');
  s.bill('CO', '002', '70000000006');
  s.bill('CO', '002', '70000000007'); // now ...001 is gone too
  const again = s.bill('CO', '002', '70000000001')!;
  expect(again.dueCents, 'its payment is forgotten').toBe(paidDue + 500);
  expect(again.paidCents).toBe(0);
  expect(s.sequenceUsed('CO', 'SEQ-A'), 'its SequenceNumber is not').toBe(true);
  // bounds are per company
  for (let i = 0; i < 5; i++) s.bill('OTHER', '002', `7100000000${i}`);
  expect(s.stats().companies).toMatchObject({ CO: { bills: 3 }, OTHER: { bills: 3 } });
  expect(s.bill('CO', '002', '70000009404'), 'a not-found bill takes no room').toBeNull();
  expect(s.stats().companies.CO!.bills).toBe(3);
});

test('fee subjects: at most maxFees per company, least recently used dropped', () => {
  const s = new MockState({ maxFees: 2 });
  const f = s.fee('CO', '090', '2000000001', '04')!;
  s.payFee('CO', f, f.dueCents, 'SEQ-F');
  s.fee('CO', '090', '2000000002', '04');
  expect(s.fee('CO', '090', '2000000001', '04')!.dueCents).toBe(0);
  s.fee('CO', '090', '2000000003', '04'); // drops ...002
  expect(s.fee('CO', '090', '2000000001', '04')!.dueCents, 'still held: used more recently').toBe(0);
  s.fee('CO', '090', '2000000004', '04');
  s.fee('CO', '090', '2000000005', '04');
  expect(s.fee('CO', '090', '2000000001', '04')!.dueCents, 'dropped, derived again: due again').toBeGreaterThan(0);
  expect(s.stats()).toMatchObject({ fees: 2, evicted: { fees: 4 } });
});

test('sequence numbers: past the cap the oldest go, but never one inside the horizon', () => {
  let now = 0;
  const s = new MockState({ maxSequences: 3, duplicateHorizonMs: 1_000 }, () => now);
  for (let i = 1; i <= 6; i++) { s.recordSequence('CO', `S${i}`); now += 100; }
  // 6 over a cap of 3, all inside the horizon: all kept
  expect(s.stats().sequences).toBe(6);
  for (let i = 1; i <= 6; i++) expect(s.sequenceUsed('CO', `S${i}`)).toBe(true);
  now = 1_150; // S1 (t=0) and S2 (t=100) are now older than the horizon, S3 (t=200) is not
  s.recordSequence('CO', 'S7');
  expect(s.stats()).toMatchObject({ sequences: 5, evicted: { sequences: 2 } });
  expect(['S1', 'S2'].map((q) => s.sequenceUsed('CO', q))).toEqual([false, false]);
  expect(['S3', 'S4', 'S5', 'S6', 'S7'].every((q) => s.sequenceUsed('CO', q))).toBe(true);
  now = 10_000; // everything is old now: trimmed down to the cap, newest kept
  s.recordSequence('CO', 'S8');
  expect(s.stats().sequences).toBe(3);
  expect(['S6', 'S7', 'S8'].every((q) => s.sequenceUsed('CO', q))).toBe(true);
  expect(s.sequenceUsed('CO', 'S5')).toBe(false);
  // under the cap nothing is dropped, however old
  now = 1e9;
  expect(s.sequenceUsed('CO', 'S6')).toBe(true);
  // per company
  s.recordSequence('OTHER', 'S6');
  expect(s.stats().companies).toMatchObject({ CO: { sequences: 3 }, OTHER: { sequences: 1 } });
});

test('configure() applies new bounds at once', () => {
  let now = 0;
  const s = new MockState({}, () => now);
  for (let i = 0; i < 50; i++) { s.bill('CO', '002', `720000000${String(i).padStart(2, '0')}`); s.fee('CO', '090', `20000000${String(i).padStart(2, '0')}`, '04'); s.recordSequence('CO', `Q${i}`); }
  now = 5_000;
  s.configure({ maxBills: 10, maxFees: 20, maxSequences: 30, duplicateHorizonMs: 1_000 });
  expect(s.stats()).toMatchObject({ bills: 10, fees: 20, sequences: 30, limits: { maxBills: 10, maxFees: 20, maxSequences: 30, duplicateHorizonMs: 1_000 } });
  expect(s.size()).toBe(60);
  expect(s.sequenceUsed('CO', 'Q49')).toBe(true);
  expect(s.sequenceUsed('CO', 'Q19')).toBe(false);
});

// ---------------------------------------------------------------------------------------------
// The soak

const CALLS = Number(process.env.SOAK_CALLS ?? 30_000);
const WARM_UP = Math.min(20_000, Math.floor(CALLS / 5));
const CONCURRENCY = 32;
/** The bounds of the 100,000-call soak, in proportion to the calls (its own below it). */
const SCALE = Math.min(1, CALLS / 100_000);
/**
 * Small bounds, so that the warm-up fills them and eviction runs for the rest of the soak; a shorter
 * horizon for a shorter soak (2 s at least: a replay is sent well inside it), so that the sequence
 * numbers it protects from eviction stay a small part of the run's.
 */
const SOAK_LIMITS: StateLimits = { maxBills: Math.round(2_000 * SCALE), maxFees: Math.round(2_000 * SCALE), maxSequences: Math.round(500 * SCALE), duplicateHorizonMs: Math.max(2_000, Math.round(3_000 * SCALE)) };
const COMPANIES = ['MYCOMPANY', 'SECONDCO'];
/** 30 MB per 80,000 calls after the warm-up (the 100,000-call soak's), 10 MB at least: below that a heap's own settling shows. */
const RSS_GROWTH_LIMIT = Math.max(10, (30 * (CALLS - WARM_UP)) / 80_000) * 1024 * 1024;

interface ChildStats { rss: number; heapUsed: number; gc: boolean; state: StateStats }

class MockProcess {
  private constructor(readonly child: ChildProcess, readonly port: number, private readonly stderr: string[]) {}

  static start(options: Partial<MockOptions>, limits: Partial<StateLimits>): Promise<MockProcess> {
    const script = fileURLToPath(new URL('./soak-child.ts', import.meta.url));
    const child = fork(script, [JSON.stringify({ options, limits })], { execArgv: ['--expose-gc', '--import', 'tsx'], env: { ...process.env, MALLOC_ARENA_MAX: '2' }, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    const stderr: string[] = [];
    child.stderr?.on('data', (d: Buffer) => stderr.push(d.toString()));
    return new Promise((resolve, reject) => {
      child.once('message', (m: { port: number }) => resolve(new MockProcess(child, m.port, stderr)));
      child.once('exit', (code) => reject(new Error(`mock process exited (${code}): ${stderr.join('')}`)));
    });
  }

  stats(): Promise<ChildStats> {
    return new Promise((resolve) => {
      this.child.once('message', (m: ChildStats) => resolve(m));
      this.child.send('stats');
    });
  }

  get errors(): string { return this.stderr.join(''); }

  close(): Promise<void> {
    if (this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
      this.child.once('exit', () => { clearTimeout(timer); resolve(); });
      this.child.send('close');
    });
  }
}


type Kind = 'bill-enquiry' | 'bill-payment' | 'bill-payment-again' | 'moi-enquiry' | 'moi-payment' | 'replay' | 'invalid' | 'magic';
const MIX: [number, Kind][] = [[28, 'bill-enquiry'], [14, 'bill-payment'], [10, 'bill-payment-again'], [15, 'moi-enquiry'], [12, 'moi-payment'], [8, 'replay'], [7, 'invalid'], [6, 'magic']];

/** Request bodies as JSON text with placeholders, filled per call: cheap enough for 100,000 calls. */
function templates(tagPrefix: string): Record<OperationId, string> {
  const gen = new RequestGenerator({ seed: 5, tagPrefix });
  return {
    'bill-enquiry': JSON.stringify(gen.build('bill-enquiry', { entry: { BillerId: '002', AccountNumber: '__ACCT__', SequenceNumber: '__SEQ__' } })),
    'bill-payment': JSON.stringify(gen.build('bill-payment', { entry: { BillerId: '002', BillAccountID: '__ACCT__', Amount: '__AMOUNT__', PayExactDue: false, SequenceNumber: '__SEQ__' } })),
    'moi-enquiry': JSON.stringify(gen.build('moi-enquiry', { entry: { BillerID: '090', ID: '__ID__', POINum: '__ID__', RequestType: '04', SequenceNumber: '__SEQ__' } })),
    'moi-payment': JSON.stringify(gen.build('moi-payment', {
      entry: { BillerID: '090', ID: '__ID__', NationalID: '__ID__', RequestType: '04', FeeReferenceId: '__FREF__', GroupPayId: '__GPID__', SADADReferenceId: '__SREF__', DueAmount: '__DUE__', SequenceNumber: '__SEQ__' },
    })),
  };
}

interface Call { op: OperationId; body: string; company: string; kind: Kind; payment?: { sequence: string } }

test(`soak: ${CALLS} calls against one mock in its own process; resident memory and state stay bounded`, async () => {
  test.setTimeout(240_000);
  const defaults = defaultMockOptions();
  const options: Partial<MockOptions> = { rateLimits: { bill: 10_000_000, moi: 10_000_000 }, extraCompanyIds: COMPANIES.slice(1), style: 'table' };
  const mock = await MockProcess.start(options, SOAK_LIMITS);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const t = templates(defaults.tagPrefix);
    const random = mulberry32(42);
    const run = Date.now().toString(36).slice(-5).toUpperCase();
    let serial = 0;
    /** Accepted payments, newest last: [company, op, body, client time]. */
    const accepted: { company: string; op: OperationId; body: string; at: number }[] = [];
    const recentAccounts: string[] = [];
    const byStatus: Record<string, number> = {};
    const problems: string[] = [];

    const next = (): Call => {
      serial += 1;
      const company = COMPANIES[serial % COMPANIES.length]!;
      const seq = `K${run}${serial.toString(36).toUpperCase().padStart(6, '0')}`;
      // identities ending in 1 are never magic (magic suffixes end in 0, 3, 4, 8 or 9)
      const account = `7${run.replace(/\D/g, '').padEnd(2, '0').slice(0, 2)}${String(serial).padStart(8, '0')}1`;
      const id = `2${String(serial).padStart(8, '0')}1`;
      let r = random() * 100;
      let kind: Kind = 'bill-enquiry';
      for (const [w, k] of MIX) if ((r -= w) < 0) { kind = k; break; }
      const fill = (op: OperationId, acct = account) => t[op].replace('__SEQ__', seq).replaceAll('__ACCT__', acct).replaceAll('__ID__', id);
      switch (kind) {
        case 'bill-enquiry':
          recentAccounts.push(account);
          return { op: 'bill-enquiry', company, kind, body: fill('bill-enquiry') };
        case 'bill-payment':
        case 'bill-payment-again': {
          // again: a bill seen a moment ago (still held, or re-derived if evicted)
          const acct = kind === 'bill-payment-again' && recentAccounts.length > 0 ? recentAccounts[Math.floor(random() * recentAccounts.length)]! : account;
          if (recentAccounts.length > 1_000) recentAccounts.splice(0, 500);
          return { op: 'bill-payment', company, kind, body: fill('bill-payment', acct).replace('"__AMOUNT__"', '0.01'), payment: { sequence: seq } };
        }
        case 'moi-enquiry': return { op: 'moi-enquiry', company, kind, body: fill('moi-enquiry') };
        case 'moi-payment': {
          const f = feeFacts('090', id, '04')!;
          const body = fill('moi-payment').replace('__FREF__', f.feeReferenceId).replace('__GPID__', f.groupPayId).replace('__SREF__', f.sadadReferenceId).replace('"__DUE__"', (f.dueCents / 100).toFixed(2));
          return { op: 'moi-payment', company, kind, body, payment: { sequence: seq } };
        }
        case 'replay': {
          // a payment accepted moment ago, sent again: well inside the horizon, so always a duplicate
          const recent = accepted.slice(-200);
          const p = recent[Math.floor(random() * recent.length)];
          if (!p) return { op: 'bill-enquiry', company, kind: 'bill-enquiry', body: fill('bill-enquiry') };
          return { op: p.op, company: p.company, kind, body: p.body };
        }
        case 'invalid': return { op: 'bill-enquiry', company, kind, body: fill('bill-enquiry').replace('"AccountNumber"', '"AccountNumberX"') };
        case 'magic': {
          r = random();
          // 9429: the first call of an account is a 429 (the scenario's fired set grows); 9404: not found
          const magic = `${account}${r < 0.5 ? '9429' : '9404'}`;
          return { op: 'bill-enquiry', company, kind, body: fill('bill-enquiry', magic) };
        }
      }
    };

    const headersFor = (company: string, body: string): Record<string, string> => ({
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      Authorization: `Bearer ${defaults.accessToken}`,
      CompanyId: company,
      [referenceIdHeader(defaults.headerPrefix)]: `SK${serial.toString(36).toUpperCase()}`,
      DateTimeStamp: specTimestamp(),
      Device: 'Web',
    });

    const send = (call: Call) => new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: mock.port, method: 'POST', path: operation(call.op).path, headers: headersFor(call.company, call.body), agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(call.body);
    });

    const EXPECTED: Record<Kind, number[]> = {
      'bill-enquiry': [200], 'bill-payment': [200], 'bill-payment-again': [200], 'moi-enquiry': [200], 'moi-payment': [200], replay: [409], invalid: [400], magic: [422, 429, 200],
    };
    let done = 0;
    const drive = async (count: number) => {
      let issued = 0;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        while (issued < count) {
          issued += 1;
          const call = next();
          const a = await send(call);
          done += 1;
          byStatus[a.status] = (byStatus[a.status] ?? 0) + 1;
          if (!EXPECTED[call.kind].includes(a.status) && problems.length < 20) problems.push(`${call.kind} ${call.op}: HTTP ${a.status} ${a.text.slice(0, 200)}`);
          if (call.payment && a.status === 200 && !a.text.includes('"StatusCode":false')) {
            accepted.push({ company: call.company, op: call.op, body: call.body, at: Date.now() });
            if (accepted.length > 20_000) accepted.splice(0, 10_000);
          }
        }
      }));
    };

    const started = performance.now();
    await drive(WARM_UP);
    const warm = await mock.stats();
    const warmAt = performance.now();
    await drive(CALLS - WARM_UP);
    const seconds = (performance.now() - started) / 1000;
    const end = await mock.stats();
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
    console.log(`soak: ${done} calls in ${seconds.toFixed(1)} s = ${(done / seconds).toFixed(0)} calls/s (after warm-up ${((CALLS - WARM_UP) / ((performance.now() - warmAt) / 1000)).toFixed(0)} calls/s), concurrency ${CONCURRENCY}`);
    console.log(`  statuses ${JSON.stringify(byStatus)}`);
    console.log(`  rss after warm-up (${WARM_UP} calls) ${mb(warm.rss)}, at the end ${mb(end.rss)}: growth ${mb(end.rss - warm.rss)}; heap ${mb(warm.heapUsed)} -> ${mb(end.heapUsed)} (gc ${end.gc ? 'forced' : 'not available'})`);
    console.log(`  state at the end ${JSON.stringify(end.state.companies)}, evicted ${JSON.stringify(end.state.evicted)}, limits ${JSON.stringify(end.state.limits)}`);

    expect(problems, 'answers other than expected').toEqual([]);
    expect(done).toBe(CALLS);
    expect(end.gc, 'the child runs with --expose-gc').toBe(true);
    expect(end.rss - warm.rss, `rss grew from ${mb(warm.rss)} to ${mb(end.rss)}`).toBeLessThan(RSS_GROWTH_LIMIT);

    // the state is within its bounds, per company; eviction ran
    expect(end.state.limits).toEqual(SOAK_LIMITS);
    const last = accepted[accepted.length - 1]!.at;
    for (const company of COMPANIES) {
      const s = end.state.companies[company]!;
      expect(s.bills, company).toBeLessThanOrEqual(SOAK_LIMITS.maxBills);
      expect(s.fees, company).toBeLessThanOrEqual(SOAK_LIMITS.maxFees);
      // sequence numbers: the cap, or more only as many as were accepted inside the horizon (1 s of slack for clock skew)
      const inHorizon = accepted.filter((p) => p.company === company && p.at >= last - SOAK_LIMITS.duplicateHorizonMs - 1_000).length;
      expect(s.sequences, `${company}: ${inHorizon} accepted inside the horizon`).toBeLessThanOrEqual(Math.max(SOAK_LIMITS.maxSequences, inHorizon));
    }
    expect(end.state.evicted.bills).toBeGreaterThan(0);
    expect(end.state.evicted.fees).toBeGreaterThan(0);
    expect(end.state.evicted.sequences).toBeGreaterThan(0);
    expect(mock.errors, 'nothing on the mock\'s stderr').toBe('');
  } finally {
    agent.destroy();
    await mock.close();
  }
});
