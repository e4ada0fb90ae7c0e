/**
 * A Word (.docx) or OpenDocument (.odt) API document, converted to GitHub Markdown by pandoc and
 * then read like the Markdown one. `--wrap=none` keeps each paragraph and list item on one line,
 * so the converted text has the same lines as the Markdown the document was written from and a
 * rule's text is the same words either way.
 */
import { spawn } from 'node:child_process';
import { basename, extname } from 'node:path';
import { SpecImportError } from './errors.js';

const FROM: Record<string, string> = { '.docx': 'docx', '.odt': 'odt' };

export const PANDOC_MISSING = 'pandoc is not installed (or not on PATH): it converts Word and OpenDocument files to Markdown. Install it (Debian/Ubuntu: apt-get install pandoc; macOS: brew install pandoc), or import the document as Markdown';

export function wordToMarkdown(file: string, pandoc = 'pandoc'): Promise<string> {
  const from = FROM[extname(file).toLowerCase()];
  const source = basename(file);
  if (!from) return Promise.reject(new SpecImportError({ source }, `not a Word or OpenDocument file (${Object.keys(FROM).join(', ')})`));
  return new Promise((resolve, reject) => {
    const child = spawn(pandoc, ['-f', from, '-t', 'gfm', '--wrap=none', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(new SpecImportError({ source }, e.code === 'ENOENT' ? PANDOC_MISSING : `pandoc could not be started: ${e.message}`));
    });
    child.on('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new SpecImportError({ source }, `pandoc could not convert it (exit ${code}): ${Buffer.concat(err).toString('utf8').trim() || 'no message'}`));
    });
  });
}
