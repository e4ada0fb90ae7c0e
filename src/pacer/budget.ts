/**
 * One operation's call budget (design.md §6). Behind a real gateway the limiter is not ours to
 * choose: fixed or clock-aligned windows, exact or blending sliding windows (HAProxy's
 * http_req_rate), token buckets with or without burst, smoothing limiters that let one call through
 * per window / limit (nginx limit_req without burst, Apigee SpikeArrest), refused calls counted or
 * not. One schedule fits them all:
 *
 * - **Even spacing.** Calls start at least `spacing` = (window + margin) / limit apart (GCRA with
 *   no burst tolerance): over a run a burst is no faster, and a smoothing limiter never sees two
 *   calls closer than it allows. Every call occupies a slot of the schedule, an exclusive holder's
 *   and a refused one included (gateways count denied requests).
 * - **At most `limit` calls in any interval of window + margin**, a call counting from its start
 *   until its answer has arrived (in flight it counts as "now"): whatever instant the target counts
 *   it at, a slow answer cannot let two calls meet in one window.
 * - **Adaptation.** A call the gateway refused as over its limit outside a burst (`refused`) slows
 *   the operation down: the spacing doubles (up to MAX_FACTOR times), the next call waits for the
 *   gateway's Retry-After when it gives one, and every `limit` calls without a refusal halve what
 *   is left of the slowdown, back to the configured spacing. Refusals of calls sent before the last
 *   slowdown are the same round and do not slow it again.
 * - **Exclusive holds** (the rate-limit and concurrent-duplicate cases, which send together on
 *   purpose) start once the operation has been quiet long enough that even a blending limiter has
 *   forgotten its earlier calls (`quietSpans`), may exceed the limit, and their calls stay in the
 *   schedule afterwards: the operation rests until the limiter has forgotten the burst.
 *
 * A monotonic clock: a wall clock set forward (NTP, a laptop waking up) must not make old calls
 * look expired early; while a machine sleeps it stands still, which only makes the pacer wait longer.
 */
export interface BudgetStats {
  calls: number;
  waitedMs: number;
  maxInWindow: number;
  exclusiveHolds: number;
  /** The configured spacing of calls (ms): (window + margin) / limit. */
  spacingMs: number;
  /** Calls the gateway refused as over its limit outside the bursts (each slowed the operation down). */
  refused: number;
  /** The widest spacing adaptation went to, and the spacing at the end (ms). */
  slowestSpacingMs: number;
  finalSpacingMs: number;
  /** Time the operation's calls waited beyond the configured schedule because of refusals (ms). */
  lostMs: number;
}

interface Slot { id: number; start: number; end?: number }
/** `size`: how many calls an exclusive holder sends together (a regular waiter: 0). */
interface Waiter { exclusive: boolean; size: number; asked: number; resolve: (id: number) => void }

/** The spacing of an operation's first window's worth of calls, as a share of the configured one. */
const WARM_UP = 1.2;

/** How far adaptation may slow an operation down: 8 times the configured spacing. */
export const MAX_FACTOR = 8;

/**
 * Quiet (in windows + margin) an operation needs before a burst, so that the limit it tests starts
 * empty in every limiter. A windowed or bucket limiter forgets a call one window after it; HAProxy's
 * http_req_rate still weighs the previous period in (current + previous x the share of the period
 * still to come), by about limit x ((2 - q) / 2)^2 calls after q quiet windows of evenly spaced calls,
 * plus the call a period boundary can add: under one call (what its integer rate rounds away) from
 * q = 2 - 1.35 / sqrt(limit), found by simulating its formula over every phase (1.2 windows for a
 * limit of 3, 1.5 for 10, 1.8 for 50), checked against HAProxy 2.6; 0.05 more for good measure.
 */
export function quietSpans(limit: number): number {
  return Math.min(2, Math.max(1, 2 - 1.35 / Math.sqrt(Math.max(1, limit)) + 0.05));
}

