/**
 * The client rules (issue 11, design.md §9): one case per rule and operation, id
 * `client.<op>.<rule>`, judged from the recorded traffic. A rule looks at the calls it concerns and
 * lists its violations, each with the call that shows it; the package turns that into a verdict of
 * the rule's level. Where a rule needs what the client could know (an amount due, whether a payment
 * went through), only answers the client actually received count.
 */
import type { KeyObject } from 'node:crypto';
import { operations, type Operation } from '../contract/catalogue.js';
import { localTimeZone, stampInZone, timestampForm } from '../contract/formats.js';
import type { ClientProfile } from '../vocabulary/profile.js';
import { optionalClientHeaderNames, referenceIdHeader, requiredHeaderNames } from '../contract/headers.js';
import { validateRequest } from '../contract/validator.js';
import { fieldName, messageTable } from '../contract/field-tables.js';
import { DEPLOYMENT_REFERENCE_ID, verifiesMessage } from '../mock/auth.js';
import type { Level } from '../vocabulary/verdicts.js';
import { amountOf, type CallFacts } from './facts.js';
import type { ClientFamily } from './model.js';
import type { TrafficRecord } from './traffic.js';

export interface JudgeContext {
  /** Every API call that ended, in arrival order. */
  calls: CallFacts[];
  tagPrefix: string;
  headerPrefix: string;
  limits: { windowSeconds: number; bill: number; moi: number };
  signatureKey: KeyObject | null;
  requireClientHeaders: boolean;
  /** SADAD_CLIENT_PROFILE: `strict-deployment` holds the deployment's header forms as MUST. Absent is `document`. */
  clientProfile?: ClientProfile;
  /** The zone the sandbox reads a zoneless DateTimeStamp in (MOCK_TIME_ZONE); absent is the judge's local zone. */
  timeZone?: string;
}

export interface Violation { rec: TrafficRecord; text: string }

export interface RuleResult {
  violations: Violation[];
  /** Calls the rule looked at; 0 means it had nothing to judge. */
  judged: number;
  /** Calls that show the rule holding, for the evidence of a PASS (a few). */
  examples?: TrafficRecord[];
  observation?: Record<string, unknown>;
  /** The rule does not apply (e.g. no signature key configured): NOT_APPLICABLE with this reason. */
  notApplicable?: string;
}

export interface ClientRule {
  /** The part after `client.<op>.` */
  name: string;
  family: ClientFamily;
  level: Level;
  sections: (op: Operation) => string[];
  expectation: string;
  appliesTo: (op: Operation) => boolean;
  judge: (ctx: JudgeContext, op: Operation) => RuleResult;
}

const all = () => true;
const payments = (op: Operation) => op.kind === 'payment';
const mine = (ctx: JudgeContext, op: Operation) => ctx.calls.filter((c) => c.op.id === op.id);
/** The enquiry operation of a payment operation's group. */
const enquiryOf = (op: Operation) => operations.find((o) => o.rateGroup === op.rateGroup && o.kind === 'enquiry')!;
const money = (n: number) => n.toFixed(2);
/**
 * A refusal saying the bill takes only its exact amount (the mock's `MW-004 ... exact due amount
 * required`), not the refusal of a PayExactDue that did not match the amount due.
 */
export const EXACT_ONLY = /exact (due )?amount (is )?required|exact amount only|only the exact/i;
const EPSILON = 0.001;

/** The limits the field tables state, in words for the schema rule's expectation: `AccountNumber at most 24 letters or digits`. */
const LIMITS_TEXT = [...new Map(operations.flatMap((op) => messageTable(op.id, 'request').fields)
  .filter((f) => f.maxLength !== undefined)
  .map((f) => [fieldName(f.path), `${fieldName(f.path)} at most ${f.maxLength}${f.pattern === 'alphanumeric' ? ' letters or digits' : ' characters'}`])).values()].join(', ');

