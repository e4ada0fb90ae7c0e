/** What identifies a run's suite: version, commit, and the hash of the schemas it judged against. */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR, ROOT, SCHEMAS_DIR } from '../paths.js';

export function suiteVersion(root = ROOT): { name: string; version: string } {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: string; version?: string };
    return { name: pkg.name ?? 'unknown', version: pkg.version ?? 'unknown' };
  } catch {
    return { name: 'unknown', version: 'unknown' };
  }
}

/** The checked-out commit and whether tracked files differ from it; nulls without git. */
export function gitState(root = ROOT): { commit: string | null; localChanges: boolean | null } {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  let commit: string | null;
  try { commit = git('rev-parse', 'HEAD'); } catch { return { commit: null, localChanges: null }; }
  if (!/^[0-9a-f]{40,64}$/.test(commit)) return { commit: null, localChanges: null };
  let localChanges: boolean | null;
  try { localChanges = git('status', '--porcelain', '--untracked-files=no').length > 0; } catch { localChanges = null; }
  return { commit, localChanges };
}

/**
 * sha256 over the bytes of schemas/*.json concatenated in name order (C collation), so anyone can
 * recompute it: `cd schemas && cat $(LC_ALL=C ls *.json) | sha256sum`.
 */
export function schemaHash(dir = SCHEMAS_DIR): { hash: string; files: string[] } {
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const h = createHash('sha256');
  for (const f of files) h.update(readFileSync(join(dir, f)));
  return { hash: h.digest('hex'), files };
}

/**
 * `sha256:<hex>` of data/field-tables.json (`sha256sum data/field-tables.json`): the spec's field
 * tables (api-spec §2.1-§2.8) as the suite transcribed them, from which its schemas and rules are
 * made; which reading of the spec a run judged by. (The spec itself, api-spec.md, is not in the
 * repository.)
 */
export function specHash(file = join(DATA_DIR, 'field-tables.json')): string {
  return `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
}
