/**
 * Injectable defects: deliberate deviations from the contract, so the suite can prove it catches
 * each one (design.md §7). `MOCK_DEFECTS=<name>[,<name>]` (or `startMock({ defects })`) switches
 * them on; each behaviour asks `defects.has(name)` at the one place it bends, and with no defect set
 * the mock is the faithful one. An unknown name is a configuration error, so a typo never silently
 * runs a faithful mock.
 *
 * Every entry names the suite rule family that must catch it (design.md §4) and the operations it
 * touches; `mockEnv` is what a detection run needs besides `MOCK_DEFECTS` (e.g. the table style).
 * The names are a contract: detection runs are written against them.
 */
import { operation, type OperationId } from '../contract/catalogue.js';
import { fieldName, messageTable } from '../contract/field-tables.js';
import { ConfigError } from '../contract/prefix.js';

/** The bill enquiry table's AccountNumber limit, which the account-number defects bend by one (their names keep the 24 and 25 of the document they were written for: users' scripts name them). */
const ACCOUNT_LIMIT = messageTable('bill-enquiry', 'request').fields.find((f) => fieldName(f.path) === 'AccountNumber')?.maxLength ?? NaN;

/** The suite's rule families (design.md §4), spelled as the suite spells them; declared here so the mock does not depend on the suite. */
export const DEFECT_FAMILIES = [
  'response-schema', 'message-type', 'echo', 'root-tag', 'lists', 'formats', 'required-fields', 'transaction-type',
  'account-number', 'headers', 'rate-limit', 'duplicates', 'flows', 'multi-entry', 'robustness',
] as const;
export type DefectFamily = (typeof DEFECT_FAMILIES)[number];

export interface DefectSpec {
  name: string;
  /** The suite rule family that must catch it. */
  family: DefectFamily;
  /** The operations whose behaviour it bends. */
  ops: readonly OperationId[];
  /** One line: what the mock does wrong. */
  description: string;
  /** Further mock environment a detection run needs, besides `MOCK_DEFECTS`. */
  mockEnv?: Readonly<Record<string, string>>;
}

