/**
 * Turns recorded traffic into cases: the client rules and scenarios (rules.ts, scenarios.ts) for
 * every operation, and, behind the proxy, checks of the sandbox's answers with the service suite's
 * own contract (schema profiles, MessageType, echoes). A case with nothing to judge is NOT_RUN: the
 * package never counts a rule the traffic did not put to the test as passed.
 */
import { operations, tagsOf, type Operation } from '../contract/catalogue.js';
import { validateResponse } from '../contract/validator.js';
import { VIOLATION, type Level, type Verdict } from '../vocabulary/verdicts.js';
import { factsOf, type CallFacts } from './facts.js';
import type { ClientCase, RuleInfo } from './model.js';
import { CLIENT_RULES, type JudgeContext, type RuleResult } from './rules.js';
import { SCENARIOS, scenarioId } from './scenarios.js';
import { toExchange, type TrafficRecord } from './traffic.js';

/** Evidence kept per case: enough to see the pattern, not the whole run. */
const MAX_EXCHANGES = 5;

export interface JudgeInput extends Omit<JudgeContext, 'calls'> {
  records: TrafficRecord[];
  /** Operations the integration is certified for; the others' cases are NOT_APPLICABLE. */
  operations: string[];
  runId: string;
  startedAt: string;
}

function caseOf(info: RuleInfo, verdict: Verdict, notes: ClientCase['notes'], extra: Partial<ClientCase>, input: JudgeInput): ClientCase {
  return {
    id: info.id, title: info.id, file: info.side === 'client' ? 'client-rules' : 'sandbox-checks', side: info.side,
    operation: info.operation, family: info.family, level: info.level, sections: info.sections, expectation: info.expectation,
    verdict, notes, observation: null, waiver: null, testStatus: verdict === 'PASS' ? 'passed' : 'failed', durationMs: 0,
    calls: {}, evidenceFile: null, runId: input.runId, attempts: [{ runId: input.runId, at: input.startedAt, verdict }], transient: [],
    ...(info.trigger ? { trigger: info.trigger } : {}),
    ...extra,
  };
}

function verdictOf(level: Level, result: RuleResult, what: string): { verdict: Verdict; notes: ClientCase['notes'] } {
  if (result.notApplicable) return { verdict: 'NOT_APPLICABLE', notes: [{ verdict: 'NOT_APPLICABLE', text: result.notApplicable }] };
  if (result.violations.length) {
    const v = VIOLATION[level];
    const shown = result.violations.slice(0, 10).map((x) => ({ verdict: v, text: x.text }));
    if (result.violations.length > 10) shown.push({ verdict: v, text: `and ${result.violations.length - 10} more` });
    return { verdict: v, notes: shown };
  }
  if (result.judged === 0) return { verdict: 'NOT_RUN', notes: [{ verdict: 'NOT_RUN', text: `the traffic never put this rule to the test: ${what}` }] };
  return { verdict: 'PASS', notes: [] };
}

/** What a rule needs to have something to judge, for the NOT_RUN note. */
const NEEDS: Record<string, string> = {
  'pacing.retry-after': 'no call on the operation followed a 429 (reach the rate-limited scenario, then call the operation again once its Retry-After has passed)',
  'safety.no-double-pay': 'no payment that ended without a clear answer was followed by an enquiry or another payment of that bill or fee (reach the late-answer or 503 scenario, then enquire, or replay with the same SequenceNumber)',
  'headers.timestamp-current': 'no call carried a readable DateTimeStamp',
  'safety.already-paid': 'no payment followed an answered enquiry of its bill or fee',
};

