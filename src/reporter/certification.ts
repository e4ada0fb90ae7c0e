/**
 * The certification reporter (design.md §4a), a Playwright custom reporter of the conformance
 * suite. After a run it writes, under the reports folder:
 *   certification.json   the report as data (schemas/certification.schema.json)
 *   certification.html   the same, one self-contained page: readable offline, printable
 *   certification.sha256 checksums of the package (`cd reports && sha256sum -c certification.sha256`)
 * With `playwright test --list` (the dry run, `npm run certify -- --list`) it writes nothing and
 * prints the plan: cases per operation and family, calls per operation, estimated wall time.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FullConfig, FullResult, Reporter, Suite, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { configFromEnv, ConfigError, secretValues } from '../config/index.js';
import { maskText, registerSecret } from '../client/redact.js';
import { loadBaseline, type Waiver } from '../suite/baseline.js';
import { ROOT, reportsDir } from '../paths.js';
import { VERDICT_ORDER } from '../suite/verdicts.js';
import { caseRecord, maskExchange, plannedCase } from './collect.js';
import { gitState, schemaHash, suiteVersion } from './fingerprint.js';
import { writeChecksums, CHECKSUM_FILE } from './checksum.js';
import { renderHtml } from './html.js';
import {
  aggregateObservations, buildCounts, buildMatrix, classifyWaivers, decideOutcome, errorBodyShapes, familyIds, operationIds,
  planSummary, SPEC_SECTIONS, FORMAT, FORMAT_VERSION, type CaseReport, type CertificationReport, type ExchangeRecord, type Fingerprint,
} from './model.js';
import { formatDuration, formatPlan, planOf, type Plan } from './plan.js';
import { plannedLimits } from '../suite/plan.js';

const truthy = (v: string | undefined) => !!v && !/^(0|false|no|off)$/i.test(v.trim());

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

export interface CertificationReporterOptions {
  /** Set by Playwright: `list` for `--list`. */
  _mode?: string;
  /** Overrides the reports folder (default: `reportsDir()`, SADAD_REPORTS_DIR). */
  outputDir?: string;
}

export default class CertificationReporter implements Reporter {
  private readonly listMode: boolean;
  private readonly outputDir: string | undefined;
  private config: FullConfig | undefined;
  private tests: TestCase[] = [];
  private readonly results = new Map<TestCase, TestResult>();
  private readonly runErrors: string[] = [];
  private startedAt = new Date();

  constructor(options: CertificationReporterOptions = {}) {
    this.listMode = options._mode === 'list';
    this.outputDir = options.outputDir;
  }

  /** The dry run prints the plan (and keeps Playwright from adding its own listing); a real run leaves the console to the other reporters. */
  printsToStdio(): boolean {
    return this.listMode;
  }

  onBegin(config: FullConfig, suite: Suite): void {
    this.config = config;
    this.tests = suite.allTests();
    this.startedAt = new Date();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    this.results.set(test, result);
  }

