// Per-operation rate limits: limit accepted, next rejected, reset after the window.
import { operations } from '../src/contract/catalogue.js';
import { asTest, collectCases, interleave, test } from '../src/suite/case.js';
import { registerRateLimitCases } from '../src/suite/rules/rate-limit.js';

for (const c of interleave(operations.map((op) => collectCases(() => registerRateLimitCases(op.id))))) test(...asTest(c));
