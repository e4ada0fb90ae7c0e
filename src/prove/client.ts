/**
 * The client judge is worth what it catches: the sample client (examples/client) must certify
 * under `npm run certify-client`, and each of its defects must FAIL exactly its rule (on whichever
 * operations it shows) and nothing else. Each run is the real command, in a temporary reports
 * folder, with a short window so the proof takes seconds.
 */
import { childEnvironment } from '../config/settings.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SAMPLE_CLIENT_DEFECTS, type SampleClientDefect } from '../../examples/client/defects.js';
import type { ClientCertificationReport } from '../judge/model.js';
import { ROOT } from '../paths.js';

/** The rule (the part of the id after `client.<op>.`) each sample-client defect must break: FAIL a MUST, WARN a SHOULD. */
export const DEFECT_RULES: Record<SampleClientDefect, string> = {
  'ignores-retry-after': 'pacing.retry-after',
  'bursts-past-limit': 'pacing.limit',
  'omits-header': 'headers.required',
  'reuses-sequence': 'ids.sequence-unique',
  'new-sequence-on-retry': 'safety.no-double-pay',
  'pays-more-than-due': 'safety.amount',
  'drops-required-field': 'req.schema',
  'foreign-transaction-type': 'req.transaction-type',
  'zoned-timestamp': 'headers.required',
  'uuid-reference-id': 'headers.deployment-form',
  'pays-paid-fee': 'safety.already-paid',
  'other-zone-stamp': 'headers.timestamp-current',
};

/** The window of the proof runs: short, yet long against a loaded machine's scheduling delays. */
export const PROOF_WINDOW_SECONDS = 3;
/** The late-answer scenario's hold, and the sample client's timeout below it. */
export const PROOF_LATE_ANSWER_MS = 2500;
export const PROOF_CLIENT_TIMEOUT_MS = 1000;

export interface ClientRunResult {
  name: string;
  defect: SampleClientDefect | null;
  exitCode: number | null;
  seconds: number;
  report: ClientCertificationReport | null;
  output: string;
}

const ruleOf = (id: string) => id.replace(/^client\.[^.]+\./, '');

/** Runs `certify-client` with the sample client (and a defect), returns its package. */
export function runSampleClient(defect: SampleClientDefect | null, options: { args?: string[]; env?: NodeJS.ProcessEnv; keepDir?: string } = {}): Promise<ClientRunResult> {
  const dir = options.keepDir ?? mkdtempSync(join(tmpdir(), 'sadad-client-'));
  const extraArgs = options.args ?? [];
  const env = options.env ?? {};
  const started = Date.now();
  const args = [
    join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'src/cli/certify-client.ts'),
    '--port', '0', '--window', String(PROOF_WINDOW_SECONDS), '--late-answer-ms', String(PROOF_LATE_ANSWER_MS), '--client-env', join(dir, 'client.env'), ...extraArgs,
    '--', process.execPath, join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'examples/client/run.ts'),
  ];
  return new Promise((done) => {
    const child = spawn(process.execPath, args, {
      cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...childEnvironment(), ...env, SADAD_REPORTS_DIR: dir, SAMPLE_CLIENT_TIMEOUT_MS: String(PROOF_CLIENT_TIMEOUT_MS), SAMPLE_CLIENT_DEFECT: defect ?? '', SADAD_ENV_FILE: join(ROOT, 'test/suite/empty.env') },
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5 * 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      let report: ClientCertificationReport | null = null;
      try { report = JSON.parse(readFileSync(join(dir, 'client-certification.json'), 'utf8')) as ClientCertificationReport; } catch { /* reported as no package */ }
      if (!options.keepDir) rmSync(dir, { recursive: true, force: true });
      done({ name: defect ?? 'correct sample client', defect, exitCode: code, seconds: Math.round((Date.now() - started) / 100) / 10, report, output });
    });
  });
}

export interface ClientVerdict {
  run: ClientRunResult;
  /** Defect runs: the cases that FAIL with the defect's rule. */
  detectedBy: string[];
  /** Client cases that are neither PASS nor NOT_APPLICABLE and not the defect's rule: false alarms. */
  others: string[];
  ok: boolean;
}

export function judgeRun(run: ClientRunResult): ClientVerdict {
  const cases = (run.report?.cases ?? []).filter((c) => c.side === 'client');
  const expected = run.defect ? DEFECT_RULES[run.defect] : null;
  // a broken MUST is a FAIL, a broken SHOULD a WARN
  const detectedBy = cases.filter((c) => c.verdict === (c.level === 'SHOULD' ? 'WARN' : 'FAIL') && ruleOf(c.id) === expected).map((c) => c.id);
  const others = cases.filter((c) => c.verdict !== 'PASS' && c.verdict !== 'NOT_APPLICABLE' && !(expected && ruleOf(c.id) === expected)).map((c) => `${c.verdict} ${c.id}`);
  if (!run.report) others.push(`no package (exit ${run.exitCode}): ${run.output.trim().split('\n').slice(-3).join(' | ')}`);
  const ok = run.defect ? detectedBy.length > 0 && others.length === 0 : run.exitCode === 0 && others.length === 0 && run.report?.outcome.certifies === true;
  return { run, detectedBy, others, ok };
}

export const clientJobs = (): (SampleClientDefect | null)[] => [null, ...SAMPLE_CLIENT_DEFECTS];
