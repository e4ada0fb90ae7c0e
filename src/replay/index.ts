/**
 * Re-judging from evidence (design.md §11; docs/rejudging.md): every case of a package is run
 * again by the current suite against its own recorded exchanges, sending nothing. A case's script
 * is the same code as in a run (suite/case.ts `runCase`); only its world differs: the client answers
 * from the evidence (client.ts), the inputs it read from the run (shared preconditions, outages,
 * data-file subjects) come from its recorded `replay.inputs`, and nothing waits. The cases of one
 * worker run in their recorded order on one replayed worker state (the payable base, the shared
 * accepted answer), as they did in the run. A case whose script would now send something else, or
 * read other inputs, diverges: NOT_RUN, "needs a new run", never a guess.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operations, type OperationId } from '../contract/catalogue.js';
import type { SuiteConfig } from '../config/index.js';
import type { NetworkConfig } from '../net/index.js';
import { MASK } from '../client/redact.js';
import type { Exchange } from '../client/exchange.js';
import { CaseContext, runCase, type CaseBody, type CaseDefinition, type Note, type ReplayTape, type TapeEntry } from '../suite/case.js';
import { allCases, type Registration } from '../suite/cases.js';
import { caseGenerators, judgingConfigFrom, type CaseClient, type JudgingConfig, type Runtime } from '../suite/runtime.js';
import type { Verdict } from '../vocabulary/verdicts.js';
import { isVacuous, VACUOUS_CAUSE } from '../reporter/conditions.js';
import type { EvidenceRecord } from '../evidence/record.js';
import { readAllEvidence } from '../evidence/store.js';
import { recordedOf, rehydrate, ReplayClient, replayFacts, replayPacer, type RecordedExchange } from './client.js';
import { classify } from '../client/outcome.js';
import { changedRefs, currentSpec, refDigest, refText } from '../contract/spec-refs.js';

export interface RejudgedCase {
  id: string;
  /** The verdict the package records for the case (its evidence file). */
  recorded: Verdict;
  /** The verdict the current suite gives the recorded exchanges; NOT_RUN when the script would now send something else. */
  rejudged: Verdict;
  /** Why the case could not be replayed (its script sends something other than what was recorded): "needs a new run". */
  divergence?: string;
  /** The notes of the re-judged verdict. */
  notes: Note[];
  observations: Record<string, unknown>;
  facts?: Record<string, string>;
  transient: { op: string; kind: string; recovered: boolean }[];
  accepted: string[];
  requires?: { acceptance: string };
  /** The references of the document the case was built from that read otherwise now (spec-refs.ts): the verdict needs a new run. */
  specChanged?: string[];
  /** The document no longer has what the case tests, and the suite no longer has the case: it leaves the package. */
  removedBySpec?: boolean;
}

export interface Rejudgement {
  /** The package directory re-judged (the folder holding evidence/ and certification.json). */
  dir: string;
  cases: RejudgedCase[];
  /** Cases whose re-judged verdict differs from the recorded one (divergences included). */
  differing: RejudgedCase[];
}

/** A case's world stops here if its replay does not finish (a script waiting on a call the evidence never answers). */
const CASE_LIMIT_MS = 20_000;

const needsNewRun = (why: string) => `needs a new run: ${why}`;

/** The configuration a case's verdict depended on, rebuilt from its evidence: no secret, URL or key (there are none to have). */
function configOf(j: JudgingConfig): SuiteConfig {
  return {
    baseUrl: 'replay:', accessToken: MASK, companyId: j.companyId, device: '', clientId: j.clientHeaders ? MASK : undefined, clientSecret: j.clientHeaders ? MASK : undefined,
    bankCode: j.bankCode ?? undefined, companyCode: j.companyCode ?? undefined, rateWindowSeconds: j.rateWindowSeconds, rateLimits: { ...j.rateLimits }, rateShape: j.rateShape ?? 'burst',
    seed: j.seed, seedFromEnv: true, dataFile: undefined, tagPrefix: j.tagPrefix, headerPrefix: j.headerPrefix, tokenUrl: j.renewableToken ? 'replay:' : undefined,
    signer: undefined, signingKey: undefined, signingKeyPassphrase: undefined, requestTimeoutMs: 0, retries: j.retries, payments: j.payments,
    tlsPassphrase: undefined, network: {} as NetworkConfig, preflight: false, maxOutageSeconds: 0,
  };
}

