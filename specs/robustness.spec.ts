// Malformed, mistyped, empty or oversized bodies: a 4xx, never a 5xx.
import { operations } from '../src/contract/catalogue.js';
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerRobustnessCases } from '../src/suite/rules/robustness.js';

for (const c of interleave(operations.map((op) => collectCases(() => registerRobustnessCases(op.id))))) test(...asTest(c));
