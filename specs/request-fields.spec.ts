// Every required request field omitted / wrong type / null / empty, TransactionType pairing, AccountNumber limits.
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['request-fields']())) test(...asTest(c));