export class Budget {
  private slots: Slot[] = [];
  private queue: Waiter[] = [];
  private nextId = 1;
  private holder: number | undefined;
  /** The holder sends more than half the limit together: a burst that fills the window. */
  private holderFills = false;
  private timer: NodeJS.Timeout | undefined;
  /** Earliest start of the next call: the even schedule, slowed by `factor`. */
  private nextAt = -Infinity;
  /** The same schedule as if nothing had been refused: what `lostMs` is measured against. */
  private nextAtPlain = -Infinity;
  /** A Retry-After the gateway asked for. */
  private pausedUntil = -Infinity;
  /** When the operation last had a call start or end: the quiet before a burst counts from it. */
  private lastActivity = -Infinity;
  private factor = 1;
  private grantsSinceChange = 0;
  /** The last calls' durations, for `usualDurationMs`. */
  private readonly durations: number[] = [];
  /** When the last exclusive call started: a burst, which even a blending limiter needs two windows to forget. */
  private lastBurst = -Infinity;
  /** Wall-clock time of the last slowdown: refusals of calls sent before it are the same round. */
  private lastSlowdownWall = -Infinity;
  /** The run is stopping (`stop`): nothing is granted any more. */
  private stopped = false;
  readonly spacingMs: number;
  readonly stats: BudgetStats;

  constructor(readonly limit: number, readonly windowMs: number, readonly marginMs: number, private readonly now: () => number = () => performance.now()) {
    this.spacingMs = this.spanMs / limit;
    this.stats = { calls: 0, waitedMs: 0, maxInWindow: 0, exclusiveHolds: 0, spacingMs: round(this.spacingMs), refused: 0, slowestSpacingMs: round(this.spacingMs), finalSpacingMs: round(this.spacingMs), lostMs: 0 };
  }

  private get spanMs() { return this.windowMs + this.marginMs; }

  /** The spacing now, adaptation included. */
  get currentSpacingMs(): number { return this.spacingMs * this.factor; }

  /** Slots that still count against a call starting now. */
  private counting(now: number): Slot[] {
    this.slots = this.slots.filter((s) => s.end === undefined || s.end > now - this.spanMs);
    return this.slots;
  }

  /** Waits for the operation's next slot (FIFO, behind any exclusive holder); resolves with a slot id to release. */
  acquire(): Promise<number> {
    return this.enqueue(false);
  }

  /**
   * Waits until the operation is idle and quiet enough for `size` calls sent together (default: a
   * whole window's worth and more, as the rate-limit case sends), then holds it; resolves with the
   * holder id.
   */
  acquireExclusive(size = Infinity): Promise<number> {
    return this.enqueue(true, size);
  }

  /** A call made by the exclusive holder: recorded, never delayed. */
  recordExclusiveCall(holder: number): number {
    if (holder !== this.holder) throw new Error('not the exclusive holder of this operation');
    this.lastBurst = this.now();
    return this.open();
  }

  release(slotId: number): void {
    const slot = this.slots.find((s) => s.id === slotId);
    const now = this.now();
    if (slot && slot.end === undefined) {
      slot.end = now;
      const took = now - slot.start;
      // A call that took much longer than this operation's calls usually do may have reached the
      // target late (a worker's first call builds its connection; a loaded machine sends late): as
      // far as a smoothing limiter can tell, the next call must be a spacing after that arrival,
      // which is at most its answer less the usual answer time.
      const usual = this.usualDurationMs();
      if (took > usual + 2) this.nextAt = Math.max(this.nextAt, now - usual + this.currentSpacingMs);
      this.durations.push(took);
      if (this.durations.length > 16) this.durations.shift();
      this.lastActivity = Math.max(this.lastActivity, now);
    }
    // a release of a slot already released (the coordinator's lease, long after the answer) is no
    // activity: taken as one, it kept a burst from ever finding its operation quiet
    this.pump();
  }

  /**
   * The median of the operation's last calls' durations (from grant to answer); before the third,
   * the shortest so far, and before the first none at all: the run's first calls are the ones that
   * build connections and warm the target up, the likeliest to reach it late.
   */
  private usualDurationMs(): number {
    if (!this.durations.length) return 0;
    const sorted = [...this.durations].sort((a, b) => a - b);
    return this.durations.length < 3 ? sorted[0]! : sorted[Math.floor(sorted.length / 2)]!;
  }

  releaseExclusive(holder: number): void {
    if (holder !== this.holder) return;
    this.holder = undefined;
    this.lastActivity = Math.max(this.lastActivity, this.now());
    this.pump();
  }