export function judgeClient(input: JudgeInput): ClientCase[] {
  const calls = input.records.map((r) => factsOf(r, input.tagPrefix, input.headerPrefix)).filter((c): c is CallFacts => c !== null);
  const ctx: JudgeContext = { ...input, calls };
  const cases: ClientCase[] = [];
  for (const op of operations) {
    const inScope = input.operations.includes(op.id);
    const opCalls = calls.filter((c) => c.op.id === op.id);
    for (const rule of CLIENT_RULES.filter((r) => r.appliesTo(op))) {
      const info: RuleInfo = { id: `client.${op.id}.${rule.name}`, side: 'client', operation: op.id, family: rule.family, level: rule.level, sections: rule.sections(op), expectation: rule.expectation };
      if (!inScope) { cases.push(caseOf(info, 'NOT_APPLICABLE', [{ verdict: 'NOT_APPLICABLE', text: `${op.id} is not among the operations certified (--operations)` }], {}, input)); continue; }
      if (!opCalls.length) { cases.push(caseOf(info, 'NOT_RUN', [{ verdict: 'NOT_RUN', text: `no ${op.id} call was recorded` }], {}, input)); continue; }
      const result = rule.judge(ctx, op);
      const { verdict, notes } = verdictOf(rule.level, result, NEEDS[rule.name] ?? `no ${op.id} call it applies to`);
      const shown = result.violations.length ? result.violations.map((v) => v.rec) : (result.examples ?? []);
      const unique = [...new Map(shown.map((r) => [r.seq, r])).values()].slice(0, MAX_EXCHANGES);
      cases.push(caseOf(info, verdict, notes, {
        observation: { judgedCalls: result.judged, violations: result.violations.length, ...result.observation },
        exchanges: unique.map((r) => toExchange(r)),
        calls: { [op.id]: result.judged },
      }, input));
    }
    for (const s of SCENARIOS.filter((x) => x.op === op.id)) {
      const info: RuleInfo = { id: scenarioId(s), side: 'client', operation: op.id, family: 'client-scenarios', level: 'MUST', sections: s.sections, expectation: `the integration met this scenario: ${s.title}`, trigger: s.trigger };
      if (!inScope) { cases.push(caseOf(info, 'NOT_APPLICABLE', [{ verdict: 'NOT_APPLICABLE', text: `${op.id} is not among the operations certified (--operations)` }], {}, input)); continue; }
      const hits = opCalls.filter((c) => s.reached(c, input.tagPrefix));
      if (!hits.length) { cases.push(caseOf(info, 'NOT_RUN', [{ verdict: 'NOT_RUN', text: `not reached; to trigger it: ${s.trigger}` }], {}, input)); continue; }
      cases.push(caseOf(info, 'PASS', [], { observation: { reachedBy: hits.map((h) => `call #${h.rec.seq}`).slice(0, 5), calls: hits.length }, exchanges: hits.slice(0, 2).map((h) => toExchange(h.rec)), calls: { [op.id]: hits.length } }, input));
    }
  }
  return cases;
}

interface SandboxCheck {
  name: string;
  family: string;
  level: Level;
  sections: (op: Operation) => string[];
  expectation: string;
  /** Problems in one 2xx answer of the sandbox; `strict` ones are the SHOULD part (WARN). */
  check: (op: Operation, c: CallFacts, tagPrefix: string) => { must: string[]; should: string[] };
}

const SANDBOX_CHECKS: SandboxCheck[] = [
  {
    name: 'res.schema', family: 'response-schema', level: 'MUST', sections: (op) => [op.sections.response],
    expectation: 'the answer is valid against the lenient response schema (FAIL otherwise) and the strict one (WARN otherwise)',
    check(op, c, p) {
      let json: unknown;
      try { json = JSON.parse(c.rec.responseBody); } catch { return { must: ['the body is not JSON'], should: [] }; }
      const lenient = validateResponse(op.id, json, 'lenient', p).findings;
      const strict = lenient.length ? [] : validateResponse(op.id, json, 'strict', p).findings;
      const say = (fs: typeof lenient) => fs.slice(0, 3).map((f) => `${f.pointer} expected ${f.expected}, found ${f.found}`);
      return { must: say(lenient), should: say(strict) };
    },
  },
  {
    name: 'res.message-type', family: 'message-type', level: 'MUST', sections: (op) => [op.sections.response],
    expectation: 'MessageType equals the request\'s TransactionType',
    check(op, c, p) {
      let json: unknown;
      try { json = JSON.parse(c.rec.responseBody); } catch { return { must: [], should: [] }; }
      const root = (json as Record<string, Record<string, unknown>> | null)?.[tagsOf(op, p).responseRoot];
      const mt = root?.MessageType;
      return { must: mt === op.transactionType ? [] : [`MessageType ${JSON.stringify(mt) ?? 'missing'}, expected ${op.transactionType}`], should: [] };
    },
  },
  {
    name: 'res.echo', family: 'echo', level: 'MUST', sections: (op) => [op.sections.response],
    expectation: 'one answer entry per request entry, in order, each echoing its SequenceNumber where the table has it',
    check(op, c) {
      const must: string[] = [];
      if (c.answerEntries.length !== c.entries.length) must.push(`${c.answerEntries.length} answer entries for ${c.entries.length} request entries`);
      const field = op.responseSequenceField;
      if (field) c.entries.forEach((e, i) => {
        const got = c.answerEntries[i]?.[field];
        if (got !== undefined && String(got) !== e.sequence) must.push(`entry ${i}: ${field} ${JSON.stringify(got)}, the request's SequenceNumber is ${JSON.stringify(e.sequence)}`);
      });
      return { must, should: [] };
    },
  },
];

