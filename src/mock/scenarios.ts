/**
 * The scenario magic values (magic.ts SCENARIO_MAGIC) that are a deployment's bad moments rather
 * than a bill's facts: a 429 or a 503 on the first call of each operation for a bill account or an
 * MOI fee subject's ID, and a payment whose answer is held longer than a client waits. They let a client's integration be seen
 * handling them on demand (certify-client). Each fires once per company, operation and account, so
 * the client's retry then meets the ordinary bill.
 *
 * The 429 and 503 come at preHandler: after authentication and the rate limit (the call counts
 * against the budget, as a real gateway's would), before any business rule (no effect). The held
 * answer is delayed at onSend, after the debit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Operation } from '../contract/catalogue.js';
import { requestItems, type Fields } from '../contract/message.js';
import { MockError } from './errors.js';
import './recorder.js'; // FastifyRequest.scenario
import { SCENARIO_RETRY_AFTER_SECONDS, scenarioOf, type ScenarioMagic } from './magic.js';
import { boundedOnce } from './store/memory.js';
import type { Maybe } from './store/index.js';

/** Where the magic suffix is read: the bill account, or the MOI fee subject's ID. */
const accountField = (op: Operation) => (op.id === 'bill-enquiry' ? 'AccountNumber' : op.id === 'bill-payment' ? 'BillAccountID' : 'ID');

/** The bill accounts or fee subject IDs a request names, in order (none for an unreadable body). */
function accountsOf(op: Operation, body: unknown, tagPrefix: string): string[] {
  const field = accountField(op);
  const out: string[] = [];
  for (const item of requestItems(op.id, body, tagPrefix)) {
    const data = (item as Fields | null)?.TransactionData;
    if (!Array.isArray(data)) continue;
    for (const e of data) if (e !== null && typeof e === 'object' && typeof (e as Fields)[field] === 'string') out.push((e as Fields)[field] as string);
  }
  return out;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when the `lateAnswer` scenario holds this call's answer. */
    heldAnswer?: boolean;
  }
}

export class Scenarios {
  /**
   * `once`: true the first time a key is seen; the store's, so that replicas sharing one fire each
   * scenario once between them (a bounded set in memory without one).
   */
  constructor(private readonly tagPrefix: string, private readonly lateAnswerMs: number, private readonly once: (key: string) => Maybe<boolean> = boundedOnce()) {}

  /** True the first time (company, operation, account, scenario) is seen. */
  private first(company: string, op: Operation, account: string, scenario: ScenarioMagic): Maybe<boolean> {
    return this.once(JSON.stringify([company, op.id, account, scenario]));
  }

  hooks(op: Operation) {
    return {
      preHandler: async (req: FastifyRequest) => {
        for (const account of accountsOf(op, req.body, this.tagPrefix)) {
          const scenario = scenarioOf(account);
          if (scenario === 'rateLimited' && await this.first(req.company, op, account, scenario)) {
            req.scenario = scenario;
            throw new MockError(429, 'MW-429', `Too many requests for ${op.title}: retry after ${SCENARIO_RETRY_AFTER_SECONDS} s`, undefined, { 'retry-after': String(SCENARIO_RETRY_AFTER_SECONDS) });
          }
          if (scenario === 'unavailable' && await this.first(req.company, op, account, scenario)) {
            req.scenario = scenario;
            throw new MockError(503, 'MW-503', 'Service unavailable: try again later');
          }
          if (scenario === 'lateAnswer' && op.kind === 'payment' && await this.first(req.company, op, account, scenario)) {
            req.heldAnswer = true;
            req.scenario = scenario;
          }
        }
      },
      onSend: async (req: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
        if (req.heldAnswer) await sleep(this.lateAnswerMs);
        return payload;
      },
    };
  }
}