  /**
   * The gateway refused a call of this operation as over its limit, outside a burst. `sentAtWall`
   * (epoch ms): a call sent before the last slowdown belongs to the round that caused it.
   * `retryAfterMs`: the gateway's Retry-After, honoured for the next call (bounded by the caller).
   */
  refused(sentAtWall: number, retryAfterMs?: number): void {
    this.stats.refused++;
    const now = this.now();
    if (retryAfterMs !== undefined) this.pausedUntil = Math.max(this.pausedUntil, now + retryAfterMs);
    if (sentAtWall >= this.lastSlowdownWall) {
      this.factor = Math.min(MAX_FACTOR, this.factor * 2);
      this.lastSlowdownWall = Date.now();
      this.grantsSinceChange = 0;
      this.stats.slowestSpacingMs = Math.max(this.stats.slowestSpacingMs, round(this.currentSpacingMs));
      this.stats.finalSpacingMs = round(this.currentSpacingMs);
    }
    // the refused call held a slot of the schedule: the next one keeps the slower spacing from now
    this.nextAt = Math.max(this.nextAt, now + this.currentSpacingMs);
    this.pump();
  }

  /**
   * The run is stopping: nothing waiting is granted, and nothing asked for from now on (the waits
   * never resolve; the coordinator answers them with `stopping`). Calls granted before go on and are
   * released as usual, so the operation's figures count only calls that were sent.
   */
  stop(): void {
    this.stopped = true;
    this.queue = [];
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
  }

  private enqueue(exclusive: boolean, size = 0): Promise<number> {
    const asked = this.now();
    if (this.stopped) return new Promise<number>(() => {});
    return new Promise<number>((resolve) => {
      this.queue.push({ exclusive, size, asked, resolve: (id) => { this.stats.waitedMs += this.now() - asked; resolve(id); } });
      this.pump();
    });
  }

  private open(): number {
    const now = this.now();
    const slot: Slot = { id: this.nextId++, start: now };
    this.slots.push(slot);
    this.stats.calls++;
    this.stats.maxInWindow = Math.max(this.stats.maxInWindow, this.counting(now).length);
    // the first window's worth of calls a fifth wider apart: they build the workers' connections and
    // warm the target up, and reach it later after their start than the calls that follow them
    const warming = this.stats.calls <= this.limit ? WARM_UP : 1;
    this.nextAt = Math.max(this.nextAt, now) + this.currentSpacingMs * warming;
    this.nextAtPlain = Math.max(this.nextAtPlain, now) + this.spacingMs * warming;
    this.lastActivity = now;
    return slot.id;
  }

  /**
   * Every half a window's worth of calls without a refusal halves what is left of the slowdown:
   * back to the configured spacing within a few windows, which costs a refusal met once (a late
   * call, a blip) little, while a gateway stricter than the configured limit is refused again soon.
   */
  private recover(): void {
    if (this.factor === 1 || ++this.grantsSinceChange < Math.ceil(this.limit / 2)) return;
    this.grantsSinceChange = 0;
    this.factor = 1 + (this.factor - 1) / 2;
    if (this.factor < 1.05) this.factor = 1;
    this.stats.finalSpacingMs = round(this.currentSpacingMs);
  }

