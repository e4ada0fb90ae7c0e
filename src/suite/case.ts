/**
 * A conformance case: a stable id, spec sections, a level, what it expects, and a body that sends
 * requests and reports violations. It runs as one Playwright test whose annotations carry the
 * verdict; FAIL and ERROR fail the test (and the run), everything else passes or skips it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test as base, type TestInfo } from '@playwright/test';
import { ROOT } from '../paths.js';
import { writeEvidence } from '../evidence/store.js';
import { currentSpec, refDigests } from '../contract/spec-refs.js';
import { specRefsOf } from './spec-refs.js';
import { testStatusOf, type TestStatus } from '../evidence/outcome.js';
import { operation, tagsOf, type OperationId } from '../contract/catalogue.js';
import type { Exchange } from '../client/exchange.js';
import { summarize } from '../client/exchange.js';
import { maskText } from '../client/redact.js';
import { curlCommand, curlOptionsOf } from '../client/curl.js';
import type { SendOptions } from '../client/client.js';
import { RequestGenerator, type BillSubject, type MoiSubject } from '../generators/requests.js';
import { classify, type Outcome } from '../client/outcome.js';
import { judgingConfig, type Runtime } from './runtime.js';
import { answerFact } from './walk.js';
import { roundRobin, runtimeOf } from './targets.js';
import { strongest, VIOLATION, type Level, type RuleFamily, type Verdict } from '../vocabulary/verdicts.js';
import { answerSignature, exhausted, retryAfterMs, retryDelayMs, sleep, transientKind, type Fault, type FaultKind } from '../client/transient.js';
import { coveredBy } from '../pacer/outage.js';
import { RunStopping } from '../pacer/pacer.js';

/** How a call may be repeated after a transient fault. */
export interface Note { verdict: Verdict; text: string; cause?: string; testedBy?: string }

/** How a refusal looked, without the values that differ from case to case (for cause signatures). */
export function answerShape(o: Outcome): string {
  if (o.kind === 'rejected' && o.form === 'in-band') return `HTTP ${o.status} with a failing in-band status`;
  return o.detail.replace(/\d{4,}/g, '#');
}

export type RetryPolicy =
  /** Sent again up to SADAD_RETRIES times: an enquiry, or a request the case expects the target to refuse. */
  | 'safe'
  /** Never resent here: the caller decides (a payment meant to be accepted, a call inside a burst). */
  | 'none';

export interface CaseSendOptions extends SendOptions {
  op?: OperationId;
  /** Default: `safe` for enquiries and for sends marked `expect: 'rejection'`, `none` for other payments. */
  retry?: RetryPolicy;
  /** The case expects the target to refuse this request, so repeating it cannot change the target's state. */
  expect?: 'rejection';
  /** When retries run out: end the case with ERROR (default), or hand the last exchange back. */
  onExhausted?: 'error' | 'return';
}

export interface CaseDefinition {
  /** Stable, never renumbered: reports are compared across runs by it. */
  id: string;
  family: RuleFamily;
  op: OperationId;
  /** Spec sections, e.g. ['2.3', '5']. */
  sections: string[];
  level: Level;
  /** What the target must (or should) do, in words. */
  expectation: string;
  /** The case pays something: NOT_APPLICABLE when the target profile disables payments. */
  pays?: boolean;
  /** Longer than the default test timeout (rate-limit and flow cases wait out windows). */
  slow?: boolean;
  /** Calls the case makes per operation, for the dry run's plan (default: one on its own operation). */
  calls?: Partial<Record<OperationId, number>>;
  /**
   * Payments the case means to take effect against a conformant target (`debits`), and how many
   * bills or fees they pay, in full or in part (`subjects`): the payment guard's figures.
   */
  payments?: { debits: number; subjects: number };
  /**
   * Calls the case shares with the other cases of its worker (and target) that name the same `key`:
   * made once per worker, by whichever of them comes first (the payable base a payment case mutates).
   * How many workers make them depends on the worker count, so the plan adds them per worker, not per case.
   */
  shared?: SharedCalls[];
  /** What the case needs configured to send anything: without a signer the signature cases are NOT_APPLICABLE. */
  needs?: 'signer';
}

export interface SharedCalls { key: string; calls: Partial<Record<OperationId, number>> }

/** When an exchange ended (ms): the moment its fault is placed in or out of an outage. */
export const endOf = (ex: Exchange) => Date.parse(ex.startedAt) + ex.durationMs;

/**
 * Thrown to end a case early once its verdict is settled; `note` is the note that settled it, so a
 * case waiting on a step another case took (a shared accepted exchange) can end the same way.
 */
export class CaseStop extends Error {
  constructor(message: string, readonly note?: Note) { super(message); }
}

/**
 * An input a case reads from outside its own exchanges: a precondition the run shares (`fact`), the
 * run's outages (`outages`), a subject of SADAD_DATA_FILE (`subject`, `known`). Recorded in order in
 * whether the pacer read a refusal as the gateway's limiter (`pacing`). Recorded in order in
 * the case's evidence (`replay.inputs`), so that a re-judge (src/replay) can give the case the same
 * world without the run: together with the exchanges, everything a verdict depends on.
 */
