/**
 * client-certification.html: the client certification package (design.md §9) as one
 * self-contained page in the style of certification.html (src/reporter/html.ts, whose stylesheet,
 * badges, exchange blocks and matrix it reuses): inline CSS and script, a Content-Security-Policy
 * that forbids any network access, readable without the script and printable. Every value goes
 * through `text()`: masked, then HTML-escaped.
 */
import { badge, caseLink, clip, CSS, pageHead, specCoverageSection, exchangeBlock, label, matrixSection, SCRIPT_TAIL, statusClass, text, utc, VERDICT_INFO } from '../reporter/html-kit.js';
import { operationTitle, SPEC_SECTIONS, type VerdictCounts } from '../reporter/model.js';
import { formatDuration } from '../reporter/plan.js';
import { VERDICT_ORDER, type Verdict } from '../vocabulary/verdicts.js';
import {
  CLIENT_CHECKSUM_FILE, CLIENT_JUNIT_FILE, CLIENT_PACKAGE_FILE,
  type ClientCase, type ClientCertificationReport, type ScenarioReport, type Side,
} from './model.js';

/** What each verdict means for a client case (the service report's wording speaks of a target). */
export const CLIENT_VERDICT_MEANING: Record<Verdict, string> = {
  PASS: 'the side judged (the client, or in proxy mode the sandbox) did what the rule asks',
  FAIL: 'a rule the API document states (MUST) was broken; a client FAIL prevents certification',
  ERROR: 'the judge could not check the rule (the recording or the configuration broke); a client ERROR prevents certification',
  INCONCLUSIVE: 'a step the rule depends on was refused, so the rule could not be decided; the case that tests that step is named',
  NOT_RUN: 'the traffic never reached it: a scenario the client did not trigger, or an operation it never called; a client case NOT RUN prevents certification',
  SKIPPED: 'a precondition was missing (the reason is given)',
  NOT_APPLICABLE: 'the operation is not among those certified (--operations)',
  WARN: 'common practice not followed (SHOULD); does not prevent certification',
  OBSERVED: 'the API document leaves it open; what was done is recorded (OBSERVE)',
};

const LEVELS: [string, string][] = [
  ['MUST', 'stated by the API document; a violation is a FAIL'],
  ['SHOULD', 'common practice where the document is silent; a violation is a WARN'],
  ['OBSERVE', 'left open by the document; the behaviour is recorded as OBSERVED and never fails'],
];

/** Cases in this order within each side: what needs attention first, NOT_APPLICABLE and PASS last. */
const DISPLAY_ORDER: Verdict[] = ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN', 'WARN', 'SKIPPED', 'OBSERVED', 'NOT_APPLICABLE', 'PASS'];
const PROBLEMS: Verdict[] = ['FAIL', 'ERROR', 'INCONCLUSIVE', 'NOT_RUN', 'WARN', 'SKIPPED'];

const SIDES: { side: Side; title: string; hint: string }[] = [
  { side: 'client', title: 'Client traffic', hint: 'Rules the client\'s own requests are judged by: they decide the client\'s certification.' },
  { side: 'sandbox', title: 'Sandbox answers', hint: 'Proxy mode: the sandbox\'s answers to the client\'s calls, judged by the service rules. Reported; they do not decide the client\'s certification.' },
];

const s = (n: number, one = '', many = 's') => (n === 1 ? one : many);
const headline = (r: ClientCertificationReport) => (r.outcome.certifies ? 'Certifies' : 'Does not certify');
const sideCases = (r: ClientCertificationReport, side: Side) => r.cases.filter((c) => c.side === side);
const familyName = (r: ClientCertificationReport, id: string) => r.matrix.families.find((f) => f.id === id)?.title ?? id;
const hasSandbox = (r: ClientCertificationReport) => r.cases.some((c) => c.side === 'sandbox');

function countLine(counts: VerdictCounts, total: number, what: string): string {
  const parts = DISPLAY_ORDER.filter((v) => counts[v]).map((v) => `${counts[v]} ${label(v)}`);
  return `${total} ${what}${s(total)}: ${parts.join(', ') || 'none'}`;
}

