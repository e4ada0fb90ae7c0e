/**
 * The sample client's switchable defects (SAMPLE_CLIENT_DEFECT): each one a narrow change that
 * breaks exactly one client rule, so a judge of client traffic can be shown to catch it. The rest
 * of the run stays correct and still exits 0. No side effects: tests import this to iterate them.
 */
export const SAMPLE_CLIENT_DEFECTS = [
  'ignores-retry-after',
  'bursts-past-limit',
  'omits-header',
  'reuses-sequence',
  'new-sequence-on-retry',
  'pays-more-than-due',
  'drops-required-field',
  'foreign-transaction-type',
  'zoned-timestamp',
  'uuid-reference-id',
  'pays-paid-fee',
  'other-zone-stamp',
] as const;

export type SampleClientDefect = (typeof SAMPLE_CLIENT_DEFECTS)[number];

/** What each defect does, for the README and for messages. */
export const SAMPLE_CLIENT_DEFECT_NOTES: Record<SampleClientDefect, string> = {
  'ignores-retry-after': 'after a 429 it calls again after about 100 ms instead of waiting Retry-After (the 9429 flow shows it)',
  'bursts-past-limit': 'at the start it sends limit+1 bill enquiries at once, past its pacer (then waits Retry-After on the 429 properly)',
  'omits-header': 'one extra bill enquiry is sent without the Device header (refused 401)',
  'reuses-sequence': 'one extra bill payment of another bill reuses the SequenceNumber of an earlier accepted payment (refused 409)',
  'new-sequence-on-retry': 'in the 9408 flow, after the timeout it pays again at once with a new SequenceNumber, without an enquiry',
  'pays-more-than-due': 'one extra bill payment pays AmountDue + 10 (refused MW-004)',
  'drops-required-field': 'one extra bill enquiry leaves out the required BillCategory (refused 400)',
  'foreign-transaction-type': 'one extra bill enquiry carries TransactionType SADADMOI (refused)',
  'zoned-timestamp': 'one extra bill enquiry carries a DateTimeStamp with a zone (...Z), which the document rules out (refused 401)',
  'uuid-reference-id': 'one extra bill enquiry carries a UUID as its reference id: the document allows it, a real deployment does not (a SHOULD: WARN)',
  'pays-paid-fee': 'pays an MOI fee its enquiry showed as paid, DueAmount 0 (refused MW-003; a SHOULD: WARN)',
  'other-zone-stamp': 'one extra bill enquiry\'s DateTimeStamp is written 3 hours ahead, as a client in another zone would (a SHOULD: WARN, read as a time-zone mistake)',
};

export function isSampleClientDefect(value: string): value is SampleClientDefect {
  return (SAMPLE_CLIENT_DEFECTS as readonly string[]).includes(value);
}
