/**
 * What the mock offers a recorder of its traffic, and what it needs of one: the interface a caller
 * (certify-client's judge, src/judge/traffic.ts) implements, and the request fields the mock sets for
 * it. Declared here, below the judge, so the mock never imports the room that uses it.
 */
import type { FastifyInstance } from 'fastify';

/** Who produced the answer the client got. */
export type AnswerSource =
  /** the judge itself: the mock's answer, its rate limiter, or a scenario it injected */
  | 'judge'
  /** the sandbox behind the proxy */
  | 'upstream'
  /** the proxy, because the sandbox gave no answer (connection refused, reset, timeout) */
  | 'proxy-fault';

/** A recorder of the mock's traffic: it hooks itself into the app before the routes are added. */
export interface MockRecorder {
  attach(app: FastifyInstance): void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body text as received, kept for the recorder (set by the JSON parser). */
    rawBody?: string;
    /** The scenario injected on this call (scenarios.ts). */
    scenario?: string;
    /** Who answered (proxy mode sets `upstream` / `proxy-fault`). */
    answerSource?: AnswerSource;
    upstreamError?: string;
    /** Set when the mock drops the answer on purpose (a `lost` fault): the client sees a reset, whatever the socket reports. */
    answerLost?: boolean;
  }
}