  onError(error: TestError): void {
    const text = (error.message ?? error.value ?? 'unknown error').replace(/\u001b\[[0-9;]*m/g, '');
    this.runErrors.push(maskText(text).slice(0, 2000));
  }

  async onEnd(result: FullResult): Promise<void> {
    if (this.listMode) return this.printPlan();
    this.registerSecrets();
    const dir = this.outputDir ?? reportsDir();
    mkdirSync(dir, { recursive: true });
    const report = this.buildReport(result, dir);
    // every string was masked on its way in; the whole text once more, for secrets only known now
    writeFileSync(join(dir, 'certification.json'), maskText(JSON.stringify(report, null, 2)) + '\n');
    writeFileSync(join(dir, 'certification.html'), maskText(renderHtml(report)));
    writeChecksums(dir);
    const v = report.counts.byVerdict;
    const line = VERDICT_ORDER.filter((k) => v[k]).map((k) => `${v[k]} ${k}`).join(', ');
    console.log(`\nCertification: ${report.outcome.summary}\n  ${report.counts.cases} cases: ${line || 'none'}; ${formatDuration(report.fingerprint.durationMs / 1000)}` +
      `\n  ${join(dir, 'certification.html')} (and .json, ${CHECKSUM_FILE})`);
  }

  private plan(): { plan: Plan | null; error: string | null } {
    try {
      return { plan: planOf(this.tests.map(plannedCase), plannedLimits()), error: null };
    } catch (e) {
      if (e instanceof ConfigError) return { plan: null, error: e.message };
      throw e;
    }
  }

  private printPlan(): void {
    const { plan, error } = this.plan();
    if (error) console.log(`Configuration error: ${maskText(error)}\nA run would stop here; see .env.example. The planned cases follow.`);
    const unknownLimits = { windowSeconds: 60, perOperation: {}, source: 'unknown limits (configuration error)' };
    console.log(formatPlan(plan ?? planOf(this.tests.map(plannedCase), unknownLimits), { listCases: truthy(process.env.SADAD_DRY_RUN) }));
  }

  /** The reporter runs in the runner process, where the workers' masking registry is empty. */
  private registerSecrets(): void {
    try { for (const s of secretValues(configFromEnv())) registerSecret(s); } catch { /* a configuration error is reported by the global setup */ }
    for (const name of ['SADAD_ACCESS_TOKEN', 'SADAD_CLIENT_SECRET', 'SADAD_SIGNING_KEY_PASSPHRASE']) registerSecret(process.env[name]);
  }

  private buildReport(result: FullResult, dir: string): CertificationReport {
    const cases = this.tests.map((t) => caseRecord(t, this.results.get(t), dir, ROOT, result.status));
    const ops = operationIds(cases);
    const fams = familyIds(cases);
    cases.sort((a, b) => ops.indexOf(a.operation) - ops.indexOf(b.operation) || fams.indexOf(a.family) - fams.indexOf(b.family) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

    let waivers: Waiver[] = [];
    try { waivers = loadBaseline(); } catch (e) { this.runErrors.push(maskText((e as Error).message)); }
    const waiverReports = classifyWaivers(waivers, cases);
    for (const w of waiverReports) {
      const c = cases.find((x) => x.id === w.case);
      if (c) c.waiver = { verdict: w.expected, comment: maskText(w.comment), status: w.status };
    }

    const notRun = cases.filter((c) => c.testStatus === 'notRun' || c.testStatus === 'interrupted').length;
    const incomplete = result.status === 'interrupted' || result.status === 'timedout'
      ? `the run was ${result.status === 'timedout' ? 'stopped by its global time limit' : 'interrupted'}${notRun ? ` (${notRun} cases did not run)` : ''}`
      : notRun ? `${notRun} case${notRun === 1 ? '' : 's'} did not run` : null;
    const argsSelection = narrowingArgs(this.config?.argv ?? process.argv);
    const selection = { cases: process.env.SADAD_CASES || null, skipCases: process.env.SADAD_SKIP_CASES || null, args: argsSelection };

    const outcome = decideOutcome({ cases, selectionNarrowed: !!(selection.cases || selection.skipCases || selection.args), incomplete, runErrors: this.runErrors });
    const evidence = this.allEvidence(dir, cases);
    const { plan } = this.plan();

    return {
      format: FORMAT,
      formatVersion: FORMAT_VERSION,
      outcome,
      fingerprint: this.fingerprint(result, selection),
      plan: planSummary(plan),
      counts: buildCounts(cases),
      matrix: buildMatrix(cases),
      observations: aggregateObservations(cases, errorBodyShapes(evidence)),
      waivers: {
        file: process.env.SADAD_BASELINE || null,
        used: waiverReports.filter((w) => w.status === 'used').map((w) => ({ ...w, comment: maskText(w.comment) })),
        notNeeded: waiverReports.filter((w) => w.status === 'not-needed').map((w) => ({ ...w, comment: maskText(w.comment) })),
      },
      specSections: Object.fromEntries(Object.entries(SPEC_SECTIONS).filter(([s]) => cases.some((c) => c.sections.includes(s)))),
      runErrors: this.runErrors,
      cases,
    };
  }

  /** Every exchange of the run's cases, for the error body shapes: evidence files, else what the report already holds. */
  private allEvidence(dir: string, cases: CaseReport[]): { case: string; exchanges: ExchangeRecord[] }[] {
    const evidenceDir = join(dir, 'evidence');
    const files = new Set(existsSync(evidenceDir) ? readdirSync(evidenceDir) : []);
    return cases.map((c) => {
      if (c.exchanges) return { case: c.id, exchanges: c.exchanges };
      if (!files.has(`${c.id}.json`)) return { case: c.id, exchanges: [] };
      try {
        const data = JSON.parse(readFileSync(join(evidenceDir, `${c.id}.json`), 'utf8')) as { exchanges?: ExchangeRecord[] };
        return { case: c.id, exchanges: (data.exchanges ?? []).map(maskExchange) };
      } catch {
        return { case: c.id, exchanges: [] };
      }
    });
  }

  private fingerprint(result: FullResult, selection: Fingerprint['selection']): Fingerprint {
    const { name, version } = suiteVersion();
    const schemas = schemaHash();
    let limits: Fingerprint['limits'] = null;
    try {
      const c = configFromEnv({ ...process.env, SADAD_SEED: process.env.SADAD_SEED || '0' });
      limits = { windowSeconds: c.rateWindowSeconds, bill: c.rateLimits.bill, moi: c.rateLimits.moi };
    } catch { /* reported by the global setup */ }
    const finishedAt = new Date();
    return {
      suite: { name, version, ...gitState() },
      schemaHash: `sha256:${schemas.hash}`,
      schemaFiles: schemas.files,
      seed: process.env.SADAD_SEED || null,
      target: { url: process.env.SADAD_BASE_URL ? maskText(process.env.SADAD_BASE_URL) : null, profile: process.env.SADAD_TARGET_PROFILE ? maskText(process.env.SADAD_TARGET_PROFILE) : null },
      limits,
      selection,
      baselineFile: process.env.SADAD_BASELINE || null,
      startedAt: (result.startTime ?? this.startedAt).toISOString(),
      finishedAt: finishedAt.toISOString(),
      durationMs: Math.round(result.duration || finishedAt.getTime() - this.startedAt.getTime()),
      playwright: { version: this.config?.version ?? 'unknown', status: result.status },
      node: process.version,
    };
  }
}