/** The recorded inputs of a case, handed out in order per kind; a different kind, key or count is a divergence. */
function tapeOf(inputs: TapeEntry[]): ReplayTape & { left(): TapeEntry[] } {
  const used = new Set<number>();
  return {
    next(c, kind, key) {
      const i = inputs.findIndex((e, n) => !used.has(n) && e.kind === kind);
      if (i < 0) return c.diverged(`the case now reads ${kind} ${JSON.stringify(key)}, which its evidence does not record`);
      used.add(i);
      const e = inputs[i]!;
      if (e.key !== key) c.diverged(`the case now reads ${kind} ${JSON.stringify(key)}, its evidence records ${JSON.stringify(e.key)}`);
      return e.value === null ? null : JSON.parse(JSON.stringify(e.value)) as unknown;
    },
    left: () => inputs.filter((_, n) => !used.has(n)),
  };
}

/** Every case the suite defines, by id, for a profile (the smoke profile sends fewer bursts). */
const definitions = new Map<string, Map<string, [CaseDefinition, CaseBody]>>();
function casesFor(j: JudgingConfig): Map<string, [CaseDefinition, CaseBody]> {
  // registered as the run registered them: its profile, limits and their shape
  const reg: Registration = { profile: j.profile === 'smoke' ? 'smoke' : 'full', limits: { perOperation: Object.fromEntries(operations.map((op) => [op.id, j.rateLimits[op.rateGroup]])) }, shape: j.rateShape ?? 'burst' };
  const key = JSON.stringify(reg);
  let m = definitions.get(key);
  if (!m) {
    m = new Map(allCases(reg).map(([def, body]) => [def.id, [def, body]]));
    definitions.set(key, m);
  }
  return m;
}


const sameExchange = (x: Exchange, r: RecordedExchange) => { const a = recordedOf.get(x) ?? x; return a.label === r.label && a.startedAt === r.startedAt && JSON.stringify(a.request) === JSON.stringify(r.request) && JSON.stringify(a.response ?? null) === JSON.stringify(r.response ?? null) && JSON.stringify(a.error ?? null) === JSON.stringify(r.error ?? null); };

/**
 * Re-judges the cases of one worker in their recorded order, on one replayed worker state.
 * Returns a verdict per case (before the package-wide acceptance condition).
 */
