// Required headers missing or malformed, bad token, signature, clientid/clientsecret (observed).
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'headers'))) test(...asTest(c));
