/**
 * The HTML primitives both reports share (certification.html, src/reporter/html.ts, and
 * client-certification.html, src/judge/html.ts): every text masked then escaped (`text`), verdict
 * badges, an exchange with its headers and bodies, the operation x family matrix, the stylesheet
 * and the end of the script. Neither report's module imports the other's.
 */
import type { CoverageItem, CoverageKind, SpecCoverage } from './spec-coverage.js';
import { maskHeaders, maskText } from '../client/redact.js';
import { VERDICT_ORDER, type Verdict } from '../vocabulary/verdicts.js';
import { operationTitle, type CertificationReport } from './model.js';
import { type ExchangeRecord } from '../evidence/record.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** Masked and escaped: the only way a value reaches the page. */
export const text = (v: unknown): string => maskText(String(v ?? '')).replace(/[&<>"']/g, (c) => ESCAPES[c]!);

export const VERDICT_INFO: Record<Verdict, { symbol: string; meaning: string }> = {
  PASS: { symbol: '✔', meaning: 'the target did what the rule asks' },
  FAIL: { symbol: '✖', meaning: 'the target breaks a rule the API document states (MUST)' },
  ERROR: { symbol: '⚠\uFE0E', meaning: 'the suite, the network or the configuration broke, so the rule could not be checked' },
  INCONCLUSIVE: { symbol: '?', meaning: 'a step the target should have accepted was refused, so the case could not decide its rule; the case that tests that step directly is named' },
  NOT_RUN: { symbol: '◌', meaning: 'the run ended before this case finished (interrupted, stopped or crashed); `npm run certify -- --resume` runs it' },
  SKIPPED: { symbol: '↷', meaning: 'a precondition was missing (the reason is given)' },
  NOT_APPLICABLE: { symbol: '∅', meaning: 'the target profile says it lacks the feature (e.g. payments disabled)' },
  WARN: { symbol: '▲', meaning: 'common practice or the strict profile not followed (SHOULD); does not prevent certification' },
  OBSERVED: { symbol: '◉', meaning: 'the API document leaves it open; what the target does is recorded (OBSERVE)' },
};

export const label = (v: Verdict) => v.replace('_', ' ');
export const badge = (v: Verdict, extra = '') => `<span class="v v-${v}${extra ? ` ${extra}` : ''}"><span class="sym" aria-hidden="true">${VERDICT_INFO[v].symbol}</span> ${label(v)}</span>`;
export const caseLink = (id: string) => `<a href="#case-${text(id)}" class="caselink"><code>${text(id)}</code></a>`;
export const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
export const utc = (iso: string) => iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC');

export function valueText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && !Array.isArray(v)) return Object.entries(v).map(([k, x]) => `${k}: ${typeof x === 'string' ? x : JSON.stringify(x)}`).join(', ');
  return JSON.stringify(v);
}

export function prettyBody(body: string): string {
  if (!body) return '';
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
}

export const MAX_SHOWN_BODY = 20_000;
export function bodyBlock(body: string, evidenceFile: string | null): string {
  if (!body) return '<p class="muted">(empty body)</p>';
  const pretty = prettyBody(body);
  const shown = pretty.length > MAX_SHOWN_BODY ? `${pretty.slice(0, MAX_SHOWN_BODY)}\n… ${pretty.length - MAX_SHOWN_BODY} more characters${evidenceFile ? ` in ${evidenceFile}` : ''}` : pretty;
  return `<pre class="body">${text(shown)}</pre>`;
}

export function headersTable(headers: Record<string, string>): string {
  const rows = Object.entries(maskHeaders(headers));
  if (!rows.length) return '<p class="muted">(no headers)</p>';
  return `<table class="hdrs"><tbody>${rows.map(([k, v]) => `<tr><th scope="row">${text(k)}</th><td>${text(v)}</td></tr>`).join('')}</tbody></table>`;
}

export function statusClass(status: number): string {
  return status >= 500 ? 's5' : status >= 400 ? 's4' : status >= 200 && status < 300 ? 's2' : 's0';
}

