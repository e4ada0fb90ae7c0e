/**
 * certification.html: the certification report as one self-contained page (inline CSS and script,
 * a Content-Security-Policy that forbids any network access), readable without the script and
 * printable. Every text goes through `text()`: masked, then HTML-escaped.
 */
import { STEP_TITLES } from '../preflight/model.js';
import { spanText } from './availability.js';
import { VERDICT_ORDER, type Verdict } from '../vocabulary/verdicts.js';
import { familyTitle, operationTitle, type CaseReport, type CertificationReport } from './model.js';
import { formatDuration } from './plan.js';
import { causesSection, changesSection } from './html-regression.js';
import { CSS, pageHead, SCRIPT_TAIL, specCoverageSection, VERDICT_INFO, badge, caseLink, clip, valueText, exchangeBlock, label, matrixSection, prettyBody, text, utc } from './html-kit.js';

/** The case table's order: what needs attention first, what did not apply last but one. */
const DISPLAY_ORDER: Verdict[] = ['FAIL', 'ERROR', 'NOT_RUN', 'WARN', 'SKIPPED', 'OBSERVED', 'NOT_APPLICABLE', 'PASS'];

const LEVELS: [string, string][] = [
  ['MUST', 'stated by the API document; a violation is a FAIL'],
  ['SHOULD', 'common practice where the document is silent, or a strict-profile deviation; a violation is a WARN'],
  ['OBSERVE', 'left open by the document; the behaviour is recorded as OBSERVED and never fails'],
];

function sectionRefs(sections: string[], titles: Record<string, string>): string {
  return sections.map((s) => `<span class="sec" title="${text(titles[s] ?? '')}">§${text(s)}</span>`).join(' ');
}

function observationList(o: Record<string, unknown> | null): string {
  if (!o) return '<span class="muted">—</span>';
  const entries = Object.entries(o);
  const shown = entries.slice(0, 6).map(([k, v]) => `<li><span class="ok">${text(k)}</span>: ${text(clip(valueText(v), 160))}</li>`).join('');
  return `<ul class="obs">${shown}${entries.length > 6 ? `<li class="muted">… ${entries.length - 6} more in the evidence</li>` : ''}</ul>`;
}

function caseBody(c: CaseReport, r: CertificationReport): string {
  const notes = c.notes.length
    ? `<ul class="notes">${c.notes.map((n) => `<li>${badge(n.verdict, 'small')} ${text(clip(n.text, 3000))}</li>`).join('')}</ul>` : '';
  const attempts = c.attempts.length > 1
    ? `<p class="attempts small">Attempts: ${c.attempts.map((a) => `${badge(a.verdict, 'small')} <span class="muted">run <code>${text(a.runId)}</code>, ${text(utc(a.at))}</span>`).join(' → ')}</p>` : '';
  const waiver = c.waiver
    ? `<p class="waiver">Baseline accepts ${badge(c.waiver.verdict, 'small')}: ${text(c.waiver.comment)} <em>(${c.waiver.status === 'used' ? 'waiver used' : 'waiver no longer needed'})</em></p>` : '';
  const exchanges = c.exchanges ?? [];
  const evidence = c.verdict === 'PASS' || !exchanges.length ? '' : `<tr class="evidence"><td></td><td colspan="5"><details${c.verdict === 'FAIL' || c.verdict === 'ERROR' ? ' data-problem' : ''}>` +
    `<summary>Evidence: ${exchanges.length} exchange${exchanges.length === 1 ? '' : 's'}, secrets masked${c.evidenceFile ? ` <span class="muted">(${text(c.evidenceFile)})</span>` : ''}</summary>` +
    `<p class="small muted">The last exchange is opened: it usually decided the verdict. Open any other to see its headers and bodies.</p>` +
    exchanges.map((ex, i) => exchangeBlock(ex, i, i === exchanges.length - 1, c.evidenceFile)).join('') +
    `</details></td></tr>`;
  return `<tbody class="case" id="case-${text(c.id)}" data-verdict="${c.verdict}" data-op="${text(c.operation)}" data-family="${text(c.family)}" data-id="${text(c.id)}">` +
    `<tr class="main"><td class="vcell">${badge(c.verdict)}</td>` +
    `<td class="idcell"><code class="cid">${text(c.id)}</code><div class="muted small">${text(operationTitle(c.operation))} · ${text(familyTitle(c.family))}</div></td>` +
    `<td><span class="lvl lvl-${text(c.level)}">${text(c.level)}</span></td>` +
    `<td class="nowrap">${sectionRefs(c.sections, r.specSections)}</td>` +
    `<td>${text(c.expectation)}${notes}${attempts}${waiver}</td>` +
    `<td>${observationList(c.observation)}</td></tr>${evidence}</tbody>`;
}

