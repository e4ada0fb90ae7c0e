/**
 * One operation's call budget: at most `limit` calls in any interval of `windowMs` (+ margin).
 * A call occupies its slot from the moment it is sent until its answer has arrived (in flight it
 * counts as "now"), so whatever instant the target counts it at, no window of the target's, fixed
 * or sliding, can see more than `limit` calls. Exclusive holders (the rate-limit cases) get a
 * fresh window and may exceed the limit on purpose; their calls stay in the log afterwards.
 */
export interface BudgetStats { calls: number; waitedMs: number; maxInWindow: number; exclusiveHolds: number }

interface Slot { id: number; start: number; end?: number }
interface Waiter { exclusive: boolean; resolve: (id: number) => void }

export class Budget {
  private slots: Slot[] = [];
  private queue: Waiter[] = [];
  private nextId = 1;
  private holder: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  readonly stats: BudgetStats = { calls: 0, waitedMs: 0, maxInWindow: 0, exclusiveHolds: 0 };

  // A monotonic clock: a wall clock set forward (NTP, a laptop waking up) must not make old calls
  // look expired early; while a machine sleeps it stands still, which only makes the pacer wait longer.
  constructor(readonly limit: number, readonly windowMs: number, readonly marginMs: number, private readonly now: () => number = () => performance.now()) {}

  private get spanMs() { return this.windowMs + this.marginMs; }

  /** Slots that still count against a call starting now. */
  private counting(now: number): Slot[] {
    this.slots = this.slots.filter((s) => s.end === undefined || s.end > now - this.spanMs);
    return this.slots;
  }

  /** Waits for room under the limit (FIFO, behind any exclusive holder); resolves with a slot id to release. */
  acquire(): Promise<number> {
    return this.enqueue(false);
  }

  /** Waits until the operation is idle and its window fresh, then holds it; resolves with the holder id. */
  acquireExclusive(): Promise<number> {
    return this.enqueue(true);
  }

  /** A call made by the exclusive holder: recorded, never delayed. */
  recordExclusiveCall(holder: number): number {
    if (holder !== this.holder) throw new Error('not the exclusive holder of this operation');
    return this.open();
  }

  release(slotId: number): void {
    const slot = this.slots.find((s) => s.id === slotId);
    if (slot && slot.end === undefined) slot.end = this.now();
    this.pump();
  }

  releaseExclusive(holder: number): void {
    if (holder !== this.holder) return;
    this.holder = undefined;
    this.pump();
  }

  private enqueue(exclusive: boolean): Promise<number> {
    const asked = this.now();
    return new Promise<number>((resolve) => {
      this.queue.push({ exclusive, resolve: (id) => { this.stats.waitedMs += this.now() - asked; resolve(id); } });
      this.pump();
    });
  }

  private open(): number {
    const now = this.now();
    const slot: Slot = { id: this.nextId++, start: now };
    this.slots.push(slot);
    this.stats.calls++;
    this.stats.maxInWindow = Math.max(this.stats.maxInWindow, this.counting(now).length);
    return slot.id;
  }

  /** Grants what can be granted now, strictly in arrival order, and arms a timer for the rest. */
  private pump(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    while (this.queue.length && this.holder === undefined) {
      const now = this.now();
      const live = this.counting(now);
      const head = this.queue[0]!;
      if (head.exclusive) {
        if (live.length) return this.wake(live);
        this.queue.shift();
        this.holder = this.nextId++;
        this.stats.exclusiveHolds++;
        head.resolve(this.holder);
      } else {
        if (live.length >= this.limit) return this.wake(live);
        this.queue.shift();
        head.resolve(this.open());
      }
    }
  }

  /** Sleeps until the oldest finished slot stops counting; in-flight slots wake us on release. */
  private wake(live: Slot[]): void {
    const ends = live.filter((s) => s.end !== undefined).map((s) => s.end!);
    if (!ends.length) return;
    const delay = Math.max(1, Math.min(...ends) + this.spanMs - this.now() + 1);
    this.timer = setTimeout(() => this.pump(), delay);
    this.timer.unref?.();
  }
}

/** A margin that absorbs timer granularity and whole-second Retry-After rounding on the target's side. */
export function defaultMarginMs(windowMs: number): number {
  return Math.min(2000, Math.max(50, Math.round(windowMs * 0.05)));
}