/** One exchange: a summary line (what was sent, what came back), the full request and response when opened. */
export function exchangeBlock(ex: ExchangeRecord, i: number, open: boolean, evidenceFile: string | null): string {
  let path = ex.request.url;
  try { const u = new URL(ex.request.url); path = `${u.pathname}${u.search}`; } catch { /* keep it as recorded */ }
  const meta = [ex.op, ex.durationMs !== undefined ? `${ex.durationMs} ms` : '', ex.startedAt ? utc(ex.startedAt) : ''].filter(Boolean).join(' · ');
  const answer = ex.response
    ? `<span class="status ${statusClass(ex.response.status)}">HTTP ${text(ex.response.status)}</span>`
    : '<span class="status s5">no answer</span>';
  const response = ex.response
    ? `<h5>Response ${answer}</h5>${headersTable(ex.response.headers)}${bodyBlock(ex.response.body, evidenceFile)}`
    : `<h5>Response</h5><p class="noanswer">No HTTP answer${ex.error ? `: ${text(ex.error.kind)}: ${text(ex.error.message)}` : ''}</p>`;
  // the request again from a shell; secrets stay in the reader's environment variables
  const curl = ex.curl ? `<details class="curl"><summary>Reproduce it: curl</summary><pre class="body curl">${text(ex.curl)}</pre></details>` : '';
  return `<details class="exchange"${open ? ' open' : ''}><summary class="ex-head"><span class="ex-n">${i + 1}</span> <strong>${text(ex.label)}</strong> ` +
    `<code class="small">${text(ex.request.method)} ${text(path)}</code> → ${answer} <span class="muted small">${text(meta)}</span></summary>` +
    `<div class="ex-grid"><div class="ex-req"><h5>Request</h5>${headersTable(ex.request.headers)}${bodyBlock(ex.request.body, evidenceFile)}</div>` +
    `<div class="ex-res">${response}</div></div>${curl}</details>`;
}

/** Also renders the client package's matrix: it reads only `matrix`. */
export function matrixSection(r: Pick<CertificationReport, 'matrix'>): string {
  const { operations, families, cells } = r.matrix;
  const head = `<tr><th scope="col">Rule family</th>${operations.map((op) => `<th scope="col">${text(operationTitle(op))}<div class="muted small">${text(op)}</div></th>`).join('')}</tr>`;
  const rows = families.map((f) => {
    const tds = operations.map((op) => {
      const cell = cells.find((c) => c.operation === op && c.family === f.id);
      if (!cell || !cell.verdict) return '<td class="na"><span class="muted" title="no case of this family applies to this operation">— none</span></td>';
      const present = VERDICT_ORDER.filter((v) => cell.counts[v]);
      const breakdown = present.length === 1 ? `${cell.cases} case${cell.cases === 1 ? '' : 's'}` : present.map((v) => `${cell.counts[v]} ${label(v)}`).join(' · ');
      return `<td><button type="button" class="cell v-${cell.verdict}" data-op="${text(op)}" data-family="${text(f.id)}" title="${text(`${f.title}, ${operationTitle(op)}: ${breakdown}. Click to list the cases.`)}">` +
        `<span class="cv"><span class="sym" aria-hidden="true">${VERDICT_INFO[cell.verdict].symbol}</span> ${label(cell.verdict)}</span><span class="cb">${text(breakdown)}</span></button></td>`;
    }).join('');
    const present = cells.some((c) => c.family === f.id && c.cases);
    return `<tr${present ? '' : ' class="empty-row"'}><th scope="row">${text(f.title)}<div class="muted small">${text(f.id)}</div></th>${tds}</tr>`;
  }).join('');
  return `<section id="matrix"><h2>Operation × rule family</h2>` +
    `<p class="hint">Each cell shows the strongest verdict among its cases (FAIL before ERROR, INCONCLUSIVE, NOT RUN, SKIPPED, WARN, OBSERVED, PASS; NOT APPLICABLE only when no case of the cell applies) and how many cases gave each verdict. <span class="js-only">Click a cell to list its cases.</span></p>` +
    `<div class="scroll"><table class="matrix"><thead>${head}</thead><tbody>${rows}</tbody></table></div></section>`;
}

