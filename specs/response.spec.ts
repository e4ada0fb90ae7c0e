// Response rules for every operation: schema, MessageType, echo, root tag, lists, formats.
import { asTest, interleave, test } from '../src/suite/case.js';
import { processSettingsOrError } from '../src/config/settings.js';
import { specCases } from '../src/suite/cases.js';

// An operation's cases read one accepted exchange, made by the first of them in its worker: kept in
// one worker (a group in the default mode, in order), they make it once per run, as the plan says,
// not once per worker that happens to draw one of them.
for (const cases of specCases(processSettingsOrError(), 'response')) {
  test.describe(() => {
    test.describe.configure({ mode: 'default' });
    for (const c of interleave([cases])) test(...asTest(c));
  });
}
