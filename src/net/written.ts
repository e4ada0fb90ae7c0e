/**
 * When a request actually left on its connection, as undici reports it (its diagnostics channels):
 * calls a case sends together still reach the target apart when each opens a connection of its own
 * on a loaded machine, and a token bucket frees a call every window / limit. The rate-limit check
 * reads these times to tell "all accepted" by a target over its limit from a conformant bucket that
 * met calls spread out (suite/burst.ts). The request is tied to its send through the async context
 * undici creates it in, so nothing is added to what goes on the wire.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';

/** Filled in when the request's headers are written (Date.now()), if they were. */
export interface Written { at?: number }

const current = new AsyncLocalStorage<Written>();
const ofRequest = new WeakMap<object, Written>();
let subscribed = false;

function listen(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:request:create', (message) => {
    const w = current.getStore();
    if (w) ofRequest.set((message as { request: object }).request, w);
  });
  // through a proxy's tunnel too: the request to the target is written by a client over the tunnel
  subscribe('undici:client:sendHeaders', (message) => {
    const w = ofRequest.get((message as { request: object }).request);
    if (w && w.at === undefined) w.at = Date.now();
  });
}

/** Runs `send` (one request through undici), noting in `written` when its headers went out. */
export function noteWritten<T>(written: Written, send: () => Promise<T>): Promise<T> {
  listen();
  return current.run(written, send);
}
