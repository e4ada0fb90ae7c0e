import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** Absolute paths of the project's own folders, independent of the caller's working directory. */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCHEMAS_DIR = join(ROOT, 'schemas');
export const DATA_DIR = join(ROOT, 'data');
export const REPORTS_DIR = join(ROOT, 'reports');
