// Malformed, mistyped, empty or oversized bodies: a 4xx, never a 5xx.
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

for (const c of interleave(specCases(processSettingsOrError(), 'robustness'))) test(...asTest(c));
