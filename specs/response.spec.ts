// Response rules for every operation: schema, MessageType, echo, root tag, lists, formats.
import { operations } from '../src/contract/catalogue.js';
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerResponseCases } from '../src/suite/rules/response.js';

for (const c of interleave(operations.map((op) => collectCases(() => registerResponseCases(op.id))))) test(...asTest(c));