/** Requests against the request schema; TransactionType has its own rule, so its findings are left to it. */
const schemaRule: ClientRule = {
  name: 'req.schema', family: 'client-request', level: 'MUST', sections: (op) => [op.sections.request],
  expectation: `every request is JSON valid against the request schema: every field of the table present, with its type and format${LIMITS_TEXT ? ` (${LIMITS_TEXT})` : ''}`,
  appliesTo: all,
  judge(ctx, op) {
    // a body the judge refused to read (the call failed on its headers) cannot be judged
    const calls = mine(ctx, op).filter((c) => c.rec.body !== null);
    const violations: Violation[] = [];
    for (const c of calls) {
      if (c.json === undefined) { violations.push({ rec: c.rec, text: `call #${c.rec.seq}: the body is not JSON` }); continue; }
      const findings = validateRequest(op.id, c.json, ctx.tagPrefix).findings.filter((f) => !/\/TransactionType$/.test(f.pointer));
      if (findings.length) violations.push({ rec: c.rec, text: `call #${c.rec.seq}: ${findings.slice(0, 3).map((f) => `${f.pointer} expected ${f.expected}, found ${f.found}`).join('; ')}` });
    }
    return { violations, judged: calls.length, examples: calls.slice(0, 1).map((c) => c.rec) };
  },
};

const transactionTypeRule: ClientRule = {
  name: 'req.transaction-type', family: 'client-request', level: 'MUST', sections: (op) => [op.sections.request, '4'],
  expectation: `TransactionType is the endpoint's own (${operations.map((o) => `${o.transactionType} ${o.title}`).join(', ')})`,
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op).filter((c) => c.json !== undefined);
    const violations = calls.filter((c) => c.transactionType !== op.transactionType)
      .map((c) => ({ rec: c.rec, text: `call #${c.rec.seq}: TransactionType ${JSON.stringify(c.transactionType) ?? 'missing'} sent to ${op.path}, which takes ${op.transactionType}` }));
    return { violations, judged: calls.length };
  },
};

const strictProfile = (ctx: JudgeContext) => ctx.clientProfile === 'strict-deployment';
/** A header of the call as sent, trimmed; '' when absent. */
const headerOf = (rec: TrafficRecord) => (name: string) => (rec.headers[name.toLowerCase()] ?? '').trim();

/**
 * The §5 headers, as the document states them: present, the time stamp ISO 8601 without a zone
 * (the sample's form, or with fractions of a second), Bearer, JSON. The document gives the reference
 * id no form; what a real deployment enforces (deploymentFormRule) joins this rule only under
 * SADAD_CLIENT_PROFILE=strict-deployment.
 */
const headersRule: ClientRule = {
  name: 'headers.required', family: 'client-headers', level: 'MUST', sections: () => ['5'],
  expectation: 'every call carries the §5 headers, well formed as the document states them: CompanyId, the reference id, DateTimeStamp ISO 8601 without a zone (sample form YYYY-MM-DDTHH:MM:SS), Device, Authorization Bearer, Content-Type application/json (and clientid/clientsecret on bill operations when the deployment requires them); under SADAD_CLIENT_PROFILE=strict-deployment also the deployment\'s forms (headers.deployment-form)',
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op);
    const violations: Violation[] = [];
    const required = [...requiredHeaderNames(ctx.headerPrefix), ...(ctx.requireClientHeaders ? optionalClientHeaderNames(op) : [])];
    for (const c of calls) {
      const get = headerOf(c.rec);
      const problems = required.filter((n) => get(n) === '').map((n) => `${n} missing`);
      const stamp = get('DateTimeStamp');
      const form = stamp === '' ? 'absent' : timestampForm(stamp);
      if (form === 'zoned') problems.push(`DateTimeStamp ${JSON.stringify(stamp.slice(0, 40))} carries a zone; the document's has none (YYYY-MM-DDTHH:MM:SS, the sandbox's local time)`);
      if (form === 'invalid') problems.push(`DateTimeStamp ${JSON.stringify(stamp.slice(0, 40))} is not YYYY-MM-DDTHH:MM:SS`);
      if (strictProfile(ctx)) problems.push(...deploymentProblems(ctx, get));
      const auth = get('Authorization');
      if (auth !== '' && !/^Bearer\s+\S+$/i.test(auth)) problems.push('Authorization is not "Bearer <token>"');
      const type = get('Content-Type');
      if (type !== '' && !/^application\/json\b/i.test(type)) problems.push(`Content-Type ${JSON.stringify(type.slice(0, 60))} is not application/json`);
      if (problems.length) violations.push({ rec: c.rec, text: `call #${c.rec.seq}: ${problems.join('; ')}` });
    }
    return { violations, judged: calls.length };
  },
};

