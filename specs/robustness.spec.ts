// Malformed, mistyped, empty or oversized bodies: a 4xx, never a 5xx.
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['robustness']())) test(...asTest(c));
