/** `certification.sha256`: the package's checksums in `sha256sum` format, paths relative to the reports folder. */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic.js';
import { CHECKSUM_FILE, isFolder, PACKAGE_FILES } from './files.js';

export { CHECKSUM_FILE };

/**
 * The files the package's checksums cover that are there, relative to the reports folder, in the
 * order of PACKAGE_FILES (files.ts): the two reports, junit.xml, ctrf.json, exchanges.har,
 * pacing.json, run.json, then every evidence file.
 */
export function packageFiles(dir: string): string[] {
  const covered = PACKAGE_FILES.filter((f) => f.checksummed);
  const top = covered.filter((f) => !isFolder(f) && existsSync(join(dir, f.file))).map((f) => f.file);
  const inFolders = covered.filter(isFolder).flatMap((f) => {
    const folder = join(dir, f.file);
    // dot-files are temporary names of files being written (atomic.ts), never part of the package
    return existsSync(folder) ? readdirSync(folder).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort().map((n) => `${f.file}${n}`) : [];
  });
  return [...top, ...inFolders];
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
