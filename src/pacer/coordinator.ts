/**
 * The pacing coordinator: one small HTTP server on 127.0.0.1, started by the suite's global setup,
 * holding every operation's budget so that all Playwright workers share them.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { OperationId } from '../contract/catalogue.js';
import { budgetsFor, type PacingPlan } from './pacer.js';

export interface Coordinator { url: string; close(): Promise<void>; app: FastifyInstance }

export async function startCoordinator(plan: PacingPlan & { leaseMs: number; claimable?: Record<string, number> }): Promise<Coordinator> {
  const budgets = budgetsFor(plan);
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

  app.post<{ Body: { op: string } }>('/acquire', async (req) => {
    const b = budget(req.body.op);
    const slot = await b.acquire();
    lease(() => b.release(slot));
    return { slot };
  });
  app.post<{ Body: { op: string } }>('/exclusive', async (req) => {
    const b = budget(req.body.op);
    const holder = await b.acquireExclusive();
    setTimeout(() => b.releaseExclusive(holder), plan.leaseMs * 4).unref();
    return { holder };
  });
  app.post<{ Body: { op: string; holder: number } }>('/exclusive-call', async (req) => {
    const b = budget(req.body.op);
    const slot = b.recordExclusiveCall(req.body.holder);
    lease(() => b.release(slot));
    return { slot };
  });
  app.post<{ Body: { op: string; slot: number } }>('/release', async (req) => { budget(req.body.op).release(req.body.slot); return {}; });
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
  return { url: `http://127.0.0.1:${port}`, close: () => app.close(), app };
}