/** The header forms a real deployment enforces and the document does not state (domain notes). */
function deploymentProblems(ctx: JudgeContext, get: (name: string) => string): string[] {
  const out: string[] = [];
  const ref = get(referenceIdHeader(ctx.headerPrefix));
  if (ref !== '' && !DEPLOYMENT_REFERENCE_ID.test(ref)) out.push(`${referenceIdHeader(ctx.headerPrefix)} is not 3-16 letters or digits, the form a real deployment enforces`);
  const stamp = get('DateTimeStamp');
  if (stamp !== '' && timestampForm(stamp) === 'fraction') out.push(`DateTimeStamp ${JSON.stringify(stamp.slice(0, 40))} has fractions of a second, which a real deployment refuses (the sample's form has none)`);
  return out;
}

const deploymentFormRule: ClientRule = {
  name: 'headers.deployment-form', family: 'client-headers', level: 'SHOULD', sections: () => ['5'],
  expectation: 'the header values in the forms a real deployment enforces, which the document does not state: the reference id 3-16 letters or digits, DateTimeStamp without fractions of a second (a MUST of headers.required under SADAD_CLIENT_PROFILE=strict-deployment)',
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op);
    if (strictProfile(ctx)) return { violations: [], judged: calls.length, notApplicable: 'SADAD_CLIENT_PROFILE=strict-deployment holds these forms as MUST, under headers.required' };
    const violations: Violation[] = [];
    for (const c of calls) {
      const problems = deploymentProblems(ctx, headerOf(c.rec));
      if (problems.length) violations.push({ rec: c.rec, text: `call #${c.rec.seq}: ${problems.join('; ')}` });
    }
    return { violations, judged: calls.length };
  },
};

/** How far DateTimeStamp may be from the judge's clock: clients' clocks drift, a queue delays. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
/** A difference within this of a whole number of hours reads as a time-zone mistake. */
const ZONE_SLACK_SECONDS = 120;

/** What a difference of `off` seconds looks like: a clock off, or a time stamp written in another zone. */
function offText(off: number, zone: string): string {
  const base = `DateTimeStamp is ${Math.round(Math.abs(off))} s ${off < 0 ? 'behind' : 'ahead of'} the judge's clock`;
  const hours = Math.round(Math.abs(off) / 3600);
  if (hours < 1 || Math.abs(Math.abs(off) - hours * 3600) > ZONE_SLACK_SECONDS) return base;
  return `${base}: ${hours} h ${off < 0 ? 'behind' : 'ahead'}, which looks like a time-zone mistake (the document's DateTimeStamp carries no zone; the sandbox reads it as ${zone} time, MOCK_TIME_ZONE)`;
}

const timestampRule: ClientRule = {
  name: 'headers.timestamp-current', family: 'client-headers', level: 'SHOULD', sections: () => ['5'],
  expectation: `DateTimeStamp is the time of the call in the sandbox's zone (MOCK_TIME_ZONE, else the judge's), within ${TIMESTAMP_TOLERANCE_SECONDS} s of the judge's clock`,
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op);
    const zone = ctx.timeZone ?? localTimeZone();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of calls) {
      const at = stampInZone((c.rec.headers.datetimestamp ?? '').trim(), zone);
      if (at === null) continue; // absent or malformed: headers.required says so
      judged++;
      const off = (at - Date.parse(c.rec.startedAt)) / 1000;
      if (Math.abs(off) > TIMESTAMP_TOLERANCE_SECONDS) violations.push({ rec: c.rec, text: `call #${c.rec.seq}: ${offText(off, zone)}` });
    }
    return { violations, judged };
  },
};

const signatureRule: ClientRule = {
  name: 'headers.signature', family: 'client-headers', level: 'MUST', sections: () => ['5'],
  expectation: 'with a signing key configured, every call carries X-Signature: base64 RSA-SHA256 of JSON.stringify(Message) that verifies',
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op);
    if (ctx.signatureKey === null) return { violations: [], judged: calls.length, notApplicable: 'no signature public key configured (MOCK_SIGNATURE_PUBLIC_KEY)' };
    const key = ctx.signatureKey;
    const violations: Violation[] = [];
    for (const c of calls) {
      const sig = (c.rec.headers['x-signature'] ?? '').trim();
      const message = c.json !== null && typeof c.json === 'object' ? (c.json as { Message?: unknown }).Message : undefined;
      if (sig === '') violations.push({ rec: c.rec, text: `call #${c.rec.seq}: no X-Signature` });
      // refused on its headers before the body was read: there is nothing to verify the signature against
      else if (c.rec.body === null) continue;
      else if (message === undefined || !verifiesMessage(message, sig, key)) violations.push({ rec: c.rec, text: `call #${c.rec.seq}: X-Signature does not verify` });
    }
    return { violations, judged: calls.length };
  },
};

