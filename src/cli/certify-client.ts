/**
 * `npm run certify-client [-- <options>] [-- <client command...>]`: the mock judges a company's own
 * integration (issue 11, design.md §9).
 *
 * It starts the mock in judging mode (or, with --upstream, a validating proxy in front of a
 * sandbox), prints the base URL and the credentials the client must use, writes them to a dotenv
 * file, and then runs the client command with them exported, or serves until Ctrl-C or --duration.
 * At the end it writes the client certification package to the reports folder. Exit 0 when the
 * package certifies, 1 when not, 2 for a configuration error (nothing is served).
 *
 * Options (before the command; the command starts at the first word that is not an option, or
 * after `--`):
 *   --upstream <url>      proxy mode: forward every call to this sandbox and judge both sides
 *   --window <seconds>    rate-limit window (default MOCK_RATE_WINDOW_SECONDS, else 60)
 *   --port <n>            port to listen on (default MOCK_PORT, else 4010; 0 picks a free one)
 *   --duration <seconds>  without a command: serve this long, then judge (default: until Ctrl-C)
 *   --operations <list>   operations the integration is certified for (default all four)
 *   --late-answer-ms <n>  how long the late-answer scenario holds a payment's answer (default 30000)
 *   --client-env <path>     where to write the client's variables (default .env.client)
 */
import { spawn } from 'node:child_process';
import { chmodSync, realpathSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadEnvFile } from '../config/env-file.js';
import { nonNegativeInteger, port, positiveNumber } from '../config/env-values.js';
import { operations } from '../contract/catalogue.js';
import { ConfigError } from '../contract/prefix.js';
import { networkFromEnv, type NetworkConfig } from '../net/index.js';
import { maskText, registerSecret } from '../client/redact.js';
import { mockOptionsFromEnv } from '../mock/options.js';
import { reportsDir } from '../paths.js';
import { startJudge, writeClientPackage, CLIENT_HTML_FILE, CLIENT_PACKAGE_FILE, type ClientRun, type JudgeSession } from '../judge/index.js';
import { SCENARIOS, scenarioId } from '../judge/scenarios.js';

const OPTIONS = {
  upstream: { type: 'string' },
  window: { type: 'string' },
  port: { type: 'string' },
  duration: { type: 'string' },
  operations: { type: 'string' },
  'late-answer-ms': { type: 'string' },
  'client-env': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Splits our options from the client command: it starts after `--` or at the first word that is no option. */
export function splitArgs(args: string[]): { own: string[]; command: string[] } {
  const own: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return { own, command: args.slice(i + 1) };
    if (!a.startsWith('-')) return { own, command: args.slice(i) };
    own.push(a);
    const name = a.replace(/^--?/, '').split('=')[0]!;
    const spec = (OPTIONS as Record<string, { type: string }>)[name];
    if (spec?.type === 'string' && !a.includes('=') && i + 1 < args.length) own.push(args[++i]!);
  }
  return { own, command: [] };
}

export interface CertifyClientArgs {
  upstream?: string;
  window?: number;
  port?: number;
  durationSeconds?: number;
  operations?: string[];
  lateAnswerMs?: number;
  envFile: string;
  command: string[];
  help: boolean;
}

/** The arguments, checked: a bad one is a ConfigError naming the flag. */
export function parseCertifyClientArgs(args: string[]): CertifyClientArgs {
  const { own, command } = splitArgs(args);
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: own, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new ConfigError('arguments', (e as Error).message);
  }
  const flags = Object.fromEntries(Object.entries(values).map(([k, v]) => [`--${k}`, typeof v === 'string' ? v : undefined]));
  const out: CertifyClientArgs = { envFile: resolve(String(values['client-env'] ?? '.env.client')), command, help: values.help === true };
  if (values.upstream !== undefined) {
    let u: URL;
    try { u = new URL(String(values.upstream)); } catch { throw new ConfigError('--upstream', `must be an http(s) URL, got ${JSON.stringify(values.upstream)}`); }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError('--upstream', `must be an http(s) URL, got ${JSON.stringify(values.upstream)}`);
    out.upstream = u.href.replace(/\/$/, '');
  }
  if (flags['--window'] !== undefined) out.window = positiveNumber(flags, '--window', 60);
  if (flags['--port'] !== undefined) out.port = port(flags, '--port', 4010);
  if (flags['--duration'] !== undefined) out.durationSeconds = positiveNumber(flags, '--duration', 1);
  if (flags['--late-answer-ms'] !== undefined) out.lateAnswerMs = nonNegativeInteger(flags, '--late-answer-ms', 30_000);
  if (values.operations !== undefined) {
    const names = String(values.operations).split(',').map((s) => s.trim()).filter(Boolean);
    const known = operations.map((o) => o.id as string);
    const unknown = names.filter((n) => !known.includes(n));
    if (!names.length || unknown.length) throw new ConfigError('--operations', `must list operations among ${known.join(', ')}, got ${JSON.stringify(values.operations)}`);
    out.operations = names;
  }
  if (out.durationSeconds !== undefined && command.length) throw new ConfigError('--duration', 'serves without a command; with a command the run ends when the command does');
  return out;
}

