// Payments: duplicate SequenceNumber (sequential and concurrent) and stateful enquiry-pay-enquiry flows.
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'payments'))) test(...asTest(c));