function banner(r: ClientCertificationReport): string {
  const o = r.outcome;
  const f = r.fingerprint;
  const byId = new Map(r.cases.map((c) => [c.id, c]));
  const failing = o.unexpected.map((id) => byId.get(id)).filter((c): c is ClientCase => !!c);
  const failList = failing.length
    ? `<p class="plist">Client cases that prevent certification: ${failing.slice(0, 15).map((c) => `${badge(c.verdict, 'small')} ${caseLink(c.id)}`).join(', ')}` +
      `${failing.length > 15 ? `, and ${text(failing.length - 15)} more (filter the cases below)` : ''}</p>` : '';
  const unreached = o.notRun.length
    ? `<div class="plist"><p>Not reached by the traffic (trigger ${o.notRun.length === 1 ? 'it' : 'them'} and run the client again; <a href="#scenarios">the scenarios</a> say how):</p>` +
      `<ul class="unreached-list">${o.notRun.slice(0, 15).map((id) => {
        const trigger = byId.get(id)?.trigger ?? r.scenarios.find((x) => x.id === id)?.trigger;
        return `<li>${badge('NOT_RUN', 'small')} ${caseLink(id)}${trigger ? ` <span class="trigger-inline">how to trigger: ${text(trigger)}</span>` : ''}</li>`;
      }).join('')}${o.notRun.length > 15 ? `<li class="muted">… and ${text(o.notRun.length - 15)} more</li>` : ''}</ul></div>` : '';
  const sandbox = o.sandboxFailures.length
    ? `<p class="plist">Sandbox answers that FAIL (reported; they do not decide the client's certification): ${o.sandboxFailures.slice(0, 15).map((id) => caseLink(id)).join(', ')}` +
      `${o.sandboxFailures.length > 15 ? `, and ${text(o.sandboxFailures.length - 15)} more` : ''}</p>` : '';
  const clientCounts = countLine(r.counts.bySide.client, sideCases(r, 'client').length, 'client case');
  const sandboxCounts = hasSandbox(r) ? ` · ${countLine(r.counts.bySide.sandbox, sideCases(r, 'sandbox').length, 'sandbox case')}` : '';
  return `<header class="banner ${o.certifies ? 'yes' : 'no'}"><div class="wrap">` +
    `<p class="kicker">Bill and MOI fee payment API · client certification report</p>` +
    `<h1><span class="mark" aria-hidden="true">${o.certifies ? '✔' : '✖'}</span> Client certification: <span class="outcome">${headline(r)}</span></h1>` +
    `<p class="summary">${text(o.summary)}</p>` +
    (o.reasons.length ? `<ul class="reasons">${o.reasons.map((x) => `<li>${text(x)}</li>`).join('')}</ul>` : '') +
    failList + unreached + sandbox +
    `<p class="target">${text(clientCounts + sandboxCounts)}<br>` +
    `Client judged at <code>${text(f.baseUrl)}</code> · ${f.mode === 'proxy' ? `proxy in front of <code>${text(f.upstream ?? 'unknown')}</code>` : 'judge mode'} · ` +
    `${text(utc(f.startedAt))}, ${text(formatDuration(f.durationMs / 1000))} · suite ${text(f.suite.version)}${f.suite.commit ? ` at ${text(f.suite.commit.slice(0, 12))}` : ''}</p>` +
    `</div></header>`;
}