const TAIL_BYTES = 4096;

function runCommand(command: string[], env: NodeJS.ProcessEnv): Promise<Omit<ClientRun, 'command' | 'ended'> & { ended: string }> {
  return new Promise((done) => {
    let tail = '';
    const keep = (chunk: Buffer, to: NodeJS.WriteStream) => {
      to.write(chunk);
      tail = (tail + chunk.toString('utf8')).slice(-TAIL_BYTES);
    };
    // one word with spaces is a shell command line; several words are the argv
    const child = command.length === 1 && /\s/.test(command[0]!)
      ? spawn(command[0]!, { env, shell: true, stdio: ['inherit', 'pipe', 'pipe'] })
      : spawn(command[0]!, command.slice(1), { env, stdio: ['inherit', 'pipe', 'pipe'] });
    child.stdout!.on('data', (c: Buffer) => keep(c, process.stdout));
    child.stderr!.on('data', (c: Buffer) => keep(c, process.stderr));
    const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
    const onInt = forward('SIGINT');
    const onTerm = forward('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    child.on('error', (e) => { tail += `\ncertify-client: could not start the command: ${e.message}`; });
    child.on('close', (code, signal) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      done({ exitCode: code, signal, outputTail: tail, ended: signal ? `command ended by ${signal}` : `command exited with ${code}` });
    });
  });
}

