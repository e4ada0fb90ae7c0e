/**
 * The console's view of a spec diff (`npm run spec -- diff <old> <new>`): a heading naming both
 * documents, the changes grouped by operation and message, one line per change with its class,
 * and a summary line of counts per class. `--why` adds each change's reason under it.
 */
import { CHANGE_CLASSES, CLASS_LABELS, classesOf } from './classify.js';
import { describeChange, groupChanges, type CaseChanges, type SpecChange, type SpecDiff } from './diff.js';
import type { SpecDocument } from '../contract/spec-model.js';

/** `breaking for clients, breaking for the service`, `review`, `compatible`. */
export const classLabel = (c: Pick<SpecChange, 'clients' | 'service'>): string => classesOf(c).map((k) => CLASS_LABELS[k]).join(', ');

const docLine = (d: SpecDocument) => `${d.source}${d.version ? ` (version ${d.version})` : ''}, ${d.sha256.slice(0, 19)}`;

export function summaryLine(d: SpecDiff): string {
  if (!d.counts.changes) return 'No change.';
  const parts = CHANGE_CLASSES.filter((k) => d.counts[k]).map((k) => `${d.counts[k]} ${CLASS_LABELS[k]}`);
  return `${d.counts.changes} change${d.counts.changes === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

export function casesLines(cases: CaseChanges): string[] {
  const out = [`Cases: ${cases.added.length} added, ${cases.removed.length} removed, ${cases.changed.length} changed`];
  for (const id of cases.added) out.push(`  + ${id}`);
  for (const id of cases.removed) out.push(`  - ${id}`);
  for (const c of cases.changed) out.push(`  ~ ${c.id}: ${c.because.join('; ')}`);
  return out;
}

export function formatDiffText(d: SpecDiff, opts: { why?: boolean; cases?: CaseChanges | null } = {}): string {
  const lines = [`Spec diff: ${docLine(d.old)} -> ${docLine(d.new)}`];
  const width = Math.max(0, ...d.changes.map((c) => classLabel(c).length));
  const kindWidth = Math.max(0, ...d.changes.map((c) => c.kind.length));
  for (const g of groupChanges(d)) {
    lines.push('', g.title);
    for (const p of g.parts) {
      if (g.op !== null) lines.push(`  ${p.label}${p.section ? ` §${p.section}` : ''}`);
      const indent = g.op !== null ? '    ' : '  ';
      for (const c of p.changes) {
        const where = c.section && (g.op === null || c.section !== p.section) ? ` (§${c.section}${c.alsoIn?.length ? `, also §${c.alsoIn.join(', §')}` : ''})`
          : c.alsoIn?.length ? ` (also §${c.alsoIn.join(', §')})` : '';
        lines.push(`${indent}${classLabel(c).padEnd(width)}  ${c.kind.padEnd(kindWidth)}  ${describeChange(c)}${where}`);
        if (opts.why) lines.push(`${indent}  ${c.reason}`);
      }
    }
  }
  if (opts.cases) lines.push('', ...casesLines(opts.cases));
  lines.push('', summaryLine(d));
  return lines.join('\n');
}