const referenceRule: ClientRule = {
  name: 'ids.reference-unique', family: 'client-identifiers', level: 'MUST', sections: () => ['5'],
  expectation: 'the reference-id header identifies one call: never sent twice (a replay gets a new one)',
  appliesTo: all,
  judge(ctx, op) {
    const seen = new Map<string, TrafficRecord>();
    const violations: Violation[] = [];
    let judged = 0;
    // across every operation: a reference id names one call of the company
    for (const c of ctx.calls) {
      if (c.referenceId === null || c.referenceId === '') continue;
      const first = seen.get(c.referenceId);
      if (c.op.id === op.id) {
        judged++;
        if (first) violations.push({ rec: c.rec, text: `call #${c.rec.seq} reuses the reference id of call #${first.seq}` });
      }
      if (!first) seen.set(c.referenceId, c.rec);
    }
    return { violations, judged };
  },
};

const sequenceRule: ClientRule = {
  name: 'ids.sequence-unique', family: 'client-identifiers', level: 'MUST', sections: (op) => ['1', op.sections.request],
  expectation: 'a SequenceNumber names one transaction: reused only by an identical replay of the same entry, never for another bill, amount or operation',
  appliesTo: all,
  judge(ctx, op) {
    const seen = new Map<string, { canonical: string; op: string; rec: TrafficRecord }>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      for (const e of c.entries) {
        if (e.sequence === null) continue;
        const first = seen.get(e.sequence);
        if (c.op.id === op.id) {
          judged++;
          if (first && (first.canonical !== e.canonical || first.op !== c.op.id)) {
            violations.push({ rec: c.rec, text: `call #${c.rec.seq}: SequenceNumber ${e.sequence} was used by call #${first.rec.seq} for ${first.op === c.op.id ? 'a different entry' : first.op}${e.subject ? ` (now ${e.shown ?? e.subject})` : ''}` });
          }
        }
        if (!first) seen.set(e.sequence, { canonical: e.canonical, op: c.op.id, rec: c.rec });
      }
    }
    return { violations, judged };
  },
};

const trnRule: ClientRule = {
  name: 'ids.transaction-reference-unique', family: 'client-identifiers', level: 'MUST', sections: (op) => [op.sections.request],
  expectation: 'a TransactionReferenceNumber names one request: reused only by an identical replay',
  appliesTo: all,
  judge(ctx, op) {
    const seen = new Map<string, { canonical: string; rec: TrafficRecord }>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      for (const it of c.items) {
        if (it.trn === null) continue;
        const first = seen.get(it.trn);
        if (c.op.id === op.id) {
          judged++;
          if (first && first.canonical !== it.canonical) violations.push({ rec: c.rec, text: `call #${c.rec.seq}: TransactionReferenceNumber ${it.trn} was used by call #${first.rec.seq} for a different request` });
        }
        if (!first) seen.set(it.trn, { canonical: it.canonical, rec: c.rec });
      }
    }
    return { violations, judged };
  },
};

const limitRule: ClientRule = {
  name: 'pacing.limit', family: 'client-pacing', level: 'MUST', sections: () => ['8'],
  expectation: 'never more calls in a window than the operation\'s limit: every 429 the judge had to send for the limit is a violation (a 429 of the rate-limited scenario is not)',
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op);
    const limit = ctx.limits[op.rateGroup];
    const violations = calls.filter((c) => c.rec.status === 429 && c.rec.source === 'judge' && c.rec.scenario === null)
      .map((c) => ({ rec: c.rec, text: `call #${c.rec.seq}: over the limit of ${limit} calls per ${ctx.limits.windowSeconds} s, answered 429` }));
    return { violations, judged: calls.length, observation: { limit: `${limit} per ${ctx.limits.windowSeconds} s`, calls: calls.length } };
  },
};