export interface TapeEntry { kind: 'fact' | 'outages' | 'subject' | 'known' | 'pacing'; key: string; value: unknown }

/** What a re-judge gives a case in place of the world: its recorded inputs, in order per kind. */
export interface ReplayTape { next(c: CaseContext, kind: TapeEntry['kind'], key: string): unknown }

/**
 * Thrown while re-judging when the case's script would now do something other than what its
 * evidence records (another request, another input): its verdict cannot be computed, it needs a new run.
 */
export class Divergence extends Error {}

/** The step a case builds on: an accepted request of an operation, tested directly by its schema case. */
export const acceptanceKey = (op: OperationId) => `accepted:${op}`;
export const acceptanceTestedBy = (op: OperationId) => `${op}.res.schema`;

/**
 * A systemic symptom of an answer, one that breaks many rules on every operation at once: the
 * violations it causes share this cause instead of one per rule and operation (design.md §4, causes).
 */
function symptomOf(op: OperationId, ex: Exchange, tagPrefix: string): string | undefined {
  const body = ex.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const root = tagsOf(operation(op), tagPrefix).responseRoot;
  const wrapped = body.Message && typeof body.Message === 'object' && root in (body.Message as object) && !(root in body);
  return wrapped ? 'the answers are wrapped in a Message object: the root tag is not at the top level' : undefined;
}

export class CaseContext {
  readonly verdicts: Verdict[] = [];
  /**
   * Why the case is not PASS; `cause` is the signature cases with the same root cause share (what
   * was violated, where, how the target answered), `testedBy` the case that tests a failed
   * precondition directly.
   */
  readonly notes: Note[] = [];
  readonly observations: Record<string, unknown> = {};
  /**
   * What the target does, in words that stay the same from run to run (observe()'s third argument):
   * what a comparison of two runs reads, never the observation's wording, timings or generated values.
   */
  readonly facts: Record<string, string> = {};
  readonly exchanges: Exchange[] = [];
  /** Attempts that met a transient fault or the gateway's limiter: the network's answer, not the target's. */
  private readonly faulted = new WeakSet<Exchange>();
  /** Transient faults met on the way (the package's availability observation). */
  readonly faults: Fault[] = [];
  private tokenRenewed = false;
  /** Operations whose answer this case saw accepted: evidence that a rejection of theirs means something. */
  readonly acceptedOps = new Set<OperationId>();
  /** A rejection this case passed on means something only if the target accepted a request of this operation in the run. */
  requiresAcceptance: OperationId | undefined;
  /** A systemic symptom seen in an answer this case judged (symptomOf): the cause of its violations. */
  private symptom: string | undefined;
  /** The exchanges this case sent itself (not one it read from another case, like the shared accepted answer). */
  private readonly own = new WeakSet<Exchange>();
  private generatorCache: RequestGenerator | undefined;
  skipReason: string | undefined;
  /** The inputs read so far (TapeEntry), recorded with the evidence. */
  readonly inputs: TapeEntry[] = [];
  /** Set while re-judging: inputs come from the evidence, and nothing waits. */
  replay: ReplayTape | undefined;
  /** While re-judging: why the script no longer matches its evidence (the case needs a new run). */
  divergence: string | undefined;

  /** The case's place in its worker's order (Runtime.worker). */
  readonly seq: number;

  /** `testInfo`: what a case uses of Playwright's (attachments); a re-judge gives one that keeps nothing. */
  constructor(readonly def: CaseDefinition, readonly rt: Runtime, readonly testInfo: Pick<TestInfo, 'attachments'>) {
    this.seq = rt.nextSeq();
  }

  /**
   * Attaches a masked record to the Playwright result. Pushed, not `testInfo.attach()`: that records
   * a step for each call, with a stack trace mapped through the source maps, about a tenth of a full
   * run's CPU; a push reaches the runner as soon (what a case whose worker died leaves behind,
   * reporter/collect.ts) and shows in the report the same, without the step.
   */
  attachJson(name: string, value: unknown): void {
    this.testInfo.attachments.push({ name, contentType: 'application/json', body: Buffer.from(JSON.stringify(value, null, 2)) });
  }

  get config() { return this.rt.config; }
  get tagPrefix() { return this.rt.config.tagPrefix; }

  /** Data for this case: seeded by the run seed and the case id, so a case's data does not depend on which worker runs it. */
  get gen(): RequestGenerator {
    this.generatorCache ??= this.rt.generator(this.def.id);
    return this.generatorCache;
  }

