/**
 * A real forward proxy (the `proxy` package, TooTallNate's, as Squid-like as a test needs) on
 * 127.0.0.1, counting what it was asked for: CONNECT tunnels per target host:port and plain
 * (absolute-URI) requests. With `auth`, it wants Basic credentials and answers 407 without them.
 * Its outbound connections leave from `localAddress` (127.0.0.2 by default: all of 127/8 is the
 * loopback on Linux), so a server can tell a connection the proxy made from a direct one.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createProxy } from 'proxy';

export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  url: string;
  port: number;
  /** The source address of the proxy's connections to targets. */
  localAddress: string;
  /** CONNECT tunnels it opened, by `host:port`. */
  tunnels: Map<string, number>;
  /** Plain (absolute-URI) requests it forwarded. */
  requests: number;
  /** CONNECTs and requests refused with 407. */
  refused: number;
  tunnelCount(): number;
  close(): Promise<void>;
}

export const PROXY_SOURCE = '127.0.0.2';

export async function startForwardProxy(options: { auth?: { user: string; password: string }; localAddress?: string } = {}): Promise<ForwardProxy> {
  const server = createProxy(createServer());
  const localAddress = options.localAddress ?? PROXY_SOURCE;
  server.localAddress = localAddress;
  const tunnels = new Map<string, number>();
  const counters = { requests: 0, refused: 0 };
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.password}`).toString('base64')}` : undefined;
  // called for every CONNECT and request before the proxy acts on it: the one place that sees each
  server.authenticate = (req: IncomingMessage) => {
    if (expected !== undefined && req.headers['proxy-authorization'] !== expected) { counters.refused++; return false; }
    if (req.method === 'CONNECT') tunnels.set(req.url ?? '', (tunnels.get(req.url ?? '') ?? 0) + 1);
    else counters.requests++;
    return true;
  };
  // a tunnel's socket leaves the HTTP server's bookkeeping once CONNECT is answered: closeAllConnections
  // would not end it, and a client keeping it alive would hold close() open
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => { sockets.add(s); s.once('close', () => sockets.delete(s)); });
  await new Promise<void>((done, fail) => { server.once('error', fail); server.listen(0, '127.0.0.1', done); });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`, port, localAddress, tunnels,
    get requests() { return counters.requests; },
    get refused() { return counters.refused; },
    tunnelCount: () => [...tunnels.values()].reduce((a, b) => a + b, 0),
    close: () => new Promise<void>((done) => { server.close(() => done()); for (const s of sockets) s.destroy(); }),
  };
}
