/**
 * spec-diff.html (`npm run spec -- diff <old> <new> --html <file>`): the changes between two
 * versions of the API document as one self-contained page in the certification report's style
 * (its stylesheet and escaping from html-kit.ts, the same Content-Security-Policy): a banner saying
 * whether anything breaks, the counts per class, each change grouped by operation and message with
 * its impact on clients and on the service and the reason for each, and the cases the change
 * touches where the caller knows them. Readable without a script, printable.
 */
import { CSS, pageHead, text } from './html-kit.js';
import { CHANGE_CLASSES, CLASS_LABELS, CLASSIFICATION, type Impact } from '../spec/classify.js';
import { describeChange, groupChanges, valueWords, type CaseChanges, type SpecChange, type SpecDiff } from '../spec/diff.js';
import type { SpecDocument } from '../contract/spec-model.js';

/** An impact shown with the verdict colours a reader of the certification report knows. */
const IMPACT_STYLE: Record<Impact, { verdict: string; symbol: string }> = {
  breaking: { verdict: 'FAIL', symbol: '✖' },
  review: { verdict: 'WARN', symbol: '▲' },
  compatible: { verdict: 'PASS', symbol: '✔' },
};
const CLASS_STYLE: Record<(typeof CHANGE_CLASSES)[number], string> = {
  'breaking-for-clients': 'FAIL', 'breaking-for-service': 'FAIL', review: 'WARN', compatible: 'PASS',
};
const CLASS_MEANING: Record<(typeof CHANGE_CLASSES)[number], string> = {
  'breaking-for-clients': 'a client built to the old document can fail against a service built to the new one',
  'breaking-for-service': 'a service built to the old document does not conform to the new one: it needs a change and a new certification',
  review: 'prose (a rule, a header\'s meaning, a limit): a person must read it',
  compatible: 'neither side needs to change',
};

const impactBadge = (side: string, i: Impact) => `<span class="v v-${IMPACT_STYLE[i].verdict}" title="${text(`${side}: ${i}`)}"><span class="sym" aria-hidden="true">${IMPACT_STYLE[i].symbol}</span> ${text(i)}</span>`;

const PAGE_CSS = `
.changes{width:100%;border:1px solid var(--line);margin-bottom:14px}
.changes.fixed{table-layout:fixed;min-width:900px}
.changes col.c-change{width:24%}.changes col.c-where{width:7%}.changes col.c-value{width:11%}.changes col.c-impact{width:9.5%}
.changes th,.changes td{border-top:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
.changes thead th{background:var(--soft);font-size:.86em;border-bottom:2px solid var(--line)}
.changes td.impact{white-space:nowrap}
.changes .reason{font-size:.9em}
.changes pre.body{max-height:160px}
.doc{margin:.3em 0}
`;

function documentLine(label: string, d: SpecDocument): string {
  return `<dt>${text(label)}</dt><dd><code>${text(d.source)}</code>: ${text(d.title)}${d.version ? `, version ${text(d.version)}` : ', no version stated'} <span class="muted hash">${text(d.sha256)}</span></dd>`;
}

function valueCell(v: unknown): string {
  if (v === null || v === undefined) return '<span class="muted">—</span>';
  const s = valueWords(v);
  return s.length > 40 ? `<span class="small">${text(s)}</span>` : `<code>${text(s)}</code>`;
}

function changeRow(c: SpecChange, n: number): string {
  const sections = [c.section, ...(c.alsoIn ?? [])].filter(Boolean).map((s) => `<span class="sec">§${text(s)}</span>`).join(' ');
  return `<tr id="change-${n}" data-kind="${text(c.kind)}" data-clients="${c.clients}" data-service="${c.service}">` +
    `<td><code>${text(c.kind)}</code><div class="small">${text(describeChange(c))}</div></td><td class="nowrap">${sections}</td>` +
    `<td>${valueCell(c.before)}</td><td>${valueCell(c.after)}</td>` +
    `<td class="impact">${impactBadge('clients', c.clients)}</td><td class="impact">${impactBadge('the service', c.service)}</td>` +
    `<td class="reason">${text(c.reason)}</td></tr>`;
}

function changesSection(d: SpecDiff): string {
  if (!d.changes.length) return '<section id="changes"><h2>Changes</h2><p>No change: the two documents state the same operations, fields, headers, rules and limits.</p></section>';
  let n = 0;
  const head = '<colgroup><col class="c-change"><col class="c-where"><col class="c-value"><col class="c-value"><col class="c-impact"><col class="c-impact"><col></colgroup><thead><tr><th scope="col">change</th><th scope="col">where</th><th scope="col">before</th><th scope="col">after</th><th scope="col">clients</th><th scope="col">service</th><th scope="col">why</th></tr></thead>';
  const groups = groupChanges(d).map((g) => `<h3>${text(g.title)}</h3>` + g.parts.map((p) =>
    `${g.op !== null ? `<h4>${text(p.label)}${p.section ? ` <span class="sec">§${text(p.section)}</span>` : ''}</h4>` : ''}` +
    `<div class="scroll"><table class="changes fixed">${head}<tbody>${p.changes.map((c) => changeRow(c, ++n)).join('')}</tbody></table></div>`).join('')).join('');
  return `<section id="changes"><h2>Changes (${d.counts.changes})</h2><p class="hint">In the document's order, grouped by operation and message. A field renamed shows as one removed and one added; what the classification of each kind is, and why: the table at the end of this page and docs/spec-diff.md.</p>${groups}</section>`;
}