async function replayWorker(worker: string, records: EvidenceRecord[]): Promise<RejudgedCase[]> {
  const first = records[0]!.replay!;
  const judging = judgingConfigFrom(first.config);
  if (typeof judging === 'string') {
    const why = needsNewRun(judging);
    return records.map((ev) => ({ id: ev.id, recorded: ev.verdict, rejudged: 'NOT_RUN', divergence: why, notes: [{ verdict: 'NOT_RUN', text: why }], observations: {}, transient: [], accepted: [] }));
  }
  const config = configOf(judging);
  const kept = new Map<string, Map<OperationId, unknown>>();
  let client: ReplayClient | undefined;
  let seq = 0;
  const rt: Runtime = {
    config,
    runId: undefined,
    profile: judging.profile === 'smoke' ? 'smoke' : 'full',
    waivers: [],
    get client(): CaseClient {
      if (!client) throw new Error('no case is being re-judged');
      return client;
    },
    pacer: replayPacer,
    facts: replayFacts,
    generator: caseGenerators(config),
    limitOf: (op) => config.rateLimits[operations.find((o) => o.id === op)!.rateGroup],
    targetData: undefined,
    claim: async () => null,
    reportsDir: '',
    attachExchanges: false,
    kept: <T>(name: string) => {
      let m = kept.get(name);
      if (!m) kept.set(name, (m = new Map()));
      return m as Map<OperationId, T>;
    },
    worker,
    nextSeq: () => ++seq,
  };
  const out: RejudgedCase[] = [];
  // once a case of the worker diverged, the worker state the later ones read may be another than in the run
  let diverged: string | undefined;
  for (const ev of records) {
    const recorded = ev.verdict;
    const done = (rejudged: Verdict, notes: Note[], divergence?: string, c?: CaseContext): RejudgedCase => ({
      id: ev.id, recorded, rejudged, ...(divergence ? { divergence } : {}), notes,
      observations: c?.observations ?? {}, ...(c ? { facts: c.stableFacts() } : {}), transient: c?.faults ?? [], accepted: c ? [...c.acceptedOps] : [],
      ...(c?.requiresAcceptance ? { requires: { acceptance: c.requiresAcceptance } } : {}),
    });
    const spec = casesFor(judging).get(ev.id);
    if (!spec) {
      const why = needsNewRun('the current suite has no case of this id');
      out.push(done('NOT_RUN', [{ verdict: 'NOT_RUN', text: why }], why));
      continue;
    }
    const [def, body] = spec;
    // nothing is attached: the re-judge writes evidence files, not Playwright results
    const c = new CaseContext(def, rt, { attachments: [] });
    const tape = tapeOf(ev.replay!.inputs as TapeEntry[]);
    c.replay = tape;
    const recordedExchanges = (ev.exchanges ?? []) as RecordedExchange[];
    client = new ReplayClient(() => c, recordedExchanges, { renewableToken: judging.renewableToken, signer: judging.signer });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      runCase(c, body),
      new Promise<void>((resolve) => { timer = setTimeout(() => { c.divergence ??= 'the case did not finish against its recorded exchanges (it waits on an answer the evidence does not hold)'; resolve(); }, CASE_LIMIT_MS); }),
    ]);
    clearTimeout(timer);
    if (!c.divergence) {
      // what the evidence holds but the script did not send: allowed only for an exchange of another case it read (the shared accepted answer)
      const extra = client.unused().find((r) => !c.exchanges.some((x) => sameExchange(x, r)));
      if (extra) c.divergence = `its evidence records "${extra.label}" (${extra.op}), which the case no longer sends or reads`;
      const left = tape.left()[0];
      if (!c.divergence && left) c.divergence = `its evidence records reading ${left.kind} ${JSON.stringify(left.key)}, which the case no longer reads`;
      if (!c.divergence && c.exchanges.length !== recordedExchanges.length) c.divergence = `the case now holds ${c.exchanges.length} exchanges, its evidence ${recordedExchanges.length}`;
    }
    if (c.divergence) {
      diverged ??= ev.id;
      const why = needsNewRun(c.divergence);
      out.push(done('NOT_RUN', [{ verdict: 'NOT_RUN', text: why }], c.divergence, c));
      continue;
    }
    const verdict = c.verdict;
    if (diverged && verdict !== recorded) {
      const why = needsNewRun(`it read the worker's state, which ${diverged} (earlier in the same worker) no longer builds as recorded`);
      out.push(done('NOT_RUN', [{ verdict: 'NOT_RUN', text: why }], why, c));
      continue;
    }
    out.push(done(verdict, c.notes.map((n) => ({ ...n })), undefined, c));
  }
  return out;
}

/** At most this many references are named in a note; the rest are counted. */
const NAMED_REFS = 3;

/**
 * A case recorded under another version of the API document: its verdict stands only where every
 * reference it was built from reads the same now (the digests its evidence recorded, spec-refs.ts).
 * Otherwise NOT_RUN, "needs a new run: the spec changed ...", which `--resume` runs. Replayed all the
 * same first: the cases after it in its worker read the worker state it built. A case the suite no
 * longer has, whose tested rows the document no longer has, leaves the package. Evidence of suites
 * that recorded no references is judged by its replay alone.
 */
function applySpecChanges(results: RejudgedCase[], records: EvidenceRecord[]): void {
  const spec = currentSpec();
  const byId = new Map(records.map((r) => [r.id, r]));
  for (const r of results) {
    const recorded = byId.get(r.id)?.spec;
    if (!recorded) continue;
    const changed = changedRefs(recorded.refs, spec);
    if (!changed.length) continue;
    const gone = recorded.tests.length > 0 && recorded.tests.every((t) => refDigest(t, spec) === 'absent');
    if (gone && r.divergence === needsNewRun('the current suite has no case of this id')) r.removedBySpec = true;
    const named = changed.slice(0, NAMED_REFS).map(refText).join(', ');
    const why = `the spec changed ${named}${changed.length > NAMED_REFS ? ` and ${changed.length - NAMED_REFS} more` : ''}`;
    Object.assign(r, { rejudged: 'NOT_RUN' as const, divergence: why, notes: [{ verdict: 'NOT_RUN' as const, text: needsNewRun(why) }], specChanged: changed });
    delete r.requires;
  }
}

