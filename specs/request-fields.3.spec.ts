// Every required request field omitted / wrong type / null / empty, TransactionType pairing, AccountNumber limits:
// part 3 of 4 (SPEC_PARTS in src/suite/cases.ts: Playwright's worker cost grows with a file's size).
import { asTest, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specPart } from '../src/suite/cases.js';

for (const c of specPart(processSettingsOrError(), 'request-fields', 3)) test(...asTest(c));