/** Seconds of a Retry-After value (delta-seconds or an HTTP date), null when absent or unreadable. */
export function retryAfterSeconds(value: string | undefined, at: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, (date - at) / 1000);
}

/** A call sent while the 429 was on its way is no violation: allow for the trip back. */
export const RETRY_AFTER_SLACK_MS = 250;

const retryAfterRule: ClientRule = {
  name: 'pacing.retry-after', family: 'client-pacing', level: 'MUST', sections: () => ['8'],
  expectation: `after a 429, no call on the operation before its Retry-After has passed (${RETRY_AFTER_SLACK_MS} ms allowed for the answer's trip)`,
  appliesTo: all,
  judge(ctx, op) {
    const calls = mine(ctx, op);
    const refusals = calls.filter((c) => c.rec.status === 429 && c.rec.tEnd !== null);
    const violations: Violation[] = [];
    // a 429 puts the rule to the test only when the client calls the operation again after it: one
    // that gives up there has shown nothing about waiting (not exercised, never a PASS)
    let judged = 0;
    for (const r of refusals) {
      const seconds = retryAfterSeconds(r.rec.responseHeaders['retry-after'], Date.parse(r.rec.startedAt));
      if (seconds === null) continue;
      const next = calls.find((c) => c.rec.t > r.rec.tEnd!);
      if (!next) continue;
      judged++;
      const until = r.rec.tEnd! + seconds * 1000 - RETRY_AFTER_SLACK_MS;
      if (next.rec.t < until) violations.push({ rec: next.rec, text: `call #${next.rec.seq} came ${((next.rec.t - r.rec.tEnd!) / 1000).toFixed(2)} s after the 429 of call #${r.rec.seq}, which said Retry-After ${seconds} s` });
    }
    return { violations, judged, observation: { refusals: refusals.length, followedByAnotherCall: judged } };
  },
};

/** Whether the call's answer to the entry reached the client and said the bill/fee was found (an accepted enquiry). */
const acceptedEnquiry = (c: CallFacts) => c.op.kind === 'enquiry' && c.rec.delivered && c.outcome.kind === 'accepted';

const enquireFirstRule: ClientRule = {
  name: 'safety.enquire-first', family: 'client-payment-safety', level: 'SHOULD', sections: () => ['3'],
  expectation: 'a payment follows an answered enquiry of the same bill or fee',
  appliesTo: payments,
  judge(ctx, op) {
    const enquiry = enquiryOf(op);
    const enquired = new Set<string>();
    const paid = new Set<string>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      if (c.op.id === enquiry.id && acceptedEnquiry(c)) for (const e of c.entries) if (e.subject) enquired.add(e.subject);
      if (c.op.id !== op.id) continue;
      for (const e of c.entries) {
        if (e.subject === null || (e.sequence !== null && paid.has(e.sequence))) continue; // a replay
        judged++;
        if (e.sequence !== null) paid.add(e.sequence);
        if (!enquired.has(e.subject)) violations.push({ rec: c.rec, text: `call #${c.rec.seq} pays ${e.shown ?? e.subject} without an answered enquiry of it before` });
      }
    }
    return { violations, judged };
  },
};