function countsSection(r: CertificationReport): string {
  const by = r.counts.byVerdict;
  const tiles = VERDICT_ORDER.map((v) => `<button type="button" class="tile v-${v}${by[v] ? '' : ' zero'}" data-verdict="${v}" title="${text(VERDICT_INFO[v].meaning)}">` +
    `<span class="n">${by[v]}</span><span class="tv"><span class="sym" aria-hidden="true">${VERDICT_INFO[v].symbol}</span> ${label(v)}</span></button>`).join('');
  const ops = Object.entries(r.counts.byOperation);
  const opTable = `<table class="byop"><thead><tr><th scope="col">Operation</th>${VERDICT_ORDER.map((v) => `<th scope="col">${badge(v, 'small')}</th>`).join('')}<th scope="col">Cases</th></tr></thead><tbody>` +
    ops.map(([op, c]) => `<tr><th scope="row">${text(operationTitle(op))}<div class="muted small">${text(op)}</div></th>${VERDICT_ORDER.map((v) => c[v]
      ? `<td><button type="button" class="num v-${v}" data-verdict="${v}" data-op="${text(op)}" title="${text(`${c[v]} ${label(v)} in ${op}: list them`)}">${c[v]}</button></td>`
      : '<td class="zero">·</td>').join('')}<td class="total">${c.total}</td></tr>`).join('') + `</tbody></table>`;
  const legend = `<details class="legend" open><summary>How to read the verdicts and levels</summary><table class="legend-t"><tbody>` +
    VERDICT_ORDER.map((v) => `<tr><td>${badge(v)}</td><td>${text(VERDICT_INFO[v].meaning)}</td></tr>`).join('') +
    LEVELS.map(([l, m]) => `<tr><td><span class="lvl lvl-${l}">${l}</span></td><td>${text(m)}</td></tr>`).join('') +
    `</tbody></table><p>A run certifies only with no FAIL and no ERROR (other than deviations a baseline file accepts) and no NOT RUN, over the full set of cases of the full profile; runs merged by a resume certify as one. ` +
    `A rejection is an HTTP 4xx, or an HTTP 2xx whose item carries a non-success Status/StatusCode.</p></details>`;
  return `<section id="summary"><h2>Summary</h2><div class="two"><div><div class="tiles">${tiles}</div>${legend}</div>${fingerprintSection(r)}</div>` +
    `<h3>By operation</h3><div class="scroll">${opTable}</div></section>`;
}

function fingerprintSection(r: CertificationReport): string {
  const f = r.fingerprint;
  const commit = f.suite.commit ? `${f.suite.commit}${f.suite.localChanges ? ' (with local changes)' : ''}` : 'unknown (not a git checkout)';
  const sel = [f.selection.cases && `SADAD_CASES=${f.selection.cases}`, f.selection.skipCases && `SADAD_SKIP_CASES=${f.selection.skipCases}`, f.selection.args && `arguments: ${f.selection.args}`].filter(Boolean).join('; ');
  const plan = r.plan
    ? `${Object.entries(r.plan.calls).filter(([, n]) => n).map(([op, n]) => `${op} ${n}`).join(' · ')}; pacing bound ${formatDuration(r.plan.estimatedSeconds)}${r.plan.bound ? ` (${r.plan.bound})` : ''}`
    : 'unknown';
  const rows: [string, string][] = [
    ['Suite', `${text(f.suite.name)} ${text(f.suite.version)}`],
    ['Commit', `<code>${text(commit)}</code>`],
    ['Schema hash', `<code class="hash">${text(f.schemaHash)}</code> <span class="muted">(${f.schemaFiles.length} files in schemas/)</span>`],
    ...(f.specHash ? [['Spec hash', `<code class="hash">${text(f.specHash)}</code> <span class="muted">(data/field-tables.json, the spec's field tables)</span>`] as [string, string]] : []),
    ...(f.specDocument ? [['API document', `${text(f.specDocument.title)} <span class="muted">(${text(f.specDocument.source)}, version ${text(f.specDocument.version ?? 'not stated')}, <code class="hash">${text(f.specDocument.sha256)}</code>)</span>`] as [string, string]] : []),
    ...(r.specCoverage ? [['Spec coverage', `${r.specCoverage.covered} of ${r.specCoverage.total} items of the document tested, <a href="#spec-coverage">${r.specCoverage.untested} untested</a>`] as [string, string]] : []),
    ['Target', `<code>${text(f.target.url ?? 'unknown')}</code>`],
    ['Target profile', text(f.target.profile ?? 'unknown')],
    ['Limits', f.limits ? text(`bill operations ${f.limits.bill}, MOI operations ${f.limits.moi} calls per ${f.limits.windowSeconds} s`) : 'unknown'],
    ['Seed', seedText(r)],
    ['Selection', sel ? text(sel) : 'all cases'],
    ['Case profile', f.profile === 'smoke' ? 'smoke (SADAD_PROFILE=smoke): a subset of the cases; a smoke run never certifies' : text(`${f.profile} (every case)`)],
    ['Runs', runsText(r)],
    ['Baseline', text(f.baselineFile ?? 'none')],
    ['Started', text(utc(f.startedAt))],
    ['Finished', text(utc(f.finishedAt))],
    ['Duration', text(formatDuration(f.durationMs / 1000))],
    ['Planned calls', text(plan)],
    ['Runner', text(`Playwright ${f.playwright.version} (run status ${f.playwright.status}), Node ${f.node}`)],
  ];
  return `<div id="fingerprint"><h3 class="fp-h">Run fingerprint</h3><dl class="fp">${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl></div>`;
}