  /**
   * `n` bills to pay: claimed from SADAD_DATA_FILE (each once per run; the case is SKIPPED when
   * none is left), or generated (the mock and open-world sandboxes know every well-formed bill).
   */
  async bills(n: number): Promise<BillSubject[]> {
    const out: BillSubject[] = [];
    for (let i = 0; i < n; i++) {
      const entry = await this.claimed('bills');
      if (entry && 'exhausted' in entry) this.skip(`SADAD_DATA_FILE has no unused bill left (it lists ${String(entry.exhausted)}; a run needs about 40)`);
      // one generated subject per bill whether or not the data file gives it: the seeded data stays the same either way
      const generated = this.gen.billSubject();
      out.push(entry ? { ...generated, BillAccountID: entry.AccountNumber as string, ...entry } as BillSubject : generated);
    }
    return out;
  }

  async fees(n: number): Promise<MoiSubject[]> {
    const out: MoiSubject[] = [];
    for (let i = 0; i < n; i++) {
      const entry = await this.claimed('fees');
      if (entry && 'exhausted' in entry) this.skip(`SADAD_DATA_FILE has no unused fee subject left (it lists ${String(entry.exhausted)}; a run needs about 30)`);
      const generated = this.gen.moiSubject();
      out.push(entry ? { ...generated, ...entry } as MoiSubject : generated);
    }
    return out;
  }

  /** The next unused data-file subject (shared by every worker), null without a data file, `exhausted` when none is left. */
  private claimed(kind: 'bills' | 'fees'): Promise<Record<string, unknown> | null> {
    return this.input('subject', kind, async () => {
      const data = this.rt.targetData?.[kind] as readonly Record<string, unknown>[] | undefined;
      if (!data?.length) return null;
      const idx = await this.rt.claim(kind);
      return idx === null ? { exhausted: data.length } : { ...data[idx]! };
    });
  }

  /**
   * A subject the data file lists, for an enquiry (any will do: enquiries change nothing), drawn
   * with the case's seed; null without a data file.
   */
  async knownSubject(kind: 'bills' | 'fees'): Promise<Record<string, unknown> | null> {
    const picked = await this.input('known', kind, () => {
      const known = this.rt.targetData?.[kind] as readonly Record<string, unknown>[] | undefined;
      return known?.length ? { count: known.length, entry: { ...this.gen.faker.helpers.arrayElement(known) } } : null;
    }) as { count: number; entry: Record<string, unknown> } | null;
    // a re-judge draws as the run did, so that the seeded values after it stay the same
    if (picked && this.replay) this.gen.faker.helpers.arrayElement(new Array<null>(picked.count).fill(null));
    return picked?.entry ?? null;
  }

  /**
   * Reads an input from outside the case (TapeEntry): recorded in order, or, while re-judging,
   * given back from the evidence. The slot is taken before the wait, so concurrent reads keep the
   * order the script made them in, not the order their answers came in.
   */
  async input<T>(kind: TapeEntry['kind'], key: string, produce: () => Promise<T> | T): Promise<T> {
    if (this.replay) return this.replay.next(this, kind, key) as T;
    const entry: TapeEntry = { kind, key, value: null };
    this.inputs.push(entry);
    const value = await produce();
    entry.value = value === undefined ? null : JSON.parse(JSON.stringify(value)) as unknown;
    return value;
  }

  /** The script no longer matches its evidence: the re-judge gives up on this case (NOT_RUN, needs a new run). */
  diverged(why: string): never {
    // a step still under way after the verdict was settled: the run recorded nothing of it, and it changes nothing
    if (!this.ended) this.divergence ??= why;
    throw new Divergence(why);
  }

  /** Waits (a retry's backoff, a rate window); a re-judge waits for nothing: the answers are recorded. */
  sleep(ms: number): Promise<void> {
    return this.replay ? Promise.resolve() : sleep(ms);
  }