function fingerprintSection(r: ClientCertificationReport): string {
  const f = r.fingerprint;
  const commit = f.suite.commit ? `${f.suite.commit}${f.suite.localChanges ? ' (with local changes)' : ''}` : 'unknown (not a git checkout)';
  const mode = f.mode === 'proxy'
    ? `proxy: the client's calls were forwarded to <code>${text(f.upstream ?? 'unknown')}</code>; the client's requests and the sandbox's answers were both judged`
    : 'judge: the mock answered the client itself; the client\'s requests were judged';
  const ops = f.operations.length
    ? `<ul class="kv">${f.operations.map((op) => `<li>${text(operationTitle(op))} <code class="muted small">${text(op)}</code></li>`).join('')}</ul>`
    : '<span class="muted">none</span>';
  const rows: [string, string][] = [
    ['Mode', mode],
    ['Base URL', `<code>${text(f.baseUrl)}</code> <span class="muted">(the address the client was given)</span>`],
    ['Upstream', f.upstream ? `<code>${text(f.upstream)}</code>` : '<span class="muted">none (judge mode)</span>'],
    ['Limits', text(`bill operations ${f.limits.bill}, MOI operations ${f.limits.moi} calls per ${f.limits.windowSeconds} s window`)],
    ['Operations certified', ops],
    ['Signature', f.signature === 'verified' ? 'verified: the client\'s signatures were checked against its public key' : 'not configured: signatures were not checked'],
    ['Late answer', text(`the late-answer scenario holds its answer ${f.lateAnswerMs} ms`)],
    ...(f.clientProfile ? [['Client profile', text(f.clientProfile === 'strict-deployment' ? 'strict-deployment: the deployment\'s header forms are MUST' : 'document: held to what the API document states')] as [string, string]] : []),
    ...(f.timeZone ? [['Time zone', text(`DateTimeStamp read as ${f.timeZone} time`)] as [string, string]] : []),
    ['Suite', `${text(f.suite.name)} ${text(f.suite.version)}`],
    ['Commit', `<code>${text(commit)}</code>`],
    ['Schema hash', `<code class="hash">${text(f.schemaHash)}</code> <span class="muted">(${text(f.schemaFiles.length)} files in schemas/)</span>`],
    ['Started', text(utc(f.startedAt))],
    ['Finished', text(utc(f.finishedAt))],
    ['Duration', text(formatDuration(f.durationMs / 1000))],
    ['Node', text(f.node)],
  ];
  return `<section id="fingerprint"><h2>Fingerprint</h2><dl class="fp">${rows.map(([k, v]) => `<dt>${text(k)}</dt><dd>${v}</dd>`).join('')}</dl></section>`;
}

function clientRunSection(r: ClientCertificationReport): string {
  const c = r.client;
  const exit = [c.exitCode !== null ? `exit code ${c.exitCode}` : '', c.signal ? `signal ${c.signal}` : ''].filter(Boolean).join(', ');
  const bad = (c.exitCode !== null && c.exitCode !== 0) || !!c.signal;
  const rows: [string, string][] = [
    ['Command', c.command ? `<code>${text(c.command)}</code>` : '<span class="muted">none: the judge served until it was stopped (Ctrl-C or --duration)</span>'],
    ['Exit', exit ? `<span class="${bad ? 'exit-bad' : ''}">${text(exit)}</span>` : '<span class="muted">—</span>'],
    ['Ended', text(c.ended)],
  ];
  const tail = c.outputTail
    ? `<pre class="body tail">${text(c.outputTail)}</pre>`
    : '<p class="muted">(no output recorded)</p>';
  return `<section id="client-run"><h2>The client run</h2><dl class="fp">${rows.map(([k, v]) => `<dt>${text(k)}</dt><dd>${v}</dd>`).join('')}</dl>` +
    `<h3>Output tail</h3><p class="hint">The last lines of the command's output, stdout and stderr interleaved, secrets masked.</p>${tail}</section>`;
}