function serve(seconds: number | undefined): Promise<string> {
  return new Promise((done) => {
    const timer = seconds === undefined ? undefined : setTimeout(() => finish('duration elapsed'), seconds * 1000);
    const finish = (why: string) => {
      if (timer) clearTimeout(timer);
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      done(why);
    };
    const onInt = () => finish('SIGINT');
    const onTerm = () => finish('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
  });
}

const HELP = `usage: npm run certify-client -- [--upstream <url>] [--window <s>] [--port <n>] [--duration <s>]
                                   [--operations <list>] [--late-answer-ms <ms>] [--client-env <path>] [--] [<client command...>]`;

export async function main(argv: string[]): Promise<number> {
  let args: CertifyClientArgs;
  let mockOptions;
  let network: NetworkConfig | undefined;
  try {
    loadEnvFile(process.env);
    args = parseCertifyClientArgs(argv);
    if (args.help) { console.log(HELP); return 0; }
    // the sandbox behind the proxy is reached like the suite reaches it: read (and checked) before anything listens
    if (args.upstream) {
      network = networkFromEnv(process.env);
      for (const s of [...network.secrets, process.env.SADAD_TLS_PASSPHRASE]) registerSecret(s);
    }
    mockOptions = mockOptionsFromEnv(process.env);
    if (args.window !== undefined) mockOptions.rateWindowSeconds = args.window;
    if (args.port !== undefined) mockOptions.port = args.port;
    if (args.lateAnswerMs !== undefined) mockOptions.lateAnswerMs = args.lateAnswerMs;
    // one client command has one company's settings: several companies each run their own client against the judge
    if ((mockOptions.companies?.length ?? 0) > 1 && args.command.length) {
      throw new ConfigError('MOCK_COMPANIES', `lists ${mockOptions.companies!.length} companies: certify-client then serves (--duration, or until Ctrl-C) and each company runs its own client against it; a client command is for one company`);
    }
  } catch (e) {
    if (e instanceof ConfigError) { console.error(`certify-client: ${e.message}`); return 2; }
    throw e;
  }
  const session = await startJudge({ mock: mockOptions, upstream: args.upstream, operations: args.operations, network });
  const o = session.options;
  console.log(`certify-client: ${session.mode === 'proxy' ? `validating proxy in front of ${args.upstream}` : 'the mock judges your client'} at ${session.url}`);
  console.log(`limits enforced: bill operations ${o.rateLimits.bill}, MOI operations ${o.rateLimits.moi} calls per ${o.rateWindowSeconds} s per operation`);
  const writeEnv = (file: string, env: Record<string, string>, whose: string) => {
    const lines = Object.entries(env).map(([k, v]) => `${k}=${v}`);
    writeFileSync(file, `# written by npm run certify-client; load it in your client (dotenv)\n${lines.join('\n')}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    console.log(`${whose} settings (also in ${file}):`);
    for (const l of lines) console.log(`  ${l}`);
  };
  if (session.companies.length) {
    // MOCK_COMPANIES: each company's own settings, and later its own package
    for (const c of session.companies) writeEnv(`${args.envFile}.${fileSafe(c.companyId)}`, c.clientEnv, `company ${c.companyId}'s client's`);
  } else {
    writeEnv(args.envFile, session.clientEnv, 'your client\'s');
  }
  if (session.mode === 'proxy') console.log('  (your own sandbox credentials pass through unchanged; the proxy adds none)');
  console.log('scenarios your integration must meet:');
  for (const s of SCENARIOS) console.log(`  ${scenarioId(s)}: ${s.trigger}`);

  let client: ClientRun;
  if (args.command.length) {
    console.log(`running: ${maskText(args.command.join(' '))}`);
    const r = await runCommand(args.command, { ...process.env, ...session.clientEnv });
    client = { command: args.command.join(' '), exitCode: r.exitCode, signal: r.signal, outputTail: r.outputTail, ended: r.ended };
  } else {
    console.log(args.durationSeconds ? `serving for ${args.durationSeconds} s` : 'serving until Ctrl-C');
    const ended = await serve(args.durationSeconds);
    client = { command: null, exitCode: null, signal: null, outputTail: '', ended };
  }
  if (session.companies.length) return finishByCompany(session, client);
  const report = await session.finish(client);
  const dir = reportsDir(process.env);
  writeClientPackage(dir, report);
  const c = report.counts.bySide.client;
  console.log(`client cases: ${report.counts.bySide.client.PASS} PASS, ${c.FAIL} FAIL, ${c.WARN} WARN, ${c.NOT_RUN} NOT_RUN, ${c.NOT_APPLICABLE} NOT_APPLICABLE; scenarios reached ${report.scenarios.filter((s) => s.reached).length}/${report.scenarios.length}`);
  if (session.mode === 'proxy') {
    const s = report.counts.bySide.sandbox;
    console.log(`sandbox cases: ${s.PASS} PASS, ${s.FAIL} FAIL, ${s.WARN} WARN, ${s.OBSERVED} OBSERVED, ${s.NOT_RUN} NOT_RUN`);
  }
  for (const id of report.outcome.unexpected) console.log(`  FAIL ${id}: ${report.cases.find((x) => x.id === id)?.notes[0]?.text ?? ''}`);
  console.log(report.outcome.summary);
  console.log(`package: ${resolve(dir, CLIENT_PACKAGE_FILE)}, ${resolve(dir, CLIENT_HTML_FILE)}`);
  return report.outcome.certifies ? 0 : 1;
}

/** A company id as a file or folder name. */
export const fileSafe = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

/**
 * MOCK_COMPANIES: one client certification package per company, in `<reports>/clients/<company>/`,
 * each judged on that company's calls with its limits and key. Exit 0 when every company certifies.
 */
async function finishByCompany(session: JudgeSession, client: ClientRun): Promise<number> {
  const results = await session.finishByCompany(client);
  let all = true;
  for (const { companyId, report, calls } of results) {
    const dir = join(reportsDir(process.env), 'clients', fileSafe(companyId));
    writeClientPackage(dir, report);
    const c = report.counts.bySide.client;
    console.log(`${companyId}: ${calls} calls; client cases ${c.PASS} PASS, ${c.FAIL} FAIL, ${c.WARN} WARN, ${c.NOT_RUN} NOT_RUN; ${report.outcome.summary}`);
    console.log(`  package: ${resolve(dir, CLIENT_PACKAGE_FILE)}`);
    all &&= report.outcome.certifies;
  }
  console.log(all ? `every company certifies (${results.length})` : `not every company certifies: ${results.filter((r) => !r.report.outcome.certifies).map((r) => r.companyId).join(', ')}`);
  return all ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (e: unknown) => {
    console.error(`certify-client: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  });
}
