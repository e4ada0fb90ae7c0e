import { expect, test } from '@playwright/test';
import { ConfigError } from '../../src/contract/prefix.js';
import { prefixOf } from '../../src/config/index.js';

const tagPrefixFrom = (env: Record<string, string>) => prefixOf(env, 'SADAD_TAG_PREFIX');
const headerPrefixFrom = (env: Record<string, string>) => prefixOf(env, 'SADAD_HEADER_PREFIX');
import { requiredHeaderNames } from '../../src/contract/headers.js';
import { validateRequest } from '../../src/contract/validator.js';
import { RequestGenerator } from '../../src/generators/requests.js';

test('a deployment spelling its tags OSVSadad... validates under SADAD_TAG_PREFIX=OSV, and not under Svc', () => {
  const body = new RequestGenerator({ seed: 7, tagPrefix: 'OSV' }).build('bill-enquiry');
  expect(Object.keys(body.Message)).toEqual(['OSVSadadBillEnquiryRequest']);
  expect(Object.keys(body.Message.OSVSadadBillEnquiryRequest!)).toContain('OSVSadadBillEnquiry');
  expect(validateRequest('bill-enquiry', body, 'OSV').findings).toEqual([]);
  expect(validateRequest('bill-enquiry', body, 'Svc').findings).toContainEqual(expect.objectContaining({ pointer: '/Message/SvcSadadBillEnquiryRequest', keyword: 'required' }));
});

test('tag and header prefixes come from separate variables, default Svc', () => {
  expect(tagPrefixFrom({})).toBe('Svc');
  expect(headerPrefixFrom({})).toBe('Svc');
  expect(tagPrefixFrom({ SADAD_TAG_PREFIX: 'OSV', SADAD_HEADER_PREFIX: 'SV' })).toBe('OSV');
  expect(requiredHeaderNames(headerPrefixFrom({ SADAD_TAG_PREFIX: 'OSV', SADAD_HEADER_PREFIX: 'SV' }))).toContain('SVReferenceID');
});

test('a malformed prefix is a configuration error naming the variable', () => {
  expect(() => tagPrefixFrom({ SADAD_TAG_PREFIX: 'O S V' })).toThrow(ConfigError);
  expect(() => headerPrefixFrom({ SADAD_HEADER_PREFIX: '1SV' })).toThrow(/^SADAD_HEADER_PREFIX: /);
});
