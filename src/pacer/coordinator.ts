/**
 * The pacing coordinator: one small HTTP server on 127.0.0.1, started by the suite's global setup,
 * holding every operation's budget so that all Playwright workers share them.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { OperationId } from '../contract/catalogue.js';
import { applyRefusal, budgetsFor, type PacingPlan } from './pacer.js';
import { OverLimitAnswers, type OverLimitAnswer, type Refusal } from './over-limit.js';
import { OutageWatch, type Health, type OutageOptions } from './outage.js';
import { Preconditions, type PreconditionReport } from './facts.js';

export interface Coordinator {
  url: string; close(): Promise<void>; app: FastifyInstance; watch: OutageWatch | undefined;
  /**
   * The run is stopping (pacer/stop.ts says when): every grant waited for, and every one asked for
   * from now on, is answered at once with `{ stopping: true }`, which RemotePacer throws as
   * RunStopping. Playwright interrupts only a test whose step is under way: a case it started as the
   * stop came waited for its grant, behind a stopped case's exclusive hold, until its test timeout.
   */
  stop(): void;
}

/** What a grant waited for became once the run was stopping. */
const STOPPING = { stopping: true } as const;

/**
 * `outage`: watch the target's availability through every call's outcome, and pause every grant
 * while it is down (outage.ts). Its probe is sent inside the probed operation's budget.
 */
export async function startCoordinator(plan: PacingPlan & { leaseMs: number; claimable?: Record<string, number>; outage?: Omit<OutageOptions, 'windowMs'> }): Promise<Coordinator> {
  const budgets = budgetsFor(plan);
  const watch = plan.outage ? new OutageWatch({
    ...plan.outage,
    windowMs: plan.windowSeconds * 1000,
    probe: async (op) => {
      const b = budget(op);
      const slot = await b.acquire();
      try { return await plan.outage!.probe(op); } finally { b.release(slot); }
    },
  }) : undefined;
  // SADAD_DATA_FILE entries handed out once each per run, whichever worker asks
  const claimed = new Map<string, number>();
  const app = Fastify({ logger: false });
  const budget = (op: string) => {
    const b = budgets.get(op as OperationId);
    if (!b) throw Object.assign(new Error(`unknown operation ${op}`), { statusCode: 400 });
    return b;
  };
  // A worker that dies mid-call must not stall the run: every grant expires after its lease.
  const lease = (release: () => void) => setTimeout(release, plan.leaseMs).unref();
  // once the run stops, the budgets grant nothing more (Budget.stop) and every wait is answered with STOPPING
  let stopRun!: () => void;
  const stopped = new Promise<typeof STOPPING>((resolve) => { stopRun = () => resolve(STOPPING); });
  // (a grant that came in the same turn as the stop is given back: nobody is waiting for it)
  const unlessStopping = async <T>(wait: Promise<T>, giveBack: (t: T) => void): Promise<T | typeof STOPPING> => {
    const r = await Promise.race([wait, stopped]);
    if (r === STOPPING) void wait.then(giveBack);
    return r;
  };

  app.post<{ Body: { op: string } }>('/acquire', async (req) => {
    const b = budget(req.body.op);
    // while the target is down (or being probed) nothing is granted: the whole run pauses
    const slot = await unlessStopping((async () => { await watch?.gate(); return b.acquire(); })(), (slot) => b.release(slot));
    if (typeof slot !== 'number') return STOPPING;
    lease(() => b.release(slot));
    return { slot };
  });
  app.post<{ Body: { op: string; size?: number } }>('/exclusive', async (req) => {
    const b = budget(req.body.op);
    const holder = await unlessStopping((async () => { await watch?.gate(); return b.acquireExclusive(req.body.size); })(), (holder) => b.releaseExclusive(holder));
    if (typeof holder !== 'number') return STOPPING;
    // a hold waits out a window and may look for the limiter's reset two windows more
    setTimeout(() => b.releaseExclusive(holder), plan.leaseMs * 4 + 6 * plan.windowSeconds * 1000).unref();
    return { holder };
  });
  app.post<{ Body: { op: string; holder: number } }>('/exclusive-call', async (req) => {
    const b = budget(req.body.op);
    const slot = b.recordExclusiveCall(req.body.holder);
    lease(() => b.release(slot));
    return { slot };
  });
  app.post<{ Body: { op: string; slot: number; health?: Health } }>('/release', async (req) => {
    budget(req.body.op).release(req.body.slot);
    if (req.body.health) watch?.report(req.body.health);
    return {};
  });
  // the gateway's over-limit answers, learned by the rate-limit cases and read for every refusal (over-limit.ts)
  const answers = new OverLimitAnswers();
  app.post<{ Body: { op: string } & Refusal }>('/refused', async (req) => {
    const { op, ...refusal } = req.body;
    return { overLimit: applyRefusal(budget(op), answers, refusal, plan.windowSeconds) };
  });
  app.post<{ Body: OverLimitAnswer }>('/over-limit', async (req) => { answers.learn(req.body); return {}; });
  app.get('/over-limit', async () => answers.list());
  // preconditions every worker shares (facts.ts): a step refused often enough is not tried again
  const preconditions = new Preconditions();
  app.post<{ Body: { key: string } }>('/precondition', async (req) => ({ failure: preconditions.failed(req.body.key) }));
  app.post<{ Body: { key: string } & PreconditionReport }>('/precondition-report', async (req) => { const { key, ...r } = req.body; preconditions.report(key, r); return {}; });
  app.post<{ Body: { health: Health } }>('/health', async (req) => { watch?.report(req.body.health); return {}; });
  app.post<{ Body: { settle?: boolean } | undefined }>('/outages', async (req) => {
    if (req.body?.settle) await Promise.race([watch?.gate(), stopped]);
    return watch?.list() ?? [];
  });
  app.post<{ Body: { op: string; holder: number } }>('/exclusive-release', async (req) => { budget(req.body.op).releaseExclusive(req.body.holder); return {}; });
  app.post<{ Body: { kind: string } }>('/claim', async (req) => {
    const next = claimed.get(req.body.kind) ?? 0;
    if (next >= (plan.claimable?.[req.body.kind] ?? 0)) return { index: null };
    claimed.set(req.body.kind, next + 1);
    return { index: next };
  });
  app.get('/stats', async () => Object.fromEntries([...budgets].map(([op, b]) => [op, b.stats])));

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close(), app, watch, stop: () => { for (const b of budgets.values()) b.stop(); stopRun(); } };
}
