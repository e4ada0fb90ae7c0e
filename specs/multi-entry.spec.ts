// Several TransactionData entries answered one for one, in order.
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'multi-entry'))) test(...asTest(c));