function countsSection(r: ClientCertificationReport): string {
  const by = r.counts.byVerdict;
  const tiles = VERDICT_ORDER.map((v) => `<button type="button" class="tile v-${v}${by[v] ? '' : ' zero'}" data-verdict="${v}" title="${text(CLIENT_VERDICT_MEANING[v])}">` +
    `<span class="n">${text(by[v])}</span><span class="tv"><span class="sym" aria-hidden="true">${VERDICT_INFO[v].symbol}</span> ${label(v)}</span></button>`).join('');
  const sides = SIDES.filter((x) => x.side === 'client' || hasSandbox(r));
  const table = `<table class="byop byside"><thead><tr><th scope="col">Side</th>${VERDICT_ORDER.map((v) => `<th scope="col">${badge(v, 'small')}</th>`).join('')}<th scope="col">Cases</th></tr></thead><tbody>` +
    sides.map(({ side, title }) => {
      const c = r.counts.bySide[side];
      const total = VERDICT_ORDER.reduce((n, v) => n + c[v], 0);
      return `<tr><th scope="row">${text(title)}<div class="muted small">${text(side)}</div></th>${VERDICT_ORDER.map((v) => c[v]
        ? `<td><button type="button" class="num v-${v}" data-verdict="${v}" data-side="${side}" title="${text(`${c[v]} ${label(v)} (${side}): list them`)}">${text(c[v])}</button></td>`
        : '<td class="zero">·</td>').join('')}<td class="total">${text(total)}</td></tr>`;
    }).join('') + '</tbody></table>';
  const legend = `<details class="legend"><summary>How to read the verdicts and levels</summary><table class="legend-t"><tbody>` +
    VERDICT_ORDER.map((v) => `<tr><td>${badge(v)}</td><td>${text(CLIENT_VERDICT_MEANING[v])}</td></tr>`).join('') +
    LEVELS.map(([l, m]) => `<tr><td><span class="lvl lvl-${l}">${l}</span></td><td>${text(m)}</td></tr>`).join('') +
    `</tbody></table><p>The client certifies only with no client case FAIL, ERROR or NOT RUN: every scenario reached and every certified operation called. Sandbox answers are reported and do not decide it.</p></details>`;
  return `<section id="summary"><h2>Counts</h2><div class="tiles">${tiles}</div><h3>By side</h3><div class="scroll">${table}</div>${legend}</section>`;
}

function scenariosSection(r: ClientCertificationReport): string {
  const byId = new Map(r.cases.map((c) => [c.id, c]));
  // a scenario of an operation not certified is NOT_APPLICABLE: not reached, and not held against the client
  const notApplicable = (x: ScenarioReport) => !x.reached && byId.get(x.id)?.verdict === 'NOT_APPLICABLE';
  const rank = (x: ScenarioReport) => (x.reached ? 2 : notApplicable(x) ? 1 : 0);
  const list = [...r.scenarios].sort((a, b) => rank(a) - rank(b));
  const reached = list.filter((x) => x.reached).length;
  const missing = list.filter((x) => rank(x) === 0).length;
  const applicable = list.length - list.filter(notApplicable).length;
  const row = (x: ScenarioReport) => {
    const state = x.reached ? 'reached' : notApplicable(x) ? 'not-applicable' : 'unreached';
    const cell = x.reached ? '<span class="v v-PASS"><span class="sym" aria-hidden="true">✔</span> yes</span>'
      : state === 'unreached' ? '<span class="v v-NOT_RUN"><span class="sym" aria-hidden="true">◌</span> no</span>'
        : `<span class="v v-NOT_APPLICABLE"><span class="sym" aria-hidden="true">${VERDICT_INFO.NOT_APPLICABLE.symbol}</span> not applicable</span>`;
    const how = state === 'unreached' ? `<span class="trigger">${text(x.trigger)}</span>`
      : state === 'not-applicable' ? '<span class="muted">the operation is not certified</span>' : '<span class="muted">—</span>';
    return `<tr class="${state}" data-scenario="${text(x.id)}"><td>${cell}</td>` +
      `<td>${byId.has(x.id) ? caseLink(x.id) : `<code>${text(x.id)}</code>`}</td>` +
      `<td>${text(operationTitle(x.operation))}<div class="muted small">${text(x.operation)}</div></td>` +
      `<td>${text(x.title)}</td><td class="num-c">${text(x.calls)}</td><td class="how">${how}</td></tr>`;
  };
  const table = list.length
    ? `<div class="scroll"><table class="scen"><thead><tr><th scope="col">Reached</th><th scope="col">Scenario</th><th scope="col">Operation</th><th scope="col">Title</th><th scope="col">Calls</th><th scope="col">How to trigger</th></tr></thead>` +
      `<tbody>${list.map(row).join('')}</tbody></table></div>`
    : '<p class="muted">No scenario applies to the operations certified.</p>';
  return `<section id="scenarios"><h2>Scenarios: ${text(reached)} of ${text(applicable)} reached</h2>` +
    `<p class="hint">The bad moments an integration must have met (refusals, a failing status in an HTTP 200, a 429, a gateway blip, a late answer). ` +
    `${missing ? `<strong>${text(missing)} not reached: ${missing === 1 ? 'it blocks' : 'they block'} certification.</strong> Send what the last column says, then run the client again.` : 'Every scenario that applies was reached.'}</p>${table}</section>`;
}

