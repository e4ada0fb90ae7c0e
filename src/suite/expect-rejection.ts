/** The common verdict of cases that send something the target must refuse. */
import { summarize, type Exchange } from '../client/exchange.js';
import { operation } from '../contract/catalogue.js';
import type { CaseContext } from './case.js';
import { spendPayable } from './prepare.js';

/** What a family's rejection cases send, in words, for cause signatures. */
const FAMILY_WORDS: Partial<Record<string, string>> = {
  'required-fields': 'requests with a missing, mistyped, null or empty required field',
  'transaction-type': 'requests with a wrong TransactionType',
  'account-number': 'requests with an AccountNumber out of its limits',
  headers: 'requests with a missing or bad header',
  robustness: 'unreadable bodies',
};

export interface RejectionOptions {
  /** Header cases: a 401/403 is the expected rejection, not a broken credential. */
  authIsTheSubject?: boolean;
}

export function expectRejection(c: CaseContext, ex: Exchange, what: string, options: RejectionOptions = {}): void {
  const o = c.classify(ex);
  c.observe('answer', o.detail);
  if (o.kind === 'rejected') {
    const form = o.form === 'http' ? `HTTP ${o.status}` : 'in-band (HTTP 2xx, failing status)';
    c.observe('rejection form', form, form);
    if (o.status === 429) c.error(`${what}: the target answered 429 (rate limited) before judging the request; the pacer's limits do not match the target's`);
    if (!options.authIsTheSubject && (o.status === 401 || o.status === 403)) c.error(`${what}: rejected for credentials (${summarize(ex)}), so the case could not test the body; check the token, company id and signer`);
    c.pass(`${what}: rejected (${o.detail})`);
    // meaningful only if the target accepts this operation's requests at all (reporter/conditions.ts)
    c.requireAcceptance();
    return;
  }
  if (o.kind === 'no-answer') c.error(`${what}: ${o.detail}`);
  if (o.kind === 'accepted' && operation(c.def.op).kind === 'payment') spendPayable(c, c.def.op);
  const why = o.kind === 'accepted' ? 'accepted it' : o.kind === 'server-error' ? 'failed with a server error instead of rejecting it' : `gave an answer that is no rejection (${o.detail})`;
  // one cause per operation, rule family and answer: a target that validates nothing reads as one cause, not one per field
  const how = o.kind === 'accepted' ? 'accepted' : o.kind === 'server-error' ? `answered ${o.detail}` : `answered ${o.detail.replace(/\d{4,}/g, '#')}`;
  c.violated(`${what}: the target ${why}: ${summarize(ex)}`, `${operation(c.def.op).title}: ${FAMILY_WORDS[c.def.family] ?? c.def.family} ${how}`);
}
