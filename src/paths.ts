import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

/** Absolute paths of the project's own folders, independent of the caller's working directory. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCHEMAS_DIR = join(ROOT, 'schemas');
export const DATA_DIR = join(ROOT, 'data');
export const REPORTS_DIR = join(ROOT, 'reports');

/** Where a suite run writes its reports and Playwright's own output (overridable for the project's tests). */
export const reportsDir = (env: Readonly<Record<string, string | undefined>>) => resolve(ROOT, env.SADAD_REPORTS_DIR || 'reports');
export const resultsDir = (env: Readonly<Record<string, string | undefined>>) => resolve(ROOT, env.SADAD_RESULTS_DIR || 'test-results/certify');
