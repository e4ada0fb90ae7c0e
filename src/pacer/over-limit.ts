/**
 * The gateway's over-limit answers, as the run has learned them. A 429 always is one. Gateways that
 * refuse with something else (nginx's limit_req answers 503 with its own HTML page unless told
 * otherwise; some answer 403) are recognised once a rate-limit case has seen exactly the calls over
 * the limit refused that way: the same answer met elsewhere is then the limiter too, and slows the
 * operation down instead of counting against the case that met it. A maintenance page is another
 * answer (another body), and stays a transient fault for the outage watch.
 */

/** An answer refused outside a burst, as the pacer needs it. */
export interface Refusal {
  status: number;
  /** `answerSignature` of the answer (status, content type and body without digits). */
  signature: string;
  retryAfterMs?: number;
  /** When the call was sent (epoch ms): a refusal of a call sent before the last slowdown is the same round. */
  sentAt: number;
}

export interface OverLimitAnswer { status: number; signature: string; op: string }

export class OverLimitAnswers {
  private readonly known = new Map<string, OverLimitAnswer>();

  learn(a: OverLimitAnswer): void {
    if (a.status === 429) return;
    const key = `${a.status} ${a.signature}`;
    if (!this.known.has(key)) this.known.set(key, a);
  }

  /** Whether the refusal is the limiter's: a 429, or an answer a rate-limit case showed to be it. */
  isOverLimit(r: Pick<Refusal, 'status' | 'signature'>): boolean {
    return r.status === 429 || this.known.has(`${r.status} ${r.signature}`);
  }

  list(): OverLimitAnswer[] { return [...this.known.values()]; }
}