  /**
   * Sends through the shared client and attaches every attempt's masked exchange as evidence. A
   * transient fault (transient.ts) is retried where repetition cannot change the target's state,
   * after Retry-After or a jittered backoff, each attempt through the pacer; retries exhausted end
   * the case with ERROR naming the fault. A 401 on a call that is not about credentials renews a
   * client-credentials token once; a static token cannot be renewed, so that is an ERROR.
   */
  async send(options: CaseSendOptions = {}): Promise<Exchange> {
    const op = options.op ?? this.def.op;
    const retry = options.retry ?? (operation(op).kind === 'enquiry' || options.expect === 'rejection' ? 'safe' : 'none');
    const label = options.label ?? `${this.exchanges.length + 1}`;
    const kinds: FaultKind[] = [];
    const times: number[] = [];
    const mine: Fault[] = [];
    let limitedSince: number | undefined;
    for (let attempt = 1; ; attempt++) {
      const ex = await this.sendOnce(op, { ...options, label: attempt === 1 ? label : `${label} (attempt ${attempt})` });
      // an untrusted certificate, a proxy's 407, a name that does not resolve: no retry heals it
      if (ex.error?.kind === 'configuration') this.error(`${label}: ${ex.error.message}${ex.error.advice ? `; ${ex.error.advice}` : ''}`);
      if (ex.response?.status === 401 && !this.credentialsAreTheSubject(options) && !options.via) {
        const tokens = this.rt.client.tokens;
        if (!tokens.renewable) this.error(`the target refused the bearer token (HTTP 401) on a call that is not about credentials: it was revoked or expired mid-run, or is wrong; a static SADAD_ACCESS_TOKEN cannot be renewed (SADAD_TOKEN_URL can): ${summarize(ex)}`);
        if (this.tokenRenewed) this.error(`the target refused a freshly fetched bearer token too (HTTP 401): check SADAD_TOKEN_URL, SADAD_CLIENT_ID, SADAD_CLIENT_SECRET and SADAD_COMPANY_ID: ${summarize(ex)}`);
        this.tokenRenewed = true;
        this.rt.client.refuseToken(ex);
        const f: Fault = { op, kind: 'token refused', recovered: false };
        this.faulted.add(ex);
        this.faults.push(f);
        mine.push(f);
        continue;
      }
      // the gateway's limiter refused it (a 429, or its over-limit answer): the pacing slows this
      // operation down and the call goes again, never counted against the case's retries; the
      // refused call changed nothing at the target, so this holds for a payment too
      if (!options.via && await this.overLimit(op, ex)) {
        const f: Fault = { op, kind: transientKind(ex) ?? `HTTP ${ex.response!.status}` as FaultKind, recovered: false, paced: true };
        this.faulted.add(ex);
        this.faults.push(f);
        mine.push(f);
        limitedSince ??= endOf(ex);
        const waited = endOf(ex) - limitedSince;
        if (waited > this.config.maxOutageSeconds * 1000) {
          return this.notRun(`${label}: the gateway kept refusing ${op} as over its limit for ${Math.round(waited / 1000)} s (${mine.filter((x) => x.paced).length} refusals, the last ${summarize(ex)}) while the pacing slowed down; the case stopped waiting (SADAD_MAX_OUTAGE_SECONDS=${this.config.maxOutageSeconds}): \`npm run certify -- --resume\` runs it again`);
        }
        continue;
      }
      if (mine.length && mine.every((f) => f.paced)) for (const f of mine) f.recovered = true;
      // a caller that handles faults itself records them (fault()), knowing which answers it expects
      if (retry === 'none') return ex;
      const kind = transientKind(ex);
      if (!kind) {
        for (const f of mine) f.recovered = true;
        return ex;
      }
      const f: Fault = { op, kind, recovered: false };
      this.faulted.add(ex);
      this.faults.push(f);
      mine.push(f);
      kinds.push(kind);
      times.push(endOf(ex));
      if (await this.retriesExhausted(times)) {
        if (options.onExhausted === 'return') return ex;
        return this.error(`${exhausted(kinds)} (${label}; last: ${ex.error ? 'no HTTP answer, ' : ''}${summarize(ex)})`);
      }
      await this.sleep(retryDelayMs(ex, attempt, this.config.rateWindowSeconds));
    }
  }

  /** One attempt: paced, sent, recorded and attached. */
  private async sendOnce(op: OperationId, options: CaseSendOptions & { label: string }): Promise<Exchange> {
    const ex = await this.rt.client.send(op, options);
    this.own.add(ex);
    this.exchanges.push(ex);
    if (this.rt.attachExchanges) this.attachJson(`exchange-${String(this.exchanges.length).padStart(2, '0')}-${ex.label}.json`, { label: ex.label, op: ex.op, request: ex.request, response: ex.response, error: ex.error, startedAt: ex.startedAt, durationMs: ex.durationMs });
    return ex;
  }

  /** A header case that changes or leaves out a credential expects a 401: that is its verdict, not a token to renew. */
  private credentialsAreTheSubject(options: CaseSendOptions): boolean {
    return this.def.family === 'headers' && (options.headers !== undefined || options.sign === false);
  }

  /**
   * Whether transient faults at these moments (ms) use up SADAD_RETRIES, leaving out those an outage
   * covered: while the target was down the whole run paused, and no case's verdict may pay for it
   * (design.md §10). A probe still out is waited for, so that its verdict counts.
   */
  async retriesExhausted(times: number[], allowed = this.config.retries): Promise<boolean> {
    if (times.length <= allowed) return false;
    const outages = await this.input('outages', '', () => this.rt.pacer.outages(true).catch(() => []));
    return times.filter((t) => !coveredBy(outages, t)).length > allowed;
  }

  /**
   * Whether the run's outage watch saw the target down at `at` (ms): a 5xx then is the outage's, not
   * the rule's answer (a maintenance page in the middle of a rate-limit check). Asked once the probe
   * in flight has decided; an input of the case, as `retriesExhausted`'s.
   */
  async duringOutage(at: number): Promise<boolean> {
    const outages = await this.input('outages', '', () => this.rt.pacer.outages(true).catch(() => []));
    return coveredBy(outages, at);
  }

