/**
 * Deterministic zips (src/attest/zip.ts): the same files give the same bytes in any order and any
 * time zone, entries sorted with a fixed time and mode; and reading refuses entries that would land
 * outside the folder (absolute paths, `..`), duplicates and archives that unpack too large.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { unzipSync, zipSync } from 'fflate';
import { unzipEntries, zipEntries, ZipError } from '../../src/attest/zip.js';
import { ROOT } from '../../src/paths.js';

const files = [
  { name: 'run.json', data: Buffer.from('{"run":1}\n') },
  { name: 'evidence/b.json', data: Buffer.from('{"b":2}\n') },
  { name: 'certification.json', data: Buffer.from('{"c":3}\n'.repeat(100)) },
  { name: 'evidence/a.json', data: Buffer.from('{"a":1}\n') },
];
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The central directory's entries: name, version made by (os in the high byte), DOS time and date, external attributes. */
function centralDirectory(zip: Uint8Array): { name: string; os: number; time: number; date: number; attrs: number }[] {
  const b = Buffer.from(zip);
  const out = [];
  for (let i = b.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06])), o = b.readUInt32LE(i + 16), n = b.readUInt16LE(i + 10); n > 0; n--) {
    const nameLen = b.readUInt16LE(o + 28);
    out.push({ name: b.subarray(o + 46, o + 46 + nameLen).toString(), os: b[o + 5]!, time: b.readUInt16LE(o + 12), date: b.readUInt16LE(o + 14), attrs: b.readUInt32LE(o + 38) });
    o += 46 + nameLen + b.readUInt16LE(o + 30) + b.readUInt16LE(o + 32);
  }
  return out;
}

test('the same files give the same bytes: sorted entries, 1980-01-01 00:00, Unix 0644', () => {
  const a = zipEntries(files);
  const b = zipEntries([...files].reverse());
  expect(sha(a)).toBe(sha(b));
  const cd = centralDirectory(a);
  expect(cd.map((e) => e.name)).toEqual(['certification.json', 'evidence/a.json', 'evidence/b.json', 'run.json']);
  for (const e of cd) {
    expect(e.os).toBe(3);
    expect((e.attrs >>> 16) & 0o177777).toBe(0o100644);
    expect(e.date).toBe((0 << 9) | (1 << 5) | 1); // 1980-01-01
    expect(e.time).toBe(0);
  }
  const back = unzipEntries(a);
  expect(back.map((e) => [e.name, sha(e.data)]).sort()).toEqual(files.map((e) => [e.name, sha(e.data)]).sort());
});

test('the bytes do not depend on the time zone of the machine that writes them', () => {
  const script = `import { zipEntries } from './src/attest/zip.ts'; import { createHash } from 'node:crypto';
    const z = zipEntries([{ name: 'a.json', data: Buffer.from('a') }, { name: 'evidence/b.json', data: Buffer.from('b') }]);
    console.log(createHash('sha256').update(z).digest('hex'));`;
  const hashes = ['UTC', 'Asia/Riyadh', 'America/Los_Angeles', 'Pacific/Kiritimati'].map((tz) =>
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, env: { ...process.env, TZ: tz }, encoding: 'utf8' }).trim());
  expect(new Set(hashes).size, hashes.join('\n')).toBe(1);
});

test('reading refuses entries outside the folder, duplicates and too much data', () => {
  const evil = (name: string) => zipSync({ [name]: Buffer.from('x') });
  for (const name of ['../escape.json', 'evidence/../../escape.json', '/etc/passwd', 'C:/x.json', 'a\\..\\b.json']) {
    expect(() => unzipEntries(evil(name)), name).toThrow(ZipError);
  }
  expect(() => unzipEntries(Buffer.from('not a zip at all'))).toThrow(/not a readable zip/);
  const big = zipSync({ 'a.json': Buffer.alloc(2048) });
  expect(() => unzipEntries(big, 1024)).toThrow(/more than 1024 bytes/);
  expect(unzipEntries(big).map((e) => e.name)).toEqual(['a.json']);
  // the same name twice: fflate's reader would keep one silently; the filter sees both
  const one = Buffer.from(zipSync({ 'a.json': Buffer.from('1') }));
  const twice = duplicateEntry(one);
  expect(Object.keys(unzipSync(twice))).toEqual(['a.json']);
  expect(() => unzipEntries(twice)).toThrow(/there twice/);
  expect(() => zipEntries([{ name: '../x', data: Buffer.from('') }])).toThrow(ZipError);
});

/** A zip of one entry with that entry twice (local header and central directory entry repeated). */
function duplicateEntry(zip: Buffer): Buffer {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const cdOffset = zip.readUInt32LE(end + 16);
  const cdSize = zip.readUInt32LE(end + 12);
  const local = zip.subarray(0, cdOffset);
  const cd = Buffer.from(zip.subarray(cdOffset, cdOffset + cdSize));
  const cd2 = Buffer.from(cd);
  cd2.writeUInt32LE(local.length, 42);
  const eocd = Buffer.from(zip.subarray(end));
  eocd.writeUInt16LE(2, 8);
  eocd.writeUInt16LE(2, 10);
  eocd.writeUInt32LE(cd.length * 2, 12);
  eocd.writeUInt32LE(local.length * 2, 16);
  return Buffer.concat([local, local, cd, cd2, eocd]);
}
