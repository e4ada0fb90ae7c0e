/** `certification.sha256`: the package's checksums in `sha256sum` format, paths relative to the reports folder. */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic.js';

export const CHECKSUM_FILE = 'certification.sha256';

/** The package's files, relative to the reports folder: the two reports, junit.xml, exchanges.har, pacing.json, run.json and every evidence file. */
export function packageFiles(dir: string): string[] {
  const top = ['certification.json', 'certification.html', 'junit.xml', 'exchanges.har', 'pacing.json', 'run.json'].filter((f) => existsSync(join(dir, f)));
  const evidenceDir = join(dir, 'evidence');
  // dot-files are temporary names of files being written (atomic.ts), never part of the package
  const evidence = existsSync(evidenceDir)
    ? readdirSync(evidenceDir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort().map((f) => `evidence/${f}`)
    : [];
  return [...top, ...evidence];
}

export function writeChecksums(dir: string): string[] {
  const files = packageFiles(dir);
  const lines = files.map((f) => `${createHash('sha256').update(readFileSync(join(dir, f))).digest('hex')}  ${f}`);
  writeFileAtomic(join(dir, CHECKSUM_FILE), lines.join('\n') + '\n');
  return files;
}
