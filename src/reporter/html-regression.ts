/**
 * The regression parts of certification.html: "Changes since" (at the top, when the run was
 * compared with a previous package) and the causes (FAIL, ERROR and INCONCLUSIVE grouped by cause,
 * each opening its cases), before the rest of the report.
 */
import { caseLink, text } from './html-kit.js';
import { familyTitle, type CertificationReport } from './model.js';
import { CHANGE_KINDS, type BehaviourChange, type ChangeKind } from './compare.js';

const verdictList = (v: Record<string, number>) => Object.entries(v).map(([k, n]) => `<span class="v v-${text(k)}">${n} ${text(k.replace('_', ' '))}</span>`).join(' ');

const KIND_TITLES: Record<ChangeKind, string> = {
  verdict: 'Verdicts, cases and rules',
  behaviour: 'What the target does',
  availability: 'Availability: faults, the gateway\'s refusals, outages',
  fingerprint: 'The runs differ in their fingerprints',
};

export function changesSection(r: CertificationReport): string {
  const ch = r.changes;
  if (!ch) return '';
  const since = `${text(ch.previous.runId ?? ch.previous.file)}${ch.previous.startedAt ? `, ${text(ch.previous.startedAt)}` : ''}`;
  const byKind = ch.byKind ?? { verdict: ch.verdicts.length + ch.added.length + ch.removed.length, behaviour: ch.behaviour.length, availability: 0, fingerprint: ch.fingerprint.length };
  const limits = (ch.limits ?? []).map((l) => `<p class="hint">${text(l)}</p>`).join('');
  if (CHANGE_KINDS.every((k) => !byKind[k])) {
    return `<section id="changes"><h2>Changes since ${since}</h2><p>No change: the same verdicts, the same cases and rules, the same behaviour of the target, the same availability and fingerprint.</p>${limits}</section>`;
  }
  const facts = (xs: BehaviourChange[]) => `<table class="grid"><thead><tr><th>what</th><th>operation</th><th>before</th><th>now</th><th>cases</th></tr></thead><tbody>${xs.map((b) => `<tr><td>${text(b.topic)}</td><td>${text(b.operation ?? 'all')}</td><td><pre class="body">${text(b.previous)}</pre></td><td><pre class="body">${text(b.current)}</pre></td><td>${(b.cases ?? []).map(caseLink).join(' ')}</td></tr>`).join('')}</tbody></table>`;
  const parts: string[] = [];
  for (const kind of CHANGE_KINDS) {
    if (!byKind[kind]) continue;
    const body: string[] = [];
    if (kind === 'verdict') {
      if (ch.verdicts.length) body.push(`<h4>Verdicts that changed (${ch.verdicts.length})</h4><table class="grid"><thead><tr><th>case</th><th>change</th><th>before</th><th>now</th></tr></thead><tbody>${ch.verdicts.map((v) => `<tr><td>${caseLink(v.case)}</td><td>${text(v.kind)}</td><td><span class="v v-${text(v.previous)}">${text(v.previous)}</span></td><td><span class="v v-${text(v.current)}">${text(v.current)}</span></td></tr>`).join('')}</tbody></table>`);
      if (ch.added.length) body.push(`<h4>Cases added (${ch.added.length})</h4><p>${ch.added.map(caseLink).join(' ')}</p>`);
      if (ch.removed.length) body.push(`<h4>Cases removed (${ch.removed.length})</h4><p>${ch.removed.map((id) => `<code>${text(id)}</code>`).join(' ')}</p>`);
      const rules = ch.rules ?? [];
      if (rules.length) body.push(`<h4>Rules that changed (${rules.length})</h4><table class="grid"><thead><tr><th>case</th><th>before</th><th>now</th></tr></thead><tbody>${rules.map((x) => `<tr><td>${caseLink(x.case)}</td><td>${text(x.previous)}</td><td>${text(x.current)}</td></tr>`).join('')}</tbody></table>`);
    } else if (kind === 'behaviour') body.push(facts(ch.behaviour));
    else if (kind === 'availability') body.push(facts(ch.availability ?? []));
    else body.push(`<table class="grid"><thead><tr><th>field</th><th>before</th><th>now</th></tr></thead><tbody>${ch.fingerprint.map((f) => `<tr><td>${text(f.field)}</td><td>${text(f.previous ?? 'none')}</td><td>${text(f.current ?? 'none')}</td></tr>`).join('')}</tbody></table>`);
    parts.push(`<div class="change-kind" data-kind="${kind}"><h3>${text(KIND_TITLES[kind])} (${byKind[kind]})</h3>${body.join('')}</div>`);
  }
  const summary = CHANGE_KINDS.filter((k) => byKind[k]).map((k) => `${byKind[k]} ${k}`).join(', ');
  return `<section id="changes"><h2>Changes since ${since}: ${text(summary)}</h2><p class="hint">Compared with <code>${text(ch.previous.file)}</code>${ch.previous.target ? ` (target ${text(ch.previous.target)})` : ''}. Timings and values the service or the seed generate are never compared; a timing that crosses a rule's threshold shows as the verdict it changes. SADAD_FAIL_ON decides which kinds fail the run (docs/ci.md).</p>${limits}${parts.join('')}</section>`;
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