  /**
   * Whether a refused answer outside a burst was the gateway's limiter (pacer/over-limit.ts): asked
   * of the pacer, which slows the operation down when it was. The answer is an input of the case
   * (a re-judge gets it back from the evidence), since it depends on what the run learned.
   */
  private async overLimit(op: OperationId, ex: Exchange): Promise<boolean> {
    const status = ex.response?.status;
    if (status === undefined || !(status === 429 || status === 403 || status >= 500)) return false;
    const refusal = { status, signature: answerSignature(ex), sentAt: Date.parse(ex.startedAt), ...(retryAfterMs(ex) === undefined ? {} : { retryAfterMs: retryAfterMs(ex)! }) };
    return this.input('pacing', `${op} ${status}`, () => this.rt.pacer.refused(op, refusal).catch(() => status === 429));
  }

  /** Records a transient fault met outside send() (inside a burst the case repeats); returns its kind. */
  fault(ex: Exchange, op: OperationId = this.def.op, options: { allow429?: boolean } = {}): FaultKind | undefined {
    const kind = transientKind(ex, options);
    if (kind) {
      this.faulted.add(ex);
      this.faults.push({ op, kind, recovered: false });
    }
    return kind;
  }

  /** Answers of a burst the case repeats (a fault or the limiter bent it): not judged, so no fact of the target either. */
  setAside(answers: Exchange[]): void {
    for (const ex of answers) this.faulted.add(ex);
  }

  /** The faults recorded since `mark` (a length of `faults`) are behind the case now: a repeated burst got through. */
  recovered(mark = 0): void {
    for (const f of this.faults.slice(mark)) f.recovered = true;
  }

  classify(ex: Exchange, op: OperationId = this.def.op): Outcome {
    const o = classify(op, ex, this.tagPrefix);
    this.symptom ??= symptomOf(op, ex, this.tagPrefix);
    if (o.kind === 'accepted' && !this.acceptedOps.has(op)) {
      this.acceptedOps.add(op);
      // once per worker and operation is enough for the shared preconditions to know it holds
      const told = this.rt.kept<boolean>('acceptance-reported');
      if (!told.get(op)) { told.set(op, true); void this.rt.facts.report(acceptanceKey(op), { ok: true }).catch(() => {}); }
    }
    return o;
  }

  /**
   * Ends the case INCONCLUSIVE at once, sending nothing, when the step it builds on (an accepted
   * request of `op`) has been refused often enough in this run (pacer/facts.ts). The case that
   * tests the step directly is never stopped this way: its FAIL is the evidence.
   */
  async needs(op: OperationId): Promise<void> {
    const testedBy = acceptanceTestedBy(op);
    if (this.def.id === testedBy) return;
    const f = await this.input('fact', acceptanceKey(op), () => this.rt.facts.failed(acceptanceKey(op)).catch(() => null));
    if (f) this.inconclusive(`precondition failed earlier in this run, so not tried again (${f.refusals} refusals in a row): ${f.detail}; ${f.testedBy} tests that step directly`, f.cause, f.testedBy);
  }

  /** A rejection passed: it means something only if the target accepts some request of `op` (checked over the whole run's evidence). */
  requireAcceptance(op: OperationId = this.def.op): void {
    this.requiresAcceptance = op;
  }

  /**
   * Takes back the notes from the `from`-th on, with their verdicts: what a step noted that turned
   * out to be read from an outage's answers (a rate-limit check repeated once the target is back).
   */
  withdrawNotes(from: number): void {
    this.notes.splice(from);
    this.verdicts.splice(from);
  }

  private note(verdict: Verdict, text: string, cause?: string, testedBy?: string): Note {
    // one symptom that breaks many rules reads as one cause, its per-rule findings beneath
    if (this.symptom && (verdict === 'FAIL' || verdict === 'INCONCLUSIVE')) cause = this.symptom;
    this.verdicts.push(verdict);
    const note: Note = { verdict, text: maskText(text), ...(cause ? { cause: maskText(cause) } : {}), ...(testedBy ? { testedBy } : {}) };
    this.notes.push(note);
    return note;
  }

  /** The rule is violated: FAIL, WARN or OBSERVED according to the case's level; `cause` groups it with others of the same root cause. */
  violated(text: string, cause?: string) { this.note(VIOLATION[this.def.level], text, cause); }
  /** A violation of a SHOULD-level aspect inside a stricter case (e.g. 429 expected, another 4xx seen). */
  warn(text: string) { this.note('WARN', text); }
  /**
   * Something the spec leaves open, recorded as it is; `fact`, when given, is the same in words that
   * hold from run to run (no timing, no generated value): what `--compare` reads.
   */
  observe(key: string, value: unknown, fact?: string) {
    this.observations[key] = value;
    if (fact !== undefined) this.facts[key] = fact;
  }

