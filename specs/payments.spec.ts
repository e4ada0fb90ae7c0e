// Payments: duplicate SequenceNumber (sequential and concurrent) and stateful enquiry-pay-enquiry flows.
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerDuplicateCases } from '../src/suite/rules/duplicates.js';
import { registerFlowCases } from '../src/suite/rules/flows.js';

for (const c of interleave([collectCases(registerDuplicateCases), collectCases(registerFlowCases)])) test(...asTest(c));
