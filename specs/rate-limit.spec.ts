// Per-operation rate limits: limit accepted, next rejected, reset after the window (the payment operations' in bursts.spec.ts).
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'rate-limit'))) test(...asTest(c));
