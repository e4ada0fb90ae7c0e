/** Which `playwright test` arguments narrow a run to part of the suite (a narrowed run never certifies). */
import { maskText } from '../client/redact.js';

/** `playwright test` options that select part of the suite, and whether they take a value. */
const FILTERS: Record<string, 'value' | 'optional' | 'none'> = {
  '-g': 'value', '--grep': 'value', '-G': 'value', '--grep-invert': 'value', '--shard': 'value', '--test-list': 'value', '--test-list-invert': 'value',
  '--last-failed': 'none', '--only-changed': 'optional',
};
/** Other options that take a value (so the value is no spec-file filter). */
const VALUE_OPTIONS = new Set(['--add-reporter', '--browser', '-c', '--config', '-j', '--workers', '--global-timeout', '--last-failed-file', '--max-failures',
  '--output', '--repeat-each', '--reporter', '--retries', '--run-agents', '--timeout', '--trace', '--tsconfig', '--update-source-method', '--ui-host', '--ui-port']);
const OPTIONAL_VALUES = new Map([['-u', /^(all|changed|missing|none)$/], ['--update-snapshots', /^(all|changed|missing|none)$/], ['--debug', /^(inspector|cli)$/], ['--shuffle', /^\d+$/]]);

/** The command-line arguments that select part of the suite (filters, spec files), or null for the whole suite. */
export function narrowingArgs(argv: string[]): string | null {
  const at = argv.indexOf('test');
  const args = at >= 0 ? argv.slice(at + 1) : [];
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    const hasNext = next !== undefined && !next.startsWith('-');
    const name = a.split('=')[0]!;
    if (a.startsWith('-')) {
      const filter = FILTERS[name];
      if (filter) {
        out.push(a);
        if (!a.includes('=') && hasNext && filter !== 'none') out.push(args[++i]!);
      } else if (name === '--project') {
        while (!a.includes('=') && args[i + 1] !== undefined && !args[i + 1]!.startsWith('-')) i++;
      } else if (VALUE_OPTIONS.has(name)) {
        if (!a.includes('=') && hasNext) i++;
      } else if (OPTIONAL_VALUES.get(name)?.test(next ?? '') && !a.includes('=')) i++;
    } else out.push(a); // a test filter: a spec file or a part of its path
  }
  return out.length ? maskText(out.join(' ')) : null;
}
