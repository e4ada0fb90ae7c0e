/**
 * Files a run writes while it may be killed at any moment: written under a temporary name in the
 * same folder, then renamed over the real one (a rename within a folder is atomic on POSIX), so a
 * reader finds the old file or the new one, never half of one.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Temporary names end in `.tmp`, so readers that look for `*.json` never pick one up. */
export const TEMP_SUFFIX = '.tmp';

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
  try {
    writeFileSync(temp, data);
    renameSync(temp, file);
  } catch (e) {
    rmSync(temp, { force: true });
    throw e;
  }
}
