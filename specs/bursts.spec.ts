// The payment operations' rate-limit cases, first in the run while those operations are quiet anyway (src/suite/cases.ts).
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'bursts'))) test(...asTest(c));
