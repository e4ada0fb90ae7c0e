// Payments: duplicate SequenceNumber (sequential and concurrent) and stateful enquiry-pay-enquiry flows.
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['payments']())) test(...asTest(c));
