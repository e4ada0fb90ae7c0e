import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { SCHEMAS_DIR } from '../../src/paths.js';
import { operations } from '../../src/contract/catalogue.js';
import { SCHEMA_BASE, schemaFileName } from '../../src/contract/schema-files.js';
import { getContract, validateResponse } from '../../src/contract/validator.js';

const files = readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));

test('every schema file is named by the contract and carries its own $id', () => {
  const expected = ['common.schema.json', 'baseline.schema.json', 'target-data.schema.json', 'certification.schema.json', 'client-certification.schema.json', ...operations.flatMap((op) => (['request', 'lenient', 'strict'] as const).map((p) => schemaFileName(op.id, p)))];
  expect(files.sort()).toEqual(expected.sort());
  for (const f of files) {
    const s = JSON.parse(readFileSync(join(SCHEMAS_DIR, f), 'utf8'));
    expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(s.$id).toBe(`${SCHEMA_BASE}${f}`);
  }
});

test('every schema compiles under ajv strict mode, with $refs resolved between files', () => {
  // A bare strict Ajv: unknown keywords, formats, types or unresolved refs throw here.
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  ajv.addFormat('sadad-date', /^\d{8}$/).addFormat('sadad-timestamp', /^.+$/);
  for (const f of files) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS_DIR, f), 'utf8')));
  for (const f of files) expect(() => ajv.getSchema(`${SCHEMA_BASE}${f}`), f).not.toThrow();
  expect(() => getContract('Svc')).not.toThrow();
});

/** A bill enquiry response as the spec's samples show it: string Status/StatusCode, number BillerID. */
function sampleBillEnquiryResponse(): any {
  return {
    SvcSadadBillEnquiryResponse: {
      MessageType: 'SADADENQ', TimeStamp: '2025-01-02T10:20:39',
      SvcSadadBillEnquiry: [{
        BankCode: 'RJHI', CompanyCode: 'C10001', TransactionReferenceNumber: 'T1', MessageDescription: 'Bill enquiry', Status: 'SUCCESS',
        TransactionData: [{
          SequenceNumber: 'S1', BillerID: 2, SubscriberNumber: '0512345678', ServiceType: 'POST', BillerDetail: 'Electricity',
          BillAccountID: '30012345', BillNo: '1000000000001', BillCategory: 'ELCT', BillCategoryType: 'Residential', AmountDue: 250.5,
          BillPaid: 'N', CustType: 'Individual', BillStatus: 'BillUnpaid', Balance: 250.5, PaidDate: '20250101', OpenDate: '20241201',
          CloseDate: '20241231', DueDate: '20250131', ExpiryDate: '20250228', StatusCode: 'OK', StatusDetail: 'Success',
        }],
      }],
    },
  };
}
const entryOf = (r: any) => r.SvcSadadBillEnquiryResponse.SvcSadadBillEnquiry[0].TransactionData[0];

test('a sample-style response passes lenient and fails strict, naming each deviation', () => {
  const body = sampleBillEnquiryResponse();
  expect(validateResponse('bill-enquiry', body, 'lenient', 'Svc').findings).toEqual([]);
  const strict = validateResponse('bill-enquiry', body, 'strict', 'Svc');
  expect(strict.findings.map((f) => f.pointer).sort()).toEqual([
    '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/Status',
    '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/BillerID',
    '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/StatusCode',
  ]);
});

test('a table-style response passes both profiles', () => {
  const body = sampleBillEnquiryResponse();
  body.SvcSadadBillEnquiryResponse.SvcSadadBillEnquiry[0].Status = true;
  Object.assign(entryOf(body), { BillerID: '002', StatusCode: true });
  expect(validateResponse('bill-enquiry', body, 'strict', 'Svc').findings).toEqual([]);
});

const defects: [string, (r: any) => unknown, string, string][] = [
  ['Message wrapper around the root', (r) => ({ Message: r }), '/SvcSadadBillEnquiryResponse', 'required'],
  ['TimeStamp with a zone', (r) => { r.SvcSadadBillEnquiryResponse.TimeStamp = '2025-01-02T10:20:39+03:00'; }, '/SvcSadadBillEnquiryResponse/TimeStamp', 'pattern'],
  ['TimeStamp not a real time', (r) => { r.SvcSadadBillEnquiryResponse.TimeStamp = '2025-01-02T25:20:39'; }, '/SvcSadadBillEnquiryResponse/TimeStamp', 'format'],
  ['date with dashes', (r) => { entryOf(r).DueDate = '2025-01-31'; }, '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/DueDate', 'pattern'],
  ['date not on the calendar', (r) => { entryOf(r).DueDate = '20250230'; }, '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/DueDate', 'format'],
  ['list as an object', (r) => { const root = r.SvcSadadBillEnquiryResponse; root.SvcSadadBillEnquiry = root.SvcSadadBillEnquiry[0]; }, '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry', 'type'],
  ['wrong MessageType', (r) => { r.SvcSadadBillEnquiryResponse.MessageType = 'SADADTRN'; }, '/SvcSadadBillEnquiryResponse/MessageType', 'const'],
  ['documented field missing', (r) => { delete entryOf(r).BillStatus; }, '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/BillStatus', 'required'],
  ['both BillerID spellings missing', (r) => { delete entryOf(r).BillerID; }, '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/BillerID', 'anyOf'],
  ['amount as a non-numeric string', (r) => { entryOf(r).AmountDue = 'SAR 250'; }, '/SvcSadadBillEnquiryResponse/SvcSadadBillEnquiry/0/TransactionData/0/AmountDue', 'type'],
];
for (const [name, mutate, pointer, keyword] of defects) {
  test(`lenient rejects a response with ${name}`, () => {
    const body = sampleBillEnquiryResponse();
    const out = mutate(body) ?? body;
    const { valid, findings } = validateResponse('bill-enquiry', out, 'lenient', 'Svc');
    expect(valid).toBe(false);
    expect(findings).toContainEqual(expect.objectContaining({ pointer, keyword }));
  });
}

test('lenient accepts the alternative spelling BillerId and numeric strings where a number is sampled as a string', () => {
  const body = sampleBillEnquiryResponse();
  const e = entryOf(body);
  e.BillerId = e.BillerID; delete e.BillerID;
  expect(validateResponse('bill-enquiry', body, 'lenient', 'Svc').findings).toEqual([]);
  expect(validateResponse('bill-enquiry', body, 'strict', 'Svc').findings).toContainEqual(expect.objectContaining({ keyword: 'required', pointer: expect.stringMatching(/BillerID$/) }));
});