/** The amount due as the client could know it: the last answered enquiry, less the payments it saw accepted since. */
const billAmountRule: ClientRule = {
  name: 'safety.amount', family: 'client-payment-safety', level: 'MUST', sections: () => ['2.3', '3'],
  expectation: 'a bill payment pays no more than the amount due, exactly that amount with PayExactDue true, and only the exact amount once the bill is known to require it',
  appliesTo: (op) => op.id === 'bill-payment',
  judge(ctx, op) {
    const due = new Map<string, number>();
    const exactOnly = new Set<string>();
    const seenSeq = new Set<string>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      if (c.op.id === 'bill-enquiry' && acceptedEnquiry(c)) {
        c.entries.forEach((e, i) => {
          const amount = amountOf(c.answerEntries[i]?.AmountDue);
          if (e.subject && amount !== null) due.set(e.subject, amount);
        });
      }
      if (c.op.id !== op.id) continue;
      c.entries.forEach((e, i) => {
        if (e.subject === null) return;
        const amount = amountOf(e.fields.Amount);
        const replay = e.sequence !== null && seenSeq.has(e.sequence);
        if (e.sequence !== null) seenSeq.add(e.sequence);
        const known = due.get(e.subject);
        if (!replay && amount !== null) {
          judged++;
          const problems: string[] = [];
          if (known !== undefined && amount > known + EPSILON) problems.push(`pays ${money(amount)} where ${money(known)} is due`);
          else if (known !== undefined && e.fields.PayExactDue === true && Math.abs(amount - known) > EPSILON) problems.push(`PayExactDue true with ${money(amount)} where ${money(known)} is due`);
          else if (known !== undefined && exactOnly.has(e.subject) && Math.abs(amount - known) > EPSILON) problems.push(`pays ${money(amount)} of ${money(known)} after being told the bill takes only the exact amount`);
          else if (known === undefined && c.rec.delivered && /over-?payment|more than (the )?(amount )?due/i.test(c.rec.responseBody)) problems.push('was refused as an over-payment (no enquiry told the client what was due)');
          if (problems.length) violations.push({ rec: c.rec, text: `call #${c.rec.seq}, ${e.shown ?? e.subject}: ${problems.join('; ')}` });
        }
        if (!c.rec.delivered) return; // the client does not know what happened
        if (c.outcome.kind === 'accepted' || c.outcome.entries?.[i] === true) {
          if (known !== undefined && amount !== null) due.set(e.subject, Math.max(0, known - amount));
        } else if (c.outcome.kind === 'rejected' && EXACT_ONLY.test(c.rec.responseBody)) exactOnly.add(e.subject);
      });
    }
    return { violations, judged };
  },
};

const feeReferenceRule: ClientRule = {
  name: 'safety.fee-reference', family: 'client-payment-safety', level: 'MUST', sections: () => ['2.7', '3'],
  expectation: 'an MOI payment quotes the FeeReferenceId and the DueAmount of its fee\'s last answered enquiry',
  appliesTo: (op) => op.id === 'moi-payment',
  judge(ctx, op) {
    const quoted = new Map<string, { ref: unknown; due: number | null; seq: number }>();
    const seenSeq = new Set<string>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      if (c.op.id === 'moi-enquiry' && acceptedEnquiry(c)) {
        c.entries.forEach((e, i) => {
          const a = c.answerEntries[i];
          if (e.subject && a) quoted.set(e.subject, { ref: a.FeeReferenceId, due: amountOf(a.DueAmount), seq: c.rec.seq });
        });
      }
      if (c.op.id !== op.id) continue;
      for (const e of c.entries) {
        if (e.subject === null || (e.sequence !== null && seenSeq.has(e.sequence))) continue;
        if (e.sequence !== null) seenSeq.add(e.sequence);
        judged++;
        const q = quoted.get(e.subject);
        if (!q) { violations.push({ rec: c.rec, text: `call #${c.rec.seq} pays ${e.shown ?? e.subject} without an answered enquiry to quote` }); continue; }
        const problems: string[] = [];
        if (String(e.fields.FeeReferenceId ?? '') !== String(q.ref ?? '')) problems.push(`FeeReferenceId ${JSON.stringify(e.fields.FeeReferenceId)} where enquiry #${q.seq} answered ${JSON.stringify(q.ref)}`);
        const amount = amountOf(e.fields.DueAmount);
        if (q.due !== null && (amount === null || Math.abs(amount - q.due) > EPSILON)) problems.push(`DueAmount ${JSON.stringify(e.fields.DueAmount)} where enquiry #${q.seq} answered ${money(q.due)}`);
        if (problems.length) violations.push({ rec: c.rec, text: `call #${c.rec.seq}, ${e.shown ?? e.subject}: ${problems.join('; ')}` });
      }
    }
    return { violations, judged };
  },
};

/**
 * An enquiry answer that tells the client where the bill or fee stands: an accepted one, or a refusal
 * about the subject itself (not found, expired, in-band). A 429, a 401, a 400 or a 5xx tells nothing.
 */
const informative = (c: CallFacts) => c.rec.delivered && (c.outcome.kind === 'accepted'
  || (c.outcome.kind === 'rejected' && (c.outcome.form === 'in-band' || [404, 409, 410, 422].includes(c.outcome.status ?? 0))));