function sectionList(sections: string[], titles: Record<string, string>): string {
  if (!sections.length) return '<span class="muted">—</span>';
  return `<ul class="secs">${sections.map((x) => `<li><span class="sec">§${text(x)}</span> <span class="small">${text(titles[x] ?? '')}</span></li>`).join('')}</ul>`;
}

function caseBody(c: ClientCase, r: ClientCertificationReport, titles: Record<string, string>): string {
  const notes = c.notes.length
    ? `<ul class="notes">${c.notes.map((n) => `<li>${badge(n.verdict, 'small')} ${text(clip(n.text, 3000))}${n.testedBy ? ` <span class="muted small">(tested by ${caseLink(n.testedBy)})</span>` : ''}</li>`).join('')}</ul>` : '';
  const trigger = c.trigger
    ? `<p class="case-trigger${c.verdict === 'NOT_RUN' ? ' unreached' : ''}"><strong>How to trigger:</strong> ${text(c.trigger)}</p>` : '';
  const observation = c.observation
    ? `<pre class="snippet obs-json">${text(clip(JSON.stringify(c.observation, null, 2), 4000))}</pre>` : '<span class="muted">—</span>';
  const exchanges = c.exchanges ?? [];
  const problem = c.verdict === 'FAIL' || c.verdict === 'ERROR';
  const evidence = exchanges.length
    ? `<tr class="evidence"><td></td><td colspan="5"><details${problem ? ' data-problem' : ''}>` +
      `<summary>Exchanges: ${text(exchanges.length)}, secrets masked${c.evidenceFile ? ` <span class="muted">(${text(c.evidenceFile)})</span>` : ''}</summary>` +
      exchanges.map((ex, i) => exchangeBlock(ex, i, i === 0 && problem, c.evidenceFile)).join('') +
      `</details></td></tr>` : '';
  return `<tbody class="case" id="case-${text(c.id)}" data-verdict="${text(c.verdict)}" data-side="${text(c.side)}" data-op="${text(c.operation)}" data-family="${text(c.family)}" data-id="${text(c.id)}">` +
    `<tr class="main"><td class="vcell">${badge(c.verdict)}</td>` +
    `<td class="idcell"><code class="cid">${text(c.id)}</code><div class="muted small">${text(operationTitle(c.operation))} · ${text(familyName(r, c.family))}</div></td>` +
    `<td><span class="lvl lvl-${text(c.level)}">${text(c.level)}</span></td>` +
    `<td>${sectionList(c.sections, titles)}</td>` +
    `<td>${text(c.expectation)}${trigger}${notes}</td>` +
    `<td>${observation}</td></tr>${evidence}</tbody>`;
}

