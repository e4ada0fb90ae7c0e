// The payment operations' rate-limit cases, first in the run while those operations are quiet anyway (src/suite/cases.ts).
import { asTest, interleave, test } from '../src/suite/case.js';
import { CASE_GROUPS } from '../src/suite/cases.js';

for (const c of interleave(CASE_GROUPS['bursts']())) test(...asTest(c));
