/**
 * A target that goes down mid-run (design.md §10): redeploys and maintenance pages are common in a
 * 46-minute run, and a case that spends its retries against a target that is simply away ends
 * ERROR for no fault of the rule it checks. The watch sees every call's outcome (all workers'
 * calls pass through the coordinator that holds it). After `threshold` transient failures in a
 * row (refused, reset, timed out, 502/503/504; whatever the operation), it sends a probe, a
 * harmless enquiry: if that fails too, the target is down. Then no call is granted (the whole run
 * pauses), one probe per window (or the target's Retry-After, when longer) watches for its return,
 * and the run goes on where it stopped. Cases do not count the failures an outage covers against
 * their retries. An outage longer than `maxSeconds` is given up: the run stops, resumable.
 */

/** One call's outcome as the watch needs it: did the target answer, and if not, how. */
export interface Health { ok: boolean; op: string; kind?: string; retryAfterMs?: number; /** When the call ended (ms): a streak starts at its first failure, not at its report. */ at?: number }

/** A probe's result, with a line of evidence (masked by the caller). */
export interface ProbeResult extends Omit<Health, 'at'> { at: string; summary: string }

export interface Outage {
  /** When the first failure of the streak that turned out to be an outage happened (ISO). */
  start: string;
  /** When a probe first got an answer again; null while it lasts. */
  end: string | null;
  durationMs: number;
  /** The transient kinds seen during it, with their counts. */
  kinds: Record<string, number>;
  /** Probes sent, and what the last one met. */
  probes: number;
  lastProbe: string | null;
  /** The run gave up waiting (SADAD_MAX_OUTAGE_SECONDS). */
  gaveUp: boolean;
}

export interface OutageOptions {
  /** Sends one probe (through the pacer) and says whether the target answered. */
  probe: (op: string) => Promise<ProbeResult>;
  /** The target's rate window: one probe per window. */
  windowMs: number;
  maxSeconds: number;
  /** Transient failures in a row (across all operations) before the target is probed. */
  threshold?: number;
  /** Every change: an outage begins, a probe is sent, it ends, the run gives up. */
  onChange?: (outages: Outage[]) => void;
  onGiveUp?: (outage: Outage) => void;
  now?: () => number;
}

/** The kinds that say the target is away; a 429 says it is there and busy, a refused token that it is there. */
export const OUTAGE_KINDS = new Set(['refused', 'reset', 'timeout', 'HTTP 502', 'HTTP 503', 'HTTP 504']);

export const DEFAULT_THRESHOLD = 3;

/** The enquiry that probes an operation's side of the service: probing changes nothing. */
const PROBE_OF = (op: string) => (op.startsWith('moi') ? 'moi-enquiry' : 'bill-enquiry');

export class OutageWatch {
  private streak = 0;
  private streakStart = 0;
  private streakKinds: Record<string, number> = {};
  private lastOp = 'bill-enquiry';
  private lastRetryAfterMs = 0;
  /** Resolves when the current suspicion or outage is over (null: nothing to wait for). */
  private pause: Promise<void> | null = null;
  private current: Outage | null = null;
  readonly outages: Outage[] = [];
  private readonly threshold: number;

  constructor(private readonly o: OutageOptions) {
    this.threshold = o.threshold ?? DEFAULT_THRESHOLD;
  }

  private now(): number { return (this.o.now ?? Date.now)(); }

  /** Whether the run is paused (a probe is out, or the target is down). */
  get paused(): boolean { return this.pause !== null; }

  /** Resolves at once, or when the target is back: what every grant waits for. */
  gate(): Promise<void> {
    return this.pause ?? Promise.resolve();
  }

  /** One call's outcome; enough failures in a row start the probing. */
  report(h: Health): void {
    if (h.ok) {
      if (!this.pause) { this.streak = 0; this.streakKinds = {}; }
      return;
    }
    if (!h.kind || !OUTAGE_KINDS.has(h.kind)) return;
    if (this.streak === 0) this.streakStart = Math.min(h.at ?? this.now(), this.now());
    this.streak++;
    this.streakKinds[h.kind] = (this.streakKinds[h.kind] ?? 0) + 1;
    this.lastOp = h.op;
    if (h.retryAfterMs !== undefined) this.lastRetryAfterMs = h.retryAfterMs;
    if (this.current) this.current.kinds[h.kind] = (this.current.kinds[h.kind] ?? 0) + 1;
    if (this.streak >= this.threshold && !this.pause) this.pause = this.watch();
  }

  /** The outages, as they stand (the current one included). */
  list(): Outage[] {
    return this.outages.map((x) => ({ ...x, kinds: { ...x.kinds }, durationMs: x.end ? x.durationMs : this.now() - Date.parse(x.start) }));
  }

  /** Probes until the target answers; records an outage when the first probe fails too. */
  private async watch(): Promise<void> {
    const startMs = this.streakStart;
    try {
      for (let n = 1; ; n++) {
        const r = await this.o.probe(PROBE_OF(this.lastOp)).catch((e: Error): ProbeResult => ({ ok: false, op: PROBE_OF(this.lastOp), kind: 'reset', at: new Date(this.now()).toISOString(), summary: `the probe broke: ${e.message}` }));
        if (r.ok) {
          if (this.current) {
            this.current.end = r.at;
            this.current.durationMs = Date.parse(r.at) - startMs;
            this.current.probes = n;
            this.current.lastProbe = r.summary;
            this.changed();
          }
          return;
        }
        if (r.retryAfterMs !== undefined) this.lastRetryAfterMs = r.retryAfterMs;
        if (!this.current) {
          this.current = { start: new Date(startMs).toISOString(), end: null, durationMs: 0, kinds: { ...this.streakKinds }, probes: 0, lastProbe: null, gaveUp: false };
          this.outages.push(this.current);
        }
        if (r.kind) this.current.kinds[r.kind] = (this.current.kinds[r.kind] ?? 0) + 1;
        this.current.probes = n;
        this.current.lastProbe = r.summary;
        this.current.durationMs = this.now() - startMs;
        this.changed();
        if (this.now() - startMs > this.o.maxSeconds * 1000) {
          this.current.gaveUp = true;
          this.changed();
          this.o.onGiveUp?.(this.current);
          // the run is stopping: nothing waiting on the gate is let through
          await new Promise<void>(() => {});
        }
        // one probe a window, or later when the target asks for it (its Retry-After, bounded by the maximum)
        const wait = Math.min(Math.max(this.o.windowMs, this.lastRetryAfterMs), this.o.maxSeconds * 1000);
        await new Promise<void>((resolve) => setTimeout(resolve, wait).unref?.());
      }
    } finally {
      this.current = null;
      this.streak = 0;
      this.streakKinds = {};
      this.lastRetryAfterMs = 0;
      this.pause = null;
    }
  }

  private changed(): void { this.o.onChange?.(this.list()); }
}

/** Whether an outage covers the moment `at` (ms): a failure then is not the case's to count. */
export function coveredBy(outages: Pick<Outage, 'start' | 'end'>[], at: number, now = Date.now()): boolean {
  return outages.some((o) => at >= Date.parse(o.start) && at <= (o.end ? Date.parse(o.end) : now));
}
