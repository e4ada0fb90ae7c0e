/** A Pacer whose budgets live in the coordinator (shared by every Playwright worker). */
import { request } from 'node:http';
import type { OperationId } from '../contract/catalogue.js';
import type { BudgetStats } from './budget.js';
import { RunStopping, type Pacer } from './pacer.js';
import type { Health, Outage } from './outage.js';
import type { OverLimitAnswer, Refusal } from './over-limit.js';

/** Plain node:http, no timeout: a grant may legitimately take several rate windows to come. */
export function post<T>(base: string, path: string, body?: unknown): Promise<T> {
  const url = new URL(path, base);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<T>((resolve, reject) => {
    const req = request(url, { method: payload ? 'POST' : 'GET', headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text) as T) : reject(new Error(`pacer ${path}: HTTP ${res.statusCode} ${text}`))));
    });
    req.on('error', (e) => reject(new Error(`pacer coordinator unreachable at ${base}: ${e.message}`)));
    req.end(payload);
  });
}

/** The coordinator's answer to a wait once the run is stopping (coordinator.ts, `stop`). */
interface Stopping { stopping: true }

function granted<T extends object>(answer: T | Stopping): T {
  if ('stopping' in answer) throw new RunStopping();
  return answer;
}

export class RemotePacer implements Pacer {
  constructor(readonly base: string) {}

  async call<T>(op: OperationId, send: () => Promise<T>, health?: (result: T) => Health | undefined): Promise<T> {
    const { slot } = granted(await post<{ slot: number } | Stopping>(this.base, '/acquire', { op }));
    let h: Health | undefined;
    try {
      const result = await send();
      h = health?.(result);
      return result;
    } finally {
      await post(this.base, '/release', { op, slot, ...(h ? { health: h } : {}) });
    }
  }

  async report(health: Health): Promise<void> {
    await post(this.base, '/health', { health });
  }

  async refused(op: OperationId, refusal: Refusal): Promise<boolean> {
    return (await post<{ overLimit: boolean }>(this.base, '/refused', { op, ...refusal })).overLimit;
  }

  async learnOverLimit(answer: OverLimitAnswer): Promise<void> {
    await post(this.base, '/over-limit', answer);
  }

  outages(settle = false): Promise<Outage[]> {
    return post(this.base, '/outages', { settle });
  }

  async exclusive<T>(op: OperationId, body: (call: <U>(send: () => Promise<U>) => Promise<U>) => Promise<T>, size?: number): Promise<T> {
    const { holder } = granted(await post<{ holder: number } | Stopping>(this.base, '/exclusive', { op, ...(size === undefined ? {} : { size }) }));
    const call = async <U>(send: () => Promise<U>): Promise<U> => {
      const { slot } = await post<{ slot: number }>(this.base, '/exclusive-call', { op, holder });
      try { return await send(); } finally { await post(this.base, '/release', { op, slot }); }
    };
    try { return await body(call); } finally { await post(this.base, '/exclusive-release', { op, holder }); }
  }

  /** The next unclaimed index of a SADAD_DATA_FILE list, or null when all are taken. */
  async claim(kind: string): Promise<number | null> {
    return (await post<{ index: number | null }>(this.base, '/claim', { kind })).index;
  }

  stats(): Promise<Record<string, BudgetStats>> {
    return post(this.base, '/stats');
  }
}
