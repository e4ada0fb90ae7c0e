/**
 * The dry run's plan (`npm run certify -- --list`): the planned cases, the calls per operation and
 * the wall time the pacer needs at the configured limits (design.md §6: the bound is
 * `max over operations of ceil(calls / limit) x window`).
 */
import type { Limits, PlanContext } from '../vocabulary/plan.js';
import { describePayments, paymentPlan, type PaymentPlan } from '../vocabulary/payment-guard.js';
import { familyIds, operationIds, type Plan, type PlannedCase } from './model.js';

export type { Plan, PlannedCase };
import { PREFLIGHT_CALLS } from '../preflight/model.js';



/** A plan of the cases alone: one worker, every case applicable. */
const EVERY_CASE: PlanContext = { workers: 1, signer: true, payments: true };


/** Whether the case sends anything in this context (src/suite/case.ts `needsOf`). */
export const applicable = (c: Pick<PlannedCase, 'needs'>, context: PlanContext) =>
  !(c.needs ?? []).some((n) => (n === 'signer' && !context.signer) || (n === 'payments' && !context.payments));

export function planOf(cases: PlannedCase[], limits: Limits, context: PlanContext = EVERY_CASE): Plan {
  const ops = operationIds(cases);
  const calls: Record<string, number> = Object.fromEntries(ops.map((op) => [op, 0]));
  const byOperation: Record<string, number> = {};
  const byFamily: Record<string, number> = {};
  const sharing = new Map<string, { calls: Record<string, number>; cases: number }>();
  const sending = cases.filter((c) => applicable(c, context));
  for (const c of cases) {
    byOperation[c.operation] = (byOperation[c.operation] ?? 0) + 1;
    byFamily[c.family] = (byFamily[c.family] ?? 0) + 1;
  }
  for (const c of sending) {
    for (const [op, n] of Object.entries(c.calls)) calls[op] = (calls[op] ?? 0) + n;
    for (const s of c.shared ?? []) sharing.set(s.key, { calls: s.calls, cases: (sharing.get(s.key)?.cases ?? 0) + 1 });
  }
  // a worker that draws none of a key's cases never makes its calls: a small selection spares some workers
  const shared = [...sharing].map(([key, s]) => ({ key, calls: s.calls, times: Math.min(Math.max(1, context.workers), s.cases) }));
  for (const s of shared) for (const [op, n] of Object.entries(s.calls)) calls[op] = (calls[op] ?? 0) + n * s.times;
  const preflight = context.preflight ? { ...PREFLIGHT_CALLS } : null;
  for (const [op, n] of Object.entries(preflight ?? {})) calls[op] = (calls[op] ?? 0) + n;
  const perOperation: Record<string, number> = {};
  let seconds = 0;
  let bound: string | null = null;
  for (const [op, n] of Object.entries(calls)) {
    const limit = limits.perOperation[op];
    if (!limit || !n) continue;
    perOperation[op] = Math.ceil(n / limit) * limits.windowSeconds;
    if (perOperation[op]! > seconds) { seconds = perOperation[op]!; bound = op; }
  }
  // the preflight's payment calls are refused by design: counted as calls, never as payments
  const payments = paymentPlan([...sending, ...(preflight ? [{ calls: preflight }] : [])]);
  return { cases, byOperation, byFamily, calls, preflight, shared, notApplicable: cases.length - sending.length, context, limits, payments, estimate: { seconds, bound, perOperation } };
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(rest).padStart(2, '0')} s`;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** The dry run's printout. */
export function formatPlan(plan: Plan, options: { listCases: boolean; paymentsSettled: boolean }): string {
  const lines: string[] = [];
  const ops = operationIds(plan.cases).filter((op) => plan.byOperation[op] || plan.calls[op]);
  if (options.listCases) {
    lines.push('Planned cases (id, level, family, calls per operation):');
    const w = Math.max(10, ...plan.cases.map((c) => c.id.length));
    for (const c of plan.cases) {
      const calls = applicable(c, plan.context) ? Object.entries(c.calls).map(([op, n]) => `${op} ${n}`).join(', ') : `none (NOT_APPLICABLE without ${(c.needs ?? []).join(', ')})`;
      lines.push(`  ${pad(c.id, w)}  ${pad(c.level, 7)}  ${pad(c.family, 16)}  ${calls}`);
    }
    lines.push('');
  }
  lines.push(`Dry run: ${plan.cases.length} planned case${plan.cases.length === 1 ? '' : 's'}; nothing was sent.`);
  lines.push('');
  lines.push('Cases per operation:');
  for (const op of ops) lines.push(`  ${pad(op, 16)} ${String(plan.byOperation[op] ?? 0).padStart(5)}`);
  lines.push('Cases per rule family:');
  for (const f of familyIds(plan.cases)) if (plan.byFamily[f]) lines.push(`  ${pad(f, 16)} ${String(plan.byFamily[f]).padStart(5)}`);
  lines.push('');
  lines.push(`Calls per operation, and the time the pacer needs at ${plan.limits.source}:`);
  for (const op of ops) {
    const limit = plan.limits.perOperation[op];
    const t = plan.estimate.perOperation[op];
    lines.push(`  ${pad(op, 16)} ${String(plan.calls[op] ?? 0).padStart(5)} calls at ${limit ?? '?'} per ${plan.limits.windowSeconds} s` +
      (t !== undefined ? `  -> ${formatDuration(t)}` : ''));
  }
  if (plan.shared.length) {
    lines.push(`  including calls made once per worker (${plan.context.workers} worker${plan.context.workers === 1 ? '' : 's'}) and shared by its cases:`);
    for (const s of plan.shared) lines.push(`    ${s.key}: ${Object.entries(s.calls).map(([op, n]) => `${op} ${n}`).join(', ')} x ${s.times}`);
  }
  if (plan.preflight) lines.push(`  including the preflight's call per operation before the first case (SADAD_PREFLIGHT=off leaves it out)`);
  if (plan.notApplicable) lines.push(`  ${plan.notApplicable} case${plan.notApplicable === 1 ? '' : 's'} will send nothing (NOT_APPLICABLE: ${[!plan.context.signer && 'no signer is configured', !plan.context.payments && 'SADAD_PAYMENTS=off'].filter(Boolean).join(', ')})`);
  lines.push('');
  lines.push(`Estimated wall time: ${formatDuration(plan.estimate.seconds)}` +
    (plan.estimate.bound ? ` (bound by ${plan.estimate.bound}: ceil(calls / limit) x window; the operations run in parallel)` : ''));
  lines.push('');
  lines.push(`Payments: ${describePayments(plan.payments)}`);
  if (!options.paymentsSettled) lines.push('A real run against this target stops before the first call unless SADAD_PAYMENTS is set: on to allow these payments, off to run without them.');
  return lines.join('\n');
}