  /** Grants what can be granted now, strictly in arrival order, and arms a timer for the rest. */
  private pump(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    while (this.queue.length && this.holder === undefined) {
      const now = this.now();
      const live = this.counting(now);
      const head = this.queue[0]!;
      if (head.exclusive) {
        const fills = head.size > this.limit / 2;
        // quiet enough that even a blending limiter has room: for a burst that fills the window, the
        // limit's quiet; for a smaller one, its calls' worth of spacings and two more (simulated
        // against HAProxy's formula like quietSpans); and two windows after the last burst, which a
        // blending limiter weighs whole into the next period
        const quiet = fills ? quietSpans(this.limit) * this.spanMs : Math.min(quietSpans(this.limit) * this.spanMs, (head.size + 2) * this.spacingMs);
        const notBefore = Math.max(this.lastBurst + 2 * this.spanMs, this.pausedUntil);
        // until the quiet has to begin, the calls queued behind the holder go on: a burst waiting
        // for the last one to be forgotten holds no one up
        if (now + quiet < notBefore) {
          if (this.grantBehind(now)) continue;
          const behind = this.queue.some((w) => !w.exclusive) ? Math.max(this.nextAt, this.pausedUntil, live.length >= this.limit ? Math.min(...live.map((x) => (x.end ?? Infinity) + this.spanMs)) : -Infinity) : Infinity;
          return this.sleepUntil(Math.min(notBefore - quiet, behind));
        }
        // a burst that fills the window needs it empty: in flight or inside the window, the release
        // (or the window's end) wakes us; a smaller one only needs no call in flight
        const blocking = fills ? live : live.filter((s) => s.end === undefined);
        if (blocking.length) return this.wake(blocking, -Infinity);
        const ready = Math.max(this.lastActivity + quiet, notBefore);
        if (now < ready) return this.wake([], ready);
        this.queue.shift();
        this.holderFills = fills;
        this.holder = this.nextId++;
        this.stats.exclusiveHolds++;
        head.resolve(this.holder);
      } else {
        const ready = Math.max(this.nextAt, this.pausedUntil);
        if (live.length >= this.limit || now < ready) return this.wake(live.length >= this.limit ? live : [], ready);
        // a call in flight for longer than calls usually take may reach the target any moment now:
        // the next one waits for its answer (which moves `nextAt`), for at most two spacings more
        const late = this.lateInFlight(now);
        if (late) return this.sleepUntil(late.start + this.usualDurationMs() + 2 * this.currentSpacingMs);
        // what the refusals cost this call: the wait beyond the plain schedule and its own arrival
        const plain = Math.max(this.nextAtPlain, head.asked);
        if (ready > plain) this.stats.lostMs += Math.round(Math.min(now, ready) - plain);
        this.queue.shift();
        // the call takes the spacing in force; the slowdown eases for the ones after it
        head.resolve(this.open());
        this.recover();
      }
    }
  }

  /** The oldest call in flight for longer than calls usually take, while that is under two spacings past it. */
  private lateInFlight(now: number): Slot | undefined {
    const usual = this.usualDurationMs();
    return this.slots.find((x) => x.end === undefined && now - x.start > usual + 2 && now - x.start < usual + 2 * this.currentSpacingMs);
  }

  /** A timer for `at` (a release wakes the queue earlier when it comes first). */
  private sleepUntil(at: number): void {
    if (!Number.isFinite(at)) return;
    this.timer = setTimeout(() => this.pump(), Math.max(1, Math.ceil(at - this.now()) + 1));
    this.timer.unref?.();
  }

  /** Grants the first regular waiter behind a waiting holder, when the schedule allows it now. */
  private grantBehind(now: number): boolean {
    const i = this.queue.findIndex((w) => !w.exclusive);
    if (i < 0) return false;
    const live = this.counting(now);
    if (live.length >= this.limit || now < Math.max(this.nextAt, this.pausedUntil)) return false;
    const [w] = this.queue.splice(i, 1);
    w!.resolve(this.open());
    this.recover();
    return true;
  }

  /**
   * Sleeps until the schedule allows the next call (`ready`), or until the oldest finished slot
   * stops counting; in-flight slots wake us on release.
   */
  private wake(live: Slot[], ready: number): void {
    const ends = live.filter((s) => s.end !== undefined).map((s) => s.end! + this.spanMs);
    const blocked = live.length > 0 && ends.length === 0;
    const at = Math.max(ready, ends.length ? Math.min(...ends) : -Infinity);
    if (blocked && ready <= this.now()) return;
    if (!Number.isFinite(at)) return;
    const delay = Math.max(1, Math.ceil(at - this.now()) + 1);
    this.timer = setTimeout(() => this.pump(), delay);
    this.timer.unref?.();
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/**
 * A margin that absorbs the network's jitter and timer granularity between the suite and the
 * target's counter. 1 % of the window (0.6 s of a 60 s window: jitter on the way to a sandbox is
 * tenths of a second), at least 30 ms; at least 50 ms for the embedded mock's sub-second windows,
 * where a loaded machine's timers are the jitter (measured: docs/running.md). It is paid on every
 * window of a run, so it is kept small: a gateway stricter than the margin allows is met by
 * adaptation, not by a larger margin for every target.
 */
export function defaultMarginMs(windowMs: number): number {
  return Math.min(2000, Math.max(windowMs < 1000 ? 50 : 30, Math.round(windowMs * 0.01)));
}