function seedText(r: CertificationReport): string {
  const seeds = [...new Set(r.runs.map((x) => x.seed).filter((x): x is string => !!x))];
  if (seeds.length > 1) return `${r.runs.map((x) => `run <code>${text(x.runId)}</code>: <code>${text(x.seed ?? 'unknown')}</code>`).join('; ')} <span class="muted">(each case was seeded by the seed of the run that gave its verdict)</span>`;
  const seed = r.fingerprint.seed;
  return seed ? `<code>${text(seed)}</code> <span class="muted">(replay the data with SADAD_SEED=${text(seed)})</span>` : 'unknown';
}

function runsText(r: CertificationReport): string {
  return `<ol class="runs">${r.runs.map((x) => `<li><code>${text(x.runId)}</code>: ${text(utc(x.startedAt))} to ${text(utc(x.finishedAt))}, ` +
    `${x.finished} of ${x.cases} planned case${x.cases === 1 ? '' : 's'} finished <span class="muted">(${text(x.status)})</span></li>`).join('')}</ol>`;
}

/** What the gateway allowed (design.md §6): the spacing per operation, and what refusals outside the rate-limit cases cost. */
function pacingPart(a: CertificationReport['observations']['availability']): string {
  const p = a.pacing;
  if (!p) return '';
  const rows = Object.entries(p.byOperation).map(([op, o]) => `<tr><th scope="row">${text(operationTitle(op))}<div class="muted small">${text(op)}</div></th><td>${Math.round(o.spacingMs)} ms</td><td>${o.refused || '<span class="zero">·</span>'}</td><td>${o.refused ? `${Math.round(o.slowestSpacingMs)} ms` : '—'}</td><td>${Math.round(o.finalSpacingMs)} ms</td><td>${o.lostMs ? text(spanText(o.lostMs)) : '—'}</td></tr>`).join('');
  return `<h4>Pacing</h4><p class="hint">Calls are spaced evenly at the configured rate (window plus margin, divided by the limit). A call the gateway refused as over its limit outside the rate-limit cases slowed that operation down (Retry-After honoured), was sent again without costing its case a retry, and the spacing came back gradually.</p>` +
    `<p>${text(p.summary)}.</p><div class="scroll"><table class="byop"><thead><tr><th scope="col">Operation</th><th scope="col">Spacing</th><th scope="col">Refused</th><th scope="col">Widest</th><th scope="col">At the end</th><th scope="col">Time lost</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function availabilitySection(r: CertificationReport): string {
  const a = r.observations.availability;
  const ops = Object.keys(a.byOperation);
  const outages = (a.outages ?? []).length ? `<h4>Outages</h4><p class="hint">The target was down: the whole run paused and probed it once a window until it answered again; failures inside an outage never counted against a case's retries.</p><ul class="kv">${a.outages.map((o) =>
    `<li>${text(utc(o.start))} → ${o.end ? text(utc(o.end)) : '<strong>not back</strong>'} (${text(spanText(o.durationMs))}; ${text(Object.entries(o.kinds).map(([k, n]) => `${k} ×${n}`).join(', ') || 'no answer')}; ${o.probes} probe${o.probes === 1 ? '' : 's'})${o.gaveUp ? ': <strong>the run gave up waiting (SADAD_MAX_OUTAGE_SECONDS); <code>npm run certify -- --resume</code> continues</strong>' : ''}${o.lastProbe ? `<div class="muted small">last probe: ${text(o.lastProbe)}</div>` : ''}</li>`).join('')}</ul>` : '';
  const head = `<p><strong>${text(a.summary)}</strong>.</p>${outages}${pacingPart(a)}`;
  if (!a.faults) {
    return `${head}<p class="hint">No gateway error (502, 503, 504), no 429 outside the rate-limit cases, no connection reset or refused, no timeout and no refused token met any case${r.runs.length > 1 ? ' in any of the runs' : ''}.</p>`;
  }
  const kinds = [...new Set(ops.flatMap((op) => Object.keys(a.byOperation[op]!.byKind)))].sort();
  const rows = ops.map((op) => {
    const o = a.byOperation[op]!;
    return `<tr><th scope="row">${text(operationTitle(op))}<div class="muted small">${text(op)}</div></th><td>${o.calls ?? '—'}</td>` +
      kinds.map((k) => { const x = o.byKind[k]; return x ? `<td>${x.faults} <span class="muted small">(${x.recovered} recovered)</span></td>` : '<td class="zero">·</td>'; }).join('') +
      `<td><strong>${o.faults}</strong> <span class="muted small">(${o.recovered} recovered)</span></td></tr>`;
  }).join('');
  const list = a.cases.slice(0, 30).map((f) => `<li>${caseLink(f.case)}: ${text(f.kind)} on ${text(f.op)}, ${f.recovered ? 'recovered (the case went on)' : '<strong>not recovered</strong>'}</li>`).join('');
  return `${head}<div class="scroll"><table class="byop avail"><thead><tr><th scope="col">Operation</th><th scope="col">Calls</th>${kinds.map((k) => `<th scope="col">${text(k)}</th>`).join('')}<th scope="col">Faults</th></tr></thead><tbody>${rows}</tbody></table></div>` +
    `<details><summary>Each fault and its case (${a.cases.length})</summary><ul class="kv">${list}${a.cases.length > 30 ? `<li class="muted">… ${a.cases.length - 30} more in certification.json</li>` : ''}</ul></details>`;
}

function observationsSection(r: CertificationReport): string {
  const o = r.observations;
  const ops = r.matrix.operations.filter((op) => r.counts.byOperation[op]);
  const none = '<span class="muted">not observed in this run</span>';
  const row = (title: string, help: string, cell: (op: string) => string) =>
    `<tr><th scope="row">${text(title)}<div class="muted small">${text(help)}</div></th>${ops.map((op) => `<td>${cell(op)}</td>`).join('')}</tr>`;
  const rateLimit = (op: string) => o.rateLimit[op];
  const headers = (op: string) => {
    const h = rateLimit(op)?.headers;
    if (h === null || h === undefined) return none;
    if (typeof h === 'string') return text(h);
    return `<ul class="kv">${Object.entries(h).map(([k, v]) => `<li><code>${text(k)}: ${text(v)}</code></li>`).join('')}</ul>`;
  };
  const table = `<div class="scroll"><table class="unstated"><thead><tr><th scope="col">Behaviour</th>${ops.map((op) => `<th scope="col">${text(operationTitle(op))}</th>`).join('')}</tr></thead><tbody>` +
    row('Rejection form', 'how the target refuses a bad request: HTTP 4xx, or HTTP 2xx with a failing Status', (op) => {
      const forms = Object.entries(o.rejectionForms[op] ?? {}).sort((a, b) => b[1] - a[1]);
      return forms.length ? `<ul class="kv">${forms.map(([f, n]) => `<li>${text(f)} <span class="muted">× ${n}</span></li>`).join('')}</ul>` : none;
    }) +
    row('Rate limit: answer', 'what the call over the limit got', (op) => rateLimit(op) ? `${text(rateLimit(op)!.answer ?? '—')}<div class="muted small">${text(rateLimit(op)!.limit ?? '')} · ${caseLink(rateLimit(op)!.case)}</div>` : none) +
    row('Rate limit: headers', 'rate-limit and Retry-After headers of that answer', headers) +
    row('Rate limit: body', 'the body of that answer', (op) => rateLimit(op)?.body ? `<pre class="snippet">${text(clip(prettyBody(rateLimit(op)!.body!), 600))}</pre>` : none) +
    row('Duplicate handling', 'a payment reusing a SequenceNumber', (op) => {
      const d = o.duplicates.filter((x) => x.operation === op);
      return d.length ? `<ul class="kv">${d.map((x) => `<li>${text(x.handling ?? 'not recorded')}${x.debits ? ` <span class="muted">(debits: ${text(x.debits)})</span>` : ''}<div class="small">${caseLink(x.case)} ${badge(x.verdict, 'small')}</div></li>`).join('')}</ul>`
        : `<span class="muted">${/payment/.test(op) ? 'not observed in this run' : 'not applicable (enquiry)'}</span>`;
    }) +
    row('clientid / clientsecret required', 'the bill samples carry them; the document does not say whether they are required', (op) => {
      const c = o.clientHeadersRequired[op];
      return c ? `${text(c.value)}<div class="small">${caseLink(c.case)}</div>` : `<span class="muted">${op.startsWith('moi') ? 'not applicable (the MOI samples carry none)' : 'not observed in this run'}</span>`;
    }) +
    row('Response style', 'the JSON types of Status, numbers and references', (op) => o.responseStyle[op] ? text(o.responseStyle[op]) : none) +
    `</tbody></table></div>`;
  const shapes = o.errorBodyShapes.length
    ? `<ol class="shapes">${o.errorBodyShapes.slice(0, 6).map((s) => `<li><p><strong>${s.count}</strong> response${s.count === 1 ? '' : 's'} with HTTP ${text(s.statuses.join(', '))}: ` +
      (s.form === 'object' ? `a JSON object with the keys ${s.keys.map((k) => `<code>${text(k.name)}</code> <span class="muted">(${text(k.type)})</span>`).join(', ') || '(none)'}` : text(s.form === 'text' ? 'a body that is not JSON' : s.form === 'empty' ? 'an empty body' : `a JSON ${s.form}`)) +
      `</p><p class="small">Example from ${caseLink(s.example.case)}, exchange “${text(s.example.exchange)}”, HTTP ${s.example.status}:</p><pre class="body">${text(clip(prettyBody(s.example.body), 1500))}</pre></li>`).join('')}</ol>` +
      (o.errorBodyShapes.length > 6 ? `<p class="muted">… and ${o.errorBodyShapes.length - 6} rarer shapes (certification.json lists all).</p>` : '')
    : '<p class="muted">No HTTP 4xx answer was recorded in this run.</p>';
  return `<section id="observations"><h2>Unstated behaviour</h2><p class="hint">What the target does where the API document is silent. None of this fails the run; integrators and the bank should know it.</p>${table}` +
    `<h3>Error body shape</h3><p class="hint">The top-level keys of the HTTP 4xx response bodies, grouped by shape, most frequent first.</p>${shapes}` +
    `<h3 id="availability">Availability</h3><p class="hint">Transient faults the cases met: gateway errors, a 429 outside the rate-limit cases, connections reset or refused, timeouts, a refused token. ` +
    `The suite retries where repeating cannot change the target's state; a fault it could not get past makes the case ERROR. Per operation and kind, against the calls sent.</p>${availabilitySection(r)}</section>`;
}