function casesSection(r: ClientCertificationReport): string {
  const titles = { ...SPEC_SECTIONS, ...r.specSections };
  const order = (v: Verdict) => DISPLAY_ORDER.indexOf(v);
  const verdictBoxes = VERDICT_ORDER.map((v) => `<label class="chk v-${v}"><input type="checkbox" name="verdict" value="${v}" checked> ${label(v)} <span class="muted">${text(r.counts.byVerdict[v])}</span></label>`).join('');
  const sides = SIDES.filter((x) => sideCases(r, x.side).length);
  const ops = r.matrix.operations.filter((op) => r.cases.some((c) => c.operation === op));
  const fams = r.matrix.families.filter((f) => r.cases.some((c) => c.family === f.id));
  const filters = `<div class="filters js-only" role="search" aria-label="Filter the cases">` +
    `<fieldset><legend>Verdict</legend>${verdictBoxes}<button type="button" id="only-problems">Problems only</button></fieldset>` +
    `<div class="frow">${sides.length > 1 ? `<label>Side <select id="f-side"><option value="">both sides</option>${sides.map((x) => `<option value="${x.side}">${text(x.title)}</option>`).join('')}</select></label>` : ''}` +
    `<label>Operation <select id="f-op"><option value="">all operations</option>${ops.map((op) => `<option value="${text(op)}">${text(operationTitle(op))}</option>`).join('')}</select></label>` +
    `<label>Rule family <select id="f-family"><option value="">all families</option>${fams.map((f) => `<option value="${text(f.id)}">${text(f.title)}</option>`).join('')}</select></label>` +
    `<label class="grow">Case id <input type="search" id="f-q" placeholder="e.g. client.bill-payment or *.pacing.*" autocomplete="off"></label>` +
    `<button type="button" id="f-reset">Show all</button></div>` +
    `<div class="frow2"><p class="shown" aria-live="polite">Showing <strong id="shown">${text(r.cases.length)}</strong> of ${text(r.cases.length)} cases<span id="filter-desc"></span></p>` +
    `<span><button type="button" id="expand-all">Expand all exchanges</button> <button type="button" id="collapse-all">Collapse all exchanges</button></span></div></div>`;
  const groups = sides.map(({ side, title, hint }) => {
    const mine = sideCases(r, side).sort((a, b) => order(a.verdict) - order(b.verdict));
    const problems = mine.filter((c) => PROBLEMS.includes(c.verdict)).length;
    return `<section id="cases-${side}" class="side" data-side="${side}"><h3>${text(title)} <span class="muted small">(${text(mine.length)} case${s(mine.length)}, ${text(problems)} to look at)</span></h3>` +
      `<p class="hint">${text(hint)}</p>` +
      `<table class="cases client-cases"><thead><tr><th scope="col">Verdict</th><th scope="col">Case</th><th scope="col">Level</th><th scope="col">Spec</th><th scope="col">Expectation and findings</th><th scope="col">Observation</th></tr></thead>` +
      `${mine.map((c) => caseBody(c, r, titles)).join('')}</table><p class="muted side-empty" hidden>No ${text(side)} case matches the filter.</p></section>`;
  }).join('');
  return `<section id="cases"><h2>Cases (${text(r.cases.length)})</h2>` +
    `<p class="hint">Every case: its stable id, level, the sections of the API document it comes from, what it expects, what was seen, and its verdict, grouped by the side it judges. ` +
    `Within each side, problems come first. Exchanges (requests and responses, secrets masked) show the verdict.</p>${filters}${groups}` +
    `<p id="no-match" class="muted" hidden>No case matches the filter.</p></section>`;
}

function trafficSection(r: ClientCertificationReport): string {
  const t = r.traffic;
  const ops = Object.entries(t.byOperation);
  const statuses = (st: Record<string, number>) => {
    const list = Object.entries(st).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
    if (!list.length) return '<span class="muted">—</span>';
    return list.map(([code, n]) => {
      const num = Number(code);
      return `<span class="status ${Number.isInteger(num) ? statusClass(num) : 's0'}">${text(code)}</span> × ${text(n)}`;
    }).join(' · ');
  };
  const table = ops.length
    ? `<div class="scroll"><table class="byop traffic"><thead><tr><th scope="col">Operation</th><th scope="col">Calls</th><th scope="col">HTTP statuses answered</th></tr></thead><tbody>` +
      ops.map(([op, o]) => `<tr><th scope="row">${text(operationTitle(op))}<div class="muted small">${text(op)}</div></th><td class="total">${text(o.calls)}</td><td class="sts">${statuses(o.statuses)}</td></tr>`).join('') +
      `</tbody></table></div>`
    : '<p class="muted">The client sent no call.</p>';
  return `<section id="traffic"><h2>Traffic</h2>` +
    `<dl class="fp"><dt>Calls</dt><dd>${text(t.calls)}</dd>` +
    `<dt>Rate-limited</dt><dd>${text(t.rateLimited)} <span class="muted">(429s the judge sent because the client went past a limit; scenario 429s not included)</span></dd>` +
    `<dt>Abandoned</dt><dd>${text(t.abandoned)} <span class="muted">(calls whose answer the client did not wait for: it closed the connection first)</span></dd>` +
    (t.scenarioAnswers ? `<dt>Scenario answers</dt><dd>${Object.keys(t.scenarioAnswers).length ? statuses(t.scenarioAnswers) : '0'} <span class="muted">(the refusals and held answers the scenarios gave the client: a 429 of the rate-limited scenario, a 503 of the unavailable one)</span></dd>` : '') +
    (t.lost !== undefined ? `<dt>Lost</dt><dd>${text(t.lost)} <span class="muted">(answers the judge dropped: the client saw a reset)</span></dd>` : '') + `</dl>` +
    `<h3>Per operation</h3>${table}</section>`;
}

