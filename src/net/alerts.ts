/**
 * Keeps the TLS alert a server ended a connection with, so that the call's error can name it.
 *
 * With TLS 1.3 a server checks the client certificate after the client's side of the handshake is
 * done: undici has already sent the request when the alert (certificate required, unknown CA)
 * arrives. The socket emits the alert as its error and then ends, and undici reports the end,
 * `UND_ERR_SOCKET: other side closed`, dropping the alert: a refused client certificate would read as
 * a dropped connection, a transient fault, and be retried. undici's diagnostics channels (a public
 * API) let the alert be put back: the socket of each request is known when its headers are sent,
 * and the request's error is published before fetch or request() rejects with it, so the alert
 * becomes that error's `cause`, which describeNetworkError reads.
 */
import { subscribe } from 'node:diagnostics_channel';

/** An alert from the peer (`ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED`, `ERR_SSL_TLSV1_ALERT_UNKNOWN_CA`, ...), or a failed verification. */
const TLS_ERROR = /^ERR_SSL_|^ERR_TLS_|CERT/;

type CodedError = Error & { code?: string };

const alertOf = new WeakMap<object, CodedError>();
const socketOf = new WeakMap<object, object>();
let installed = false;

export function captureTlsAlerts(): void {
  if (installed) return;
  installed = true;
  subscribe('undici:client:connected', (message) => {
    const socket = (message as { socket?: NodeJS.EventEmitter }).socket;
    socket?.on('error', (e: CodedError) => { if (typeof e?.code === 'string' && TLS_ERROR.test(e.code) && !alertOf.has(socket)) alertOf.set(socket, e); });
  });
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request?: object; socket?: object };
    if (request && socket) socketOf.set(request, socket);
  });
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request?: object; error?: CodedError & { cause?: unknown } };
    const socket = request && socketOf.get(request);
    const alert = socket && alertOf.get(socket);
    if (alert && error && error !== alert && error.cause === undefined) error.cause = alert;
  });
}