const CATALOGUE = [
  // rate limits (rate-limit.ts)
  { name: 'rate-limit-one-extra', family: 'rate-limit', ops: ['bill-enquiry'], description: 'allows limit+1 calls per window' },
  { name: 'rate-limit-one-short', family: 'rate-limit', ops: ['bill-payment'], description: 'allows only limit-1 calls per window' },
  { name: 'rate-limit-no-reset', family: 'rate-limit', ops: ['moi-enquiry'], description: 'once exceeded, the budget is not reset after the window: the company stays blocked for 10 windows' },
  { name: 'rate-limit-off', family: 'rate-limit', ops: ['moi-payment'], description: 'no rate limit at all' },
  // request validation (validation.ts)
  { name: 'account-number-24-rejected', family: 'account-number', ops: ['bill-enquiry'], description: `the AccountNumber limit is one short: an AccountNumber of exactly the tables' limit (${ACCOUNT_LIMIT} characters) is rejected as a validation error` },
  { name: 'account-number-25-accepted', family: 'account-number', ops: ['bill-enquiry'], description: `an AccountNumber one character over the tables' limit (${ACCOUNT_LIMIT + 1} characters) is accepted` },
  { name: 'account-number-symbols-accepted', family: 'account-number', ops: ['bill-enquiry'], description: 'a non-alphanumeric AccountNumber (hyphens, spaces, ...) is accepted' },
  { name: 'required-field-unchecked', family: 'required-fields', ops: ['moi-enquiry'], description: 'BranchCode may be missing, null or empty' },
  { name: 'wrong-type-accepted', family: 'required-fields', ops: ['moi-payment'], description: 'VisaCount is accepted as a numeric string ("2" taken as 2)' },
  { name: 'empty-string-accepted', family: 'required-fields', ops: ['bill-enquiry'], description: 'an empty SubscriberNumber is accepted' },
  { name: 'foreign-transaction-type', family: 'transaction-type', ops: ['bill-payment'], description: 'a TransactionType of another operation (SADADENQ, SADADMOI) is accepted and the payment processed' },
  // business rules (rules.ts)
  { name: 'duplicate-when-concurrent', family: 'duplicates', ops: ['bill-payment'], description: 'duplicates are caught only when sequential: the check yields before the debit, so concurrent copies all pass' },
  { name: 'duplicate-when-partial', family: 'duplicates', ops: ['bill-payment'], description: 'a duplicate whose replay is a partial payment is accepted and debited again' },
  { name: 'duplicate-moi-unchecked', family: 'duplicates', ops: ['moi-payment'], description: 'MOI payments are never checked for a duplicate SequenceNumber' },
  { name: 'payment-without-effect', family: 'flows', ops: ['bill-payment'], description: 'a bill payment is answered as a success but the bill is not changed' },
  { name: 'moi-payment-without-effect', family: 'flows', ops: ['moi-payment'], description: 'an MOI payment is answered as a success but the fee stays due' },
  { name: 'partial-debits-full', family: 'flows', ops: ['bill-payment'], description: 'a partial payment (PayExactDue false) debits the whole amount due' },
  // responses (responses.ts)
  { name: 'second-entry-sequence', family: 'multi-entry', ops: ['bill-enquiry'], description: 'with two or more entries, the second entry echoes the first entry\'s SequenceNumber' },
  { name: 'entries-reversed', family: 'multi-entry', ops: ['moi-enquiry'], description: 'several entries are answered in reverse order' },
  { name: 'table-style-amount-string', family: 'response-schema', ops: ['bill-enquiry'], description: 'in table style only, AmountDue is a string like "237.78 SAR"', mockEnv: { MOCK_STYLE: 'table' } },
  { name: 'response-field-missing', family: 'response-schema', ops: ['moi-enquiry'], description: 'BeneficiaryName is missing from every entry' },
  { name: 'message-wrapper', family: 'root-tag', ops: ['moi-payment'], description: 'the response root is wrapped as { "Message": { <root>: ... } }' },
  { name: 'message-wrapper-everywhere', family: 'root-tag', ops: ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'], description: 'every answer of every operation is wrapped as { "Message": { <root>: ... } }: one defect that breaks many rules, and must read as one cause' },
  { name: 'timestamp-with-zone', family: 'formats', ops: ['bill-payment'], description: 'TimeStamp carries a zone, like 2026-11-21T17:24:04+03:00' },
  { name: 'dates-with-dashes', family: 'formats', ops: ['bill-enquiry'], description: 'every YYYYMMDD date is rendered YYYY-MM-DD' },
  { name: 'message-type-wrong', family: 'message-type', ops: ['moi-payment'], description: `MessageType is answered as ${operation('bill-payment').transactionType} (bill payment's) instead of ${operation('moi-payment').transactionType}` },
  { name: 'reference-not-echoed', family: 'echo', ops: ['bill-enquiry'], description: 'the item carries a new TransactionReferenceNumber instead of the request\'s' },
  { name: 'sequence-not-echoed', family: 'echo', ops: ['moi-payment'], description: 'SequenceNum is a server-generated value instead of the request\'s SequenceNumber' },
  { name: 'enquiry-success-failing', family: 'response-schema', ops: ['bill-enquiry', 'moi-enquiry'], description: 'every successful enquiry entry is flagged with a failing StatusCode (the item Status still says success): nothing built on an enquiry can go on' },
  { name: 'list-as-object', family: 'lists', ops: ['bill-payment'], description: 'a single-entry TransactionData is answered as an object instead of an array' },
  // authentication (auth.ts)
  { name: 'company-id-unchecked', family: 'headers', ops: ['moi-enquiry'], description: 'a missing or unknown CompanyId is accepted (the call is attributed to the configured company)' },
  { name: 'company-id-unchecked-everywhere', family: 'headers', ops: ['bill-enquiry', 'bill-payment', 'moi-enquiry', 'moi-payment'], description: 'a missing or unknown CompanyId is accepted on every operation: one defect shown on all four, and must read as one cause' },
  { name: 'bad-token-accepted', family: 'headers', ops: ['bill-payment'], description: 'any Bearer token is accepted' },
  // body parsing and error answers (server.ts)
  { name: 'content-type-unchecked', family: 'headers', ops: ['moi-payment'], description: 'a JSON body sent with Content-Type text/plain is parsed and accepted' },
  { name: 'malformed-json-500', family: 'robustness', ops: ['bill-enquiry'], description: 'a body that is not valid JSON answers HTTP 500' },
  { name: 'oversized-500', family: 'robustness', ops: ['moi-enquiry'], description: 'a body over the limit answers HTTP 500 instead of 413' },
  { name: 'proto-keys-500', family: 'robustness', ops: ['bill-payment'], description: 'a body with __proto__ or constructor keys answers HTTP 500' },
] as const satisfies readonly DefectSpec[];

export type DefectName = (typeof CATALOGUE)[number]['name'];
export interface Defect extends DefectSpec { name: DefectName }

/** The catalogue of injectable defects, one entry per name. */
export const DEFECT_CATALOGUE: readonly Defect[] = CATALOGUE;
/** The names of the catalogue, in its order. */
export const KNOWN_DEFECTS: readonly DefectName[] = CATALOGUE.map((d) => d.name);

export function defectNamed(name: string): Defect | undefined {
  return DEFECT_CATALOGUE.find((d) => d.name === name);
}

/** The defects a mock instance runs with; each behaviour asks `has(name)` at the one place it bends. */
export class Defects {
  private readonly active: ReadonlySet<string>;

  constructor(names: readonly string[]) {
    this.active = new Set(names);
  }

  has(name: DefectName): boolean {
    return this.active.has(name);
  }

  /** Whether the defect is on and bends this operation (relaxations touch only their own operation). */
  on(name: DefectName, opId: OperationId): boolean {
    return this.active.has(name) && defectNamed(name)!.ops.includes(opId);
  }
}

export function parseDefects(raw: string | undefined, variable = 'MOCK_DEFECTS'): string[] {
  const names = (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  checkDefects(names, variable);
  return [...new Set(names)];
}

export function checkDefects(names: readonly string[], variable = 'MOCK_DEFECTS'): void {
  const known: readonly string[] = KNOWN_DEFECTS;
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    throw new ConfigError(variable, `unknown defect(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${known.join(', ')}`);
  }
}
