// Several TransactionData entries answered one for one, in order.
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['multi-entry']())) test(...asTest(c));
