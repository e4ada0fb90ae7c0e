/**
 * Request validation as the mock applies it: the contract's request schema (src/contract), bent by
 * the validation defects. Each relaxation drops only its own findings on its own operation, so the
 * relaxed request then runs through the business rules and is answered like any other; a
 * tightening adds a finding the contract does not make.
 */
import { operations, tagsOf, type Operation } from '../contract/catalogue.js';
import type { Fields } from '../contract/message.js';
import { messageTable } from '../contract/field-tables.js';
import { describeValue, validateRequest, type Finding, type ValidationResult } from '../contract/validator.js';
import type { Defects } from './defects.js';

const isRecord = (v: unknown): v is Fields => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Every TransactionData entry of a body (with its JSON pointer), where the envelope has the shape to hold them. */
function entriesOf(op: Operation, body: unknown, tagPrefix: string): { entry: Fields; pointer: string }[] {
  const { requestRoot, listTag } = tagsOf(op, tagPrefix);
  const root = isRecord(body) && isRecord(body.Message) ? body.Message[requestRoot] : undefined;
  const list = isRecord(root) ? root[listTag] : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((item, i) => (isRecord(item) && Array.isArray(item.TransactionData)
    ? item.TransactionData.flatMap((entry, j) => (isRecord(entry) ? [{ entry, pointer: `/Message/${requestRoot}/${listTag}/${i}/TransactionData/${j}` }] : []))
    : []));
}

const fieldOf = (f: Finding) => f.pointer.slice(f.pointer.lastIndexOf('/') + 1);
/** The string a finding found, when it found a (short enough to be shown whole) string. */
function foundString(f: Finding): string | undefined {
  if (!f.found.startsWith('string ')) return undefined;
  try {
    const v: unknown = JSON.parse(f.found.slice('string '.length));
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined; // shortened by describeValue: a long string
  }
}
const inEntry = (f: Finding) => /\/TransactionData\/\d+\/[^/]+$/.test(f.pointer);

/**
 * The bill enquiry table's limit on an entry's AccountNumber (§2.1, §8), which the account-number
 * defects bend by one: their names say 24/25 (the document's limit when they were written, and a
 * contract of users' scripts since), their behaviour follows the limit the tables state now.
 */
const accountNumberLimit = (op: Operation): number => {
  const row = messageTable(op.id, 'request').fields.find((f) => /TransactionData\[\]\.AccountNumber$/.test(f.path));
  if (row?.maxLength === undefined) throw new Error(`the account-number defects bend the limit on ${op.id}'s entry AccountNumber, and the field tables state none`);
  return row.maxLength;
};

/** The findings but the unwanted ones (at module level: no closure made on each call). */
const without = (findings: Finding[], unwanted: (f: Finding) => boolean) => findings.filter((f) => !unwanted(f));

export function validate(op: Operation, body: unknown, tagPrefix: string, defects: Defects): ValidationResult {
  const result = validateRequest(op.id, body, tagPrefix);
  let findings = result.findings;

  if (defects.on('account-number-25-accepted', op.id)) {
    // one character over the limit is let through (two over still refused)
    const over = accountNumberLimit(op) + 1;
    findings = without(findings, (f) => inEntry(f) && fieldOf(f) === 'AccountNumber' && f.keyword === 'maxLength' && (foundString(f)?.length ?? Infinity) <= over);
  }
  if (defects.on('account-number-symbols-accepted', op.id)) {
    findings = without(findings, (f) => inEntry(f) && fieldOf(f) === 'AccountNumber' && f.keyword === 'pattern');
  }
  if (defects.on('empty-string-accepted', op.id)) {
    findings = without(findings, (f) => inEntry(f) && fieldOf(f) === 'SubscriberNumber' && f.keyword === 'minLength');
  }
  if (defects.on('required-field-unchecked', op.id)) {
    findings = without(findings, (f) => inEntry(f) && fieldOf(f) === 'BranchCode');
  }
  if (defects.on('wrong-type-accepted', op.id)) {
    // a lenient reader: a numeric string is taken for the number it spells
    findings = without(findings, (f) => inEntry(f) && fieldOf(f) === 'VisaCount' && f.keyword === 'type' && /^string "\d+(\.\d+)?"$/.test(f.found));
    for (const { entry } of entriesOf(op, body, tagPrefix)) {
      if (typeof entry.VisaCount === 'string' && /^\d+(\.\d+)?$/.test(entry.VisaCount)) entry.VisaCount = Number(entry.VisaCount);
    }
  }
  if (defects.on('foreign-transaction-type', op.id)) {
    const known = operations.map((o) => o.transactionType);
    findings = without(findings, (f) => /^\/Message\/[^/]+\/TransactionType$/.test(f.pointer) && f.keyword === 'const' && known.some((t) => f.found === describeValue(t)));
  }
  if (defects.on('account-number-24-rejected', op.id)) {
    // the limit one short: an AccountNumber exactly at the limit is refused
    const limit = accountNumberLimit(op);
    for (const { entry, pointer } of entriesOf(op, body, tagPrefix)) {
      const v = entry.AccountNumber;
      if (typeof v === 'string' && v.length === limit) {
        findings = [...findings, { pointer: `${pointer}/AccountNumber`, expected: `at most ${limit - 1} characters`, found: describeValue(v), keyword: 'maxLength' }];
      }
    }
  }
  if (findings === result.findings) return result;
  return { valid: findings.length === 0, findings };
}