/** The page's stylesheet, shared with client-certification.html (src/judge/html.ts). */
export const CSS = `
:root{--fg:#1d2330;--muted:#5b6474;--line:#d9dde5;--bg:#fff;--soft:#f5f7fa;--accent:#1f5fbf;
--PASS-bg:#e3f4e8;--PASS-fg:#145c2b;--PASS-bd:#8fcca3;--FAIL-bg:#fde6e8;--FAIL-fg:#a0101c;--FAIL-bd:#f0a0a8;
--ERROR-bg:#f1e6fb;--ERROR-fg:#62209c;--ERROR-bd:#c9a4ec;--WARN-bg:#fff2d1;--WARN-fg:#7a4a00;--WARN-bd:#e9c36a;
--OBSERVED-bg:#e3eefb;--OBSERVED-fg:#0c4a8c;--OBSERVED-bd:#9cc0ea;--SKIPPED-bg:#ececec;--SKIPPED-fg:#4a4a4a;--SKIPPED-bd:#c4c4c4;
--NOT_APPLICABLE-bg:#f6f6f6;--NOT_APPLICABLE-fg:#5a5a5a;--NOT_APPLICABLE-bd:#cfcfcf;
--NOT_RUN-bg:#fbe3d3;--NOT_RUN-fg:#8a3300;--NOT_RUN-bd:#e8a07a;
--INCONCLUSIVE-bg:#e6f0ee;--INCONCLUSIVE-fg:#1f5750;--INCONCLUSIVE-bd:#8fbcb4}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Liberation Sans",Arial,sans-serif;color:var(--fg);background:var(--bg)}
code,pre,.cid{font-family:ui-monospace,"SFMono-Regular","DejaVu Sans Mono","Liberation Mono",Menlo,Consolas,monospace;font-size:.88em}
a{color:var(--accent)}
.wrap{max-width:1320px;margin:0 auto;padding:0 24px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:4px 8px;z-index:9}
.muted{color:var(--muted)}.small{font-size:.82em}.nowrap{white-space:nowrap}
h2{font-size:1.35em;margin:1.6em 0 .5em;padding-bottom:.2em;border-bottom:2px solid var(--line)}
h3{font-size:1.05em;margin:1.3em 0 .4em}
.hint{color:var(--muted);margin:.2em 0 .8em;max-width:80ch}
.cause{border:1px solid var(--line);border-radius:4px;padding:.4em .8em;margin:.4em 0;background:var(--soft)}
.cause>summary{cursor:pointer}
.banner{padding:26px 0 22px;border-bottom:4px solid}
.banner.yes{background:var(--PASS-bg);border-color:var(--PASS-fg);color:var(--PASS-fg)}
.banner.no{background:var(--FAIL-bg);border-color:var(--FAIL-fg);color:var(--FAIL-fg)}
.banner .kicker{margin:0;text-transform:uppercase;letter-spacing:.06em;font-size:.78em;font-weight:600;opacity:.85}
.banner h1{margin:.15em 0 .2em;font-size:2.2em;line-height:1.15}
.banner .mark{display:inline-block;width:1.2em}
.banner .summary{font-size:1.12em;font-weight:600;margin:.2em 0;color:var(--fg)}
.banner .reasons{margin:.3em 0 .4em;padding-left:1.3em;color:var(--fg)}
.banner .plist{color:var(--fg);margin:.4em 0}
.banner .target{color:var(--fg);margin:.6em 0 0;font-size:.92em}
.toc{position:sticky;top:0;z-index:5;background:#fffffff2;border-bottom:1px solid var(--line);backdrop-filter:blur(4px)}
.toc .wrap{display:flex;gap:18px;flex-wrap:wrap;padding-top:8px;padding-bottom:8px}
.toc a{text-decoration:none;font-weight:600;font-size:.92em}
.two{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:32px}
@media (max-width:1000px){.two{grid-template-columns:1fr}}
.v{display:inline-flex;align-items:center;gap:.3em;padding:.08em .55em;border-radius:999px;border:1px solid;font-weight:700;font-size:.8em;letter-spacing:.02em;white-space:nowrap}
.v.small{font-size:.72em;padding:0 .45em}
${VERDICT_ORDER.map((v) => `.v-${v}{background:var(--${v}-bg);color:var(--${v}-fg);border-color:var(--${v}-bd)}`).join('\n')}
.v-NOT_APPLICABLE{border-style:dashed}
.v-NOT_RUN{border-style:dotted;border-width:2px}
.tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(118px,1fr));gap:10px}
.tile{display:flex;flex-direction:column;align-items:flex-start;padding:10px 12px;border:1px solid;border-radius:10px;cursor:pointer;font:inherit;text-align:left}
.tile .n{font-size:1.9em;font-weight:800;line-height:1.1}
.tile .tv{font-weight:700;font-size:.78em;letter-spacing:.03em}
.tile.zero{opacity:.55}
.tile:hover,.cell:hover,.num:hover{filter:brightness(.96);outline:2px solid currentColor}
.legend{margin:14px 0;border:1px solid var(--line);border-radius:8px;padding:6px 12px;background:var(--soft)}
.legend summary{cursor:pointer;font-weight:600}
.legend-t td{padding:3px 10px 3px 0;vertical-align:top}
table{border-collapse:collapse}
.scroll{overflow-x:auto}
.byop{width:100%}
.byop th,.byop td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:center}
.byop th[scope=row],.byop thead th:first-child{text-align:left}
.byop td.zero{color:#b0b6c0}.byop td.total{font-weight:700}
.num{font:inherit;font-weight:700;border:1px solid;border-radius:6px;padding:0 .5em;cursor:pointer;min-width:2.4em}
.fp{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:4px 14px;margin:0}
.fp dt{font-weight:600;color:var(--muted)}
.fp dd{margin:0;overflow-wrap:anywhere}
.hash{font-size:.8em}
.matrix{width:100%;table-layout:fixed;min-width:760px}
.matrix th,.matrix td{border:1px solid var(--line);padding:5px;vertical-align:middle}
.matrix thead th{background:var(--soft);text-align:center}
.matrix th[scope=row]{text-align:left;font-weight:600;width:30%;background:var(--soft)}
.matrix .cell{display:flex;flex-direction:column;align-items:flex-start;width:100%;padding:6px 8px;border:1px solid;border-radius:7px;cursor:pointer;font:inherit;text-align:left}
.matrix .cv{font-weight:800;font-size:.86em;letter-spacing:.02em}
.matrix .cb{font-size:.78em;color:var(--fg);opacity:.9}
.matrix td.na{text-align:center;background:repeating-linear-gradient(45deg,#fafafa,#fafafa 6px,#f1f1f1 6px,#f1f1f1 12px)}
.matrix tr.empty-row th{opacity:.7}
.unstated{width:100%;table-layout:fixed;min-width:760px}
.unstated th,.unstated td{border:1px solid var(--line);padding:7px 9px;vertical-align:top;text-align:left;overflow-wrap:anywhere}
.unstated thead th{background:var(--soft)}
.unstated th[scope=row]{width:22%;background:var(--soft)}
.kv{list-style:none;margin:0;padding:0}.kv li{margin:0 0 3px}
.snippet{margin:0;white-space:pre-wrap;overflow-wrap:anywhere;background:var(--soft);padding:4px 6px;border-radius:4px;font-size:.8em}
.shapes li{margin-bottom:10px}
.waivers{width:100%}
.waivers th,.waivers td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
.filters{background:#fff;border:1px solid var(--line);border-radius:10px;padding:8px 12px;margin:0 0 10px;box-shadow:0 2px 6px #0000000f}
.filters fieldset{border:0;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:6px;align-items:center}
.filters legend{float:left;font-weight:600;margin-right:8px}
.chk{display:inline-flex;align-items:center;gap:4px;border:1px solid;border-radius:999px;padding:1px 9px 1px 6px;font-size:.84em;font-weight:600;cursor:pointer}
.frow{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin-top:8px}
.frow label{display:flex;flex-direction:column;font-size:.8em;font-weight:600;color:var(--muted)}
.frow .grow{flex:1;min-width:240px}
.frow select{max-width:340px}
.frow2{display:flex;justify-content:space-between;align-items:center;flex-wrap:wrap;gap:8px;margin-top:6px}
.frow input,.frow select{font:inherit;font-size:1.15em;padding:4px 6px;border:1px solid #aeb6c2;border-radius:6px;color:var(--fg)}
.filters button{font:inherit;font-size:.86em;padding:5px 10px;border:1px solid #aeb6c2;border-radius:6px;background:var(--soft);cursor:pointer}
.shown{margin:0;font-size:.88em;color:var(--muted)}
section,tbody.case,#fingerprint{scroll-margin-top:48px}
.fp-h{margin-top:0}
.cases{width:100%;border:1px solid var(--line)}
.cases thead th{background:var(--soft);text-align:left;padding:7px 8px;border-bottom:2px solid var(--line);font-size:.86em}
.cases td{padding:8px;vertical-align:top;border-top:1px solid var(--line)}
.cases tbody.case:nth-of-type(even) tr.main{background:#fbfcfd}
.cases tr.evidence td{border-top:0;padding-top:0}
.cases thead th:nth-child(1){width:9.5em}.cases thead th:nth-child(2){width:21%}.cases thead th:nth-child(3){width:5.5em}.cases thead th:nth-child(4){width:6.5em}.cases thead th:nth-child(6){width:20%}
.cid{font-weight:600;overflow-wrap:anywhere}
.lvl{font-size:.76em;font-weight:700;border:1px solid #aeb6c2;border-radius:4px;padding:0 .35em;color:var(--muted)}
.lvl-MUST{color:var(--fg);border-color:var(--fg)}
.sec{display:inline-block;font-size:.82em;background:var(--soft);border:1px solid var(--line);border-radius:4px;padding:0 .3em;margin:0 2px 2px 0;cursor:help}
.notes{margin:6px 0 0;padding-left:0;list-style:none}
.notes li{margin:3px 0;font-size:.92em;overflow-wrap:anywhere}
.attempts{margin:6px 0 0}
.runs{margin:0;padding-left:1.2em}
.waiver{margin:6px 0 0;font-size:.9em;background:var(--soft);border-left:3px solid var(--muted);padding:3px 8px}
.obs{margin:0;padding-left:1.1em;font-size:.88em;overflow-wrap:anywhere}
.obs .ok{font-weight:600}
details>summary{cursor:pointer;font-weight:600;color:var(--accent);padding:2px 0}
.exchange{border:1px solid var(--line);border-radius:8px;margin:6px 0;padding:5px 10px;background:#fcfcfd}
.exchange>summary.ex-head{color:var(--fg);font-weight:400}
.exchange[open]>summary.ex-head{margin-bottom:4px;border-bottom:1px dashed var(--line);padding-bottom:4px}
.ex-n{display:inline-block;min-width:1.6em;text-align:center;background:var(--fg);color:#fff;border-radius:4px;font-size:.8em;font-weight:700}
.ex-grid{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:12px}
@media (max-width:900px){.ex-grid{grid-template-columns:1fr}}
.ex-grid h5{margin:4px 0;font-size:.85em;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.hdrs{font-size:.8em;margin-bottom:4px;width:100%}
.hdrs th{width:1%;text-align:left;font-weight:600;padding:1px 12px 1px 0;white-space:nowrap;vertical-align:top;font-family:ui-monospace,monospace}
.hdrs td{font-family:ui-monospace,monospace;overflow-wrap:anywhere}
pre.body{margin:4px 0;max-height:420px;overflow:auto;background:#f3f5f8;border:1px solid var(--line);border-radius:6px;padding:8px;font-size:.78em;white-space:pre-wrap;word-break:break-word}
.status{border-radius:4px;padding:0 .4em;font-weight:700;letter-spacing:0}
.status.s2{background:var(--PASS-bg);color:var(--PASS-fg)}.status.s4{background:var(--WARN-bg);color:var(--WARN-fg)}.status.s5{background:var(--FAIL-bg);color:var(--FAIL-fg)}.status.s0{background:var(--SKIPPED-bg)}
.noanswer{color:var(--FAIL-fg);font-weight:600}
footer{margin-top:40px;padding:18px 0 30px;border-top:1px solid var(--line);color:var(--muted);font-size:.86em}
.js-only{display:none}
html.js .js-only{display:revert}
html.js .filters.js-only{display:block}
[hidden]{display:none!important}
@media print{
  @page{margin:12mm 10mm}
  body{font-size:9.5pt}
  *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
  .toc,.filters,.skip,.js-only{display:none!important}
  .wrap{max-width:none;padding:0}
  .two{grid-template-columns:1fr 1fr}
  .banner{padding:10px 0}
  .banner h1{font-size:1.7em}
  h2{break-after:avoid}
  section{break-inside:auto}
  .tile,.cell,.num{cursor:default}
  .cases tbody.case tr.main{break-inside:avoid}
  .matrix,.unstated{min-width:0}
  .matrix tr,.unstated tr{break-inside:avoid}
  details::details-content{content-visibility:visible;display:block}
  pre.body{max-height:none;overflow:visible;white-space:pre-wrap;word-break:break-all}
  .ex-grid{grid-template-columns:1fr 1fr}
  a{color:inherit;text-decoration:none}
  body::after{content:var(--print-note,"");display:block;margin-top:8px;font-size:8pt;color:#555}
}
`;

