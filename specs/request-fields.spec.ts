// Every required request field omitted / wrong type / null / empty, TransactionType pairing, AccountNumber limits.
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'request-fields'))) test(...asTest(c));
