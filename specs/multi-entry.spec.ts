// Several TransactionData entries answered one for one, in order.
import { operations } from '../src/contract/catalogue.js';
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerMultiEntryCases } from '../src/suite/rules/multi-entry.js';

for (const c of interleave(operations.map((op) => collectCases(() => registerMultiEntryCases(op.id))))) test(...asTest(c));