  /**
   * The case's stable facts: those its rules declared, and `answers`, the statuses and body shapes of
   * the answers of its operation it judged (attempts that met a transient fault or the gateway's
   * limiter left out).
   */
  stableFacts(): Record<string, string> {
    // the case's own operation: the enquiry a payment case may need first depends on what its worker already knows
    const answers = [...new Set(this.exchanges.filter((ex) => ex.op === this.def.op && !this.faulted.has(ex)).map(answerFact))].sort();
    return { ...(answers.length ? { answers: answers.join('; ') } : {}), ...this.facts };
  }
  pass(text: string) { this.note('PASS', text); }
  /** The suite, the network or the configuration broke: not the target's fault. Ends the case. */
  error(text: string): never { return this.end(text, this.broke(text)); }
  broke(text: string): Note { return this.note('ERROR', text); }
  skip(reason: string): never { this.skipReason = reason; return this.end(reason, this.note('SKIPPED', reason)); }
  notApplicable(reason: string): never { this.skipReason = reason; return this.end(reason, this.note('NOT_APPLICABLE', reason)); }
  /** Ends the case on a violation that makes the rest meaningless. */
  stop(text: string, cause?: string): never { this.violated(text, cause); return this.end(text, this.notes.at(-1)); }
  /** The case could not finish for a reason outside the target's rules (the gateway kept refusing): NOT_RUN, resumable. Ends the case. */
  notRun(text: string): never { return this.end(text, this.note('NOT_RUN', text)); }
  /** A step the case needs was refused: the case cannot decide its own rule. Ends the case. */
  inconclusive(text: string, cause: string, testedBy: string): never { return this.end(text, this.note('INCONCLUSIVE', text, cause, testedBy)); }

  /**
   * Whether the case's verdict is settled (a stop was thrown). Concurrent steps of a case may still
   * be under way (the other requests of a Promise.all): what they do after this cannot change the
   * verdict, in a run or in a re-judge.
   */
  ended = false;
  private end(text: string, note: Note | undefined): never {
    this.ended = true;
    throw new CaseStop(text, note);
  }

  /**
   * The answer a well-formed request must get. Refused: a FAIL when accepting it is the case's own
   * rule; with `precondition` (the case that tests the step directly), the case is INCONCLUSIVE.
   * A transient fault, a 429 or refused credentials are an ERROR: not the target's rules.
   */
  requireAccepted(ex: Exchange, what: string, op: OperationId = this.def.op, precondition?: { testedBy: string }): Outcome {
    const o = this.classify(ex, op);
    if (o.kind === 'accepted') return o;
    const kind = transientKind(ex);
    if (kind && kind !== 'HTTP 429') this.error(`${what}: transient: ${kind} (${summarize(ex)})`);
    if (o.status === 429) this.error(`${what}: the target answered 429 (rate limited); the pacer's limits do not match the target's`);
    if (o.status === 401 || o.status === 403) this.error(`${what}: credentials rejected (${summarize(ex)}); check SADAD_ACCESS_TOKEN, SADAD_COMPANY_ID and the signer`);
    if (o.kind === 'no-answer') this.error(`${what}: ${o.detail}`);
    const cause = `${operation(op).title} not accepted: ${answerShape(o)}`;
    // a step cases build on, refused: after a few in a row, the run stops trying it (pacer/facts.ts)
    // counted once per request: the cases that read another case's refused answer do not count it again
    if ((precondition || this.def.id === acceptanceTestedBy(op)) && this.own.has(ex)) {
      void this.rt.facts.report(acceptanceKey(op), { ok: false, detail: `${what} was not accepted (${summarize(ex)})`, testedBy: acceptanceTestedBy(op), cause: this.symptom ?? `precondition: ${cause}` }).catch(() => {});
    }
    if (precondition) return this.inconclusive(`precondition not met: ${what} was not accepted (${summarize(ex)}); ${precondition.testedBy} tests that step directly`, `precondition: ${cause}`, precondition.testedBy);
    return this.stop(`${what} was not accepted: ${summarize(ex)}`, cause);
  }

  get verdict(): Verdict { return strongest(this.verdicts); }
}

/**
 * The cases need no browser: Playwright's two automatic per-test fixtures (trace recording and
 * browser-context configuration) are replaced by ones that do nothing. Each cost several ms of CPU
 * per case (steps, stack capture), more than most cases themselves; and trace recording is the
 * one place Playwright would write request headers, so turning it off here also keeps `--trace on`
 * from recording a token. (They are Playwright's private names: should a version rename them, this
 * only adds two idle fixtures, and `bench:pacing` shows the time come back.)
 */
// an override must keep the fixture's auto mode, which the public types do not spell
const AUTO_WITH_HOOKS = 'all-hooks-included' as unknown as true;
// `rt` is per test, built once per worker and target: in a multi-target run (targets.ts) one worker
// serves many targets, each test the one it is annotated with.
export const test = base.extend<{ _setupArtifacts: void; _setupContextOptions: void; rt: Runtime }>({
  _setupArtifacts: [async ({}, use) => { await use(); }, { auto: AUTO_WITH_HOOKS, box: true, timeout: 0 }],
  _setupContextOptions: [async ({}, use) => { await use(); }, { auto: AUTO_WITH_HOOKS, box: true }],
  rt: [async ({}, use, testInfo) => { await use(await runtimeOf(testInfo)); }, { box: true }],
});