/** Proxy mode: the sandbox's answers, judged with the service suite's contract. A sandbox fault is the sandbox's. */
export function judgeSandbox(input: JudgeInput): ClientCase[] {
  const calls = input.records.map((r) => factsOf(r, input.tagPrefix, input.headerPrefix)).filter((c): c is CallFacts => c !== null && c.rec.source !== 'judge');
  const cases: ClientCase[] = [];
  for (const op of operations) {
    const fromSandbox = calls.filter((c) => c.op.id === op.id);
    const answered = fromSandbox.filter((c) => c.rec.source === 'upstream' && c.rec.status !== null && c.rec.status >= 200 && c.rec.status < 300);
    for (const chk of SANDBOX_CHECKS) {
      const info: RuleInfo = { id: `sandbox.${op.id}.${chk.name}`, side: 'sandbox', operation: op.id, family: chk.family, level: chk.level, sections: chk.sections(op), expectation: chk.expectation };
      if (!answered.length) { cases.push(caseOf(info, 'NOT_RUN', [{ verdict: 'NOT_RUN', text: `the sandbox answered no ${op.id} call with a 2xx` }], {}, input)); continue; }
      const bad: { c: CallFacts; verdict: Verdict; text: string }[] = [];
      for (const c of answered) {
        const { must, should } = chk.check(op, c, input.tagPrefix);
        if (must.length) bad.push({ c, verdict: 'FAIL', text: `call #${c.rec.seq}: ${must.join('; ')}` });
        else if (should.length) bad.push({ c, verdict: 'WARN', text: `call #${c.rec.seq} (strict profile): ${should.join('; ')}` });
      }
      const verdict: Verdict = bad.some((b) => b.verdict === 'FAIL') ? 'FAIL' : bad.length ? 'WARN' : 'PASS';
      cases.push(caseOf(info, verdict, bad.slice(0, 10).map((b) => ({ verdict: b.verdict, text: b.text })), {
        observation: { judgedAnswers: answered.length, deviating: bad.length },
        exchanges: (bad.length ? bad.map((b) => b.c.rec) : answered.slice(0, 1).map((c) => c.rec)).slice(0, MAX_EXCHANGES).map((r) => toExchange(r)),
        calls: { [op.id]: answered.length },
      }, input));
    }
    const faults = fromSandbox.filter((c) => c.rec.source === 'proxy-fault' || (c.rec.status !== null && c.rec.status >= 500));
    const info: RuleInfo = { id: `sandbox.${op.id}.availability`, side: 'sandbox', operation: op.id, family: 'availability', level: 'OBSERVE', sections: ['7'], expectation: 'recorded: the sandbox\'s 5xx answers and transport failures (they are the sandbox\'s, never held against the client)' };
    cases.push(caseOf(info, faults.length ? 'OBSERVED' : fromSandbox.length ? 'PASS' : 'NOT_RUN',
      faults.length ? faults.slice(0, 10).map((c) => ({ verdict: 'OBSERVED' as Verdict, text: `call #${c.rec.seq}: ${c.rec.upstreamError ?? `HTTP ${c.rec.status}`}` })) : fromSandbox.length ? [] : [{ verdict: 'NOT_RUN', text: `no ${op.id} call reached the sandbox` }],
      { observation: { forwarded: fromSandbox.length, faults: faults.length }, exchanges: faults.slice(0, MAX_EXCHANGES).map((c) => toExchange(c.rec)), calls: { [op.id]: fromSandbox.length } }, input));
  }
  return cases;
}
