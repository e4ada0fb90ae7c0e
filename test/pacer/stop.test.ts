/**
 * A stopped run grants nothing more (Coordinator.stop, told by the certification reporter when
 * Playwright reports the first test it interrupted: src/pacer/stop.ts): a case that
 * waits for a grant, behind the exclusive hold of a case that was interrupted and will never give
 * it back, ends at once with RunStopping instead of waiting until its test timeout (a minute after
 * a Ctrl-C, seen in the project's interrupt test); a wait for an outage to settle ends too; and a
 * grant that was never used is not counted as a call.
 */
import { expect, test } from '@playwright/test';
import { startCoordinator } from '../../src/pacer/coordinator.js';
import { RemotePacer } from '../../src/pacer/remote.js';
import { RunStopping } from '../../src/pacer/pacer.js';
import { onRunStopping } from '../../src/pacer/stop.js';
import CertificationReporter from '../../src/reporter/certification.js';
import type { TestCase, TestResult } from '@playwright/test/reporter';

const limits = { 'bill-enquiry': 3, 'bill-payment': 3, 'moi-enquiry': 3, 'moi-payment': 3 };

test('after the stop, a call waiting behind a hold that is never released, and every call asked for later, end at once with RunStopping', async () => {
  const c = await startCoordinator({ windowSeconds: 0.2, limits, marginMs: 10, leaseMs: 60_000 });
  try {
    const interrupted = new RemotePacer(c.url);
    const waiting = new RemotePacer(c.url);
    // the interrupted case: holds the operation and never lets go (its worker stopped mid-hold)
    let held!: () => void;
    const holding = new Promise<void>((resolve) => { held = resolve; });
    void interrupted.exclusive('moi-enquiry', async () => { held(); await new Promise(() => {}); });
    await holding;
    let sent = 0;
    const queued = waiting.call('moi-enquiry', async () => { sent++; }).then(() => 'granted', (e: unknown) => e);
    // still waiting a while later: the hold is the interrupted case's
    expect(await Promise.race([queued, new Promise((r) => setTimeout(() => r('waiting'), 500))])).toBe('waiting');
    const stoppedAt = Date.now();
    c.stop();
    const outcome = await Promise.race([queued, new Promise((r) => setTimeout(() => r('still waiting 5 s after the stop'), 5_000))]);
    expect(outcome).toBeInstanceOf(RunStopping);
    expect(Date.now() - stoppedAt, 'ended as the run stopped, not at a timeout').toBeLessThan(3_000);
    // asked for after the stop, on a free operation and for a hold: refused at once too
    await expect(waiting.call('bill-enquiry', async () => { sent++; })).rejects.toBeInstanceOf(RunStopping);
    await expect(waiting.exclusive('bill-payment', async () => { sent++; })).rejects.toBeInstanceOf(RunStopping);
    expect(sent, 'nothing was sent after the stop').toBe(0);
    // a wait for the outage watch to settle ends as well
    expect(await waiting.outages(true)).toEqual([]);
    const stats = await waiting.stats();
    expect(stats['moi-enquiry']!.calls + stats['bill-enquiry']!.calls, 'a refused wait is no call').toBe(0);
  } finally {
    await c.close();
  }
});

test('the certification reporter says the run is stopping at the first interrupted test, and only then', async () => {
  const heard: string[] = [];
  const stopListening = onRunStopping(() => heard.push('stopping'));
  try {
    // list mode: no package, no signal handling; what is checked comes before either
    const reporter = new CertificationReporter({ _mode: 'list' });
    const end = (status: TestResult['status']) => reporter.onTestEnd({} as TestCase, { status } as TestResult);
    for (const status of ['passed', 'failed', 'timedOut', 'skipped'] as const) end(status);
    expect(heard).toEqual([]);
    end('interrupted');
    expect(heard).toEqual(['stopping']);
    stopListening();
    end('interrupted');
    expect(heard, 'a listener that stopped listening hears nothing').toEqual(['stopping']);
  } finally {
    stopListening();
  }
});
