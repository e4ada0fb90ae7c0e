/**
 * What a finished run planned against what it sent, per operation: the package's plan
 * (certification.json `plan.calls`, built like the dry run's from the manifest: the cases' calls,
 * the calls shared per worker, the cases that cannot send) against the calls that went through the
 * pacer (pacing.json). The tolerance is none, except for what no plan can foresee: a check a case
 * repeated (a burst bent by the machine's load, a transient fault), whose extra calls the case's
 * evidence shows. The rest of a disagreement is named case by case, from the evidence.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Exchange { op: string; label: string; startedAt?: string; request: { body: string } }
interface Evidence { id: string; verdict: string; calls: Record<string, number>; startedAt: string; observations?: Record<string, unknown>; transient?: unknown[]; exchanges: Exchange[] }

export interface PlanCheck {
  planned: Record<string, number>;
  sent: Record<string, number>;
  /** Extra calls of the checks cases repeated, per operation. */
  repeated: Record<string, number>;
  /** Empty when every operation's sent calls are its planned ones plus the repeated ones. */
  problems: string[];
}

const add = (to: Record<string, number>, op: string, n: number) => { to[op] = (to[op] ?? 0) + n; };
/** A check the case made again, from a fresh window (rate-limit, duplicates: `check N`), or a fault it met. */
const repeatedCheck = (ev: Evidence) => (ev.transient?.length ?? 0) > 0 || Object.keys(ev.observations ?? {}).some((k) => /^check \d+$/.test(k));
/** The payable base (src/suite/prepare.ts): a shared call, made by whichever case of a worker needs it first. */
const sharedCall = (ex: Exchange) => /\(payment base\)$/.test(ex.label);

export function planVersusSent(reportsDir: string): PlanCheck {
  const read = <T>(file: string) => JSON.parse(readFileSync(join(reportsDir, file), 'utf8')) as T;
  const planned = read<{ plan: { calls: Record<string, number> } | null }>('certification.json').plan?.calls ?? {};
  const sent = Object.fromEntries(Object.entries(read<{ operations: Record<string, { calls: number }> }>('pacing.json').operations).map(([op, s]) => [op, s.calls]));
  const evidence = readdirSync(join(reportsDir, 'evidence')).filter((f) => f.endsWith('.json'))
    .map((f) => read<Evidence>(join('evidence', f))).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const repeated: Record<string, number> = {};
  const shared: Record<string, number> = {};
  const offPlan: string[] = [];
  // a case that reads another's exchange (the response rules' accepted one) carries a copy: the first case owns it
  const seen = new Set<string>();
  for (const ev of evidence) {
    const own: Record<string, number> = {};
    for (const ex of ev.exchanges) {
      const key = `${ex.op} ${ex.startedAt} ${ex.request.body}`;
      if (seen.has(key)) continue;
      seen.add(key);
      add(sharedCall(ex) ? shared : own, ex.op, 1);
    }
    const ops = new Set([...Object.keys(own), ...Object.keys(ev.calls)]);
    if (repeatedCheck(ev)) { for (const op of ops) add(repeated, op, (own[op] ?? 0) - (ev.calls[op] ?? 0)); continue; }
    if (ev.verdict === 'NOT_APPLICABLE') continue;
    const differ = [...ops].filter((op) => (own[op] ?? 0) !== (ev.calls[op] ?? 0));
    if (differ.length) offPlan.push(`${ev.id}: ${differ.map((op) => `${op} planned ${ev.calls[op] ?? 0}, sent ${own[op] ?? 0}`).join('; ')}`);
  }
  const problems: string[] = [];
  for (const op of new Set([...Object.keys(planned), ...Object.keys(sent)])) {
    const expected = (planned[op] ?? 0) + (repeated[op] ?? 0);
    if ((sent[op] ?? 0) !== expected) {
      problems.push(`${op}: planned ${planned[op] ?? 0}${repeated[op] ? ` + ${repeated[op]} in repeated checks` : ''}, sent ${sent[op] ?? 0} (of which ${shared[op] ?? 0} shared payment bases)`);
    }
  }
  // the likely culprits: cases that sent other than they plan (NOT_APPLICABLE ones send nothing, as the plan knows)
  if (problems.length) problems.push(...offPlan.map((p) => `  ${p}`));
  return { planned, sent, repeated, problems };
}
