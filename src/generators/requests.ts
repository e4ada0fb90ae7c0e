/**
 * Seeded builders of valid requests for every operation. Same seed, same data, except the
 * identifiers that must be unique (SequenceNumber, TransactionReferenceNumber: see unique.ts).
 * Fields are laid out in field-table order. A required field the tables list and this file has no
 * realistic value for (one a newer API document added) gets a value its table row allows
 * (`documentedValue`), so that requests follow an imported document without a code change; values
 * are drawn only for such fields, so today's data stays the same for a seed.
 */
import type { Faker } from '@faker-js/faker';
// The package's index loads every locale (about 200 ms a process, and every suite run starts three);
// its English entry loads one. Its instance's class and definitions make the seeded ones.
import { faker as english } from '@faker-js/faker/locale/en';
import { envelope, type Fields, type RequestBody } from '../contract/message.js';
import { fieldName, messageTable, type FieldRow } from '../contract/field-tables.js';
import type { OperationId } from '../contract/catalogue.js';
import { SPEC_PREFIX } from '../contract/prefix.js';
import { uniqueId } from '../base/unique.js';
import { BANK_CODES, BILLERS, DURATIONS_MONTHS, JOB_CATEGORIES, MOI_BILLERS, POI_TYPES } from './values.js';

export interface GeneratorOptions {
  seed: number;
  tagPrefix?: string;
  /** Body identification fields (SADAD_BANK_CODE / SADAD_COMPANY_CODE); generated from the seed when absent. */
  bankCode?: string;
  companyCode?: string;
}

export interface BuildOptions {
  /** Fields merged into the (single) item. */
  item?: Fields;
  /** Fields merged into every TransactionData entry. */
  entry?: Fields;
  /** Number of entries, or one override object per entry (default 1). */
  entries?: number | Fields[];
}

/** The identity of a bill as the network knows it: what an enquiry asks for and a payment repeats. */
export interface BillSubject {
  BillerId: string; BillCategory: string; SubscriberNumber: string; AccountNumber: string;
  BillAccountID: string; BillNumber: string; ServiceType: string; PaymentType: string;
}

/** The identity of a ministry fee subject: a person (ID) and a requested service. */
export interface MoiSubject {
  POINum: string; POIType: string; AccountNumber: string; BillerID: string; BillCategory: string; ServiceCode: string;
  BranchCode: string; RequestType: string; ID: string; Duration: number; SponsorID: string; JobCategory: string;
}

const DESCRIPTIONS: Record<OperationId, string> = {
  'bill-enquiry': 'Bill enquiry', 'bill-payment': 'Bill payment', 'moi-enquiry': 'MOI fee enquiry', 'moi-payment': 'MOI fee payment',
};

export class RequestGenerator {
  readonly faker: Faker;
  readonly tagPrefix: string;
  readonly bankCode: string;
  readonly companyCode: string;

  constructor(readonly options: GeneratorOptions) {
    this.faker = new (english.constructor as typeof Faker)({ locale: english.rawDefinitions });
    this.faker.seed(options.seed);
    this.tagPrefix = options.tagPrefix ?? SPEC_PREFIX;
    this.bankCode = options.bankCode ?? this.faker.helpers.arrayElement(BANK_CODES);
    this.companyCode = options.companyCode ?? `C${this.faker.string.numeric(5)}`;
  }

  private digits(n: number, lead = ''): string {
    return lead + this.faker.string.numeric({ length: n - lead.length, allowLeadingZeros: lead !== '' });
  }

  /**
   * Digits for an identity whose last four characters never start with 9: the mock (and sandboxes
   * in its spirit) reserve `…9xxx` for magic values (not found, expired, paid, exact only), and
   * an ordinary case must not land on one by chance.
   */
  private identityDigits(n: number, lead: string): string {
    const body = this.digits(n - 4, lead);
    return body + String(this.faker.number.int({ min: 0, max: 8 })) + this.faker.string.numeric(3);
  }

  billSubject(): BillSubject {
    const biller = this.faker.helpers.arrayElement(BILLERS);
    // a biller's realistic length, within the bill enquiry table's limit on AccountNumber
    const length = Math.min(this.faker.number.int({ min: biller.accountLength[0], max: biller.accountLength[1] }), ACCOUNT_NUMBER_LIMIT);
    const account = this.identityDigits(length, String(this.faker.number.int({ min: 1, max: 9 })));
    return {
      BillerId: biller.id, BillCategory: this.faker.helpers.arrayElement(biller.categories),
      SubscriberNumber: this.digits(10, '05'), AccountNumber: account, BillAccountID: account,
      BillNumber: this.digits(13, '1'), ServiceType: biller.serviceType, PaymentType: biller.paymentType,
    };
  }

  moiSubject(): MoiSubject {
    const biller = this.faker.helpers.arrayElement(MOI_BILLERS);
    const poi = this.faker.helpers.arrayElement(POI_TYPES);
    const id = this.identityDigits(10, poi.lead);
    const requestType = this.faker.helpers.arrayElement(biller.requestTypes);
    return {
      POINum: id, POIType: poi.code, AccountNumber: this.digits(10, '7'), BillerID: biller.id, BillCategory: biller.category,
      ServiceCode: requestType, BranchCode: this.digits(3, '0'), RequestType: requestType, ID: id,
      Duration: this.faker.helpers.arrayElement(DURATIONS_MONTHS), SponsorID: this.digits(10, '1'),
      JobCategory: this.faker.helpers.arrayElement(JOB_CATEGORIES),
    };
  }

  private amount(): number {
    return this.faker.number.float({ min: 10, max: 2500, fractionDigits: 2 });
  }