export function renderClientHtml(r: ClientCertificationReport): string {
  const f = r.fingerprint;
  const title = `Client certification: ${headline(r)}: ${f.baseUrl}, ${utc(f.startedAt)}`;
  const sandbox = hasSandbox(r);
  // only the families some case belongs to: the service families a judge-mode package lists have no case
  const matrix = { ...r.matrix, families: r.matrix.families.filter((x) => r.matrix.cells.some((c) => c.family === x.id && c.cases)) };
  return `${pageHead({ title, css: CSS + CLIENT_CSS, script: true, generator: `${f.suite.name} ${f.suite.version}` })}
</head>
<body>
<a class="skip" href="#cases">Skip to the cases</a>
${banner(r)}
<nav class="toc" aria-label="Sections"><div class="wrap"><a href="#fingerprint">Fingerprint</a><a href="#client-run">Client run</a><a href="#summary">Counts</a><a href="#scenarios">Scenarios</a><a href="#matrix">Matrix</a><a href="#cases-client">Client cases</a>${sandbox ? '<a href="#cases-sandbox">Sandbox answers</a>' : ''}<a href="#traffic">Traffic</a></div></nav>
<main class="wrap">
${fingerprintSection(r)}
${clientRunSection(r)}
${countsSection(r)}
${scenariosSection(r)}
${matrixSection({ matrix })}
${casesSection(r)}
${trafficSection(r)}
${specCoverageSection(r.specCoverage, 'client rules')}
</main>
<footer><div class="wrap">Generated by ${text(f.suite.name)} ${text(f.suite.version)} (${text(r.format)} format ${text(r.formatVersion)}). The same report as data: <code>${text(CLIENT_PACKAGE_FILE)}</code>; the cases as JUnit: <code>${text(CLIENT_JUNIT_FILE)}</code>; checksums of the package: <code>${text(CLIENT_CHECKSUM_FILE)}</code> (<code>sha256sum -c ${text(CLIENT_CHECKSUM_FILE)}</code>). Secrets (token, client secret, signatures) are masked as «masked».</div></footer>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

const CLIENT_CSS = `
.banner .outcome{white-space:nowrap}
.banner .unreached-list{margin:.2em 0 .4em;padding-left:1.3em}
.banner .unreached-list li{margin:2px 0}
.trigger-inline{font-weight:600}
.scen{width:100%}
.scen th,.scen td{border-bottom:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
.scen thead th{background:var(--soft)}
.scen tr.unreached td{background:var(--NOT_RUN-bg)}
.scen tr.not-applicable td{color:var(--muted)}
.scen td.num-c{text-align:right}
.scen .trigger{font-weight:700;color:var(--NOT_RUN-fg)}
.case-trigger{margin:6px 0 0;font-size:.92em;background:var(--soft);border-left:3px solid var(--muted);padding:3px 8px}
.case-trigger.unreached{background:var(--NOT_RUN-bg);border-color:var(--NOT_RUN-fg)}
.client-cases thead th:nth-child(4){width:12em}
.secs{list-style:none;margin:0;padding:0}.secs li{margin:0 0 2px}
.obs-json{max-height:260px;overflow:auto}
pre.tail{max-height:360px}
.exit-bad{color:var(--FAIL-fg);font-weight:700}
.side h3{font-size:1.15em;margin-top:1.4em}
.traffic td.sts,.traffic thead th:last-child{text-align:left}
@media print{
  pre.tail,.obs-json{max-height:none;overflow:visible}
  .scen tr{break-inside:avoid}
}
`;

/** Filters (verdict, side, operation, family, id), the tiles, counts and matrix cells that set them, and every exchange opened for printing. */
const CLIENT_SCRIPT = String.raw`
(function(){
  document.documentElement.classList.add('js');
  var $=function(s){return document.querySelector(s)};
  var $$=function(s){return Array.prototype.slice.call(document.querySelectorAll(s))};
  var rows=$$('tbody.case');
  var boxes=$$('input[name=verdict]');
  var side=$('#f-side'),op=$('#f-op'),fam=$('#f-family'),q=$('#f-q');
  var PROBLEMS=['FAIL','ERROR','INCONCLUSIVE','NOT_RUN','WARN','SKIPPED'];
  function esc(s){return s.replace(/[.+?^$()|[\]{}\\]/g,'\\$&')}
  function pattern(s){
    s=s.trim().toLowerCase(); if(!s) return null;
    return s.indexOf('*')>=0?new RegExp('^'+s.split('*').map(esc).join('.*')+'$'):new RegExp(esc(s));
  }
  function val(el){return el?el.value:''}
  function apply(){
    var on={}; boxes.forEach(function(b){on[b.value]=b.checked});
    var re=pattern(q.value), shown=0;
    rows.forEach(function(r){
      var ok=on[r.dataset.verdict]&&(!val(side)||r.dataset.side===val(side))&&(!val(op)||r.dataset.op===val(op))&&(!val(fam)||r.dataset.family===val(fam))&&(!re||re.test(r.dataset.id.toLowerCase()));
      r.hidden=!ok; if(ok) shown++;
    });
    $$('section.side').forEach(function(g){
      var any=g.querySelectorAll('tbody.case:not([hidden])').length>0;
      g.querySelector('.side-empty').hidden=any;
      g.querySelector('table.client-cases').hidden=!any;
    });
    $('#shown').textContent=shown;
    $('#no-match').hidden=shown>0;
    var parts=[];
    if(boxes.some(function(b){return !b.checked})) parts.push('verdict '+boxes.filter(function(b){return b.checked}).map(function(b){return b.value}).join('/'));
    if(val(side)) parts.push('side '+val(side));
    if(val(op)) parts.push('operation '+val(op));
    if(val(fam)) parts.push('family '+val(fam));
    if(q.value.trim()) parts.push('case id "'+q.value.trim()+'"');
    $('#filter-desc').textContent=parts.length?' (filtered by '+parts.join(', ')+')':'';
    document.body.style.setProperty('--print-note', parts.length?JSON.stringify('Printed with a filter: showing '+shown+' of '+rows.length+' cases ('+parts.join(', ')+').'):'""');
  }
  function set(verdicts,sd,o,f){
    boxes.forEach(function(b){b.checked=!verdicts||verdicts.indexOf(b.value)>=0});
    if(side) side.value=sd||''; op.value=o||''; fam.value=f||''; q.value=''; apply();
    $('#cases').scrollIntoView({behavior:'smooth',block:'start'});
  }
  boxes.forEach(function(b){b.addEventListener('change',apply)});
  [side,op,fam].forEach(function(s){if(s) s.addEventListener('change',apply)});
  q.addEventListener('input',apply);
  $('#f-reset').addEventListener('click',function(){set(null)});
  $('#only-problems').addEventListener('click',function(){set(PROBLEMS)});
  $('#expand-all').addEventListener('click',function(){$$('tbody.case:not([hidden]) details').forEach(function(d){d.open=true})});
  $('#collapse-all').addEventListener('click',function(){$$('tbody.case details').forEach(function(d){d.open=false})});
  $$('.tile').forEach(function(t){t.addEventListener('click',function(){set([t.dataset.verdict])})});
  $$('.num').forEach(function(t){t.addEventListener('click',function(){set([t.dataset.verdict],t.dataset.side)})});
  $$('.cell').forEach(function(t){t.addEventListener('click',function(){set(null,'',t.dataset.op,t.dataset.family)})});
${SCRIPT_TAIL}})();
`;