export type CaseBody = (c: CaseContext) => Promise<void>;
export type CaseSpec = [CaseDefinition, CaseBody];
let collector: CaseSpec[] | undefined;

/** Gathers the cases a register function defines, for a spec file to order and register. */
export function collectCases(register: () => void): CaseSpec[] {
  const outer = collector;
  collector = [];
  try { register(); return collector; } finally { collector = outer; }
}

/**
 * Round-robin over case lists, so that the cases of the four operations alternate in the queue
 * and the workers spend the four operations' rate budgets in parallel.
 */
export function interleave(lists: CaseSpec[][]): CaseSpec[] {
  return roundRobin(lists);
}

/** Registers the cases as Playwright tests; called from the spec file so reports point at it. */
export function defineCase(def: CaseDefinition, body: CaseBody): void {
  if (!collector) throw new Error(`case ${def.id} defined outside collectCases()`);
  collector.push([def, body]);
}

/** What the case needs to send anything; without it the case is NOT_APPLICABLE (the check at the top of the test below). */
export function needsOf(def: CaseDefinition): ('signer' | 'payments')[] {
  return [...(def.needs ? [def.needs] : []), ...(def.pays || operation(def.op).kind === 'payment' ? ['payments' as const] : [])];
}

/**
 * The arguments of `test()` for a case: a spec file calls `test(...asTest(spec))`. With `target`
 * (a multi-target run, targets.ts) the title starts with `[<target>]` and the test runs on it.
 */
export function asTest([def, body]: CaseSpec, target?: string): Parameters<typeof test> {
  const title = `${target ? `[${target}] ` : ''}${def.id} §${def.sections.join(' §')}`;
  return [title, {
    tag: [`@${def.level}`, `@${def.family}`, `@${def.op}`],
    annotation: [
      ...(target ? [{ type: 'target', description: target }] : []),
      { type: 'case', description: def.id },
      { type: 'level', description: def.level },
      { type: 'family', description: def.family },
      { type: 'operation', description: def.op },
      { type: 'sections', description: def.sections.join(', ') },
      { type: 'expectation', description: def.expectation },
      { type: 'calls', description: JSON.stringify(def.calls ?? { [def.op]: 1 }) },
      ...(def.payments ? [{ type: 'payments', description: JSON.stringify(def.payments) }] : []),
      ...(def.shared?.length ? [{ type: 'shared', description: JSON.stringify(def.shared) }] : []),
      ...(needsOf(def).length ? [{ type: 'needs', description: needsOf(def).join(',') }] : []),
    ],
  }, async ({ rt }, testInfo) => {
    if (def.slow) test.slow();
    const c = new CaseContext(def, rt, testInfo);
    try {
      await runCase(c, body);
    } catch (e) {
      if (e instanceof RunStopping) await stoppedByTheRun(testInfo);
      throw e;
    }
    finish(c, testInfo);
  }] as Parameters<typeof test>;
}

/**
 * A case whose grant the stopping run refused (RunStopping) records no verdict: it ends as the test
 * Playwright interrupted, which the reporter writes as NOT_RUN ("the run was stopped while this case
 * was running"). Playwright marks the test interrupted as its stop reaches the worker, a moment after
 * the coordinator's; thrown before that, the case would read as broken. Waits for the mark, at most
 * a few seconds (a stop that never reaches the worker must not hang the case either).
 */
