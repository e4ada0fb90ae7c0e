/**
 * Reading and writing evidence files: one file per case, written whole (atomically: a kill never
 * leaves half a file), named by the case id when the id is safe as a file name.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic.js';
import { EVIDENCE_DIR, type EvidenceRecord } from './record.js';

/** A case id that cannot name a file, or another reason a record cannot be written. */
export class EvidenceError extends Error {}

/** The evidence file of a case, if the id is safe to use as a file name. */
export function evidenceFile(dir: string, id: string): string | null {
  if (!/^[\w.\-[\]]+$/.test(id) || id.startsWith('.')) return null;
  return join(dir, EVIDENCE_DIR, `${id}.json`);
}

/** A case's evidence, or null when there is none, or it is unreadable (a file is written whole, so that means it was tampered with). */
export function readEvidence(dir: string, id: string): EvidenceRecord | null {
  const file = evidenceFile(dir, id);
  if (!file || !existsSync(file)) return null;
  try {
    const e = JSON.parse(readFileSync(file, 'utf8')) as EvidenceRecord;
    return e && typeof e === 'object' && e.id === id && typeof e.verdict === 'string' ? e : null;
  } catch {
    return null;
  }
}

export function writeEvidence(dir: string, record: EvidenceRecord): void {
  const file = evidenceFile(dir, record.id);
  if (!file) throw new EvidenceError(`case id ${JSON.stringify(record.id)} cannot name a file`);
  writeFileAtomic(file, JSON.stringify(record, null, 2));
}

/** The evidence files of a package: every evidence/<id>.json that parses and names its own case. */
export function readAllEvidence(dir: string): EvidenceRecord[] {
  const ev = join(dir, EVIDENCE_DIR);
  if (!existsSync(ev)) return [];
  return readdirSync(ev).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort().flatMap((f) => {
    try {
      const r = JSON.parse(readFileSync(join(ev, f), 'utf8')) as EvidenceRecord;
      return r && typeof r === 'object' && typeof r.id === 'string' && `${r.id}.json` === f ? [r] : [];
    } catch { return []; }
  });
}
