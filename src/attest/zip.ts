/**
 * Deterministic zip archives (fflate): the same files give the same bytes, whoever writes them and
 * wherever. Entries are sorted by name (byte order), every entry has the same time (1980-01-01
 * 00:00:00, the zip format's epoch), Unix mode 0644 (regular file), deflate level 6, no comment, no
 * extra field. Reading is the other way round and refuses entries that could land outside the folder
 * they are extracted to (absolute paths, `..`, backslashes, drive letters), duplicates, and archives
 * that would unpack to more than a limit.
 */
import { unzipSync, zipSync, type Zippable } from 'fflate';

/**
 * The entries' time. Zip stores local date and time fields; fflate fills them from a Date's local
 * getters, so the Date is built from local fields: the same fields in every time zone (New Year's
 * midnight is in no time zone's daylight-saving gap).
 */
const ZIP_EPOCH = () => new Date(1980, 0, 1, 0, 0, 0);
/** S_IFREG | 0644, in the high 16 bits of the external attributes (os 3: Unix). */
const FILE_ATTRS = (0o100644 << 16) >>> 0;

export interface ZipEntry { name: string; data: Uint8Array }

const byteOrder = (a: string, b: string) => { const x = Buffer.from(a); const y = Buffer.from(b); return Buffer.compare(x, y); };

export class ZipError extends Error {}

/** A safe entry name: relative, forward slashes, no `.`/`..` segment, no drive letter, no control characters. */
export function unsafeEntryName(name: string): string | null {
  if (!name) return 'an empty name';
  if (name.startsWith('/')) return 'an absolute path';
  if (/^[A-Za-z]:/.test(name)) return 'a drive letter';
  if (name.includes('\\')) return 'a backslash';
  if (/[\u0000-\u001f]/.test(name)) return 'a control character';
  if (name.split('/').some((s) => s === '..' || s === '.')) return 'a `..` or `.` segment';
  return null;
}

export function zipEntries(entries: ZipEntry[]): Uint8Array {
  const sorted = [...entries].sort((a, b) => byteOrder(a.name, b.name));
  const files: Zippable = {};
  for (const e of sorted) {
    const bad = unsafeEntryName(e.name);
    if (bad) throw new ZipError(`cannot zip ${JSON.stringify(e.name)}: ${bad}`);
    if (e.name in files) throw new ZipError(`cannot zip ${JSON.stringify(e.name)} twice`);
    files[e.name] = [e.data, { level: 6, mtime: ZIP_EPOCH(), os: 3, attrs: FILE_ATTRS }];
  }
  // fflate keeps the object's key order; a key that looks like an array index would jump ahead of the others
  const order = Object.keys(files);
  if (order.some((k, i) => k !== sorted[i]!.name)) throw new ZipError('an entry name that is a number would break the sorted order');
  return zipSync(files);
}

/** The files of a zip (folders left out), in archive order; throws a ZipError naming what is wrong. */
export function unzipEntries(data: Uint8Array, maxBytes = 1024 ** 3): ZipEntry[] {
  const seen = new Set<string>();
  let total = 0;
  let problem: string | null = null;
  let files: Record<string, Uint8Array>;
  try {
    files = unzipSync(data, {
      filter: (f) => {
        if (problem) return false;
        if (f.name.endsWith('/') && f.originalSize === 0) return false;
        const bad = unsafeEntryName(f.name);
        if (bad) problem = `entry ${JSON.stringify(f.name)} has ${bad}`;
        else if (seen.has(f.name)) problem = `entry ${JSON.stringify(f.name)} is there twice`;
        else if ((total += f.originalSize) > maxBytes) problem = `it would unpack to more than ${maxBytes} bytes`;
        seen.add(f.name);
        return !problem;
      },
    });
  } catch (e) {
    throw new ZipError(`not a readable zip: ${(e as Error).message}`);
  }
  if (problem) throw new ZipError(problem);
  return Object.entries(files).map(([name, bytes]) => ({ name, data: bytes }));
}