async function stoppedByTheRun(testInfo: TestInfo): Promise<void> {
  const until = Date.now() + 5_000;
  while ((testInfo.status as string) !== 'interrupted' && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
}

/** Runs a case's body to its verdict: in a run (asTest) and in a re-judge (src/replay) alike. */
export async function runCase(c: CaseContext, body: CaseBody): Promise<void> {
  const def = c.def;
  try {
    if ((def.pays || operation(def.op).kind === 'payment') && !c.config.payments) c.notApplicable('the target profile disables payments (SADAD_PAYMENTS=off)');
    await body(c);
  } catch (e) {
    if (e instanceof Divergence) return;
    // the run is stopping: no verdict (asTest)
    if (e instanceof RunStopping) throw e;
    if (!(e instanceof CaseStop)) c.broke(`the case broke: ${(e as Error).stack ?? String(e)}`.slice(0, 2000));
    // another case's stop that reached this one would otherwise leave it with no note: a PASS it never earned
    else if (e.note && !c.notes.includes(e.note)) c.broke(`the case ended on a step another case took (${e.note.verdict}: ${e.note.text})`.slice(0, 2000));
  }
}

/**
 * reports/evidence/<case id>.json, written the moment the case ends (atomically: a kill never leaves
 * half a file): its verdict, notes, observations, faults and masked exchanges, and everything the
 * certification package needs of it, so a run that never gets to write its package can still be
 * reported (`npm run certify -- --report`) and resumed (src/reporter/journal.ts, EvidenceRecord).
 */
function recordEvidence(c: CaseContext, testInfo: TestInfo, verdict: Verdict, testStatus: TestStatus): void {
  const finished = Date.now();
  // Playwright keeps the test's start only privately; the first exchange is the next best thing
  const started = (testInfo as unknown as { _startWallTime?: number })._startWallTime ?? (Date.parse(c.exchanges[0]?.startedAt ?? '') || finished);
  writeEvidence(c.rt.reportsDir, {
    id: c.def.id, runId: c.rt.runId, writtenBy: 'case', title: maskText(testInfo.title), file: relative(ROOT, testInfo.file).split('\\').join('/'),
    verdict, testStatus, level: c.def.level, family: c.def.family, op: c.def.op, sections: c.def.sections, expectation: c.def.expectation,
    calls: c.def.calls ?? { [c.def.op]: 1 },
    startedAt: new Date(started).toISOString(), finishedAt: new Date(finished).toISOString(), durationMs: Math.max(0, finished - started),
    notes: c.notes, observations: c.observations, facts: c.stableFacts(), transient: c.faults,
    accepted: [...c.acceptedOps], ...(c.requiresAcceptance ? { requires: { acceptance: c.requiresAcceptance } } : {}),
    // what a re-judge needs besides the exchanges (src/replay): the worker state's order, the configuration the verdict depends on, the inputs read
    replay: { worker: c.rt.worker, seq: c.seq, config: { ...judgingConfig(c.rt, c.rt.profile) }, inputs: c.inputs },
    spec: specEvidence(c.def),
    annotations: testInfo.annotations.map((a) => ({ type: a.type, ...(a.description === undefined ? {} : { description: maskText(a.description) }) })),
    exchanges: c.exchanges.map((ex) => ({ label: ex.label, op: ex.op, request: ex.request, response: ex.response, error: ex.error, startedAt: ex.startedAt, durationMs: ex.durationMs, ...(ex.sentAfterMs === undefined ? {} : { sentAfterMs: ex.sentAfterMs }),
      // "Reproduce it": the command that sends this request again, for every case a reader will look into
      ...(verdict === 'PASS' ? {} : { curl: curlCommand(ex, c.config.network, curlOptionsOf(c.config, c.rt.client.signer, c.def.id)) }) })),
  });
}

/** What of the document the case tests, and a digest of each thing it was built from (spec-refs.ts): what a re-judge under a newer document compares. */
function specEvidence(def: CaseDefinition): { tests: string[]; refs: Record<string, string> } {
  const { tests, builtFrom } = specRefsOf(def);
  return { tests, refs: refDigests(builtFrom, currentSpec()) };
}

function finish(c: CaseContext, testInfo: TestInfo): void {
  const verdict = c.verdict;
  testInfo.annotations.push({ type: 'verdict', description: verdict });
  for (const n of c.notes) if (n.verdict !== 'PASS') testInfo.annotations.push({ type: n.verdict.toLowerCase(), description: n.text });
  if (Object.keys(c.observations).length) testInfo.annotations.push({ type: 'observation', description: maskText(JSON.stringify(c.observations)) });
  if (c.faults.length) testInfo.annotations.push({ type: 'transient', description: JSON.stringify(c.faults) });
  const causes = c.notes.filter((n) => n.cause).map((n) => ({ verdict: n.verdict, cause: n.cause, ...(n.testedBy ? { testedBy: n.testedBy } : {}) }));
  if (causes.length) testInfo.annotations.push({ type: 'causes', description: JSON.stringify(causes) });
  const waiver = c.rt.waivers.find((w) => w.case === c.def.id);
  if (waiver) testInfo.annotations.push({ type: waiver.verdict === verdict ? 'waiver-used' : 'waiver-not-needed', description: `${waiver.verdict}: ${waiver.comment}` });
  // INCONCLUSIVE and NOT_RUN block certification like ERROR: the run fails on them too (outcome.ts)
  const status = testStatusOf(verdict, waiver?.verdict === verdict);
  const skipped = status === 'skipped';
  const failed = status === 'failed';
  // after the annotations, so the evidence holds them all
  recordEvidence(c, testInfo, verdict, status);
  if (skipped) test.skip(true, `${verdict}: ${c.skipReason}`);
  if (failed) {
    const lines = c.notes.filter((n) => n.verdict === verdict).map((n) => `- ${n.text}`);
    // A FAIL is a normal outcome of a conformance run, not a broken worker: declared expected, it
    // keeps Playwright from discarding the worker and starting another (which made a failing run
    // about twice as slow as a clean one). The run still fails: the certification reporter's onEnd
    // fails it on every such case, and the package, junit.xml and the verdicts come from the evidence.
    test.fail(true, `${verdict}: a verdict of the target, reported by the certification reporter`);
    throw new Error(`${verdict} ${c.def.id}: expected ${c.def.expectation}\n${lines.join('\n')}`);
  }
}