function casesSection(cases: CaseChanges | null | undefined): string {
  if (!cases) return '';
  const list = (ids: string[]) => (ids.length ? `<p>${ids.map((id) => `<code>${text(id)}</code>`).join(' ')}</p>` : '<p class="muted">none</p>');
  const changed = cases.changed.length
    ? `<table class="changes"><thead><tr><th scope="col">case</th><th scope="col">because</th></tr></thead><tbody>${cases.changed.map((c) => `<tr><td><code>${text(c.id)}</code></td><td>${c.because.map((b) => text(b)).join('<br>')}</td></tr>`).join('')}</tbody></table>`
    : '<p class="muted">none</p>';
  return `<section id="cases"><h2>Cases the change touches</h2><p class="hint">A package recorded under the old document and re-judged under the new one keeps the verdicts of the cases not listed here; <code>--resume</code> runs the rest.</p>` +
    `<h3>Added (${cases.added.length})</h3>${list(cases.added)}<h3>Removed (${cases.removed.length})</h3>${list(cases.removed)}<h3>Changed (${cases.changed.length})</h3>${changed}</section>`;
}

function classificationSection(): string {
  const rows = CLASSIFICATION.map((r) => `<tr><td><code>${text(r.kind)}</code></td><td>${text(r.direction ?? '')}</td><td class="impact">${impactBadge('clients', r.clients)}</td><td>${text(r.forClients)}</td><td class="impact">${impactBadge('the service', r.service)}</td><td>${text(r.forService)}</td></tr>`).join('');
  return `<section id="classification"><details class="legend"><summary>How every kind of change is classified</summary>` +
    `<div class="scroll"><table class="changes"><thead><tr><th scope="col">kind</th><th scope="col">in</th><th scope="col" colspan="2">clients</th><th scope="col" colspan="2">service</th></tr></thead><tbody>${rows}</tbody></table></div></details></section>`;
}

export function renderSpecDiffHtml(d: SpecDiff, opts: { cases?: CaseChanges | null; generator?: string } = {}): string {
  const breaking = d.counts['breaking-for-clients'] + d.counts['breaking-for-service'] > 0;
  const headline = !d.changes.length ? 'No change' : breaking ? 'The new document breaks' : 'Nothing breaks';
  const who = [d.counts['breaking-for-clients'] && 'clients', d.counts['breaking-for-service'] && 'the service'].filter(Boolean).join(' and ');
  const summary = !d.changes.length ? 'The two documents state the same interface.'
    : `${d.counts.changes} change${d.counts.changes === 1 ? '' : 's'}: ${CHANGE_CLASSES.filter((k) => d.counts[k]).map((k) => `${d.counts[k]} ${CLASS_LABELS[k]}`).join(', ')}.`;
  const tiles = CHANGE_CLASSES.map((k) => `<div class="tile v-${CLASS_STYLE[k]}${d.counts[k] ? '' : ' zero'}" title="${text(CLASS_MEANING[k])}"><span class="n">${d.counts[k]}</span><span class="tv">${text(CLASS_LABELS[k])}</span></div>`).join('');
  const legend = `<details class="legend" open><summary>How to read the classes</summary><table class="legend-t"><tbody>${CHANGE_CLASSES.map((k) => `<tr><td><strong>${text(CLASS_LABELS[k])}</strong></td><td>${text(CLASS_MEANING[k])}</td></tr>`).join('')}</tbody></table>` +
    `<p>A change that breaks both sides counts in both. <code>--fail-on breaking-for-clients|breaking-for-service|any</code> makes the command exit 1 on a change of that class.</p></details>`;
  const title = `API document diff: ${d.old.source} -> ${d.new.source}`;
  return `${pageHead({ title, css: CSS + PAGE_CSS, script: false, generator: opts.generator })}
</head>
<body>
<header class="banner ${breaking ? 'no' : 'yes'}"><div class="wrap">
<p class="kicker">API document comparison</p>
<h1><span class="mark" aria-hidden="true">${breaking ? '✖' : '✔'}</span>${text(headline)}${breaking ? ` ${text(who)}` : ''}</h1>
<p class="summary">${text(summary)}</p>
<dl class="fp doc">${documentLine('old', d.old)}${documentLine('new', d.new)}</dl>
</div></header>
<nav class="toc" aria-label="Sections"><div class="wrap"><a href="#summary">Summary</a><a href="#changes">Changes</a>${opts.cases ? '<a href="#cases">Cases</a>' : ''}<a href="#classification">Classification</a></div></nav>
<main class="wrap">
<section id="summary"><h2>Summary</h2><div class="tiles">${tiles}</div>${legend}</section>
${changesSection(d)}
${casesSection(opts.cases)}
${classificationSection()}
</main>
<footer><div class="wrap">Generated${opts.generator ? ` by ${text(opts.generator)}` : ''} (${text(d.format)} format ${d.formatVersion}). The same diff as data: <code>npm run spec -- diff &lt;old&gt; &lt;new&gt; --json</code>.</div></footer>
</body>
</html>
`;
}
