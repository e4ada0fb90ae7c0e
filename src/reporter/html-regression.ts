/**
 * The regression parts of certification.html: "Changes since" (at the top, when the run was
 * compared with a previous package) and the causes (FAIL, ERROR and INCONCLUSIVE grouped by cause,
 * each opening its cases), before the rest of the report.
 */
import { text } from './html.js';
import { familyTitle, type CertificationReport } from './model.js';

const caseLink = (id: string) => `<a href="#case-${text(id)}" class="caselink"><code>${text(id)}</code></a>`;
const verdictList = (v: Record<string, number>) => Object.entries(v).map(([k, n]) => `<span class="v v-${text(k)}">${n} ${text(k.replace('_', ' '))}</span>`).join(' ');

export function changesSection(r: CertificationReport): string {
  const ch = r.changes;
  if (!ch) return '';
  const since = `${text(ch.previous.runId ?? ch.previous.file)}${ch.previous.startedAt ? `, ${text(ch.previous.startedAt)}` : ''}`;
  if (ch.count === 0 && !ch.fingerprint.length) {
    return `<section id="changes"><h2>Changes since ${since}</h2><p>No change: the same verdicts, the same cases and the same behaviour where the spec is silent.</p></section>`;
  }
  const parts: string[] = [];
  if (ch.fingerprint.length) {
    parts.push(`<h3>The runs differ in their fingerprints</h3><table class="grid"><thead><tr><th>field</th><th>before</th><th>now</th></tr></thead><tbody>${ch.fingerprint.map((f) => `<tr><td>${text(f.field)}</td><td>${text(f.previous ?? 'none')}</td><td>${text(f.current ?? 'none')}</td></tr>`).join('')}</tbody></table>`);
  }
  if (ch.verdicts.length) {
    parts.push(`<h3>Verdicts that changed (${ch.verdicts.length})</h3><table class="grid"><thead><tr><th>case</th><th>change</th><th>before</th><th>now</th></tr></thead><tbody>${ch.verdicts.map((v) => `<tr><td>${caseLink(v.case)}</td><td>${text(v.kind)}</td><td><span class="v v-${text(v.previous)}">${text(v.previous)}</span></td><td><span class="v v-${text(v.current)}">${text(v.current)}</span></td></tr>`).join('')}</tbody></table>`);
  }
  if (ch.added.length) parts.push(`<h3>Cases added (${ch.added.length})</h3><p>${ch.added.map(caseLink).join(' ')}</p>`);
  if (ch.removed.length) parts.push(`<h3>Cases removed (${ch.removed.length})</h3><p>${ch.removed.map((id) => `<code>${text(id)}</code>`).join(' ')}</p>`);
  if (ch.behaviour.length) {
    parts.push(`<h3>What the target does where the spec is silent (${ch.behaviour.length})</h3><table class="grid"><thead><tr><th>what</th><th>operation</th><th>before</th><th>now</th></tr></thead><tbody>${ch.behaviour.map((b) => `<tr><td>${text(b.topic)}</td><td>${text(b.operation ?? 'all')}</td><td><pre class="body">${text(b.previous)}</pre></td><td><pre class="body">${text(b.current)}</pre></td></tr>`).join('')}</tbody></table>`);
  }
  return `<section id="changes"><h2>Changes since ${since}: ${ch.count}</h2><p class="hint">Compared with <code>${text(ch.previous.file)}</code>${ch.previous.target ? ` (target ${text(ch.previous.target)})` : ''}.</p>${parts.join('')}</section>`;
}

export function causesSection(r: CertificationReport): string {
  if (!r.causes.length) return '';
  const rows = r.causes.map((c, i) => `<details class="cause"${i < 3 ? ' open' : ''}><summary><strong>${c.cases.length} case${c.cases.length === 1 ? '' : 's'}</strong> ${verdictList(c.verdicts)} ${text(c.signature)}` +
    `${c.testedBy.length ? ` <span class="hint">(tested directly by ${c.testedBy.map(caseLink).join(', ')})</span>` : ''}</summary>` +
    `<p class="hint">For example, ${caseLink(c.example.case)}: ${text(c.example.text.slice(0, 400))}</p>` +
    ((c.findings ?? []).length > 1 ? `<ul class="kv small">${c.findings.map((f) => `<li><strong>${text(familyTitle(f.family))}</strong>: ${f.cases} case${f.cases === 1 ? '' : 's'} ${verdictList(f.verdicts)}, e.g. ${caseLink(f.example.case)}: ${text(f.example.text.slice(0, 200))}</li>`).join('')}</ul>` : '') +
    `<p>${c.cases.map(caseLink).join(' ')}</p></details>`).join('');
  return `<section id="causes"><h2>Causes (${r.causes.length})</h2><p class="hint">FAIL, ERROR and INCONCLUSIVE cases grouped by their root cause: what was violated, where, and how the target answered; most cases first. A case INCONCLUSIVE for a failed precondition counts under the cause of the case that tests the precondition directly; a cause that breaks several rules lists what it did to each.</p>${rows}</section>`;
}
