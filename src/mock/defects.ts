/**
 * Injectable defects: deliberate deviations from the contract, so the suite can prove it catches
 * each one (design.md §7). The catalogue is filled by a later issue; until then the list is empty
 * and any name is a configuration error, so a typo never silently runs a faithful mock.
 */
import { ConfigError } from '../contract/prefix.js';

export const KNOWN_DEFECTS = [] as const satisfies readonly string[];
export type DefectName = (typeof KNOWN_DEFECTS)[number];

/** The defects a mock instance runs with; each behaviour asks `has(name)` at the one place it bends. */
export class Defects {
  private readonly active: ReadonlySet<string>;

  constructor(names: readonly string[]) {
    this.active = new Set(names);
  }

  has(name: DefectName): boolean {
    return this.active.has(name);
  }
}

export function parseDefects(raw: string | undefined, variable = 'MOCK_DEFECTS'): string[] {
  const names = (raw ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  checkDefects(names, variable);
  return [...new Set(names)];
}

export function checkDefects(names: readonly string[], variable = 'MOCK_DEFECTS'): void {
  const known: readonly string[] = KNOWN_DEFECTS;
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0) {
    const list = known.length > 0 ? known.join(', ') : 'none yet';
    throw new ConfigError(variable, `unknown defect(s) ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known: ${list}`);
  }
}