/**
 * The operations the run's preflight saw accepted, judged again from its recorded calls (the
 * package's connection section), not taken from what the package says of them.
 */
export function preflightAccepted(dir: string, records: EvidenceRecord[] = readAllEvidence(dir)): string[] {
  let connection: { exchanges?: RecordedExchange[] } | null | undefined;
  try { connection = (JSON.parse(readFileSync(join(dir, 'certification.json'), 'utf8')) as { connection?: { exchanges?: RecordedExchange[] } | null }).connection; } catch { return []; }
  const tagPrefix = (records.find((r) => r.replay)?.replay?.config as { tagPrefix?: unknown } | undefined)?.tagPrefix;
  if (!connection?.exchanges || typeof tagPrefix !== 'string') return [];
  return connection.exchanges.filter((ex) => ex.op && operations.some((o) => o.id === ex.op) && classify(ex.op as OperationId, rehydrate(ex), tagPrefix).kind === 'accepted').map((ex) => ex.op!);
}

/**
 * Re-judges every case of the package in `dir` from its evidence files; reads only, sends
 * nothing. `preflightOps`: the operations the run's preflight saw accepted, which count toward
 * the acceptance condition as in the run (default: judged again from the preflight's recorded calls).
 */
export async function rejudgePackage(dir: string, preflightOps?: string[]): Promise<Rejudgement> {
  const records = readAllEvidence(dir);
  preflightOps ??= preflightAccepted(dir, records);
  const results: RejudgedCase[] = [];
  const workers = new Map<string, EvidenceRecord[]>();
  for (const ev of records) {
    if (ev.writtenBy !== 'case') {
      // the reporter wrote it for a case that ended without a verdict: there is no verdict to re-judge, only to keep
      const kept = ev.verdict === 'NOT_RUN' || ev.verdict === 'ERROR';
      const why = 'no case wrote this evidence (the reporter did, for a case that ended without a verdict): only NOT_RUN or ERROR can stand';
      results.push({ id: ev.id, recorded: ev.verdict, rejudged: kept ? ev.verdict : 'NOT_RUN', ...(kept ? {} : { divergence: why }), notes: (ev.notes ?? []).map((n) => ({ verdict: n.verdict, text: n.text })), observations: ev.observations ?? {}, ...(ev.facts ? { facts: ev.facts } : {}), transient: ev.transient ?? [], accepted: [] });
      continue;
    }
    if (!ev.replay || typeof ev.replay.worker !== 'string' || !Array.isArray(ev.replay.inputs) || !ev.replay.config) {
      const why = 'its evidence was recorded by a suite without re-judging (no replay section)';
      results.push({ id: ev.id, recorded: ev.verdict, rejudged: 'NOT_RUN', divergence: why, notes: [{ verdict: 'NOT_RUN', text: needsNewRun(why) }], observations: {}, transient: [], accepted: [] });
      continue;
    }
    const list = workers.get(ev.replay.worker) ?? [];
    list.push(ev);
    workers.set(ev.replay.worker, list);
  }
  // workers are independent (what they shared across workers is recorded as inputs): re-judged side by side
  const perWorker = await Promise.all([...workers].map(([worker, list]) => replayWorker(worker, list.sort((a, b) => a.replay!.seq - b.replay!.seq))));
  results.push(...perWorker.flat());
  applySpecChanges(results, records);

  // no vacuous PASS, over the whole package as in the run (reporter/conditions.ts)
  const accepted = new Set([...results.flatMap((r) => r.accepted), ...preflightOps]);
  for (const r of results) {
    const testedBy = `${r.requires?.acceptance}.res.schema`;
    const tester = results.find((x) => x.id === testedBy);
    if (!r.divergence && isVacuous({ verdict: r.rejudged, ...(r.requires ? { requires: r.requires } : {}) }, accepted, tester?.rejudged)) {
      r.rejudged = 'INCONCLUSIVE';
      r.notes.push({ verdict: 'INCONCLUSIVE', text: `a rejection proves nothing here: the target accepted no ${r.requires!.acceptance} request in this run; ${testedBy} tests acceptance directly (${tester?.rejudged ?? 'absent'})`, cause: VACUOUS_CAUSE(r.requires!.acceptance), testedBy });
    }
  }
  results.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { dir, cases: results, differing: results.filter((r) => r.rejudged !== r.recorded) };
}