/** The end of both reports' scripts: open a case named in the URL, open every case for printing. */
export const SCRIPT_TAIL = `
  function reveal(){
    var id=decodeURIComponent(location.hash.slice(1));
    if(id.indexOf('case-')!==0) return;
    var r=document.getElementById(id); if(!r) return;
    if(r.hidden) set(null);
    var d=r.querySelector('details'); if(d) d.open=true;
    r.scrollIntoView({block:'start'});
  }
  window.addEventListener('hashchange',reveal);
  var closed=[];
  window.addEventListener('beforeprint',function(){closed=$$('details:not([open])');closed.forEach(function(d){d.open=true})});
  window.addEventListener('afterprint',function(){closed.forEach(function(d){d.open=false});closed=[]});
  $$('details[data-problem]').slice(0,3).forEach(function(d){d.open=true});
  apply(); reveal();
`.slice(1);

/** Spec coverage (spec-coverage.ts): the counts per kind, the untested items in full, every item with its cases folded. */
export function specCoverageSection(cov: SpecCoverage | null | undefined, testedBy = 'cases'): string {
  if (!cov) return '';
  const KIND_TITLES: Record<CoverageKind, string> = { endpoint: 'Endpoints', 'rate-limit': 'Rate limits', field: 'Field table rows', header: 'Headers', rule: 'Numbered rules', limit: 'Limits table rows' };
  const kinds = (Object.keys(KIND_TITLES) as CoverageKind[]).filter((k) => cov.byKind[k]?.total);
  const counts = kinds.map((k) => `<tr><td>${KIND_TITLES[k]}</td><td class="num">${cov.byKind[k].covered}</td><td class="num">${cov.byKind[k].total}</td></tr>`).join('');
  const item = (i: CoverageItem) => `<tr${i.tested.length ? '' : ' class="untested"'}><td class="nowrap">§${text(i.section)}</td><td>${text(clip(i.what, 160))}</td><td>${i.tested.length ? i.tested.slice(0, 8).map((t) => `${caseLink(t.id)} ${badge(t.verdict)}`).join(' ') + (i.tested.length > 8 ? ` <span class="muted">and ${i.tested.length - 8} more</span>` : '') : '<strong>untested</strong>'}</td></tr>`;
  const untested = cov.items.filter((i) => !i.tested.length);
  return `<section id="spec-coverage"><h2>Spec coverage</h2><p>${text(cov.summary)}.</p>` +
    `<table><thead><tr><th>Kind</th><th>Tested</th><th>Of</th></tr></thead><tbody>${counts}</tbody></table>` +
    (untested.length ? `<h3>Untested (${untested.length})</h3><table><tbody>${untested.map(item).join('')}</tbody></table>` : '') +
    `<details><summary>Every item of the document with the ${testedBy} that test it (${cov.total})</summary><table><thead><tr><th>Section</th><th>Item</th><th>Tested by</th></tr></thead><tbody>${cov.items.map(item).join('')}</tbody></table></details></section>`;
}

/**
 * The head of every page the project writes (the certification report, the client's, the spec diff):
 * offline by its Content-Security-Policy (inline styles, inline script only where the page has one),
 * with the tool that wrote it. Everything up to and including `<style>`.
 */
export function pageHead(o: { title: string; css: string; script: boolean; generator?: string | null }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; ${o.script ? "script-src 'unsafe-inline'; " : ''}img-src data:; base-uri 'none'; form-action 'none'">
${o.generator ? `<meta name="generator" content="${text(o.generator)}">\n` : ''}<title>${text(o.title)}</title>
<style>${o.css}</style>`;
}