function waiversSection(r: CertificationReport): string {
  const w = r.waivers;
  if (!w.file) return `<section id="waivers"><h2>Waivers</h2><p>No baseline file (<code>SADAD_BASELINE</code> unset): no deviation is accepted; every FAIL and ERROR fails the run.</p></section>`;
  const used = w.used.length
    ? `<table class="waivers"><thead><tr><th scope="col">Case</th><th scope="col">Accepted verdict</th><th scope="col">Comment</th></tr></thead><tbody>${w.used.map((x) => `<tr><td>${caseLink(x.case)}</td><td>${badge(x.expected, 'small')}</td><td>${text(x.comment)}</td></tr>`).join('')}</tbody></table>`
    : '<p class="muted">None.</p>';
  const notNeeded = w.notNeeded.length
    ? `<table class="waivers"><thead><tr><th scope="col">Case</th><th scope="col">Accepted verdict</th><th scope="col">This run</th><th scope="col">Why</th><th scope="col">Comment</th></tr></thead><tbody>${w.notNeeded.map((x) =>
      `<tr><td>${x.actual ? caseLink(x.case) : `<code>${text(x.case)}</code>`}</td><td>${badge(x.expected, 'small')}</td><td>${x.actual ? badge(x.actual, 'small') : '<span class="muted">did not run</span>'}</td><td>${text(x.reason)}</td><td>${text(x.comment)}</td></tr>`).join('')}</tbody></table>`
    : '<p class="muted">None.</p>';
  return `<section id="waivers"><h2>Waivers</h2><p>Baseline file <code>${text(w.file)}</code>: accepted deviations (case id, accepted verdict, comment). A case whose verdict equals its waiver's does not fail the run.</p>` +
    `<h3>Waivers used (${w.used.length})</h3>${used}<h3>Waivers no longer needed (${w.notNeeded.length})</h3>${notNeeded}</section>`;
}

