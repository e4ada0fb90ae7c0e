/** `certification.sha256`: the package's checksums in `sha256sum` format, paths relative to the reports folder. */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic.js';

export const CHECKSUM_FILE = 'certification.sha256';

/** The files at the top of the reports folder a package's checksums cover, when they are there. */
export const CHECKSUMMED_TOP = ['certification.json', 'certification.html', 'junit.xml', 'ctrf.json', 'exchanges.har', 'pacing.json', 'run.json'];

/** The package's files, relative to the reports folder: the two reports, junit.xml, ctrf.json, exchanges.har, pacing.json, run.json and every evidence file. */
export function packageFiles(dir: string): string[] {
  const top = CHECKSUMMED_TOP.filter((f) => existsSync(join(dir, f)));
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

/**
 * The lines of a `sha256sum` file (`<64 hex>  <path>`, or `<hex> *<path>` in binary mode), in
 * order; a line that is neither is returned as a problem, with its number.
 */
export function parseChecksums(text: string): { files: { path: string; sha256: string }[]; problems: string[] } {
  const files: { path: string; sha256: string }[] = [];
  const problems: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line === '') return;
    const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(line);
    if (!m) problems.push(`line ${i + 1} is not \`<sha256>  <file>\`: ${JSON.stringify(line.slice(0, 120))}`);
    else files.push({ sha256: m[1]!, path: m[2]! });
  });
  return { files, problems };
}
