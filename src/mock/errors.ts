/**
 * Rejections and the HTTP error body. The spec shows no error form (§7), so the body copies the
 * one a production deployment uses (domain notes): `{ correlationId, bankCode, errorCode,
 * errorMessage, timeStamp }`, plus `details` naming the offending paths.
 */
import { randomUUID } from 'node:crypto';

export interface ErrorDetail {
  /** JSON pointer into the request body, or `header:<Name>` for a request header. */
  pointer: string;
  expected: string;
  found: string;
}

export interface ErrorBody {
  correlationId: string;
  bankCode: string;
  errorCode: string;
  errorMessage: string;
  timeStamp: string;
  details?: ErrorDetail[];
}

/** A rejection of a single entry by the business rules: in-band it becomes a failed StatusCode. */
export interface Rejection {
  status: number;
  code: string;
  message: string;
  detail?: ErrorDetail;
  /** Always answered in-band (HTTP 200, failing status), also when MOCK_ERRORS=http. */
  inBand?: boolean;
}

export const REJECTIONS = {
  notFound: (what: string): Rejection => ({ status: 422, code: 'MW-001', message: `${what} not found` }),
  expired: (what: string): Rejection => ({ status: 422, code: 'MW-002', message: `${what} expired` }),
  alreadyPaid: (what: string): Rejection => ({ status: 422, code: 'MW-003', message: `${what} already paid` }),
  amountNotAllowed: (why: string): Rejection => ({ status: 422, code: 'MW-004', message: `Amount not allowed: ${why}` }),
  feeMismatch: (why: string): Rejection => ({ status: 422, code: 'MW-005', message: `Fee reference or due amount mismatch: ${why}` }),
  billerUnavailable: (): Rejection => ({ status: 200, code: 'MW-006', message: 'Biller system unavailable, try again later', inBand: true }),
  duplicate: (): Rejection => ({ status: 409, code: 'MW-409-DUPLICATE', message: 'Duplicate transaction: SequenceNumber already used by an accepted payment' }),
  validation: (): Rejection => ({ status: 400, code: 'MW-400-VALIDATION', message: 'Request does not match the contract' }),
};

/** `<code> <message>` as an in-band `StatusDetail`. */
export const statusDetailOf = (r: Rejection) => `${r.code} ${r.message}`;

/** Thrown anywhere in a request's life; the server's error handler turns it into the error body. */
export class MockError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errorCode: string,
    readonly errorMessage: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(`${errorCode} ${errorMessage}`);
    this.name = 'MockError';
  }
}

export const unauthorized = (detail: ErrorDetail, headers: Record<string, string> = {}) =>
  new MockError(401, 'MW-401', 'UNAUTHORIZED', [detail], { 'www-authenticate': 'Bearer realm="sadad-mock"', ...headers });

export const malformed = (why: string) => new MockError(400, 'MW-400-MALFORMED', `Malformed request body: ${why}`);

/** ISO 8601 with milliseconds and the local offset, like the deployment's `timeStamp`. */
export function isoWithOffset(date = new Date()): string {
  const p = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  return `${date.getFullYear()}-${p(date.getMonth() + 1)}-${p(date.getDate())}T${p(date.getHours())}:${p(date.getMinutes())}:${p(date.getSeconds())}.${p(date.getMilliseconds(), 3)}${sign}${p(Math.trunc(off / 60))}:${p(off % 60)}`;
}

export function errorBody(err: MockError, correlationId: string = randomUUID()): ErrorBody {
  const body: ErrorBody = { correlationId, bankCode: '', errorCode: err.errorCode, errorMessage: err.errorMessage, timeStamp: isoWithOffset() };
  if (err.details && err.details.length > 0) body.details = err.details;
  return body;
}