  /** Values for every item field and entry field of the operation; laid out in table order by `build`. */
  private values(opId: OperationId): { item: Fields; entry: Fields } {
    const item: Fields = {
      BankCode: this.bankCode, CompanyCode: this.companyCode,
      TransactionReferenceNumber: uniqueId('T'), MessageDescription: DESCRIPTIONS[opId],
    };
    switch (opId) {
      case 'bill-enquiry': {
        const s = this.billSubject();
        return { item, entry: { SequenceNumber: uniqueId('S'), BillerId: s.BillerId, BillCategory: s.BillCategory, SubscriberNumber: s.SubscriberNumber, AccountNumber: s.AccountNumber } };
      }
      case 'bill-payment': {
        const s = this.billSubject();
        return {
          item: { ...item, AccountNumber: s.AccountNumber },
          entry: {
            SequenceNumber: uniqueId('S'), SubscriberNumber: s.SubscriberNumber, BillerId: s.BillerId, BillAccountID: s.BillAccountID,
            BillNumber: s.BillNumber, PaymentType: s.PaymentType, BillCategory: s.BillCategory, Amount: this.amount(), PayExactDue: true, ServiceType: s.ServiceType,
          },
        };
      }
      case 'moi-enquiry': {
        const s = this.moiSubject();
        return {
          item,
          entry: {
            SequenceNumber: uniqueId('S'), POINum: s.POINum, POIType: s.POIType, AccountNumber: s.AccountNumber, BillerID: s.BillerID,
            BillCategory: s.BillCategory, ServiceCode: s.ServiceCode, BranchCode: s.BranchCode, RequestType: s.RequestType, ID: s.ID, Duration: s.Duration,
          },
        };
      }
      case 'moi-payment': {
        const s = this.moiSubject();
        return {
          item: { ...item, AccountNumber: s.AccountNumber },
          entry: {
            ID: s.ID, VisaCount: this.faker.number.int({ min: 1, max: 3 }), GroupPayId: `GP${this.digits(6)}`, SequenceNumber: uniqueId('S'),
            ReferenceNumber: this.digits(12, '9'), FeeReferenceId: `FR${this.digits(6)}`, SADADReferenceId: `SR${this.digits(6)}`,
            DueAmount: this.amount(), PaymentType: 'MOI', BillerID: s.BillerID, RequestType: s.RequestType, NationalID: s.ID,
            SponsorID: s.SponsorID, JobCategory: s.JobCategory, Duration: String(s.Duration),
          },
        };
      }
    }
  }

  /**
   * A value the row allows, for a required field `values` does not know: its constant, else a short
   * alphanumeric String (within its maxLength), a small Numerical, `true`. Null for a row whose
   * content cannot be made up (an Object or a list: its own rows say what goes inside).
   */
  private documentedValue(row: FieldRow): unknown {
    if (row.const !== undefined) return row.const;
    if (row.type === 'Numerical') return this.faker.number.int({ min: 1, max: 99 });
    if (row.type === 'Boolean') return true;
    if (row.type === 'Object' || row.array) return null;
    return this.faker.string.alphanumeric({ length: Math.max(1, Math.min(row.maxLength ?? 12, 12)), casing: 'upper' });
  }

  /** The fields with a value added for every required row of their level that has none. */
  private withDocumented(opId: OperationId, level: 'item' | 'entry', fields: Fields): Fields {
    for (const row of levelRows(opId, level)) {
      const name = fieldName(row.path);
      if (!row.required || name in fields || row.aliases?.some((a) => a in fields)) continue;
      const value = this.documentedValue(row);
      if (value !== null) fields[name] = value;
    }
    return fields;
  }

  /** A valid request body for the operation, with overrides applied. */
  build(opId: OperationId, options: BuildOptions = {}): RequestBody {
    const count = typeof options.entries === 'number' ? options.entries : options.entries?.length ?? 1;
    const perEntry = Array.isArray(options.entries) ? options.entries : [];
    const first = this.values(opId);
    const entries = Array.from({ length: count }, (_, i) => {
      const entry = i === 0 ? first.entry : { ...first.entry, ...this.values(opId).entry };
      return ordered(opId, 'entry', this.withDocumented(opId, 'entry', { ...entry, ...options.entry, ...perEntry[i] }));
    });
    const item = ordered(opId, 'item', this.withDocumented(opId, 'item', { ...first.item, ...options.item, TransactionData: entries }));
    return envelope(opId, [item], this.tagPrefix);
  }
}

/** The bill enquiry table's limit on AccountNumber (§2.1, §8): realistic accounts are cut to it. */
const ACCOUNT_NUMBER_LIMIT = messageTable('bill-enquiry', 'request').fields.find((f) => fieldName(f.path) === 'AccountNumber')?.maxLength ?? Infinity;

const rowsByLevel = new Map<string, FieldRow[]>();
/** The request table's rows of one level: the item's fields, or a TransactionData entry's (read once). */
function levelRows(opId: OperationId, level: 'item' | 'entry'): FieldRow[] {
  const key = `${opId} ${level}`;
  let rows = rowsByLevel.get(key);
  if (!rows) {
    const depth = level === 'item' ? 4 : 5;
    rows = messageTable(opId, 'request').fields.filter((f) => f.path.split('.').length === depth);
    rowsByLevel.set(key, rows);
  }
  return rows;
}

/** Lays fields out in the order the field table lists them; fields the table does not know go last. */
function ordered(opId: OperationId, level: 'item' | 'entry', fields: Fields): Fields {
  const names = levelRows(opId, level).map((f) => fieldName(f.path));
  const out: Fields = {};
  for (const n of names) if (n in fields) out[n] = fields[n];
  for (const [k, v] of Object.entries(fields)) if (!(k in out)) out[k] = v;
  return out;
}
