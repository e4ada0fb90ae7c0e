/** docs/client-certification.md names every client rule, scenario and sample-client defect the code has. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { SAMPLE_CLIENT_DEFECTS } from '../../examples/client/defects.js';
import { CLIENT_RULES } from '../../src/judge/rules.js';
import { SCENARIOS, scenarioId } from '../../src/judge/scenarios.js';
import { ROOT } from '../../src/paths.js';
import { DEFECT_RULES } from '../../src/prove/client.js';

const doc = readFileSync(join(ROOT, 'docs/client-certification.md'), 'utf8');

test('every rule, scenario and sample-client defect is documented, with the rule each defect breaks', () => {
  for (const r of CLIENT_RULES) expect(doc, r.name).toContain(`\`${r.name}\``);
  for (const s of SCENARIOS) expect(doc, scenarioId(s)).toContain(`\`${scenarioId(s)}\``);
  for (const d of SAMPLE_CLIENT_DEFECTS) expect(doc, d).toContain(`| \`${d}\` | \`${DEFECT_RULES[d]}\` |`);
});