function casesSection(r: CertificationReport): string {
  const order = (v: Verdict) => DISPLAY_ORDER.indexOf(v);
  const sorted = [...r.cases].sort((a, b) => order(a.verdict) - order(b.verdict));
  const verdictBoxes = VERDICT_ORDER.map((v) => `<label class="chk v-${v}"><input type="checkbox" name="verdict" value="${v}" checked> ${label(v)} <span class="muted">${r.counts.byVerdict[v]}</span></label>`).join('');
  const opOptions = r.matrix.operations.filter((op) => r.counts.byOperation[op]).map((op) => `<option value="${text(op)}">${text(operationTitle(op))}</option>`).join('');
  const famOptions = r.matrix.families.filter((f) => r.cases.some((c) => c.family === f.id)).map((f) => `<option value="${text(f.id)}">${text(f.title)}</option>`).join('');
  const filters = `<div class="filters js-only" role="search" aria-label="Filter the cases">` +
    `<fieldset><legend>Verdict</legend>${verdictBoxes}<button type="button" id="only-problems">Problems only</button></fieldset>` +
    `<div class="frow"><label>Operation <select id="f-op"><option value="">all operations</option>${opOptions}</select></label>` +
    `<label>Rule family <select id="f-family"><option value="">all families</option>${famOptions}</select></label>` +
    `<label class="grow">Case id <input type="search" id="f-q" placeholder="e.g. bill-payment.req.Amount or *.missing" autocomplete="off"></label>` +
    `<button type="button" id="f-reset">Show all</button></div>` +
    `<div class="frow2"><p class="shown" aria-live="polite">Showing <strong id="shown">${r.cases.length}</strong> of ${r.cases.length} cases<span id="filter-desc"></span></p>` +
    `<span><button type="button" id="expand-all">Expand all evidence</button> <button type="button" id="collapse-all">Collapse all evidence</button></span></div></div>`;
  return `<section id="cases"><h2>Cases (${r.cases.length})</h2>` +
    `<p class="hint">Every case: its stable id, level, the sections of the API document it comes from, what it expects, what the target did, and its verdict. Problems come first. ` +
    `Every case that is not PASS carries its requests and responses as evidence (secrets masked).</p>${filters}` +
    `<table class="cases"><thead><tr><th scope="col">Verdict</th><th scope="col">Case</th><th scope="col">Level</th><th scope="col">Spec</th><th scope="col">Expectation and findings</th><th scope="col">Observation</th></tr></thead>` +
    `${sorted.map((c) => caseBody(c, r)).join('')}</table><p id="no-match" class="muted" hidden>No case matches the filter.</p></section>`;
}

