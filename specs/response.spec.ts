// Response rules for every operation: schema, MessageType, echo, root tag, lists, formats.
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['response']())) test(...asTest(c));