/**
 * The document gives no rule for a fee or bill an enquiry shows as already paid (nothing due), so
 * paying it anyway is a SHOULD: a real service answers it as a refusal (the mock: 422 "already
 * paid"), and the client learned it from its own enquiry. Put to the test by every payment made after
 * an answered enquiry of its fee or bill.
 */
const alreadyPaidRule: ClientRule = {
  name: 'safety.already-paid', family: 'client-payment-safety', level: 'SHOULD', sections: (op) => [op.id === 'moi-payment' ? '2.6' : '2.2', '3'],
  expectation: 'no payment of a bill or fee whose last answered enquiry showed nothing due (AmountDue or DueAmount 0)',
  appliesTo: payments,
  judge(ctx, op) {
    const enquiry = enquiryOf(op);
    const dueField = op.id === 'moi-payment' ? 'DueAmount' : 'AmountDue';
    const shownDue = new Map<string, { due: number; seq: number }>();
    const seenSeq = new Set<string>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      if (c.op.id === enquiry.id && acceptedEnquiry(c)) {
        c.entries.forEach((e, i) => {
          const due = amountOf(c.answerEntries[i]?.[dueField]);
          if (e.subject && due !== null) shownDue.set(e.subject, { due, seq: c.rec.seq });
        });
      }
      if (c.op.id !== op.id) continue;
      for (const e of c.entries) {
        if (e.subject === null || (e.sequence !== null && seenSeq.has(e.sequence))) continue; // a replay
        if (e.sequence !== null) seenSeq.add(e.sequence);
        const shown = shownDue.get(e.subject);
        if (!shown) continue;
        judged++;
        if (shown.due <= EPSILON) violations.push({ rec: c.rec, text: `call #${c.rec.seq} pays ${e.shown ?? e.subject}, which enquiry #${shown.seq} showed as paid (${dueField} ${money(shown.due)})` });
      }
    }
    return { violations, judged };
  },
};

/** An answer that leaves the client not knowing whether the payment took effect. */
const uncertain = (c: CallFacts) => c.outcome.kind === 'no-answer' || c.outcome.kind === 'server-error' || c.outcome.kind === 'unclear';

const doublePayRule: ClientRule = {
  name: 'safety.no-double-pay', family: 'client-payment-safety', level: 'MUST', sections: () => ['1', '3'],
  expectation: 'after a payment that timed out, lost its connection or got a 5xx, the client enquires before paying that bill or fee again, or replays it with the same SequenceNumber; never pays it again under a new one',
  appliesTo: payments,
  judge(ctx, op) {
    const enquiry = enquiryOf(op);
    /** subject -> the SequenceNumber (and call) of the payment whose fate the client does not know */
    const open = new Map<string, { sequence: string | null; rec: TrafficRecord }>();
    const violations: Violation[] = [];
    let judged = 0;
    for (const c of ctx.calls) {
      if (c.op.id === enquiry.id && informative(c)) for (const e of c.entries) if (e.subject && open.delete(e.subject)) judged++;
      if (c.op.id !== op.id) continue;
      for (const e of c.entries) {
        if (e.subject === null) continue;
        const pending = open.get(e.subject);
        if (pending) {
          // the rule is put to the test when the client pays that bill or fee again after a payment
          // whose fate it does not know (or enquires first, below); one that gives up shows nothing
          judged++;
          if (e.sequence !== pending.sequence) {
            violations.push({ rec: c.rec, text: `call #${c.rec.seq} pays ${e.shown ?? e.subject} under a new SequenceNumber ${e.sequence ?? '(none)'} after call #${pending.rec.seq} (SequenceNumber ${pending.sequence}) ended without a clear answer, with no enquiry in between` });
          }
        }
        if (uncertain(c)) open.set(e.subject, { sequence: e.sequence, rec: c.rec });
        else if (pending && e.sequence === pending.sequence) open.delete(e.subject);
      }
    }
    return { violations, judged, observation: { uncertainPayments: ctx.calls.filter((c) => c.op.id === op.id && uncertain(c)).length } };
  },
};

export const CLIENT_RULES: ClientRule[] = [
  schemaRule, transactionTypeRule, headersRule, deploymentFormRule, timestampRule, signatureRule, referenceRule, sequenceRule, trnRule,
  limitRule, retryAfterRule, enquireFirstRule, billAmountRule, feeReferenceRule, alreadyPaidRule, doublePayRule,
];