/** `19 cases: 2 FAIL (1 accepted by the baseline), 1 WARN, 15 PASS` */
function countLine(r: CertificationReport): string {
  const waived = (v: Verdict) => r.cases.filter((c) => c.verdict === v && r.outcome.waived.includes(c.id)).length;
  const parts = DISPLAY_ORDER.filter((v) => r.counts.byVerdict[v]).map((v) => {
    const w = v === 'FAIL' || v === 'ERROR' || v === 'INCONCLUSIVE' ? waived(v) : 0;
    return `${r.counts.byVerdict[v]} ${label(v)}${w ? ` (${w} accepted by the baseline)` : ''}`;
  });
  return `${r.counts.cases} case${r.counts.cases === 1 ? '' : 's'}: ${parts.join(', ') || 'none'}`;
}

function headline(r: CertificationReport): string {
  if (!r.outcome.certifies) return 'Does not certify';
  const n = r.cases.filter((c) => (c.verdict === 'FAIL' || c.verdict === 'ERROR' || c.verdict === 'INCONCLUSIVE') && r.outcome.waived.includes(c.id)).length;
  return n ? `Certifies, with ${n} accepted deviation${n === 1 ? '' : 's'}` : 'Certifies';
}

function banner(r: CertificationReport): string {
  const o = r.outcome;
  const f = r.fingerprint;
  const problems = r.cases.filter((c) => o.unexpected.includes(c.id));
  const list = problems.length
    ? `<p class="plist">Cases that fail the run: ${problems.slice(0, 15).map((c) => `${badge(c.verdict, 'small')} ${caseLink(c.id)}`).join(', ')}${problems.length > 15 ? `, and ${problems.length - 15} more (filter the cases below)` : ''}</p>` : '';
  const notRun = o.notRun.length
    ? `<p class="plist">Cases that did not finish (run them with <code>npm run certify -- --resume</code>): ${o.notRun.slice(0, 15).map((id) => `${badge('NOT_RUN', 'small')} ${caseLink(id)}`).join(', ')}${o.notRun.length > 15 ? `, and ${o.notRun.length - 15} more` : ''}</p>` : '';
  const merged = r.runs.length > 1
    ? `<p class="plist merged">Merged from ${r.runs.length} runs: ${r.runs.map((x) => `<code>${text(x.runId)}</code> (${text(utc(x.startedAt))} to ${text(utc(x.finishedAt))}, ${x.finished} of ${x.cases} case${x.cases === 1 ? '' : 's'})`).join(', ')}. Each case shows the verdict of its latest attempt that reached one.</p>` +
      (r.changed.length
        ? `<p class="plist changed">Verdicts that changed between attempts: ${r.changed.slice(0, 15).map((c) => `${caseLink(c.case)} ${c.verdicts.map((v) => badge(v, 'small')).join(' → ')}`).join(', ')}${r.changed.length > 15 ? `, and ${r.changed.length - 15} more (the cases' attempts below; <code>changed</code> in certification.json)` : ''}</p>`
        : '<p class="plist changed">No verdict changed between attempts.</p>')
    : '';
  return `<header class="banner ${o.certifies ? 'yes' : 'no'}"><div class="wrap">` +
    `<p class="kicker">Bill and MOI fee payment API · conformance certification report</p>` +
    `<h1><span class="mark" aria-hidden="true">${o.certifies ? '✔' : '✖'}</span> ${headline(r)}</h1>` +
    `<p class="summary">${text(countLine(r))}</p>` +
    (o.reasons.length ? `<ul class="reasons">${o.reasons.map((x) => `<li>${text(x)}</li>`).join('')}</ul>` : '') + list + notRun + merged +
    `<p class="target">Target <code>${text(f.target.url ?? 'unknown')}</code> · ${text(f.target.profile ?? '')}<br>` +
    `${r.runs.length > 1 ? `${r.runs.length} runs from` : 'Run of'} ${text(utc(f.startedAt))}, ${text(formatDuration(f.durationMs / 1000))}, ${r.counts.cases} cases${f.profile === 'smoke' ? ' · <strong>smoke profile</strong>' : ''} · suite ${text(f.suite.version)}${f.suite.commit ? ` at ${text(f.suite.commit.slice(0, 12))}` : ''}` +
    // a re-judged package says so where the verdicts are read: who judged them, and how many changed
    (f.rejudged ? `<br><strong>Re-judged</strong> from its evidence on ${text(utc(f.rejudged.at))} by suite ${text(f.rejudged.suite.version)}${f.rejudged.suite.commit ? ` at ${text(f.rejudged.suite.commit.slice(0, 12))}` : ''}: ${f.rejudged.differing.length ? `${f.rejudged.differing.length} verdict${f.rejudged.differing.length === 1 ? '' : 's'} changed (${text(f.rejudged.differing.slice(0, 10).join(', '))}${f.rejudged.differing.length > 10 ? ', …' : ''})` : 'every verdict as recorded'}` : '') +
    `</p></div></header>`;
}

const STEP_MARK: Record<string, string> = { ok: '✔', warning: '!', blocking: '✘', skipped: '–' };
const STEP_CLASS: Record<string, string> = { ok: 'PASS', warning: 'WARN', blocking: 'FAIL', skipped: 'SKIPPED' };

/** The preflight (design.md §10): the path to the target, step by step, with its evidence and the calls it made. */
function connectionSection(r: CertificationReport): string {
  const p = r.connection;
  if (!p) return '';
  const calls = Object.values(p.calls).reduce((a, b) => a + b, 0);
  const result = p.result === 'blocked' ? '<strong>The run stopped here, before its first case:</strong> the target cannot be reached or used as configured.'
    : p.result === 'warnings' ? 'The path to the target works, with the warnings below.' : 'Every step of the path to the target passed.';
  const findings = p.findings.map((f) => `<li class="v-${f.severity === 'blocking' ? 'FAIL' : 'WARN'}"><strong>${f.severity === 'blocking' ? 'Blocking' : 'Warning'}</strong> (${text(STEP_TITLE[f.step] ?? f.step)}): ${text(f.text)}${f.fix ? `<div class="small">→ ${text(f.fix)}</div>` : ''}</li>`).join('');
  const steps = p.steps.map((s) => `<tr><th scope="row"><span class="verdict v-${STEP_CLASS[s.status]}">${STEP_MARK[s.status]} ${text(s.status)}</span></th><td><strong>${text(STEP_TITLE[s.id] ?? s.id)}</strong>${s.status === 'skipped' ? '' : ` <span class="muted small">${s.ms} ms</span>`}` +
    `<ul class="kv small">${s.evidence.map((e) => `<li>${text(e)}</li>`).join('')}</ul></td></tr>`).join('');
  const exchanges = p.exchanges.map((ex, i) => exchangeBlock(ex, i, p.result === 'blocked', PREFLIGHT_EVIDENCE)).join('');
  return `<section id="connection"><h2>Connection</h2><p class="hint">Before the first case the preflight walked the path a call takes: the configuration, DNS, TCP (and the proxy's tunnel), TLS, the token, one call per operation (an enquiry each, and for each payment a request without TransactionData, refused and paying nothing), and the server's clock. Target ${text(p.target)}, ${text(p.route)}; ${calls} call${calls === 1 ? '' : 's'} in ${(p.durationMs / 1000).toFixed(1)} s.</p>` +
    `<p>${result}</p>${findings ? `<ul class="findings">${findings}</ul>` : ''}<div class="scroll"><table class="steps"><tbody>${steps}</tbody></table></div>` +
    (exchanges ? `<h3>Its calls</h3>${exchanges}` : '') + '</section>';
}

const STEP_TITLE: Record<string, string> = STEP_TITLES;
const PREFLIGHT_EVIDENCE = 'preflight.json';

function runErrorsSection(r: CertificationReport): string {
  if (!r.runErrors.length) return '';
  return `<section id="run-errors"><h2>Errors of the run</h2><ul>${r.runErrors.map((e) => `<li><pre class="body">${text(e)}</pre></li>`).join('')}</ul></section>`;
}

export function renderHtml(r: CertificationReport): string {
  const title = `${headline(r)}: ${r.fingerprint.target.url ?? 'target'}, ${utc(r.fingerprint.startedAt)}`;
  return `${pageHead({ title, css: CSS, script: true, generator: `${r.fingerprint.suite.name} ${r.fingerprint.suite.version}` })}
</head>
<body>
<a class="skip" href="#cases">Skip to the cases</a>
${banner(r)}
<nav class="toc" aria-label="Sections"><div class="wrap">${r.changes ? '<a href="#changes">Changes</a>' : ''}${r.causes.length ? '<a href="#causes">Causes</a>' : ''}${r.connection ? '<a href="#connection">Connection</a>' : ''}<a href="#summary">Summary</a><a href="#matrix">Matrix</a><a href="#observations">Unstated behaviour</a><a href="#waivers">Waivers</a><a href="#cases">Cases</a><a href="#fingerprint">Run fingerprint</a></div></nav>
<main class="wrap">
${changesSection(r)}
${causesSection(r)}
${runErrorsSection(r)}
${connectionSection(r)}
${countsSection(r)}
${matrixSection(r)}
${observationsSection(r)}
${specCoverageSection(r.specCoverage)}
${waiversSection(r)}
${casesSection(r)}
</main>
<footer><div class="wrap">Generated by ${text(r.fingerprint.suite.name)} ${text(r.fingerprint.suite.version)} (${text(r.format)} format ${r.formatVersion}). The same report as data: <code>certification.json</code>; every case's exchanges: <code>evidence/&lt;case id&gt;.json</code>, and all of them for a HAR viewer: <code>exchanges.har</code>; checksums of the package: <code>certification.sha256</code> (<code>sha256sum -c certification.sha256</code>). Secrets (token, client secret, signatures) are masked as «masked».</div></footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

const SCRIPT = `
(function(){
  document.documentElement.classList.add('js');
  var $=function(s){return document.querySelector(s)};
  var $$=function(s){return Array.prototype.slice.call(document.querySelectorAll(s))};
  var rows=$$('tbody.case');
  var boxes=$$('input[name=verdict]');
  var op=$('#f-op'),fam=$('#f-family'),q=$('#f-q');
  var PROBLEMS=['FAIL','ERROR','INCONCLUSIVE','NOT_RUN','WARN','SKIPPED'];
  function pattern(s){
    s=s.trim().toLowerCase(); if(!s) return null;
    var esc=s.replace(/[.+?^$()|[\\]{}\\\\]/g,'\\\\$&').replace(/\\*/g,'.*');
    return new RegExp(s.indexOf('*')>=0?'^'+esc+'$':esc);
  }
  function apply(){
    var on={}; boxes.forEach(function(b){on[b.value]=b.checked});
    var re=pattern(q.value), shown=0;
    rows.forEach(function(r){
      var ok=on[r.dataset.verdict]&&(!op.value||r.dataset.op===op.value)&&(!fam.value||r.dataset.family===fam.value)&&(!re||re.test(r.dataset.id.toLowerCase()));
      r.hidden=!ok; if(ok) shown++;
    });
    $('#shown').textContent=shown;
    $('#no-match').hidden=shown>0;
    var parts=[];
    var off=boxes.filter(function(b){return !b.checked});
    if(off.length) parts.push('verdict '+boxes.filter(function(b){return b.checked}).map(function(b){return b.value}).join('/'));
    if(op.value) parts.push('operation '+op.value);
    if(fam.value) parts.push('family '+fam.value);
    if(q.value.trim()) parts.push('case id "'+q.value.trim()+'"');
    $('#filter-desc').textContent=parts.length?' (filtered by '+parts.join(', ')+')':'';
    document.body.style.setProperty('--print-note', parts.length?JSON.stringify('Printed with a filter: showing '+shown+' of '+rows.length+' cases ('+parts.join(', ')+').'):'""');
  }
  function set(verdicts,o,f){
    boxes.forEach(function(b){b.checked=!verdicts||verdicts.indexOf(b.value)>=0});
    op.value=o||''; fam.value=f||''; q.value=''; apply();
    $('#cases').scrollIntoView({behavior:'smooth',block:'start'});
  }
  boxes.forEach(function(b){b.addEventListener('change',apply)});
  [op,fam].forEach(function(s){s.addEventListener('change',apply)});
  q.addEventListener('input',apply);
  $('#f-reset').addEventListener('click',function(){set(null)});
  $('#only-problems').addEventListener('click',function(){set(PROBLEMS)});
  $('#expand-all').addEventListener('click',function(){$$('tbody.case:not([hidden]) details').forEach(function(d){d.open=true})});
  $('#collapse-all').addEventListener('click',function(){$$('tbody.case details').forEach(function(d){d.open=false})});
  $$('.tile').forEach(function(t){t.addEventListener('click',function(){set([t.dataset.verdict])})});
  $$('.num').forEach(function(t){t.addEventListener('click',function(){set([t.dataset.verdict],t.dataset.op)})});
  $$('.cell').forEach(function(t){t.addEventListener('click',function(){set(null,t.dataset.op,t.dataset.family)})});
${SCRIPT_TAIL}})();
`;
