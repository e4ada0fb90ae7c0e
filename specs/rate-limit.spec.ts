// Per-operation rate limits: limit accepted, next rejected, reset after the window (the payment operations' in bursts.spec.ts).
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['rate-limit']())) test(...asTest(c));
