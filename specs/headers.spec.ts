// Required headers missing or malformed, bad token, signature, clientid/clientsecret (observed).
import { operations } from '../src/contract/catalogue.js';
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerHeaderCases } from '../src/suite/rules/headers.js';

for (const c of interleave(operations.map((op) => collectCases(() => registerHeaderCases(op.id))))) test(...asTest(c));
