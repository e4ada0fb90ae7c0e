// Every required request field omitted / wrong type / null / empty, TransactionType pairing, AccountNumber limits.
import { operations } from '../src/contract/catalogue.js';
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerRequestFieldCases } from '../src/suite/rules/request-fields.js';

for (const c of interleave(operations.map((op) => collectCases(() => registerRequestFieldCases(op.id))))) test(...asTest(c));
