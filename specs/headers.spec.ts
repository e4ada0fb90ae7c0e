// Required headers missing or malformed, bad token, signature, clientid/clientsecret (observed).
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['headers']())) test(...asTest(c));
