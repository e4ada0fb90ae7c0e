import { expect, test } from '@playwright/test';
import { MASK, maskBody, maskHeaders, maskText, registerSecret, registerSecretHeader } from '../../src/client/redact.js';

test('secret headers are masked by name, whatever they hold; others keep their value', () => {
  registerSecretHeader('X-Company-Signature');
  const out = maskHeaders({ Authorization: 'Bearer abc.def', clientsecret: 's3cr3t-value', 'X-Company-Signature': 'sig', CompanyId: 'MYCOMPANY', Device: 'Web' });
  expect(out).toEqual({ Authorization: `Bearer ${MASK}`, clientsecret: MASK, 'X-Company-Signature': MASK, CompanyId: 'MYCOMPANY', Device: 'Web' });
});

test('registered secret values are masked anywhere in text, longest first; bearer credentials always', () => {
  registerSecret('token-1234567890');
  registerSecret('token-1234567890-extended');
  expect(maskText('a token-1234567890-extended and token-1234567890 here')).toBe(`a ${MASK} and ${MASK} here`);
  expect(maskText('echo: Authorization: Bearer eyJhbGciOi.x.y')).toBe(`echo: Authorization: Bearer ${MASK}`);
  expect(maskText('Bearer c2VjcmV0LXRva2Vu==')).toBe(`Bearer ${MASK}`);
  // a challenge names no credential: its parameters stay readable
  expect(maskText('Bearer realm="sadad-mock", error="invalid_token"')).toBe('Bearer realm="sadad-mock", error="invalid_token"');
  expect(maskText('Bearer error=invalid_token')).toBe('Bearer error=invalid_token');
  expect(maskText('abc')).toBe('abc');
});

test('token responses and echoed credentials in JSON bodies are masked by key', () => {
  registerSecret('token-1234567890'); // the tests may run in any worker: each registers what it masks
  const body = maskBody(JSON.stringify({ access_token: 'never-registered-token', token_type: 'Bearer', expires_in: 3600, nested: { client_secret: 'x-secret' } }));
  expect(body).not.toContain('never-registered-token');
  expect(body).not.toContain('x-secret');
  expect(JSON.parse(body)).toMatchObject({ access_token: MASK, token_type: 'Bearer', expires_in: 3600 });
  expect(maskBody('not json, token-1234567890')).toBe(`not json, ${MASK}`);
});
